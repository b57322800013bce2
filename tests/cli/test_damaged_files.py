"""Damaged files and links: no traceback from any file the project reads, and no write through a link.

Spec: memory.md, "Where it lives" (nothing written outside the home) and "The journal".
Every file the project reads is checked field by field: a damaged row of a list (the journal) is skipped and named
once on stderr; a damaged settings file is refused with one sentence naming it. Each case runs through the
installed `omb-tui` command (the real entry point) and snapshots every file before and after.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC
from pathlib import Path

import pytest
from support.home import BOT_ID, MEMORY_TEXT
from test_bad_inputs import assert_one_sentence, outside, snapshot  # noqa: F401 (outside: the fixture)

from omb_tui.core.base import clock
from omb_tui.core.files.locks import home_lock
from omb_tui.core.files.paths import Home, LinkRefused
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON, Journal, make_row
from omb_tui.core.journal.seen import validate_seen
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.turn.bot import Bot

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)


def journal_with(home: Home, *lines: bytes) -> None:
    """The bot's journal with the given lines added after its good rows (newest last)."""
    with open(home.journal_path(BOT_ID), "ab") as journal:
        journal.write(b"".join(line + b"\n" for line in lines))


def good_row(home: Home, **changes: object) -> bytes:
    """A good row of the bot with some fields changed: damage in one field only."""
    row = make_row(
        bot=BOT_ID,
        who=WHO_PERSON,
        how=HOW_SETTINGS,
        file="MEMORY.md",
        before_text=MEMORY_TEXT,
        after_text=MEMORY_TEXT + "- more\n",
        before_hash="a" * 64,
        after_hash="b" * 64,
    )
    data = asdict(row)
    data.update({"id": "f" * 13 + "-0001", **changes})
    return json.dumps(data, separators=(",", ":")).encode()  # as the journal writes it, so undo can find it


def put(path_of: Callable[[Home], Path], content: bytes) -> Callable[[Home], None]:
    def damage(home: Home) -> None:
        path = path_of(home)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)

    return damage


def journal_line(line: bytes | Callable[[Home], bytes]) -> Callable[[Home], None]:
    return lambda home: journal_with(home, line(home) if callable(line) else line)


def settings_file(home: Home) -> Path:
    return home.settings_path(BOT_ID)


def profile_file(home: Home) -> Path:
    return home.profile_learned_path


def config_file(home: Home) -> Path:
    return home.config_path


