"""Claude Code's hooks through the real command: `omb-tui hook session-start|prompt|stop --bot ID`.

Spec: memory.md, "What loads, and the budget", "Recall before each turn", "What a bot knows about its other
conversations" and "The journal" ("Bot writes are caught at the turn boundary"). Each hook is fed a payload shaped
as Claude Code sends it, and the stop hook a JSONL transcript as Claude Code writes it (user, assistant, tool use
and tool result lines, and lines of other types between them). docs/agents.md describes what is tested here.
"""

from __future__ import annotations

import json
import stat
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from support.home import BOT_ID
from support.transcripts import (
    ANSWER,
    PROMPT,
    SESSION,
    a_turn,
    assistant,
    payload,
    tool_result,
    user,
    write_transcript,
)

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON, Journal
from omb_tui.core.memory import conversations as conv
from omb_tui.core.turn.agent_session import chat_id_for
from omb_tui.hooks.run import HOOK_OUTPUT_MAX_CHARS, fit
from omb_tui.hooks.transcript import lines_newest_first, prompt_text, read_exchange

pytestmark = pytest.mark.dates  # a transcript's UTC times, read into local ones

CHAT = f"claude-code-{SESSION}"


@pytest.fixture
def transcript(tmp_path) -> Path:
    return write_transcript(tmp_path / f"{SESSION}.jsonl", a_turn())


def chat_file(home: Home) -> Path:
    return conv.chats_dir(home, BOT_ID) / f"{CHAT}.ndjson"


def rows(home: Home):
    return list(reversed(Journal(home.journal_path(BOT_ID)).rows()))  # oldest first


def log_path(home: Home) -> Path:
    return home.workspace(BOT_ID) / "memory" / "log" / f"{clock.today().isoformat()}.md"


def one_line(result) -> str:
    assert result.code == 0, result
    assert "Traceback" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    return lines[0]


def nothing_written(home: Home, rows_before: int) -> None:
    assert not chat_file(home).exists()
    assert not log_path(home).exists()
    assert len(rows(home)) == rows_before


# ----- session-start -----
def test_session_start_prints_the_memory_block_as_it_loads(run_cli, home):
    result = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart", source="startup"))
    assert result.code == 0 and result.err == ""
    prompt = run_cli("prompt", BOT_ID).out
    assert prompt.rstrip() in result.out  # exactly the block `omb-tui prompt` prints
    assert result.out.startswith("Your long-term memory as Scout, kept by omb-tui")


def test_session_start_carries_the_brief_of_the_bots_other_conversations(run_cli, home, transcript):
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript))
    other = payload("SessionStart", source="startup").replace(SESSION.encode(), b"another-session")
    result = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=other)
    assert "Your recent work in other conversations" in result.out
    assert '"Claude Code in atlas-site" · you said: "Done: the shuttle meets' in result.out
    same = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart", source="resume"))
    assert "Claude Code in atlas-site" not in same.out  # the current conversation is never listed


@pytest.mark.parametrize("source", ["startup", "clear", "compact"])
def test_a_session_started_cleared_or_compacted_gets_the_whole_block(run_cli, home, transcript, source):
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript))
    result = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart", source=source))
    assert run_cli("prompt", BOT_ID).out.rstrip() in result.out


def test_a_resumed_session_gets_only_what_changed_since_its_last_turn(run_cli, home, transcript):
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript))
    block = run_cli("prompt", BOT_ID).out.rstrip()
    resumed = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart", source="resume"))
    assert resumed.code == 0 and resumed.out == ""  # its context holds the block once already
    assert run_cli("remember", BOT_ID, "The shuttle company is Aerobus now").code == 0
    resumed = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart", source="resume"))
    assert "The shuttle company is Aerobus now" in resumed.out and "MEMORY.md:" in resumed.out
    assert block not in resumed.out and len(resumed.out) < len(block)
    assert any(line.startswith("+") and "Aerobus" in line for line in resumed.out.splitlines())


