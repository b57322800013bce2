"""The editor never loses typing and never saves a credential: paste and undo, $EDITOR, recovery drafts.

Pilot at 80x24, used as a person would.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import textwrap

import pytest
from support.app_helpers import add_bot, open_files, settle
from textual import events

from omb_tui.app.app import OmbApp, make_app
from omb_tui.app.dialogs.conflict import ConflictDialog
from omb_tui.app.screens.files import FilesScreen
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore

BOT = Actor(WHO_BOT, HOW_TASK, chat="Follow-up")
ORIGINAL = "- 2026-11-01 · likes short replies\n"
PASSWORD = "hunter2-Quokka-77"


@pytest.fixture
def home(tmp_path):
    home = Home(tmp_path / "home")
    add_bot(home, files={"MEMORY.md": ORIGINAL}, actor=BOT)
    return home


def memory_path(home):
    return home.workspace("scout") / "MEMORY.md"


def everything_under(folder) -> str:
    """Every file under folder, read as text (the journal, its kept texts, drafts, the workspace)."""
    return "".join(path.read_bytes().decode("utf-8", "replace") for path in folder.rglob("*") if path.is_file())


# ----- paste, then undo -----


@pytest.mark.parametrize(("pasted_lines", "undos"), [(30, 3), (250, 2)])
async def test_undoing_a_paste_at_the_end_keeps_the_app_and_the_draft(home, pasted_lines, undos):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("enter", "ctrl+end")
        pasted = "".join(f"- pasted line {n}\n" for n in range(pasted_lines))
        app.post_message(events.Paste(pasted))  # what the terminal driver sends for a bracketed paste
        await pilot.pause()
        assert screen.editor.text == ORIGINAL + pasted
        await pilot.press(*["ctrl+z"] * undos)
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert screen.editor.text == ORIGINAL  # the paste is undone ...
        assert screen.editor.cursor_location == (1, 0)  # ... and the cursor is back where it was
        await pilot.press("ctrl+y")  # ... and redo brings it back
        await pilot.pause()
        assert screen.editor.text == ORIGINAL + pasted and screen.modified


# ----- recovery drafts -----


@pytest.fixture
def quick_drafts(monkeypatch):
    """Drafts are written a moment after typing stops; in these tests the moment is short."""
    monkeypatch.setattr(FilesScreen, "DRAFT_DELAY", 0.05)


def drafts_of(home):
    from omb_tui.core.memory.drafts import Drafts

    return Drafts(home, "scout")


async def until(pilot, condition) -> bool:
    """Let the app run until condition() holds (a draft written by a background thread, say)."""
    for _ in range(200):
        if condition():
            return True
        await pilot.pause(0.02)
    return condition()


async def type_at_end(pilot, screen, *keys):
    screen.editor.focus()
    screen.editor.move_cursor(screen.editor.document.end)
    await pilot.press(*keys)


async def test_typing_keeps_a_private_redacted_draft_outside_the_workspace(home, quick_drafts):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *f"- wifi password: {PASSWORD}")
        draft_path = drafts_of(home).path("MEMORY.md")
        # a draft saved while the keys were still arriving (a loaded machine) is followed by the whole line
        assert await until(pilot, lambda: draft_path.exists() and "password: «redacted" in draft_path.read_text())
        assert home.workspace("scout").resolve() not in draft_path.resolve().parents
        assert stat.S_IMODE(os.stat(draft_path).st_mode) == 0o600
        draft = drafts_of(home).find("MEMORY.md")
        assert draft.text.startswith(ORIGINAL + "- wifi password: «redacted")
        assert PASSWORD not in everything_under(home.root)  # not in the draft, nor anywhere else
        assert memory_path(home).read_text() == ORIGINAL  # nothing is saved until Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not draft_path.exists()  # saved: nothing left to recover


async def test_undoing_back_to_the_file_removes_the_draft(home, quick_drafts):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"abc")
        draft_path = drafts_of(home).path("MEMORY.md")
        assert await until(pilot, draft_path.exists)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert not screen.modified and not draft_path.exists()


def crash(app) -> None:
    """An unexpected error in the app, as a bug would raise it."""

    def fail() -> None:
        raise RuntimeError("an unexpected bug")

    app.call_later(fail)


async def crash_while_typing(home, typed: str) -> None:
    """Type into MEMORY.md, then the app dies of an unexpected error before the draft's delay is over."""
    app = make_app(home, watch=False, bot_id="scout")
    with pytest.raises(RuntimeError, match="an unexpected bug"):
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_files(pilot)
            await type_at_end(pilot, screen, *typed)
            crash(app)
            await pilot.pause()
    assert app.return_code == 1