# ----- the table: file, damage, command, expected exit code, words of the message -----
# A journal line is skipped (exit 0) and named on stderr; a settings file is refused (exit 2) with one sentence.
SKIPPED = "skipped a damaged line"
CASES = [
    ("journal", "a JSON array", journal_line(b"[1,2,3]"), ("journal", BOT_ID), 0, "not a JSON object"),
    ("journal", "a JSON array", journal_line(b"[1,2,3]"), ("bots",), 0, "not a JSON object"),
    ("journal", "a JSON array", journal_line(b"[1,2,3]"), ("journal", BOT_ID, "--json"), 0, SKIPPED),
    ("journal", "a JSON string", journal_line(b'"a row"'), ("journal", BOT_ID), 0, "not a JSON object"),
    ("journal", "null", journal_line(b"null"), ("bots", "--json"), 0, "not a JSON object"),
    ("journal", '"at": 5', journal_line(lambda h: good_row(h, at=5)), ("journal", BOT_ID), 0, "'at' is not text"),
    ("journal", '"at": 5', journal_line(lambda h: good_row(h, at=5)), ("bots",), 0, "'at' is not text"),
    (
        "journal",
        "a time that is not one",
        journal_line(lambda h: good_row(h, at="yesterday")),
        ("bots",),
        0,
        "not an ISO time",
    ),
    ("journal", "an empty id", journal_line(lambda h: good_row(h, id="")), ("journal", BOT_ID), 0, "'id' is empty"),
    (
        "journal",
        "file a number",
        journal_line(lambda h: good_row(h, file=7)),
        ("journal", BOT_ID),
        0,
        "'file' is not text",
    ),
    (
        "journal",
        "undoable a word",
        journal_line(lambda h: good_row(h, undoable="yes")),
        ("journal", BOT_ID),
        0,
        "'undoable' is not true or false",
    ),
    (
        "journal",
        "before_text a list",
        journal_line(lambda h: good_row(h, before_text=["x"])),
        ("undo", BOT_ID, "f" * 13 + "-0001"),
        2,
        "no journal row",
    ),
    (
        "journal",
        "chat an object",
        journal_line(lambda h: good_row(h, chat={"a": 1})),
        ("journal", BOT_ID),
        0,
        "'chat' is not text or null",
    ),
    ("journal", "no who", journal_line(b'{"id":"1-1","at":"2026-01-01T00:00:00+00:00"}'), ("bots",), 0, "has no 'bot'"),
    (
        "profile-learned.json",
        '{"learned": 5}',
        put(profile_file, b'{"learned": 5}'),
        ("remember", BOT_ID, "a fact"),
        2,
        "'learned' must be a list",
    ),
    (
        "profile-learned.json",
        "an item that is a number",
        put(profile_file, b'{"learned": [5]}'),
        ("prefer", BOT_ID, "short replies"),
        2,
        "learned item 1",
    ),
    (
        "profile-learned.json",
        "removed a word",
        put(profile_file, b'{"learned": [{"text": "x", "removed": "no"}]}'),
        ("remember", BOT_ID, "a fact"),
        2,
        "'removed' must be true or false",
    ),
    (
        "profile-learned.json",
        "learned at a number",
        put(profile_file, b'{"learned": [{"text": "x", "at": 5}]}'),
        ("forget", BOT_ID, "Pune"),
        2,
        "'at' must be text",
    ),
    (
        "profile-learned.json",
        "forgotten words a number",
        put(profile_file, b'{"forgotten": [{"words": 5}]}'),
        ("forget", BOT_ID, "Pune"),
        2,
        "forgotten item 1",
    ),
    (
        "profile-learned.json",
        "forgotten a string",
        put(profile_file, b'{"forgotten": "Pune"}'),
        ("remember", BOT_ID, "a fact"),
        2,
        "'forgotten' must be a list",
    ),
    (
        "config.json",
        "features a number",
        put(config_file, b'{"features": 5}'),
        ("bots",),
        2,
        "'features' must be an object",
    ),
    (
        "config.json",
        "helper a string",
        put(config_file, b'{"helper": "gpt"}'),
        ("bots",),
        2,
        "'helper' must be an object",
    ),
    (
        "config.json",
        "helper instanceId a number",
        put(config_file, b'{"helper": {"instanceId": 5}}'),
        ("bots",),
        2,
        "'instanceId' must be text",
    ),
    ("config.json", "tidyHour true", put(config_file, b'{"memory": {"tidyHour": true}}'), ("bots",), 2, "tidyHour"),
    (
        "bots/scout.json",
        "name a number",
        put(settings_file, b'{"name": 5}'),
        ("prompt", BOT_ID),
        2,
        "'name' must be text",
    ),
    (
        "bots/scout.json",
        "engine an object",
        put(settings_file, b'{"engine": {}}'),
        ("prompt", BOT_ID),
        2,
        "'engine' must be text",
    ),
]


@pytest.mark.parametrize(
    "file, damage, argv, code, words",
    [
        pytest.param(file, damage, argv, code, words, id=f"{file}: {what}: {' '.join(argv[:1])}")
        for file, what, damage, argv, code, words in CASES
    ],
)
def test_damaged_file_through_the_command(run_exe, home, file, damage, argv, code, words):
    damage(home)
    proc = run_exe(*argv)
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert proc.returncode == code, err
    named = [line for line in err.splitlines() if SKIPPED in line]
    if file == "journal":
        assert len(named) == 1, err  # the damaged line is named, once
    if code != 0:
        line = assert_one_sentence(proc.returncode, "\n".join(line for line in err.splitlines() if line not in named))
        assert words in line, line
    else:
        assert words in err, err
    if "--json" in argv:
        json.loads(proc.stdout)  # stdout stays clean JSON: the note is on stderr