def test_a_resume_gets_the_net_change_of_what_loads_one_heading_a_file(run_cli, home, transcript):
    """A line added and taken out again since the last turn is no change; a daily log never loads; a file changed
    three times is one heading."""
    from omb_tui.core.journal.changes import Actor
    from omb_tui.core.journal.journal import HOW_COMMAND_LINE
    from omb_tui.core.memory.store import MemoryStore

    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript))
    store = MemoryStore(home, BOT_ID)
    you = Actor(WHO_PERSON, HOW_COMMAND_LINE)
    before = store.read("MEMORY.md").text
    store.write("MEMORY.md", before + "- The ferry pass is blue\n", you)
    store.write("MEMORY.md", before + "- The ferry pass is blue\n- Gate B opens at 8\n", you)
    store.write("MEMORY.md", before + "- Gate B opens at 8\n", you)  # the blue pass: added, then taken out
    day = f"memory/log/{clock.today().isoformat()}.md"
    store.write(day, "- 09:05 · a line of the day's log\n", you, allow_log=True)
    resumed = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart", source="resume")).out
    changed = resumed.splitlines()[1:]
    assert [line for line in changed if line.endswith(":")] == ["MEMORY.md:"], resumed
    assert "+- Gate B opens at 8" in changed
    assert "ferry pass" not in resumed and "a line of the day's log" not in resumed and day not in resumed


def test_hooks_naming_a_person_this_home_lacks_say_so_in_one_line_and_name_no_tool(run_cli, home, transcript, caplog):
    """A project's install with `--person dana`, committed, on a home without Dana: the MCP server (started with
    the same --person) refuses to start, so the block names none of its tools and says why, once; the prompt and
    stop hooks say it on stderr; the turn is still Dana's, never the owner's."""
    started = run_cli(
        "hook", "session-start", "--bot", BOT_ID, "--person", "dana", stdin=payload("SessionStart", source="startup")
    )
    assert started.code == 0 and "mcp__omb-tui-" not in started.out
    said = [line for line in started.out.splitlines() if "'dana'" in line]
    assert len(said) == 1 and "is not a person of the home" in said[0] and "people add dana" in said[0]
    prompt = run_cli(
        "hook", "prompt", "--bot", BOT_ID, "--person", "dana", stdin=payload("UserPromptSubmit", prompt=PROMPT)
    )
    stop = run_cli("hook", "stop", "--bot", BOT_ID, "--person", "dana", stdin=payload("Stop", transcript))
    assert prompt.code == stop.code == 0
    lines = [r.getMessage() for r in caplog.records if "'dana'" in r.getMessage()]  # stderr, one line a hook
    assert len(lines) == 3 and all("\n" not in line for line in lines)
    chat = conv.read_conversation(chat_file(home))
    assert chat is not None and chat.people() == ["dana"]
    assert [m.author for m in chat.messages if m.author_kind == "person"] == ["dana"]


def test_a_resume_of_a_session_never_recorded_gets_the_whole_block(run_cli, home):
    result = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart", source="resume"))
    assert run_cli("prompt", BOT_ID).out.rstrip() in result.out


def test_session_start_stays_within_what_claude_code_shows_inline(run_cli, home):
    notes = "".join(
        f"- 2026-01-{1 + n % 28:02d} · a long enough note about the garden, number {n:03d}\n" for n in range(190)
    )
    (home.workspace(BOT_ID) / "MEMORY.md").write_text("# Memory\n\n" + notes, encoding="utf-8")
    result = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart"))
    assert len(result.out) <= HOOK_OUTPUT_MAX_CHARS < 10_000
    assert "number 000" in result.out and "number 189" not in result.out  # the head loads, as the load cut keeps it
    assert "more lines of memory did not fit" in result.out.splitlines()[-1]


