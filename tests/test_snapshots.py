"""Snapshots of the bots and memory files screens at 80x24 (pytest-textual-snapshot).

The home sits at a fixed path and journal times are fixed, so the pictures only change when the app does.
Update after a deliberate change with: pytest tests/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from app_helpers import settle

from omb_tui.app.app import make_app
from omb_tui.core.paths import Home
from omb_tui.core.settings import BotSettings, save_bot_settings
from omb_tui.core.store import Actor, MemoryStore

SNAPSHOT_HOME = Path("/tmp/omb-tui-snapshots/home")
BOT = Actor("bot", "during a task", chat="Plans")


@pytest.fixture
def snapshot_home():
    shutil.rmtree(SNAPSHOT_HOME.parent, ignore_errors=True)
    home = Home(SNAPSHOT_HOME)
    for bot_id, name, memory in (("scout", "Scout", True), ("quill", "Quill", False)):
        home.workspace(bot_id).mkdir(parents=True)
        save_bot_settings(home, BotSettings(id=bot_id, name=name, memory=memory))
    store = MemoryStore(home, "scout")
    lines = [f"- 2026-10-{day:02d} · from chat \"Plans\" · note number {day}\n" for day in range(1, 29)]
    store.write("MEMORY.md", "# Scout's notes\n\n" + "".join(lines), BOT)
    store.write("memory/travel.md", "---\ntitle: Travel\n---\n# Travel\n", BOT)
    store.write("memory/log/2026-11-29.md", "- said hello\n", BOT, allow_log=True)
    journal = store.journal.path
    journal.write_text(re.sub(r'"at":"[^"]+"', '"at":"2026-11-29T09:00:00.000+00:00"', journal.read_text()))
    yield home
    shutil.rmtree(SNAPSHOT_HOME.parent, ignore_errors=True)


def test_bots_screen(snap_compare, snapshot_home):
    async def listed(pilot):
        from omb_tui.app.widgets.bot_list import BotList

        for _ in range(100):  # the list loads after the first frame
            await settle(pilot)
            if pilot.app.screen.query_one(BotList).row_count:
                break

    assert snap_compare(make_app(snapshot_home, watch=False), terminal_size=(80, 24), run_before=listed)


def test_memory_files_screen(snap_compare, snapshot_home):
    async def open_scout(pilot):
        await settle(pilot)
        pilot.app.screen.query_one("#editor").cursor_blink = False
        await pilot.pause()

    app = make_app(snapshot_home, watch=False, bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_scout)


def test_memory_files_screen_light_theme(snap_compare, snapshot_home):
    async def open_scout_light(pilot):
        pilot.app.theme = "textual-light"
        await settle(pilot)
        pilot.app.screen.query_one("#editor").cursor_blink = False
        await pilot.pause()

    app = make_app(snapshot_home, watch=False, bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_scout_light)


def test_help_screen(snap_compare, snapshot_home):
    async def open_help(pilot):
        await settle(pilot)
        pilot.app.screen.query_one("#editor").cursor_blink = False
        await pilot.press("f1")
        await pilot.pause()

    app = make_app(snapshot_home, watch=False, bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_help)