def test_journal_output_keeps_its_shape_around_damaged_lines(run_cli, home):
    for i in range(3):
        assert run_cli("remember", BOT_ID, f"fact number {i}").code == 0
    clean = run_cli("journal", BOT_ID, "--json").out
    clean_text = run_cli("journal", BOT_ID).out
    journal = home.journal_path(BOT_ID)
    lines = journal.read_bytes().splitlines(keepends=True)
    damaged = [b"[1,2,3]\n", good_row(home, at=5) + b"\n", b'{"id": 5}\n']
    journal.write_bytes(lines[0] + damaged[0] + b"".join(lines[1:3]) + damaged[1] + b"".join(lines[3:]) + damaged[2])
    before = snapshot(home.root)
    assert run_cli("journal", BOT_ID, "--json").out == clean
    assert run_cli("journal", BOT_ID).out == clean_text
    rows = json.loads(clean)
    assert run_cli("undo", BOT_ID, rows[0]["id"]).code == 0  # the good rows still work
    assert run_cli("undo", BOT_ID, rows[1]["id"], "--yes").code == 0
    kept = journal.read_bytes()
    assert kept.startswith(before[str(journal)][2]) and all(line in kept for line in damaged)  # never rewritten


def test_seen_state_validation():
    digest = "a" * 64
    good = {"files": {"MEMORY.md": {"hash": digest, "size": 3, "mtime_ns": 5, "credential": False}}}
    assert validate_seen(good) == good
    for damaged in (
        [],
        {"files": 5},
        {"files": {"MEMORY.md": 5}},
        {"files": {"MEMORY.md": {"hash": "../../../etc/passwd", "size": 3, "mtime_ns": 5}}},  # it names a file read
        {"files": {"MEMORY.md": {"hash": digest, "size": "3", "mtime_ns": 5}}},
        {"files": {"MEMORY.md": {"hash": digest, "size": True, "mtime_ns": 5}}},
        {"files": {"MEMORY.md": {"hash": digest, "size": 3, "mtime_ns": 5, "credential": "no"}}},
        {"files": {"../outside.md": {"hash": digest, "size": 3, "mtime_ns": 5}}},
    ):
        assert validate_seen(damaged) is None, damaged


@pytest.mark.parametrize("seen", [b'{"files": 5}', b'{"files": {"MEMORY.md": 5}}', b"[1]"])
def test_damaged_seen_state_starts_afresh(run_exe, home, seen):
    home.journal_state_path(BOT_ID).write_bytes(seen)
    proc = run_exe("show", BOT_ID, "MEMORY.md")
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == MEMORY_TEXT.encode()


# ----- bytes that are not UTF-8 -----
def test_journal_rows_are_valid_utf8_and_undo_is_byte_exact(home):
    store = MemoryStore(home, BOT_ID)
    odd = b"\xff\xfe caf\xc3\xa9\n"
    store.write("MEMORY.md", odd.decode("utf-8", "surrogateescape"), PERSON)
    later = store.write("MEMORY.md", "- replaced\n", PERSON)
    store.undo(later.row_id)
    assert (home.workspace(BOT_ID) / "MEMORY.md").read_bytes() == odd
    for line in home.journal_path(BOT_ID).read_bytes().splitlines():
        json.loads(line.decode("utf-8"))  # strict UTF-8: no raw byte in any row
    assert b"caf\xc3\xa9" in home.journal_path(BOT_ID).read_bytes()  # letters stay readable, not \u-escaped


def test_rows_of_a_non_ascii_topic_are_found_for_undo(home):
    store = MemoryStore(home, BOT_ID)
    first = store.write("memory/café.md", "- one \udcff\n", PERSON)
    store.write("memory/café.md", "- two\n", PERSON)
    assert [row.file for row in store.journal.later_rows_for_file(store.journal.find(first.row_id))] == [
        "memory/café.md"
    ]


# ----- names that would split the sentence -----
@pytest.mark.parametrize(
    "argv",
    [
        ("show", "bad\nid", "MEMORY.md"),
        ("show", "scout\n", "MEMORY.md"),
        ("show", BOT_ID, "memory/a\nb.md"),
        ("show", BOT_ID, "memory/log/2026-01-05.md\n"),
        ("mv", BOT_ID, "travel.md", "x\ny.md"),
        ("undo", BOT_ID, "a\nb"),
        ("show", BOT_ID, "/etc/\rpasswd"),
    ],
)
def test_a_name_with_a_newline_is_quoted_in_one_line(run_exe, home, argv):
    before = snapshot(home.root)
    proc = run_exe(*argv)
    assert_one_sentence(proc.returncode, proc.stderr)
    assert "\\n" in proc.stderr.decode() or "\\r" in proc.stderr.decode()
    assert snapshot(home.root) == before