def test_fit_counts_as_claude_code_does_and_cuts_whole_lines():
    assert fit("", "", "") == ""
    assert fit("a", "b", "c") == "a\n\nb\n\nc\n"
    block = "\n".join(f"line {n} 😀" for n in range(100))
    text = fit("head", block, "tail", limit=300)
    assert len(text.encode("utf-16-le")) // 2 <= 300
    assert text.startswith("head\n\nline 0 😀\n") and text.endswith("tail\n")


def test_session_start_with_memory_off_prints_no_memory(run_cli, home):
    home.settings_path(BOT_ID).write_text('{"name": "Scout", "memory": false}\n', encoding="utf-8")
    result = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload("SessionStart"))
    assert result.code == 0 and result.out == ""


# ----- prompt -----
def test_prompt_prints_recalls_block_holding_the_note(run_exe, home):
    """Done when: a prompt about a note gets recall's block holding it, through the installed command."""
    result = run_exe(
        "hook", "prompt", "--bot", BOT_ID, stdin=payload("UserPromptSubmit", prompt="Which seat do I like on trips?")
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert out.startswith("Recalled from your own notes")
    assert "likes window seats" in out and "memory/travel.md" in out


def test_prompt_prints_nothing_when_recall_finds_nothing(run_cli, home):
    result = run_cli(
        "hook", "prompt", "--bot", BOT_ID, stdin=payload("UserPromptSubmit", prompt="How do volcanoes form underwater?")
    )
    assert result.code == 0 and result.out == ""


def test_a_turn_across_the_hooks_catches_the_bots_edits_at_the_boundary(run_cli, home, transcript):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    travel = home.workspace(BOT_ID) / "memory" / "travel.md"
    memory.write_text(memory.read_text() + "- typed in Obsidian between turns\n", encoding="utf-8")
    before = len(rows(home))

    result = run_cli("hook", "prompt", "--bot", BOT_ID, stdin=payload("UserPromptSubmit", prompt=PROMPT))
    assert result.code == 0
    start = rows(home)[before:]
    assert [(r.who, r.how, r.file) for r in start] == [(WHO_PERSON, HOW_OUTSIDE, "MEMORY.md")]

    # The turn: Claude's own Edit tool writes the bot's topic file.
    travel.write_text(travel.read_text() + "- 2026-12-02 · the shuttle meets the 09:40 arrival\n", encoding="utf-8")
    result = run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript, stop_hook_active=False))
    assert result.code == 0 and result.out == ""
    end = rows(home)[before + 1 :]
    assert [(r.who, r.how, r.chat, r.file) for r in end] == [
        (WHO_BOT, HOW_TASK, CHAT, "memory/travel.md"),  # caught at the boundary: the bot's work in this chat
        (WHO_BOT, HOW_TASK, CHAT, f"memory/log/{clock.today().isoformat()}.md"),  # the turn log line
    ]


def test_a_later_prompt_recalls_other_sessions_never_its_own(run_cli, home, transcript):
    run_cli("hook", "stop", "--bot", BOT_ID, "--person", "Nadia", stdin=payload("Stop", transcript))
    question = "When does the airport shuttle meet the arrival?"
    same = run_cli("hook", "prompt", "--bot", BOT_ID, stdin=payload("UserPromptSubmit", prompt=question))
    assert "Claude Code in atlas-site" not in same.out  # a conversation is never recalled into itself
    other = payload("UserPromptSubmit", prompt=question).replace(SESSION.encode(), b"a-later-session")
    later = run_cli("hook", "prompt", "--bot", BOT_ID, stdin=other)
    assert '1:1 with Nadia · "Claude Code in atlas-site"' in later.out and "09:40 arrival" in later.out


