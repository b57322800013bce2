"""The first look at the bots (the app's first frame): names and memory switch from the settings files alone."""

from __future__ import annotations

from omb_tui.core.memory.bot_names import bot_names
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.turn.bot import all_bots


def test_the_first_look_names_each_bot_as_the_full_read_does(home):
    save_bot_settings(home, BotSettings(id="quill", name="Quill", memory=False))
    home.workspace("plain").mkdir(parents=True)  # a workspace without a settings file is a bot with defaults
    full = [bot.summary() for bot in all_bots(home)]
    first = bot_names(home)
    assert [(b.id, b.name, b.memory) for b in first] == [(s.id, s.name, s.memory) for s in full]
    assert [b.name for b in first] == ["plain", "Quill", "Scout"]


def test_a_broken_settings_file_shows_the_id_until_the_full_read_says_what_is_wrong(home):
    home.settings_path("scout").write_text("{ not json")
    assert [(b.id, b.name) for b in bot_names(home)] == [("scout", "scout")]
    assert all_bots(home)[0].summary().error  # the full read, which follows, flags it


def test_the_first_look_can_stop_after_the_rows_a_screen_holds(home):
    for bot_id in ("alpha", "beta"):
        home.workspace(bot_id).mkdir(parents=True)
    assert [b.id for b in bot_names(home, most=2)] == ["alpha", "beta"]
