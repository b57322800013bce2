"""The front door, `from omb_tui import Memory`: each method gives what its command gives on the same home, a turn
writes as the bot, the errors are the core's, the package's start-up stays free of the engine, and the example in
docs/library.md runs as written.

Spec: "What loads, and the budget", "Remember and forget, in chat", "Recall before each turn", "What a bot knows
about its other conversations", "The journal".
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from support.home import make_bot
from support.repo import ROOT

import omb_tui
from omb_tui import library
from omb_tui.cli import main
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, HOW_TASK, WHO_BOT, WHO_PERSON, JournalRow
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import load_profile_learned, update_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.turn.tools import MEMORY_UPDATE, run_tool
from omb_tui.core.turn.turn import open_chat

DOC = ROOT / "docs" / "library.md"
HEAVY = {"litellm", "textual", "rich"}
THREE_DAYS_AGO = (clock.today() - timedelta(days=3)).isoformat()


def modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return set(out.stdout.split())


def newest_row(home: Home, bot_id: str = "scout") -> JournalRow:
    return MemoryStore(home, bot_id).journal.rows(limit=1)[0]


def memory_text(home: Home) -> str:
    return (home.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8")


def cli_json(run_cli, *argv: str) -> dict:
    result = run_cli(*argv, "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def round_trip(data: dict) -> dict:
    return json.loads(json.dumps(data, ensure_ascii=False))


@pytest.fixture
def twin(tmp_path) -> Home:
    """A second home made exactly as the `home` fixture: the command runs on one, the library on the other."""
    twin = Home(tmp_path / "twin")
    make_bot(twin)
    return twin


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory, todays_demo) -> Home:
    """The demo home, only read: its chats, rooms and topics give recall and search something to find."""
    return todays_demo().copy_to(tmp_path_factory.mktemp("demo") / "home")


def run_on(capsys: pytest.CaptureFixture[str], home: Home, *argv: str) -> str:
    capsys.readouterr()
    assert main(["--home", str(home.root), *argv]) == 0
    return capsys.readouterr().out


# ----- start-up -----
def test_importing_the_package_loads_neither_the_engine_nor_any_heavy_library():
    loaded = modules_after("import omb_tui")
    assert "omb_tui" in loaded
    assert not {m for m in loaded if m.startswith("omb_tui.")}  # omb_tui.core, omb_tui.library: none of them
    assert not HEAVY & loaded


def test_the_front_door_loads_the_engine_but_never_litellm_textual_or_rich():
    loaded = modules_after("from omb_tui import Memory")
    assert {"omb_tui.library", "omb_tui.core.turn.turn"} <= loaded
    assert not HEAVY & loaded


def test_the_package_names_exactly_what_the_front_door_exports():
    assert list(omb_tui.FRONT_DOOR) == library.__all__
    for name in library.__all__:
        assert getattr(omb_tui, name) is getattr(library, name)
    assert {"Memory", "Turn", "StaleHash"} <= set(dir(omb_tui))
    with pytest.raises(AttributeError, match="no attribute 'Bot'"):
        omb_tui.Bot  # noqa: B018 (the deeper modules are not behind the front door)


def test_the_errors_are_the_cores_own():
    from omb_tui.core.files.paths import InvalidName, MemoryInputError, NotFound
    from omb_tui.core.journal.changes import StaleHash

    assert (omb_tui.MemoryInputError, omb_tui.NotFound, omb_tui.InvalidName, omb_tui.StaleHash) == (
        MemoryInputError,
        NotFound,
        InvalidName,
        StaleHash,
    )


# ----- the home and the bot -----
def test_the_home_is_the_path_else_omb_home_else_dot_openmausbot(home, tmp_path, monkeypatch):
    assert omb_tui.Memory(home.root).root == home.root
    assert omb_tui.Memory(str(home.root)).bot_ids() == ["scout"]
    assert omb_tui.Memory(home).home is home
    assert omb_tui.Memory().root == Path(os.path.realpath(tmp_path / "user" / ".openmausbot"))
    monkeypatch.setenv("OMB_HOME", str(home.root))
    assert omb_tui.Memory().bot("scout").id == "scout"


def test_a_bot_the_home_does_not_have_is_refused_naming_the_home(home, tmp_path):
    with pytest.raises(omb_tui.NotFound, match=re.escape(str(home.root))):
        omb_tui.Memory(home.root).bot("nobody")
    with pytest.raises(omb_tui.InvalidName):
        omb_tui.Memory(home.root).bot("../scout")
    missing = tmp_path / "typo"
    with pytest.raises(omb_tui.NotFound):
        omb_tui.Memory(missing).bot("scout")
    assert not missing.exists()  # opening a home creates nothing


def test_a_bot_before_its_first_turn_opens_with_must_exist_false_and_its_turn_makes_the_workspace(home):
    fresh = omb_tui.Memory(home.root).bot("newbie", must_exist=False)
    assert "(MEMORY.md has nothing to load.)" in fresh.prompt()
    with fresh.turn(chat="first"):
        pass
    assert home.workspace("newbie").is_dir()


# ----- what loads -----
def test_prompt_is_what_omb_tui_prompt_prints(run_cli, home):
    scout = omb_tui.Memory(home.root).bot("scout")
    assert scout.prompt() == run_cli("prompt", "scout").out
    memory = home.workspace("scout") / "MEMORY.md"
    memory.write_text(memory.read_text() + "- 2026-01-07 · the office is in Pune · until 2026-02-01\n")
    assert scout.prompt(date(2026, 1, 20)) == run_cli("prompt", "scout", "--as-of", "2026-01-20").out
    assert scout.prompt(date(2026, 3, 1)) == run_cli("prompt", "scout", "--as-of", "2026-03-01").out
    assert "Pune · until" in scout.prompt(date(2026, 1, 20)) and "Pune · until" not in scout.prompt(date(2026, 3, 1))


def test_prompt_of_a_bot_with_memory_off_is_empty_as_the_command_prints_nothing(run_cli, home):
    update_bot_settings(home, "scout", memory=False)
    scout = omb_tui.Memory(home.root).bot("scout")
    assert (scout.memory_on, scout.prompt(), run_cli("prompt", "scout").out) == (False, "", "")


def test_gauge_is_what_omb_tui_gauge_json_prints(run_cli, home):
    assert omb_tui.Memory(home.root).bot("scout").gauge().to_dict() == cli_json(run_cli, "gauge", "scout")


def test_reading_journals_nothing(home):
    memory = home.workspace("scout") / "MEMORY.md"
    memory.write_text(memory.read_text() + "- edited in Obsidian\n")
    before = MemoryStore(home, "scout").journal.rows()
    scout = omb_tui.Memory(home.root).bot("scout")
    scout.prompt(), scout.gauge(), scout.recall("where does the person live"), scout.search("Pune")
    assert MemoryStore(home, "scout").journal.rows() == before


# ----- remember, forget, prefer: as the commands, on twin homes -----
def test_remember_is_omb_tui_remember(run_cli, home, twin):
    by_cli = cli_json(
        run_cli, "remember", "scout", "Flies to Lisbon on Friday", "--until", "2099-01-01", "--chat", "Plans"
    )
    added = (
        omb_tui.Memory(twin.root)
        .bot("scout")
        .remember("Flies to Lisbon on Friday", until=date(2099, 1, 1), chat="Plans")
    )
    assert isinstance(added, omb_tui.AddResult)
    assert {**added.to_dict(), "row_id": None} == {**by_cli, "row_id": None}
    assert memory_text(twin) == memory_text(home)
    for which in (home, twin):
        row = newest_row(which)
        assert (row.file, row.who, row.how, row.chat) == ("MEMORY.md", WHO_PERSON, HOW_COMMAND_LINE, None)
    assert newest_row(twin).id == added.row_id


def test_remember_as_another_actor(twin):
    omb_tui.Memory(twin.root).bot("scout").remember("Likes trains", actor=omb_tui.Actor("person", "from the API"))
    row = newest_row(twin)
    assert (row.who, row.how) == ("person", "from the API")


def test_forget_is_omb_tui_forget(run_cli, home, twin):
    for which in (home, twin):
        which.about_me_path.write_text("# About me\n\n- lives in Pune\n- likes tea\n", encoding="utf-8")
    by_cli = cli_json(run_cli, "forget", "scout", "Pune")
    forgot = omb_tui.Memory(twin.root).bot("scout").forget("Pune")
    assert forgot.to_dict() == by_cli and forgot.count == 2  # MEMORY.md's note and About me's line
    assert memory_text(twin) == memory_text(home)
    assert twin.about_me_path.read_text() == home.about_me_path.read_text() == "# About me\n\n- likes tea\n"
    assert load_profile_learned(twin).forgotten == load_profile_learned(home).forgotten  # the words kept as hashes
    assert [f["count"] for f in load_profile_learned(twin).forgotten] == [1]
    assert (newest_row(twin).who, newest_row(twin).how) == (WHO_PERSON, HOW_COMMAND_LINE)


def test_prefer_is_omb_tui_prefer(run_cli, home, twin):
    by_cli = cli_json(run_cli, "prefer", "scout", "Answer in plain words")
    preferred = omb_tui.Memory(twin.root).bot("scout").prefer("Answer in plain words")
    assert preferred.to_dict() == by_cli and preferred.added
    assert twin.about_me_path.read_text() == home.about_me_path.read_text()
    assert [(x["text"], x["bot"]) for x in load_profile_learned(twin).learned] == [("Answer in plain words", "scout")]
    assert not omb_tui.Memory(twin.root).bot("scout").prefer("Answer in plain words").added  # once


def test_a_bad_input_is_the_cores_error_with_its_sentence(run_cli, home):
    scout = omb_tui.Memory(home.root).bot("scout")
    before = memory_text(home)
    with pytest.raises(omb_tui.MemoryInputError) as caught:
        scout.remember("x" * 2000)
    assert str(caught.value) in run_cli("remember", "scout", "x" * 2000).err
    with pytest.raises(omb_tui.MemoryInputError, match="300 characters"):
        scout.prefer("y" * 301)
    with pytest.raises(omb_tui.MemoryInputError, match="1 or more"):
        scout.search("Pune", limit=0)
    with pytest.raises(omb_tui.MemoryInputError):
        scout.recall("where does the person live", kind="fax")
    assert memory_text(home) == before


# ----- recall, search, brief: as the commands, on the demo home -----
@pytest.mark.parametrize(
    "argv",
    [
        ("what did we decide about the launch date",),
        ("launch date moved", "--chat", "launch-room"),
        ("which hotel for the Lisbon trip", "--kind", "routine"),
    ],
)
def test_recall_is_omb_tui_recall(demo_home, capsys, argv):
    message, *options = argv
    chat = options[1] if options[:1] == ["--chat"] else None
    kind = options[1] if options[:1] == ["--kind"] else None
    recalled = omb_tui.Memory(demo_home.root).bot("scout").recall(message, chat=chat, kind=kind)
    assert round_trip(recalled.to_dict()) == json.loads(run_on(capsys, demo_home, "recall", "scout", *argv, "--json"))
    assert recalled.block and recalled.block in run_on(capsys, demo_home, "recall", "scout", *argv)


@pytest.mark.parametrize(
    ("words", "options", "argv"),
    [
        ("launch", {}, ("launch",)),
        ("Lisbon hotel", {"limit": 3}, ("Lisbon", "hotel", "--limit", "3")),
        (None, {"since": THREE_DAYS_AGO}, ("--since", THREE_DAYS_AGO)),  # a date: "3d" moves between the two calls
        ("invoice", {"chat": "launch-room"}, ("invoice", "--chat", "launch-room")),
    ],
)
def test_search_is_omb_tui_search(demo_home, capsys, words, options, argv):
    found = omb_tui.Memory(demo_home.root).bot("scout").search(words, **options)
    assert found.hits
    assert round_trip(found.to_dict()) == json.loads(run_on(capsys, demo_home, "search", "scout", *argv, "--json"))


def test_brief_is_omb_tui_brief(demo_home, capsys):
    brief = omb_tui.Memory(demo_home.root).bot("scout").brief("launch-room")
    assert brief.text
    assert round_trip(brief.to_dict()) == json.loads(
        run_on(capsys, demo_home, "brief", "scout", "--chat", "launch-room", "--json")
    )


# ----- the turn -----
def test_a_turn_writes_as_the_bot_during_a_task_in_its_chat_as_the_bots_own_tool(home, twin):
    for which in (home, twin):
        open_chat(which, "scout", "plans", person="Nadia", title="Trip plans")
    with omb_tui.Memory(home.root).bot("scout").turn(chat="plans") as turn:
        added = turn.remember("Prefers the window seat", until=date(2099, 1, 1))
    row = newest_row(home)
    assert (row.id, row.file, row.who, row.how, row.chat) == (added.row_id, "MEMORY.md", WHO_BOT, HOW_TASK, "plans")
    assert '· from chat "Trip plans" · Prefers the window seat · until 2099-01-01' in memory_text(home)
    with omb_tui.Memory(twin.root).bot("scout").turn(chat="plans") as core_turn:  # the bot's own tool, on the twin
        run_tool(
            twin,
            "scout",
            MEMORY_UPDATE,
            {"action": "add", "text": "Prefers the window seat", "until": "2099-01-01"},
            chat="plans",
            store=core_turn.core.store,
        )
    assert memory_text(twin) == memory_text(home)
    assert turn.rows == []  # the note's row was written by the note itself, not found at the end


def test_a_turn_journals_the_bots_own_file_edits_when_it_ends_even_when_it_raises(home):
    memory = home.workspace("scout") / "MEMORY.md"
    with pytest.raises(RuntimeError):
        with omb_tui.Memory(home.root).bot("scout").turn(chat="plans") as turn:
            memory.write_text(memory.read_text() + "- the bot's own file tool wrote this\n")
            raise RuntimeError("the model went away")
    assert [(r.file, r.who, r.how, r.chat) for r in turn.rows] == [("MEMORY.md", WHO_BOT, HOW_TASK, "plans")]


def test_a_turn_with_a_chat_the_home_does_not_hold_names_the_chat_itself(home):
    with omb_tui.Memory(home.root).bot("scout").turn(chat="elsewhere") as turn:
        turn.remember("Keeps receipts")
        with pytest.raises(omb_tui.NotFound):
            turn.recall("where are the receipts kept")
    assert '· from chat "elsewhere" · Keeps receipts' in memory_text(home)
    assert newest_row(home).chat == "elsewhere"


def room(home: Home, chat_id: str) -> None:
    conv.create_conversation(
        home,
        conv.Conversation(
            id=chat_id,
            title="Launch",
            kind=conv.KIND_ROOM,
            started_by=conv.Starter("person", "Nadia"),
            members=[conv.Member("person", "Nadia"), conv.Member("bot", "scout")],
            created=clock.now() - timedelta(hours=1),
        ),
        None,
    )


@pytest.mark.parametrize(
    ("chat", "reaches_about_me"),
    [
        (None, True),
        ("plans", True),
        ("launch", False),
        ("elsewhere", False),
    ],
)
def test_forget_in_a_turn_reaches_about_me_only_where_the_bots_own_tool_would(home, chat, reaches_about_me):
    open_chat(home, "scout", "plans", person="Nadia")
    room(home, "launch")
    home.about_me_path.write_text("# About me\n\n- lives in Pune\n", encoding="utf-8")
    with omb_tui.Memory(home.root).bot("scout").turn(chat=chat) as turn:
        forgot = turn.forget("Pune")
    assert ("about-me.md" in forgot.removed) is reaches_about_me
    assert "MEMORY.md" in forgot.removed
    assert newest_row(home).who == WHO_BOT


def test_a_turns_reads_use_its_chat(demo_home):
    scout = omb_tui.Memory(demo_home.root).bot("scout")
    with scout.turn(chat="launch-room") as turn:
        recalled = turn.recall("launch date moved")
        found = turn.search("invoice")
        brief = turn.brief()
        block = turn.prompt()
    assert recalled.to_dict() == scout.recall("launch date moved", chat="launch-room").to_dict()
    assert (recalled.kind, recalled.passages) == ("room", [])  # a room gets notes only
    assert found.to_dict() == scout.search("invoice", chat="launch-room").to_dict()
    assert brief.to_dict() == scout.brief("launch-room").to_dict()
    assert block == scout.prompt()


# ----- docs/library.md, as written -----
def doc_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def run_doc_block(code: str, home: Home, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMB_HOME": str(home.root), "HOME": str(tmp_path / "user"), "PYTHONUTF8": "1"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )


def test_the_example_in_the_doc_runs_as_written(tmp_path, todays_demo):
    home = todays_demo().copy_to(tmp_path / "home")
    example = doc_blocks()[0]
    assert len(example.strip().splitlines()) <= 14
    done = run_doc_block(example, home, tmp_path)
    assert done.returncode == 0, done.stderr
    saved, found = done.stdout.splitlines()
    assert saved == "Saved to MEMORY.md."
    note = (
        f'{clock.today().isoformat()} · from chat "Lisbon offsite planning" · Nadia wants a quiet room at the '
        f"Lisbon hotel"
    )
    assert re.fullmatch(rf"MEMORY\.md:\d+ - {re.escape(note)}", found)
    assert note in memory_text(home)
    row = newest_row(home)
    assert (row.file, row.who, row.how, row.chat) == ("MEMORY.md", WHO_BOT, HOW_TASK, "lisbon-offsite")


def test_the_errors_example_in_the_doc_prints_the_sentence_it_shows(tmp_path, home):
    example = doc_blocks()[1]
    done = run_doc_block(example, home, tmp_path)
    assert done.returncode == 0, done.stderr
    shown = re.search(r"# (.+)$", example.strip().splitlines()[-1]).group(1)
    assert done.stdout == shown + "\n"


MOVED = [
    ("omb_tui.core.memory.locks", "omb_tui.core.files.locks", "turn_in_progress"),
    ("omb_tui.core.memory.journal", "omb_tui.core.journal.journal", "Journal"),
    ("omb_tui.core.memory.journal_filter", "omb_tui.core.journal.filter", "JournalFilter"),
    ("omb_tui.core.memory.redact", "omb_tui.core.redaction.redact", "redact"),
]


@pytest.mark.parametrize(("old", "new", "name"), MOVED)
def test_a_documented_module_that_moved_still_imports_and_says_where_it_went(old, new, name):
    import subprocess
    import sys

    script = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as said:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        f"assert getattr(old, {name!r}) is getattr(new, {name!r})\n"
        "print([str(w.message) for w in said if w.category is DeprecationWarning])\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert f"moved to {new}" in ran.stdout
