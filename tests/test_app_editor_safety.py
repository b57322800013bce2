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
from textual import events

from omb_tui.app.app import OmbApp, make_app
from omb_tui.app.screens.conflict import ConflictDialog
from omb_tui.app.screens.files import FilesScreen
from omb_tui.core.journal import HOW_OUTSIDE, HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.paths import Home
from omb_tui.core.settings import BotSettings, save_bot_settings
from omb_tui.core.store import Actor, MemoryStore

from app_helpers import settle

BOT = Actor(WHO_BOT, HOW_TASK, chat="Follow-up")
ORIGINAL = "- 2026-11-01 · likes short replies\n"
PASSWORD = "hunter2-Quokka-77"


@pytest.fixture
def home(tmp_path):
    home = Home(tmp_path / "home")
    home.workspace("scout").mkdir(parents=True)
    save_bot_settings(home, BotSettings(id="scout", name="Scout"))
    MemoryStore(home, "scout").write("MEMORY.md", ORIGINAL, BOT)
    return home


def memory_path(home):
    return home.workspace("scout") / "MEMORY.md"


async def open_scout(pilot) -> FilesScreen:
    await settle(pilot)
    assert isinstance(pilot.app.screen, FilesScreen)
    return pilot.app.screen


def everything_under(folder) -> str:
    """Every file under folder, read as text (the journal, its kept texts, drafts, the workspace)."""
    return "".join(path.read_bytes().decode("utf-8", "replace") for path in folder.rglob("*") if path.is_file())


# ----- paste, then undo -----

@pytest.mark.parametrize(("pasted_lines", "undos"), [(30, 3), (250, 2)])
async def test_undoing_a_paste_at_the_end_keeps_the_app_and_the_draft(home, pasted_lines, undos):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_scout(pilot)
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