# ----- stop -----
def test_stop_records_the_turn_in_a_conversation_of_the_bot(run_cli, home, transcript):
    result = run_cli("hook", "stop", "--bot", BOT_ID, "--person", "Nadia", stdin=payload("Stop", transcript))
    assert result.code == 0 and result.err == ""
    path = chat_file(home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    header, *messages = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert header["title"] == "Claude Code in atlas-site"
    assert header["kind"] == "1:1" and header["started_by"] == {"kind": "person", "name": "Nadia"}
    assert header["members"] == [{"kind": "person", "name": "Nadia"}, {"kind": "bot", "name": BOT_ID}]
    assert [(m["author_kind"], m["author"], m["text"]) for m in messages] == [
        ("person", "Nadia", PROMPT),
        ("bot", BOT_ID, ANSWER),  # the last answer, not "Adding it now."
    ]
    assert messages[0]["origin"] == "person" and messages[0]["id"] == "00000001-0000-4000-8000-000000000000"
    # the transcript's own moment (09:00 UTC), which is another day's date in UTC-11
    assert datetime.fromisoformat(messages[0]["at"]) == datetime(2026, 12, 2, 9, tzinfo=UTC)
    assert messages[1]["failed"] is False
    log = log_path(home).read_text(encoding="utf-8")
    assert 'from chat "Claude Code in atlas-site" · tools: Read, Edit · said: "Done: the shuttle' in log


def test_search_and_recall_see_the_session_like_any_chat(run_cli, home, transcript):
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript))
    found = run_cli("search", BOT_ID, "shuttle", "arrival")
    assert "Claude Code in atlas-site" in found.out
    brief = run_cli("brief", BOT_ID)
    assert "Claude Code in atlas-site" in brief.out


def test_stop_run_twice_records_the_turn_once(run_cli, home, transcript):
    for _ in range(2):
        assert run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript)).code == 0
    lines = chat_file(home).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3  # the header, the prompt, the answer
    assert log_path(home).read_text(encoding="utf-8").count("Claude Code in atlas-site") == 1


def test_the_next_turn_goes_into_the_same_conversation(run_cli, home, tmp_path, transcript):
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript))
    write_transcript(transcript, [*a_turn(), *a_turn("And the flight home?", "TP664 at 18:10 on 15 December.", 7)])
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript))
    texts = [json.loads(line).get("text") for line in chat_file(home).read_text(encoding="utf-8").splitlines()[1:]]
    assert texts == [PROMPT, ANSWER, "And the flight home?", "TP664 at 18:10 on 15 December."]


def test_stop_takes_the_answer_from_the_payload_when_the_transcript_lags(run_cli, home, tmp_path):
    lagging = write_transcript(tmp_path / "lag.jsonl", a_turn()[:-1])  # the answer's line not written yet
    late = "The shuttle is at 09:40; noted."
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", lagging, last_assistant_message=late))
    messages = [json.loads(line) for line in chat_file(home).read_text(encoding="utf-8").splitlines()[1:]]
    assert [m["text"] for m in messages] == [PROMPT, late]


def test_a_line_still_being_written_is_left_for_later(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", a_turn(), tail=b'{"type":"assistant","message":{"content":[{"ty')
    assert read_exchange(path).answer == ANSWER


def test_the_transcript_is_read_from_its_end_in_blocks(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", a_turn(), tail=b"partial")
    with open(path, "rb") as handle:
        small = list(lines_newest_first(handle, block=7))
    with open(path, "rb") as handle:
        whole = [line for line in handle.read().split(b"\n")[:-1] if line.strip()]
    assert small == list(reversed(whole))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (user("u", None, "  Plain prompt  ", "2026-12-02T09:00:00Z"), "Plain prompt"),
        (user("u", None, [{"type": "text", "text": "Look"}, {"type": "image", "source": {}}], "t"), "Look\n\n[image]"),
        (user("u", None, tool_result("toolu_9", "out"), "t"), None),
        (user("u", None, "Caveat: generated by a command", "t", isMeta=True), None),
        (user("u", None, "This session is being continued…", "t", isCompactSummary=True), None),
        (user("u", None, "[Request interrupted by user]", "t"), None),
        (user("u", None, "<local-command-stdout>done</local-command-stdout>", "t"), None),
        (
            user(
                "u",
                None,
                "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>PR 12</command-args>",
                "t",
            ),
            "/review PR 12",
        ),
    ],
)
def test_what_counts_as_the_persons_prompt(line, expected):
    assert prompt_text(line) == expected


