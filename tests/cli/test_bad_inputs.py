"""Every bad input through the command line: one plain sentence, a non-zero exit, and the files as they were.

Spec: memory.md, "Where it lives" (nothing outside the workspace), "Editing" (topic names, MEMORY.md never
deleted, hash-checked saves) and "The journal". Each case snapshots every file's bytes and mode under the
home (and the folder outside it that links point at) before and after the command.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from support.home import BOT_ID, MEMORY_TEXT

from omb_tui.core.files.paths import Home
from omb_tui.core.turn.bot import Bot

OUTSIDE_TEXT = b"kept outside the workspace\n"


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every entry under the roots: files as (mode, bytes), links as their target, folders as their mode."""
    found: dict[str, tuple] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder) / name
                info = path.lstat()
                key = str(path)
                if stat.S_ISLNK(info.st_mode):
                    found[key] = ("link", os.readlink(path))
                elif stat.S_ISDIR(info.st_mode):
                    found[key] = ("dir", stat.S_IMODE(info.st_mode))
                else:
                    found[key] = ("file", stat.S_IMODE(info.st_mode), path.read_bytes())
    return found


def assert_one_sentence(code: int, err: str | bytes) -> str:
    if isinstance(err, bytes):
        err = err.decode("utf-8", "replace")
    assert code != 0
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("omb-tui: ") and len(lines[0]) > len("omb-tui: ") + 10
    return lines[0]


@pytest.fixture
def outside(tmp_path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "t.md").write_bytes(OUTSIDE_TEXT)
    return folder


def refused_without_change(run_cli, roots: list[Path], *argv: str, stdin: bytes = b"", words: str = "") -> str:
    before = snapshot(*roots)
    result = run_cli(*argv, stdin=stdin)
    line = assert_one_sentence(result.code, result.err)
    assert words.lower() in line.lower(), line
    assert snapshot(*roots) == before
    return line


# ----- paths that lead out of the workspace, or are not memory files -----
LEADS_OUT = [
    "../x",
    "memory/../../x",
    "../../config.json",
    "memory/../MEMORY.md/../../../x.md",
    "memory\\..\\..\\x.md",
    "C:/x.md",
]
NOT_A_MEMORY_FILE = [
    "memory/a/b.md",
    ".hidden.md",
    "memory/.hidden.md",
    "memory/x.txt",
    "memory/log/notes.md",
    "memory/log/2026-02-30.md",
    "memory",
    "notes.md",
]


@pytest.mark.parametrize("rel", LEADS_OUT + NOT_A_MEMORY_FILE)
@pytest.mark.parametrize("command", ["show", "write", "rm"])
def test_bad_path_refused(run_cli, home, outside, command, rel):
    stdin = b"written through a bad path\n" if command == "write" else b""
    refused_without_change(run_cli, [home.root, outside], command, BOT_ID, rel, stdin=stdin)


@pytest.mark.parametrize("command", ["show", "write", "rm"])
def test_absolute_paths_refused(run_cli, home, outside, command):
    # Writes and deletes aim at a file of the test's own, never at a system file.
    target = "/etc/passwd" if command == "show" else str(outside / "t.md")
    line = refused_without_change(run_cli, [home.root, outside], command, BOT_ID, target, stdin=b"pwned\n")
    assert "absolute" in line


@pytest.mark.parametrize("command", ["show", "write", "rm"])
def test_nul_byte_refused(run_cli, home, command):
    # argv cannot carry a NUL byte, so this goes through main() in-process only.
    refused_without_change(run_cli, [home.root], command, BOT_ID, "memory/a\x00b.md", stdin=b"x\n")


@pytest.mark.parametrize(
    "new", ["../escaped.md", ".hidden.md", "a/b.md", "notes.txt", "archive.md", "sub\x00.md", " leading.md"]
)
def test_bad_topic_names_refused_by_mv(run_cli, home, outside, new):
    refused_without_change(run_cli, [home.root, outside], "mv", BOT_ID, "travel.md", new)