# ----- links: nothing is written through one -----
def move_out(path: Path, outside: Path) -> Path:
    """Move a file or folder of the home outside and leave a symbolic link in its place."""
    target = outside / path.name
    path.rename(target)
    path.symlink_to(target, target_is_directory=target.is_dir())
    return target


LINKED = [  # what is linked, the command, and the exit code: each refused before anything is written
    ("the journal file", lambda h: h.journal_path(BOT_ID), ("remember", BOT_ID, "a new fact"), 2),
    ("the journal folder", lambda h: h.journal_dir, ("remember", BOT_ID, "a new fact"), 2),
    ("the lock file", lambda h: h.journal_dir / f"{BOT_ID}.lock", ("remember", BOT_ID, "a new fact"), 2),
    ("the seen-state", lambda h: h.journal_state_path(BOT_ID), ("remember", BOT_ID, "a new fact"), 2),
    ("the workspace", lambda h: h.workspace(BOT_ID), ("remember", BOT_ID, "a new fact"), 2),
    ("the workspace", lambda h: h.workspace(BOT_ID), ("write", BOT_ID, "memory/new.md"), 2),
    ("the workspace", lambda h: h.workspace(BOT_ID), ("rm", BOT_ID, "memory/travel.md"), 2),
    ("the workspaces folder", lambda h: h.workspaces_dir, ("write", BOT_ID, "MEMORY.md"), 2),
    ("About me", lambda h: h.about_me_path, ("prefer", BOT_ID, "short replies"), 2),
    ("profile-learned.json", lambda h: h.profile_learned_path, ("forget", BOT_ID, "Pune"), 2),
    ("profile-learned.json", lambda h: h.profile_learned_path, ("prefer", BOT_ID, "short replies"), 2),
]


@pytest.mark.parametrize(
    "path_of, argv, code", [pytest.param(p, a, c, id=f"{what}: {a[0]}") for what, p, a, c in LINKED]
)
def test_nothing_is_written_through_a_symbolic_link(run_exe, home, outside, path_of, argv, code):
    path = path_of(home)
    if not path.exists():
        path.write_bytes(b"{}\n" if path.suffix == ".json" else b"# About me\n")
    move_out(path, outside)
    before_outside = snapshot(outside)
    proc = run_exe(*argv, stdin=b"pwned\n")
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and proc.returncode == code, err
    assert "is a symbolic link" in err, err
    if code:
        assert_one_sentence(proc.returncode, err)
    assert snapshot(outside) == before_outside  # no note, no row, no lock, no state written outside the home


def test_a_link_inside_the_workspace_is_not_written_through(run_exe, home):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    travel = home.workspace(BOT_ID) / "memory" / "travel.md"
    memory.unlink()
    memory.symlink_to(travel)  # it stays inside the workspace, but a save would split the two
    Bot(home, BOT_ID).look()
    before = snapshot(home.root)
    proc = run_exe("write", BOT_ID, "MEMORY.md", stdin=b"- replaced\n")
    assert "is a symbolic link" in assert_one_sentence(proc.returncode, proc.stderr)
    assert snapshot(home.root) == before


def test_bot_settings_are_not_saved_through_a_link(home, outside):
    move_out(home.settings_path(BOT_ID), outside)
    before = snapshot(outside)
    assert Bot(home, BOT_ID).settings.name == "Scout"  # reading through it is fine
    with pytest.raises(LinkRefused, match="symbolic link"):
        save_bot_settings(home, BotSettings(id=BOT_ID, name="Renamed"))
    assert snapshot(outside) == before


def test_the_journal_refuses_a_linked_file_on_its_own(home, outside):
    MemoryStore(home, BOT_ID).write("MEMORY.md", "- one row\n", PERSON)
    path = home.journal_path(BOT_ID)
    move_out(path, outside)
    before = snapshot(outside)
    row = Bot(home, BOT_ID).store.journal.rows(limit=1)[0]  # reading is fine
    with pytest.raises(LinkRefused):
        Journal(path).append(row)
    assert snapshot(outside) == before


