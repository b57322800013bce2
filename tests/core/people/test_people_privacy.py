"""A person's words stay theirs on a Team Cloud home, as a property over every path at once (docs/team-cloud.md).

A day with two people, Dana and Sam, each saying a word of their own (a marker) in private: in their 1:1 chat with
Scout (`chat --person`), in a Claude Code session (the hooks with `--person`), over MCP (`mcp --person`); the
bot's answers repeat it, as a bot does. Then the night: capture, tidy-up, organize, compaction, the guard and a
backup. Afterwards nothing the other person can reach holds a byte of the marker (the routes with their token,
their MCP tools and resources, their hooks' blocks, what their own chat turn tells the model, recall, search, the
brief, the bot's shared files, their layer and its index), and after `people remove dana --purge` Dana's marker is
nowhere in the home, every file read as bytes (indexes and their -wal/-shm, chats, logs, journals, `.seen` copies).
Every model answer comes from the scripted server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures
from support.mcp_helpers import connect
from support.serve_helpers import LiveServer
from support.transcripts import a_turn, payload, write_transcript

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import row_writer
from omb_tui.core.people.layers import layer_store
from omb_tui.core.recall.recall import recall
from omb_tui.core.search.brief import recent_work_brief
from omb_tui.core.search.session_search import session_search

PEOPLE = ("dana", "sam")
MARK = {"dana": "quokkadanamark", "sam": "wombatsammark"}  # one word each, so an index keeps it whole
SESSIONS = {"dana": "0d1e7f0a-93b2-4c1e-8f55-2a6f0c9e4b10", "sam": "5a1e7f0a-93b2-4c1e-8f55-2a6f0c9e4b11"}


def other(name: str) -> str:
    return "sam" if name == "dana" else "dana"


def files_holding(root: Path, word: str) -> list[str]:
    """Every file under `root` whose bytes hold `word` (as written, or lower-cased as an index keeps it)."""
    needles = {word.encode(), word.lower().encode()}
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and any(n in path.read_bytes() for n in needles):
            found.append(str(path.relative_to(root)))
    return found


def capture_answer(body: dict) -> dict | None:
    """Capture's model: each person's marker as a fact about them, quoted from their own words."""
    if body.get("tools"):
        return None  # a chat turn: the script answers it
    said = json.dumps(body["messages"])
    facts = [
        {
            "text": f"{name} keeps the locker word {MARK[name]}",
            "kind": "fact",
            "quotes": [f"My locker word is {MARK[name]}"],
            "target": "MEMORY.md",
            "until": None,
        }
        for name in PEOPLE
        if f"My locker word is {MARK[name]}" in said
    ]
    return {"content": json.dumps({"facts": facts})} if '"facts"' in said or "facts" in said else None


def play_a_private_day(home: Home, fake_llm, run_cli, run_exe, tmp_path: Path) -> None:
    """Both people say their marker in every private place there is; the bot repeats it; the night runs."""
    for name in PEOPLE:
        mark = MARK[name]
        fake_llm.script(
            {"tool_calls": [("memory_update", {"action": "add", "text": f"{name}'s locker word is {mark}"})]},
            {"content": f"Noted: your locker word is {mark}."},
        )
        chatted = run_cli(
            "chat", "scout", "--person", name, "--chat", f"{name}-private", stdin=f"My locker word is {mark}\n".encode()
        )
        assert chatted.code == 0, chatted.err
        # A Claude Code session of theirs, through the hooks the install writes.
        session = SESSIONS[name]
        transcript = write_transcript(
            tmp_path / f"{session}.jsonl", a_turn(f"My locker word is {mark}", f"Your locker word {mark} is kept.")
        )
        for event, hook in (("SessionStart", "session-start"), ("UserPromptSubmit", "prompt"), ("Stop", "stop")):
            sent = payload(event, transcript, session_id=session, prompt=f"My locker word is {mark}", source="startup")
            ran = run_exe("hook", hook, "--bot", "scout", "--person", name, stdin=sent)
            assert ran.returncode == 0, ran.stderr
    fake_llm.answer_for = capture_answer
    for night in (("capture", "scout"), ("tidy", "scout"), ("organize", "scout"), ("compact", "scout")):
        run_cli(*night)  # a step the scripted model cannot feed may fail: what it leaves is what is checked
    run_cli("guard", "scout")
    assert run_cli("backup", "--all", "--to", str(tmp_path / "home.tar")).code == 0


async def mcp_words(home: Home, name: str) -> str:
    """Everything an MCP session of `name`'s is told: its tools' answers to searches, and every resource."""
    told = []
    async with connect(home, extra=("--person", name)) as client:
        for tool, arguments in (
            ("session_search", {"query": "locker word"}),
            ("session_search", {"query": MARK[other(name)]}),
            ("session_search", {"since": "3d"}),
            ("recall", {"message": "what is the locker word"}),
            ("memory_status", {}),
        ):
            result = await client.call_tool(tool, arguments)
            told.extend(getattr(item, "text", "") for item in result.content)
        for resource in (await client.list_resources()).resources:
            told.extend(getattr(c, "text", "") for c in (await client.read_resource(resource.uri)).contents)
    return "\n".join(told)


async def test_no_byte_of_one_persons_words_reaches_the_other_and_a_purge_leaves_none(
    llm_home, fake_llm, run_cli, run_exe, tmp_path
):
    home = llm_home
    tokens = {name: json.loads(run_cli("people", "add", name, "--json").out)["token"] for name in PEOPLE}
    play_a_private_day(home, fake_llm, run_cli, run_exe, tmp_path)
    for name in PEOPLE:  # the day did keep each marker, so the checks below can fail
        assert files_holding(home.root, MARK[name]), name

    for name in PEOPLE:
        theirs = MARK[other(name)]
        # What their own chat turn tells the model (memory block, brief, recall) and what it prints.
        asked_before = len(fake_llm.requests)
        fake_llm.answer_for = None
        fake_llm.script({"content": "I cannot say."})
        chatted = run_cli(
            "chat", "scout", "--person", name, "--chat", f"{name}-asks", stdin=b"what is the locker word\n"
        )
        told_model = json.dumps([r.body for r in fake_llm.requests[asked_before:]])
        assert theirs not in told_model and theirs not in chatted.out + chatted.err, name
        # Their hooks' blocks.
        for event, hook in (("SessionStart", "session-start"), ("UserPromptSubmit", "prompt")):
            sent = payload(event, None, session_id=SESSIONS[name], prompt="what is the locker word", source="startup")
            ran = run_exe("hook", hook, "--bot", "scout", "--person", name, stdin=sent)
            assert theirs.encode() not in ran.stdout + ran.stderr, (name, hook)
        # Their MCP session.
        assert theirs not in await mcp_words(home, name), name
        # The core's answers for them.
        found = session_search(home, "scout", "locker word", for_person=name)
        by_time = session_search(home, "scout", since="3d", for_person=name)
        recalled = recall(home, "scout", "what is the locker word", for_person=name)
        brief = recent_work_brief(home, "scout", for_person=name)
        for answer in (found, by_time):
            assert theirs not in json.dumps(answer.to_dict()), name
        assert theirs not in recalled.block and theirs not in brief.text, name
        # The bot's shared files, their own layer and its index.
        for place in ("workspaces/scout", f"workspaces/scout--member-{name}"):
            assert not files_holding(home.root / place, theirs), (name, place)
        assert not [f for f in files_holding(home.root / "index", theirs) if f"--member-{name}" in f], name
        # The routes with their token.
        with LiveServer(home) as server:
            overview = server.get("/api/bots/scout/memory/mine", token=tokens[name])
            answers = [overview.data]
            for file in overview.data.get("files", []):
                path = file.get("path") if isinstance(file, dict) else file
                answers.append(server.get(f"/api/bots/scout/memory/mine/file?path={path}", token=tokens[name]).data)
            for url in ("/api/bots/scout/memory", "/api/bots/scout/memory/journal", "/api/bots/scout/memory/search"):
                answers.append(server.get(url, token=tokens[name]).data)
            assert theirs not in json.dumps(answers), name

    assert run_cli("people", "remove", "dana", "--purge").code == 0
    assert files_holding(home.root, MARK["dana"]) == [], files_holding(home.root, MARK["dana"])
    assert files_holding(home.root, MARK["sam"])  # Sam's own words are still his


def test_a_persons_answer_is_logged_in_their_layer_not_the_bots_shared_log(llm_home, fake_llm, run_cli):
    home = llm_home
    run_cli("people", "add", "dana")
    fake_llm.script({"content": "Your locker word is quokkadanamark."})
    assert run_cli("chat", "scout", "--person", "dana", "--chat", "d1", stdin=b"My locker word is quokka\n").code == 0
    shared_logs = list((home.workspace("scout") / "memory" / "log").glob("*.md"))
    assert not any("quokkadanamark" in log.read_text() for log in shared_logs)
    layer_logs = list((home.workspace("scout--member-dana") / "memory" / "log").glob("*.md"))
    assert any('said: "Your locker word is quokkadanamark."' in log.read_text() for log in layer_logs)


def test_chat_person_on_a_home_without_people_is_one_sentence_and_writes_nothing(llm_home, run_cli):
    before = sorted(p for p in llm_home.root.rglob("*"))
    refused = run_cli("chat", "scout", "--person", "dana", "--chat", "x", stdin=b"hello\n")
    assert refused.code == 2 and refused.err.count("\n") == 1 and "no people" in refused.err, refused.err
    assert sorted(p for p in llm_home.root.rglob("*")) == before


def test_a_chat_where_two_people_spoke_is_logged_nowhere(llm_home, fake_llm, run_cli):
    home = llm_home
    run_cli("people", "add", "dana")
    run_cli("people", "add", "sam")
    fake_llm.script({"content": "Hello Dana."}, {"content": "Heard you both: roomsecretword."})
    for speaker in ("dana", "sam"):
        assert run_cli("chat", "scout", "--chat", "standup", "--person", speaker, stdin=b"a word here\n").code == 0
    for workspace in ("scout", "scout--member-dana", "scout--member-sam"):
        assert not files_holding(home.workspace(workspace), "roomsecretword"), workspace
    assert files_holding(home.root, "roomsecretword")  # the chat itself keeps it


def test_a_persons_own_write_over_the_api_is_theirs_in_the_journal_and_changes(llm_home, run_cli):
    home = llm_home
    token = json.loads(run_cli("people", "add", "dana", "--json").out)["token"]
    with LiveServer(home) as server:
        saved = server.request(
            "PUT",
            "/api/bots/scout/memory/mine/file",
            {"path": "MEMORY.md", "text": "- I take the 8:10 train\n", "expectedHash": None},
            token=token,
        )
        assert saved.status == 200, saved.data
    row = layer_store(home, "scout", "dana").journal.rows(limit=1)[0]
    assert (row.who, row.person, row_writer(row)) == ("person", "dana", "dana")
    found = json.loads(run_cli("changes", "--json").out)
    groups = [group for bot in found["bots"] for group in bot["groups"] if group["person"] == "dana"]
    assert [(g["kind"], g["who"], g["reviewed"]) for g in groups] == [
        ("member", "dana (through the API), in dana's layer", False)
    ]
    assert "You" not in json.dumps(groups)
