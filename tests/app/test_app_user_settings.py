"""The person's own settings: the theme chosen in the app is remembered between starts, per user, never in a home."""

from __future__ import annotations

import json
import stat

from support.app_helpers import listed_bots, settle, wait_for

from omb_tui.app.app import make_app
from omb_tui.core.memory.user_settings import user_settings_path


async def test_the_theme_chosen_is_remembered_per_user_not_in_the_home(home, tmp_path):
    settings = user_settings_path()  # HOME is tmp_path/user and XDG_CONFIG_HOME unset in every test
    assert settings == (tmp_path / "user" / ".config" / "omb-tui" / "settings.json").resolve()
    app = make_app(home, watch=False, user_settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await listed_bots(pilot)
        app.theme = "textual-light"
        await wait_for(pilot, settings.exists)
        await settle(pilot)
    assert json.loads(settings.read_text()) == {"theme": "textual-light"}
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert not list(home.root.rglob("settings.json"))

    again = make_app(home, watch=False, user_settings=settings)
    async with again.run_test(size=(80, 24)) as pilot:
        await listed_bots(pilot)
        assert again.theme == "textual-light"


async def test_a_damaged_settings_file_reads_as_none_and_is_written_whole_again(home, tmp_path):
    settings = tmp_path / "config" / "omb-tui" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{not json")
    app = make_app(home, watch=False, user_settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await listed_bots(pilot)
        assert app.theme == "textual-dark"
        app.theme = "nord"
        await wait_for(pilot, lambda: "nord" in settings.read_text())
        await settle(pilot)
    assert json.loads(settings.read_text()) == {"theme": "nord"}
