"""`omb-tui duplicate BOT NEW_ID [--name NAME]`: a copy of a bot (spec memory.md, "Keeping one bot off the helper":
a copy made with Duplicate keeps `helperModel`; "The journal": an import is a row)."""

from __future__ import annotations

import json
import os
import stat

from support.home import MEMORY_TEXT

from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory.conversations import chats_dir
from omb_tui.core.memory.settings import load_bot_settings, set_bot_switches
from omb_tui.core.memory.store import MemoryStore


def files_of(home, bot_id):
    workspace = home.workspace(bot_id)
    return {str(p.relative_to(workspace)): p.read_bytes() for p in sorted(workspace.rglob("*")) if p.is_file()}


def test_the_copy_keeps_the_settings_and_the_workspace_but_no_history(run_cli, home):
    set_bot_switches(home, "scout", {"helperModel": False, "upkeep": False})
    settings = json.loads(home.settings_path("scout").read_text())
    home.settings_path("scout").write_text(json.dumps({**settings, "colour": "teal"}))
    (home.workspace("scout") / "INSTRUCTIONS.md").write_text("Answer briefly.\n")
    chats_dir(home, "scout").mkdir(parents=True)
    (chats_dir(home, "scout") / "plans.ndjson").write_text("{}\n")
    MemoryStore(home, "scout").write("MEMORY.md", MEMORY_TEXT + "- more\n", Actor(WHO_PERSON, HOW_SETTINGS))

    result = run_cli("duplicate", "scout", "scout2")
    assert result.code == 0, result.err
    assert result.out.startswith("Copied scout as scout2 (Scout (copy)): 4 files; it stays off the helper model")

    copy = load_bot_settings(home, "scout2")
    assert copy.helper_model is False and copy.upkeep is False and copy.name == "Scout (copy)"
    assert json.loads(home.settings_path("scout2").read_text())["colour"] == "teal"
    assert files_of(home, "scout2") == files_of(home, "scout")
    assert not chats_dir(home, "scout2").exists()
    rows = MemoryStore(home, "scout2").journal.rows()[::-1]  # oldest first
    memory_files = sorted(mp.rel for mp in home.memory_files("scout2"))
    # one import row per memory file it started with, MEMORY.md first, each undoable alone
    assert [row.file for row in rows] == ["MEMORY.md", *[rel for rel in memory_files if rel != "MEMORY.md"]]
    assert all(row.who == "import" and row.note == "copied from bot 'scout'" and row.undoable for row in rows)
    for path in home.workspace("scout2").rglob("*"):
        assert stat.S_IMODE(os.stat(path).st_mode) in (0o600, 0o700)


def test_the_import_row_undoes_and_later_edits_are_journaled_as_the_copy(run_cli, home):
    assert run_cli("duplicate", "scout", "scout2", "--name", "Second").code == 0
    assert load_bot_settings(home, "scout2").name == "Second"
    rows = MemoryStore(home, "scout2").journal.rows()
    row = next(row for row in rows if row.file == "MEMORY.md")
    topic = next(row for row in rows if row.file != "MEMORY.md")
    assert run_cli("undo", "scout2", topic.id).code == 0  # one file's copy taken back alone
    assert not (home.workspace("scout2") / topic.file).exists() and (home.workspace("scout") / topic.file).exists()
    assert run_cli("undo", "scout2", row.id).code == 0
    assert (home.workspace("scout2") / "MEMORY.md").read_text() == ""  # MEMORY.md is emptied, never deleted
    assert (home.workspace("scout") / "MEMORY.md").read_text() == MEMORY_TEXT  # the original is untouched


def test_json_names_the_copy_and_its_files(run_cli, home):
    data = json.loads(run_cli("duplicate", "scout", "scout2", "--json").out)
    assert data["bot"] == "scout2" and data["from"] == "scout" and data["helper_model"] is True
    assert data["files"] == ["MEMORY.md", "memory/log/2026-01-05.md", "memory/travel.md"]


def test_an_id_in_use_a_bad_id_and_an_unknown_bot_are_one_sentence_and_write_nothing(run_cli, home):
    assert run_cli("duplicate", "scout", "scout2").code == 0
    before = sorted(p.name for p in home.journal_dir.iterdir())
    for argv, sentence in [
        (("duplicate", "scout", "scout2"), "already has a bot 'scout2'"),
        (("duplicate", "scout", "../x"), "not a valid bot id"),
        (("duplicate", "nobody", "n2"), "There is no bot 'nobody'"),
        (("duplicate", "scout", "s3", "--name", "  "), "--name: the value is empty"),
    ]:
        result = run_cli(*argv)
        assert result.code == 2, argv
        assert sentence in result.err and len(result.err.strip().splitlines()) == 1
    assert sorted(home.bot_ids()) == ["scout", "scout2"]
    assert sorted(p.name for p in home.journal_dir.iterdir()) == before