async def draft_offered(pilot):
    """The dialog offering a kept draft back (settle would wait for it to be answered)."""
    from omb_tui.app.dialogs.draft_found import DraftFoundDialog

    assert await until(pilot, lambda: isinstance(pilot.app.screen, DraftFoundDialog))
    return pilot.app.screen


async def test_a_crash_keeps_the_draft_and_the_next_app_offers_it_back(home, monkeypatch):
    monkeypatch.setattr(FilesScreen, "DRAFT_DELAY", 3600)  # only the crash itself can write it
    await crash_while_typing(home, "- typed before the crash")
    assert memory_path(home).read_text() == ORIGINAL
    assert drafts_of(home).find("MEMORY.md").text == ORIGINAL + "- typed before the crash"

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await draft_offered(pilot)
        assert "You have an unsaved draft of MEMORY.md" in dialog.question
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FilesScreen)
        assert screen.editor.text == ORIGINAL + "- typed before the crash"
        assert screen.modified and memory_path(home).read_text() == ORIGINAL  # restored, not saved
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert memory_path(home).read_text() == ORIGINAL + "- typed before the crash"
        row = MemoryStore(home, "scout").journal.rows(limit=1)[0]
        assert (row.who, row.how) == (WHO_PERSON, HOW_SETTINGS)
        assert drafts_of(home).find("MEMORY.md") is None


async def test_a_draft_can_be_discarded_or_left_for_later(home, monkeypatch):
    monkeypatch.setattr(FilesScreen, "DRAFT_DELAY", 3600)
    await crash_while_typing(home, "- a draft")
    for key, kept in (("escape", True), ("d", False)):
        app = make_app(home, watch=False, bot_id="scout")
        async with app.run_test(size=(80, 24)) as pilot:
            await draft_offered(pilot)
            await pilot.press(key)
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, FilesScreen) and screen.editor.text == ORIGINAL and not screen.modified
            assert (drafts_of(home).find("MEMORY.md") is not None) is kept
    assert memory_path(home).read_text() == ORIGINAL


async def test_a_restored_draft_the_bot_changed_since_goes_through_the_conflict(home, monkeypatch):
    monkeypatch.setattr(FilesScreen, "DRAFT_DELAY", 3600)
    await crash_while_typing(home, "- mine")
    MemoryStore(home, "scout").write("MEMORY.md", "- the bot's newer version\n", BOT)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await draft_offered(pilot)
        assert "changed the file since" in dialog.note
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert screen.editor.text == ORIGINAL + "- mine"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConflictDialog)  # never saved over the bot's version unasked
        await pilot.press("r")
        await settle(pilot)
        assert memory_path(home).read_text() == "- the bot's newer version\n"
        assert "- mine" in screen.query_one("#draft").text


async def test_quitting_after_the_question_discards_the_draft(home, quick_drafts):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"typed")
        assert await until(pilot, drafts_of(home).path("MEMORY.md").exists)
        await pilot.press("ctrl+q", "ctrl+q")  # asked, and asked again: quit means quit
        await settle(pilot)
    assert app.return_code == 0
    assert drafts_of(home).find("MEMORY.md") is None


async def test_opening_another_file_and_discarding_removes_the_draft(home, quick_drafts):
    MemoryStore(home, "scout").write("memory/travel.md", "# Travel\n", BOT)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"typed")
        assert await until(pilot, drafts_of(home).path("MEMORY.md").exists)
        screen.open_file("memory/travel.md")
        await pilot.pause()
        await pilot.press("y")  # Discard changes
        await settle(pilot)
        assert screen.current.rel == "memory/travel.md"
        assert drafts_of(home).find("MEMORY.md") is None