@pytest.mark.parametrize(
    "argv", [("write", BOT_ID, "MEMORY.md"), ("remember", BOT_ID, "a new fact"), ("forget", BOT_ID, "Pune")]
)
def test_a_hard_linked_memory_file_is_not_written(run_exe, home, outside, argv):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    memory.unlink()
    os.link(outside / "t.md", memory)
    (outside / "t.md").write_bytes(MEMORY_TEXT.encode())
    Bot(home, BOT_ID).look()
    with home_lock(home):  # its lock file exists before the snapshot
        pass
    before = snapshot(home.root, outside)
    proc = run_exe(*argv, stdin=b"- replaced\n")
    line = assert_one_sentence(proc.returncode, proc.stderr)
    assert "hard link" in line
    assert snapshot(home.root, outside) == before
    shown = run_exe("show", BOT_ID, "MEMORY.md")  # reading it is fine
    assert shown.returncode == 0 and shown.stdout == MEMORY_TEXT.encode()


def test_the_home_itself_may_be_a_link(run_exe, home, tmp_path):
    linked_home = tmp_path / "linked-home"
    linked_home.symlink_to(home.root, target_is_directory=True)
    proc = run_exe("remember", BOT_ID, "a new fact", env={"OMB_HOME": str(linked_home)})
    assert proc.returncode == 0, proc.stderr
    assert "a new fact" in (home.workspace(BOT_ID) / "MEMORY.md").read_text()


# ----- the app over a damaged journal -----
async def test_the_app_lists_bots_and_opens_a_journal_with_damaged_lines(home):
    from support.app_helpers import list_lines, listed_bots, open_journal, settle

    from omb_tui.app.app import make_app

    MemoryStore(home, BOT_ID).write("MEMORY.md", "- one good row\n", PERSON)
    journal_with(home, good_row(home, at=5), b"[1,2,3]")
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        assert [s.id for s in bot_list.summaries] == [BOT_ID]
        assert bot_list.summaries[0].last_change is not None  # from the newest good row
        await pilot.press("enter")
        await settle(pilot)
        screen = await open_journal(pilot)
        lines = list_lines(screen)
        assert "damaged row" in lines[0] and "damaged row" in lines[1]
        assert "not a JSON object" in screen.diff_view.text


# ----- conversations and the recall index (files other tools write too) -----


def _chat_file(home: Home) -> Path:
    from support.conversations import make_chat

    return make_chat(home, BOT_ID, "plans").path


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text.replace('"members":[', '"members":5,"x":[', 1),  # the header's members not a list
        lambda text: text + '{"type":"members","at":"2026-11-30T10:00:00+00:00","members":5}\n',
        lambda text: text + '{"type":"members","at":"2026-11-30T10:00:00+00:00","members":[5,"x",{"kind":1}]}\n',
    ],
)
def test_a_damaged_conversation_never_stops_search_or_brief(run_exe, home, damage):
    path = _chat_file(home)
    path.write_text(damage(path.read_text()))
    for argv in (("search", BOT_ID, "--since", "3d"), ("brief", BOT_ID), ("recall", BOT_ID, "plans")):
        proc = run_exe(*argv)
        assert b"Traceback" not in proc.stderr and proc.returncode == 0, (argv, proc.stderr)


def test_conversation_lines_are_valid_utf8_and_keep_their_bytes(home):
    from datetime import datetime, timezone

    from omb_tui.core.memory.conversations import Message, append_message, read_conversation

    path = _chat_file(home)
    odd = b"caf\xc3\xa9 \xff\xfe end".decode("utf-8", "surrogateescape")
    append_message(path, Message("person", "Ana", datetime(2026, 11, 30, 9, tzinfo=UTC), odd))
    for line in path.read_bytes().splitlines():
        json.loads(line.decode("utf-8"))  # strict: every line is valid UTF-8 JSON
    assert read_conversation(path).messages[-1].text == odd


def test_no_conversation_or_index_write_through_a_link(home, tmp_path):
    from datetime import datetime, timezone

    from omb_tui.core.index.recall_index import RecallIndex, index_path
    from omb_tui.core.memory.conversations import Message, append_message

    path = _chat_file(home)
    target = tmp_path / "elsewhere.ndjson"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    before = target.read_bytes()
    with pytest.raises(LinkRefused):
        append_message(path, Message("person", "Ana", clock.now_utc(), "hello"))
    assert target.read_bytes() == before

    index_file = index_path(home, BOT_ID)
    index_file.parent.mkdir(parents=True, exist_ok=True)
    outside_index = tmp_path / "index.sqlite"
    outside_index.write_bytes(b"")
    index_file.symlink_to(outside_index)
    with pytest.raises(LinkRefused):
        RecallIndex(home, BOT_ID).refresh()
    assert outside_index.read_bytes() == b""