# ----- links that lead out -----
@pytest.fixture
def linked_memory_folder(home, outside) -> Home:
    """The bot's memory/ folder is a link to a folder outside the workspace."""
    workspace = home.workspace(BOT_ID)
    real = workspace / "memory"
    for path in sorted(real.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    real.rmdir()
    real.symlink_to(outside, target_is_directory=True)
    Bot(home, BOT_ID).look()  # the move of the old topic and log is journaled now, not during the cases
    return home


@pytest.mark.parametrize(
    "argv",
    [
        ("show", BOT_ID, "memory/t.md"),
        ("write", BOT_ID, "memory/t.md"),
        ("write", BOT_ID, "memory/new-topic.md"),
        ("write", BOT_ID, "memory/archive.md"),
        ("rm", BOT_ID, "memory/t.md"),
        ("mv", BOT_ID, "t.md", "u.md"),
    ],
)
def test_linked_memory_folder_refused(run_cli, linked_memory_folder, outside, argv):
    line = refused_without_change(run_cli, [linked_memory_folder.root, outside], *argv, stdin=b"pwned\n")
    assert "leads out" in line


def test_remember_that_would_archive_through_a_linked_folder_writes_nothing(run_cli, linked_memory_folder, outside):
    memory = linked_memory_folder.workspace(BOT_ID) / "MEMORY.md"
    memory.write_text("".join(f"- 2025-01-{1 + i % 28:02d} · old fact {i:03d}\n" for i in range(200)))
    Bot(linked_memory_folder, BOT_ID).look()
    line = refused_without_change(run_cli, [linked_memory_folder.root, outside], "remember", BOT_ID, "one more")
    assert "leads out" in line


def test_forget_never_reaches_through_a_linked_folder(run_cli, linked_memory_folder, outside):
    result = run_cli("forget", BOT_ID, "kept", "outside")
    assert result.code == 0, result.err
    assert (outside / "t.md").read_bytes() == OUTSIDE_TEXT


@pytest.fixture
def linked_topic(home, outside) -> Home:
    """memory/t.md is a link to a file outside the workspace."""
    (home.workspace(BOT_ID) / "memory" / "t.md").symlink_to(outside / "t.md")
    Bot(home, BOT_ID).look()
    return home


@pytest.mark.parametrize(
    "argv",
    [
        ("show", BOT_ID, "memory/t.md"),
        ("show", BOT_ID, "memory/t.md", "--json"),
        ("write", BOT_ID, "memory/t.md"),
        ("rm", BOT_ID, "memory/t.md"),
        ("mv", BOT_ID, "t.md", "u.md"),
    ],
)
def test_linked_topic_refused(run_cli, linked_topic, outside, argv):
    line = refused_without_change(run_cli, [linked_topic.root, outside], *argv, stdin=b"pwned\n")
    assert "leads out" in line


def test_linked_topic_is_not_listed_or_loaded(run_cli, linked_topic, outside):
    assert "memory/t.md" not in run_cli("prompt", BOT_ID).out
    assert all(mp.rel != "memory/t.md" for mp in linked_topic.memory_files(BOT_ID))
    assert run_cli("forget", BOT_ID, "kept", "outside").code == 0
    assert (outside / "t.md").read_bytes() == OUTSIDE_TEXT


def test_linked_log_folder_refused(run_cli, home, outside):
    log_folder = home.workspace(BOT_ID) / "memory" / "log"
    for path in log_folder.iterdir():
        path.unlink()
    log_folder.rmdir()
    (outside / "2026-01-01.md").write_bytes(OUTSIDE_TEXT)
    log_folder.symlink_to(outside, target_is_directory=True)
    Bot(home, BOT_ID).look()
    for command in ("show", "rm"):
        line = refused_without_change(run_cli, [home.root, outside], command, BOT_ID, "memory/log/2026-01-01.md")
        assert "leads out" in line


def test_linked_memory_md_refused(run_cli, home, outside):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    memory.unlink()
    memory.symlink_to(outside / "t.md")
    Bot(home, BOT_ID).look()
    roots = [home.root, outside]
    for argv in (("show", BOT_ID, "MEMORY.md"), ("write", BOT_ID, "MEMORY.md"), ("remember", BOT_ID, "x y z")):
        assert "leads out" in refused_without_change(run_cli, roots, *argv, stdin=b"pwned\n")


# ----- bot ids -----
@pytest.mark.parametrize("bot", ["../evil", "..", "a/b", ".hidden", "sc\x00out", "x" * 65, ""])
@pytest.mark.parametrize("command", [("show", "MEMORY.md"), ("remember", "a note"), ("journal",), ("gauge",)])
def test_invalid_bot_id_refused(run_cli, home, tmp_path, bot, command):
    name, *rest = command
    line = refused_without_change(run_cli, [tmp_path], name, bot, *rest)
    assert "not a valid bot id" in line


@pytest.mark.parametrize(
    "argv",
    [
        ("show", "nobody", "MEMORY.md"),
        ("remember", "nobody", "a note"),
        ("write", "nobody", "MEMORY.md"),
        ("undo", "nobody", "0-0000"),
        ("prompt", "nobody"),
    ],
)
def test_unknown_bot_refused(run_cli, home, argv):
    line = refused_without_change(run_cli, [home.root], *argv, stdin=b"x\n")
    assert "no bot 'nobody'" in line


# ----- notes the rules refuse -----
@pytest.mark.parametrize(
    "argv",
    [
        ("remember", BOT_ID, "x" * 1001),
        ("remember", BOT_ID, "\n".join(f"line {i}" for i in range(21))),
        ("remember", BOT_ID, "a past fact", "--until", "2000-01-01"),
        ("remember", BOT_ID, "   "),
        ("remember", BOT_ID, "a note", "--chat", 'say "hi"'),
        ("prefer", BOT_ID, "p" * 301),
        ("forget", BOT_ID, " "),
        ("rm", BOT_ID, "MEMORY.md"),
        ("rm", BOT_ID, "memory/archive.md"),
        ("rm", BOT_ID, "memory/never-was.md"),
        ("undo", BOT_ID, "0-0000"),
        ("journal", BOT_ID, "--limit", "0"),
    ],
)
def test_refused_notes_and_actions_change_nothing(run_cli, home, argv):
    refused_without_change(run_cli, [home.root], *argv)


def test_stale_write_changes_nothing(run_cli, home):
    shown = json.loads(run_cli("show", BOT_ID, "MEMORY.md", "--json").out)
    assert run_cli("write", BOT_ID, "MEMORY.md", stdin=b"- saved by someone else\n").code == 0
    before = snapshot(home.root)
    result = run_cli("write", BOT_ID, "MEMORY.md", "--expect-hash", shown["hash"], stdin=b"my draft\n")
    assert result.code == 3
    assert_one_sentence(result.code, result.err)
    assert result.out.strip() == hashlib.sha256(b"- saved by someone else\n").hexdigest()
    assert snapshot(home.root) == before


# ----- broken files -----
def test_broken_settings_json(run_cli, home):
    home.settings_path(BOT_ID).write_text("{not json")
    for argv in (("prompt", BOT_ID), ("prefer", BOT_ID, "short replies please")):
        line = refused_without_change(run_cli, [home.root], *argv)
        assert "scout.json" in line
    listed = run_cli("bots", "--json")  # the overview still lists the bot, with why it is broken
    assert listed.code == 0
    (bot,) = json.loads(listed.out)
    assert bot["id"] == BOT_ID and "scout.json" in bot["error"]


def test_settings_that_are_json_but_wrong(run_cli, home):
    home.settings_path(BOT_ID).write_text('{"memory": "yes"}')
    assert "memory" in refused_without_change(run_cli, [home.root], "prompt", BOT_ID)
    home.settings_path(BOT_ID).write_text("[1, 2]")
    assert "object" in refused_without_change(run_cli, [home.root], "prompt", BOT_ID)


def test_broken_config_json_breaks_nothing_and_is_left_alone(run_cli, home):
    home.config_path.write_bytes(b'{"features": {"autoRecall": tru')
    before = snapshot(home.root)
    for argv in (("bots",), ("gauge", BOT_ID), ("prompt", BOT_ID), ("show", BOT_ID, "MEMORY.md"), ("journal", BOT_ID)):
        result = run_cli(*argv)
        assert "Traceback" not in result.err
        if result.code != 0:
            assert_one_sentence(result.code, result.err)
    assert snapshot(home.root) == before


def test_broken_config_json_is_reported(run_cli, home):
    home.config_path.write_bytes(b'{"features": {"autoRecall": tru')
    line = refused_without_change(run_cli, [home.root], "bots")
    assert "config.json" in line


def good_rows(run_cli, count: int) -> list[dict]:
    for i in range(count):
        assert run_cli("remember", BOT_ID, f"fact number {i}").code == 0
    return json.loads(run_cli("journal", BOT_ID, "--json").out)


def test_damaged_journal_line_is_skipped(run_cli, home):
    rows = good_rows(run_cli, 3)
    journal = home.journal_path(BOT_ID)
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(lines[0] + b'{"id": "broken", "at": \n' + b"\xff\xfe not json\n" + b"".join(lines[1:]))
    before = snapshot(home.root)
    result = run_cli("journal", BOT_ID, "--json")
    assert result.code == 0 and "Traceback" not in result.err
    assert [r["id"] for r in json.loads(result.out)] == [r["id"] for r in rows]
    text = run_cli("journal", BOT_ID)
    assert text.code == 0 and all(r["id"] in text.out for r in rows)
    assert snapshot(home.root) == before
    assert run_cli("undo", BOT_ID, rows[-1]["id"], "--yes").code == 0  # the good rows still work
    assert (home.workspace(BOT_ID) / "MEMORY.md").read_text() == MEMORY_TEXT


def test_a_torn_last_journal_line_does_not_swallow_the_next_row(run_cli, home):
    rows = good_rows(run_cli, 2)
    journal = home.journal_path(BOT_ID)
    journal.write_bytes(journal.read_bytes() + b'{"id": "torn", "at')  # a writer died mid-line
    assert run_cli("remember", BOT_ID, "after the tear").code == 0
    after = json.loads(run_cli("journal", BOT_ID, "--json").out)
    assert len(after) == len(rows) + 1
    assert "after the tear" in after[0]["diff"]


INVALID_UTF8 = b"# Memory\n- caf\xe9 in Lisbon \xff\xfe\n- 2026-01-05 \xc3\x28 \xb7 odd bytes\n"


@pytest.fixture
def invalid_utf8_home(home) -> Home:
    (home.workspace(BOT_ID) / "MEMORY.md").write_bytes(INVALID_UTF8)
    Bot(home, BOT_ID).look()  # journal the outside edit now, so the cases below change nothing
    return home


def test_invalid_utf8_round_trips_through_show_and_write(run_exe, invalid_utf8_home):
    memory = invalid_utf8_home.workspace(BOT_ID) / "MEMORY.md"
    before = snapshot(invalid_utf8_home.root)
    shown = run_exe("show", BOT_ID, "MEMORY.md")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == INVALID_UTF8
    for argv in (("gauge", BOT_ID, "--json"), ("prompt", BOT_ID), ("bots",)):
        proc = run_exe(*argv)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, (argv, proc.stderr)
    same = run_exe(
        "write", BOT_ID, "MEMORY.md", "--expect-hash", hashlib.sha256(INVALID_UTF8).hexdigest(), stdin=shown.stdout
    )
    assert same.returncode == 0, same.stderr
    assert snapshot(invalid_utf8_home.root) == before  # the same bytes back: nothing changes, nothing journaled
    edited = shown.stdout + b"- one more line \xfe\n"
    saved = run_exe("write", BOT_ID, "MEMORY.md", stdin=edited)
    assert saved.returncode == 0, saved.stderr
    assert memory.read_bytes() == edited
    newest = json.loads(run_exe("journal", BOT_ID, "--json", "--limit", "1").stdout)[0]
    undone = run_exe("undo", BOT_ID, newest["id"])
    assert undone.returncode == 0, undone.stderr
    assert memory.read_bytes() == INVALID_UTF8


def test_invalid_utf8_survives_remember(run_cli, invalid_utf8_home):
    memory = invalid_utf8_home.workspace(BOT_ID) / "MEMORY.md"
    assert run_cli("remember", BOT_ID, "a clean note").code == 0
    assert memory.read_bytes().startswith(INVALID_UTF8)


def test_invalid_utf8_show_under_a_strict_utf8_locale(run_exe, invalid_utf8_home):
    strict = {"PYTHONUTF8": "0", "PYTHONIOENCODING": "utf-8:strict"}
    shown = run_exe("show", BOT_ID, "MEMORY.md", env=strict)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == INVALID_UTF8
    assert run_exe("prompt", BOT_ID, env=strict).returncode == 0


def test_invalid_utf8_json_output_is_valid_json(run_exe, invalid_utf8_home):
    shown = run_exe("show", BOT_ID, "MEMORY.md", "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["hash"] == hashlib.sha256(INVALID_UTF8).hexdigest()
    assert data["text"].encode("utf-8", "surrogateescape") == INVALID_UTF8
    journal = run_exe("journal", BOT_ID, "--json")
    assert journal.returncode == 0
    assert json.loads(journal.stdout)[0]["how"] == "changed outside the app"


def test_broken_frontmatter_topic(run_cli, home):
    topic = home.workspace(BOT_ID) / "memory" / "broken.md"
    topic.write_text("---\ntitle: [unclosed\naliases: {a: \n---\n# Broken\n\n- 2026-01-07 · still a note\n")
    Bot(home, BOT_ID).look()
    before = snapshot(home.root)
    prompt = run_cli("prompt", BOT_ID)
    assert prompt.code == 0 and "Traceback" not in prompt.err
    assert "- memory/broken.md\n" in prompt.out  # listed by name only
    assert "memory/travel.md — Travel" in prompt.out  # the good topic keeps its title
    shown = run_cli("show", BOT_ID, "memory/broken.md")
    assert shown.code == 0 and shown.out == topic.read_text()
    assert run_cli("bots").code == 0
    assert snapshot(home.root) == before


def test_a_folder_where_a_topic_should_be(run_cli, home):
    (home.workspace(BOT_ID) / "memory" / "folder.md").mkdir()
    Bot(home, BOT_ID).look()
    refused_without_change(run_cli, [home.root], "show", BOT_ID, "memory/folder.md")
    refused_without_change(run_cli, [home.root], "write", BOT_ID, "memory/folder.md", stdin=b"x\n")


def test_bots_lists_every_bot_when_one_has_a_linked_memory_md(run_cli, home, outside, tmp_path):
    from support.home import make_bot

    make_bot(home, "other", name="Other")
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    memory.unlink()
    memory.symlink_to(outside / "t.md")
    result = run_cli("bots", "--json")
    assert result.code == 0, result.err
    listed = {b["id"]: b for b in json.loads(result.out)}
    assert set(listed) == {BOT_ID, "other"}
    assert listed[BOT_ID]["error"]
    assert (outside / "t.md").read_bytes() == OUTSIDE_TEXT


@pytest.mark.parametrize(
    "argv", [("remember", BOT_ID, "a new fact"), ("forget", BOT_ID, "Pune"), ("prefer", BOT_ID, "short replies")]
)
def test_broken_profile_learned_json_changes_nothing(run_cli, home, argv):
    home.profile_learned_path.write_text("{broken")
    line = refused_without_change(run_cli, [home.root], *argv)
    assert "profile-learned.json" in line