def test_a_subagents_lines_are_not_the_turn(tmp_path):
    side = [
        user("s1", None, "Search the repo for TODOs", "t", isSidechain=True),
        assistant("s2", "s1", [{"type": "text", "text": "Found 3."}], "t", isSidechain=True),
    ]
    turn = a_turn()
    path = write_transcript(tmp_path / "t.jsonl", [*turn[:3], *side, *turn[3:]])
    exchange = read_exchange(path)
    assert (exchange.prompt, exchange.answer, exchange.tools) == (PROMPT, ANSWER, ("Read", "Edit"))


def test_an_api_error_ends_the_turn_as_failed(run_cli, home, tmp_path):
    error = assistant("e1", "p", [{"type": "text", "text": "API Error: 529 Overloaded"}], "t", isApiErrorMessage=True)
    path = write_transcript(tmp_path / "t.jsonl", [user("p", None, PROMPT, "2026-12-02T09:00:00Z"), error])
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path))
    answer = json.loads(chat_file(home).read_text(encoding="utf-8").splitlines()[-1])
    assert answer["failed"] is True and answer["text"] == "API Error: 529 Overloaded"
    assert "the turn failed" in log_path(home).read_text(encoding="utf-8")


def test_a_credential_in_the_prompt_never_reaches_the_conversation(run_cli, home, tmp_path):
    key = "sk-ant-api03-" + "Zq7Xv2Lm9Rt4Wp8Ks3Nd6Hf1Jc5Bg0Ya" * 2
    path = write_transcript(tmp_path / "t.jsonl", a_turn(prompt=f"Use the key {key} for the deploy"))
    run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path))
    assert key not in chat_file(home).read_text(encoding="utf-8")


def test_a_session_id_that_cannot_be_a_file_name_is_hashed():
    assert chat_id_for(SESSION) == CHAT
    odd = chat_id_for("../../etc/passwd")
    assert odd.startswith("claude-code-") and "/" not in odd and conv.validate_conversation_id(odd)


def test_with_memory_off_the_turn_is_recorded_without_a_log_line(run_cli, home, transcript):
    home.settings_path(BOT_ID).write_text('{"name": "Scout", "memory": false}\n', encoding="utf-8")
    assert run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", transcript)).code == 0
    assert len(chat_file(home).read_text(encoding="utf-8").splitlines()) == 3
    assert not log_path(home).exists()


# ----- what a hook cannot use: one line on stderr, exit 0, nothing written -----
@pytest.mark.parametrize("hook", ["session-start", "prompt", "stop"])
@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"session_id": ', b"\xff\xfe", b"[" * 100_000])
def test_a_malformed_payload_is_one_line_and_exit_0(run_cli, home, hook, stdin):
    before = len(rows(home))
    result = run_cli("hook", hook, "--bot", BOT_ID, stdin=stdin)
    assert "is not one JSON object" in one_line(result)
    assert result.out == ""
    nothing_written(home, before)


@pytest.mark.parametrize(
    ("hook", "data", "says"),
    [
        ("prompt", {"hook_event_name": "UserPromptSubmit", "session_id": SESSION}, "'prompt' missing"),
        ("prompt", {"hook_event_name": "UserPromptSubmit", "prompt": 42}, "'prompt' not a string"),
        ("stop", {"hook_event_name": "Stop", "session_id": SESSION}, "'transcript_path' missing"),
        ("stop", {"hook_event_name": "Stop", "transcript_path": "/t.jsonl"}, "'session_id' missing"),
        ("stop", {"hook_event_name": "UserPromptSubmit", "prompt": "hi"}, "answers Claude Code's Stop event"),
    ],
)
def test_a_payload_without_what_the_hook_needs_is_one_line_and_exit_0(run_cli, home, hook, data, says):
    before = len(rows(home))
    result = run_cli("hook", hook, "--bot", BOT_ID, stdin=json.dumps(data).encode())
    assert says in one_line(result)
    nothing_written(home, before)


