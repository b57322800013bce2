"""The Bots screen's Duplicate (d): a dialog for the copy's id and name, then the copy listed (spec memory.md,
"Keeping one bot off the helper": a copy made with Duplicate keeps the helper switch)."""

from __future__ import annotations

from support.app_helpers import add_bot, listed_bots, settle, wait_for
from textual.widgets import Input

from omb_tui.app.app import make_app
from omb_tui.app.dialogs.duplicate_bot import DuplicateBotDialog
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.settings import load_bot_settings, set_bot_switches
from omb_tui.core.memory.store import MemoryStore


def a_home(tmp_path) -> Home:
    home = Home(tmp_path / "home")
    add_bot(home, "scout", name="Scout", files={"MEMORY.md": "- likes tea\n", "memory/travel.md": "# Travel\n"})
    set_bot_switches(home, "scout", {"helperModel": False})
    return home


async def test_d_copies_the_highlighted_bot_with_its_switch_and_lists_the_copy(tmp_path):
    home = a_home(tmp_path)
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        assert bot_list.highlighted.id == "scout"
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DuplicateBotDialog))
        id_field = app.screen.query_one("#duplicate-id", Input)
        assert id_field.value == "scout-copy"
        id_field.value = "scout2"
        app.screen.query_one("#duplicate-name", Input).value = "Scout two"
        await pilot.press("enter")
        await wait_for(pilot, lambda: [s.id for s in bot_list.summaries] == ["scout", "scout2"])
        await settle(pilot)
        assert "Copied scout as scout2 (Scout two). It stays off the helper model" in "".join(
            str(n.message) for n in app._notifications
        )
    copy = load_bot_settings(home, "scout2")
    assert copy.name == "Scout two" and copy.helper_model is False
    assert (home.workspace("scout2") / "memory" / "travel.md").read_text() == "# Travel\n"
    rows = MemoryStore(home, "scout2").journal.rows()
    assert [(r.who, r.file) for r in rows] == [("import", "memory/travel.md"), ("import", "MEMORY.md")]  # a row each


async def test_an_id_in_use_keeps_the_dialog_open_and_escape_copies_nothing(tmp_path):
    home = a_home(tmp_path)
    add_bot(home, "quill", name="Quill")
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DuplicateBotDialog))
        dialog = app.screen
        dialog.query_one("#duplicate-id", Input).value = "scout" if bot_list.highlighted.id == "quill" else "quill"
        await pilot.pause()
        assert "There is already a bot" in str(dialog.query_one("#duplicate-hint").render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog  # still open, the id as typed
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DuplicateBotDialog))
        await settle(pilot)
    assert sorted(home.bot_ids()) == ["quill", "scout"]


async def test_help_on_the_bots_screen_lists_duplicate(tmp_path):
    app = make_app(a_home(tmp_path), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await listed_bots(pilot)
        await pilot.press("f1")
        await pilot.pause()
        described = " ".join(what for _, what in app.screen.rows)
        assert "Copy the selected bot under a new id" in described