# ----- $EDITOR edits a private copy; what comes back is saved like Ctrl+S -----

EDITOR_SCRIPT = textwrap.dedent("""\
    import json, os, stat, sys
    path = sys.argv[1]
    report = {"path": path, "mode": stat.S_IMODE(os.stat(path).st_mode),
              "folder_mode": stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode),
              "received": open(path, encoding="utf-8").read()}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(os.environ["EDIT_APPEND"])
    if os.environ.get("EDIT_ALSO_WRITE"):  # someone else changes the real file meanwhile
        with open(os.environ["EDIT_ALSO_WRITE"], "w", encoding="utf-8") as handle:
            handle.write("- the bot wrote meanwhile\\n")
    with open(os.environ["EDIT_REPORT"], "w", encoding="utf-8") as handle:
        json.dump(report, handle)
    sys.exit(int(os.environ.get("EDIT_EXIT", "0")))
""")


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """$EDITOR is a script that appends EDIT_APPEND to the file it is given and reports what it saw."""
    import json
    import shlex

    script = tmp_path / "editor.py"
    script.write_text(EDITOR_SCRIPT)
    report = tmp_path / "editor-report.json"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    monkeypatch.setenv("EDIT_REPORT", str(report))
    monkeypatch.setenv("EDIT_APPEND", f"- wifi password: {PASSWORD}\n")
    # A test app has no terminal to hand over; the editor runs all the same.
    monkeypatch.setattr(OmbApp, "suspend", lambda app: contextlib.nullcontext())
    return lambda: json.loads(report.read_text())


async def test_the_external_editor_edits_a_private_copy_and_saves_it_redacted_as_your_edit(home, editor):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        seen = editor()
        assert seen["received"] == ORIGINAL
        copy = seen["path"]
        assert not copy.startswith(str(home.root)) and copy.endswith("/MEMORY.md")
        assert (seen["mode"], seen["folder_mode"]) == (0o600, 0o700)
        assert not os.path.exists(os.path.dirname(copy))  # removed once read back
        on_disk = memory_path(home).read_text()
        assert on_disk.startswith(ORIGINAL + "- wifi password: «redacted")
        assert PASSWORD not in everything_under(home.root)  # workspace, journal, kept texts, drafts
        rows = MemoryStore(home, "scout").journal.rows()
        assert (rows[0].who, rows[0].how) == (WHO_PERSON, HOW_SETTINGS)  # like a Ctrl+S save
        assert not any(row.how == HOW_OUTSIDE for row in rows)
        assert screen.editor.text == on_disk and not screen.modified


async def test_the_external_editor_gets_the_unsaved_draft(home, editor):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"- typed in the app")
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert editor()["received"] == ORIGINAL + "- typed in the app"
        assert memory_path(home).read_text().startswith(ORIGINAL + "- typed in the app- wifi password: «redacted")


async def test_the_external_editor_meets_the_conflict_when_the_file_changed_meanwhile(home, editor, monkeypatch):
    monkeypatch.setenv("EDIT_ALSO_WRITE", str(memory_path(home)))
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConflictDialog))
        assert isinstance(app.screen, ConflictDialog)
        await pilot.press("r")  # Reload: their version in the editor, yours kept beside it
        await settle(pilot)
        assert memory_path(home).read_text() == "- the bot wrote meanwhile\n"
        assert screen.editor.text == "- the bot wrote meanwhile\n"
        assert "- wifi password:" in screen.query_one("#draft").text
        assert PASSWORD not in everything_under(home.root)


async def test_an_editor_that_fails_saves_nothing(home, editor, monkeypatch):
    monkeypatch.setenv("EDIT_EXIT", "1")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert editor()["received"] == ORIGINAL
        assert memory_path(home).read_text() == ORIGINAL and screen.editor.text == ORIGINAL