def test_a_transcript_that_is_missing_is_one_line_and_nothing_written(run_cli, home, tmp_path):
    before = len(rows(home))
    result = run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", tmp_path / "gone.jsonl"))
    assert "does not exist; nothing was recorded" in one_line(result)
    nothing_written(home, before)


@pytest.mark.parametrize("lines", [[], [assistant("a", "b", [{"type": "text", "text": "hi"}], "t")]])
def test_a_transcript_without_a_prompt_is_one_line_and_nothing_written(run_cli, home, tmp_path, lines):
    before = len(rows(home))
    path = write_transcript(tmp_path / "t.jsonl", lines)
    result = run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path))
    assert "holds no prompt of the person's" in one_line(result)
    nothing_written(home, before)


def test_a_transcript_that_is_a_folder_is_one_line(run_cli, home, tmp_path):
    result = run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", tmp_path))
    assert "could not be read" in one_line(result)
    assert not chat_file(home).exists()


@pytest.mark.parametrize(
    ("hook", "event"), [("session-start", "SessionStart"), ("prompt", "UserPromptSubmit"), ("stop", "Stop")]
)
def test_a_missing_bot_is_one_line_and_exit_0(run_cli, home, hook, event, transcript):
    result = run_cli("hook", hook, "--bot", "nobody", stdin=payload(event, transcript, prompt="hello there friend"))
    assert one_line(result) == f"omb-tui: There is no bot 'nobody' in {home.root}."
    assert not (home.workspace("nobody")).exists()


def test_a_missing_home_and_a_usage_mistake_exit_0_too(run_cli, home, tmp_path):
    gone = run_cli("--home", str(tmp_path / "gone"), "hook", "prompt", "--bot", BOT_ID, stdin=b"{}", with_home=False)
    assert "There is no bot 'scout'" in one_line(gone)
    assert not (tmp_path / "gone").exists()
    usage = run_cli("hook", "prompt", stdin=payload("UserPromptSubmit", prompt="hi"))
    assert "--bot" in one_line(usage)  # exit 2 would make Claude Code erase the person's prompt


def test_help_names_each_hook(run_cli):
    result = run_cli("hook", "--help")
    assert result.code == 0
    for name in ("session-start", "prompt", "stop", "install"):
        assert name in result.out


# ----- start-up: a hook runs at every prompt -----
@pytest.mark.parametrize(
    ("hook", "event"), [("session-start", "SessionStart"), ("prompt", "UserPromptSubmit"), ("stop", "Stop")]
)
def test_a_hook_loads_no_heavy_library(home, transcript, hook, event):
    """What a hook loads, run as Claude Code runs it: never litellm, the MCP SDK, aiohttp, Textual or Rich."""
    import subprocess
    import sys

    data = payload(event, transcript, prompt="Which seat do I like on trips?").decode()
    code = (
        "import contextlib, io, sys\nfrom omb_tui.cli import main\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({data!r}.encode()))\n"
        "with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):\n"
        f"    assert main(['--home', {str(home.root)!r}, 'hook', {hook!r}, '--bot', {BOT_ID!r}]) == 0\n"
        "print('\\n'.join(sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert "omb_tui.hooks.run" in loaded
    heavy = (
        "litellm",
        "mcp",
        "aiohttp",
        "textual",
        "rich",
        "omb_tui.core.models.call",
        "omb_tui.app",
        "omb_tui.server",
    )
    assert {m for m in loaded if any(m == name or m.startswith(name + ".") for name in heavy)} == set()
    assert not {"omb_tui.hooks.install", "tomllib"} & loaded  # the install's settings code
