"""BotScreen, the base of every per-bot screen: the open bot is built once, not on every use."""

from __future__ import annotations

import pytest
from support.app_helpers import settle

from omb_tui.app.app import make_app
from omb_tui.core.files.paths import Home, NotFound
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)


async def test_the_open_bot_is_built_once_and_again_for_another_bot_or_after_a_change_on_disk(tmp_path):
    home = Home(tmp_path / "home")
    for bot_id in ("scout", "quill"):
        home.workspace(bot_id).mkdir(parents=True)
        MemoryStore(home, bot_id).write("MEMORY.md", f"- {bot_id} notes\n", PERSON)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        first = screen.bot
        assert first.id == "scout" and screen.bot is first  # one Bot for every use while nothing changes
        app.open_bot("quill")
        await settle(pilot)
        assert screen.bot.id == "quill"
        (home.workspace("quill") / "MEMORY.md").unlink()
        home.workspace("quill").rmdir()  # the bot is gone: the next use after the change says so
        app.memory_version += 1
        await settle(pilot)
        with pytest.raises(NotFound):
            _ = screen.bot


async def test_the_bots_header_never_keeps_the_name_of_the_bot_opened_last(home):
    """Back on the Bots screen, the header once still named the bot opened last."""
    from textual.widgets import Header
    from textual.widgets._header import HeaderTitle

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        header = app.screen.query_one(Header).query_one(HeaderTitle)
        shown = str(header.render())
        assert "scout" not in shown and "omb-tui" in shown and str(home.root) in shown
