"""The bot settings screen, used as a person would: Pilot at 80x24, homes built through the core."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.app_helpers import PicturedHome, add_bot, open_settings, settle
from support.app_helpers import static_text as text_of
from textual.widgets import Static

from omb_tui.app.app import make_app
from omb_tui.app.screens.settings import MEMORY_OFF_STOPS, SWITCHES, UPKEEP_OFF_STOPS
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home

SETTINGS = {
    "name": "Scout",
    "engine": "claude",
    "instance": "claude",
    "avatar": "owl.png",
    "schedule": {"standup": "09:00"},
}
CONFIG = {
    "helper": {"instanceId": "claude", "model": "claude-haiku-4-5"},
    "features": {"autoRecall": False, "roomMemoryCapture": True},
    "memory": {"captureQuietMs": 90000, "tidyHour": 4},
    "theme": "dark",
}


@pytest.fixture(autouse=True)
def _no_helper_from_environment(monkeypatch):
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    monkeypatch.delenv("OMB_HELPER_MODEL", raising=False)


def build_home(root: Path, settings: dict | str = SETTINGS, config: dict | str | None = CONFIG) -> Home:
    home = Home(root)
    add_bot(home, files={"MEMORY.md": "- short replies, always\n"})
    home.settings_path("scout").write_text(
        settings if isinstance(settings, str) else json.dumps(settings), encoding="utf-8"
    )
    if config is not None:
        home.config_path.write_text(config if isinstance(config, str) else json.dumps(config), encoding="utf-8")
    return home


async def tab_to(pilot, widget) -> None:
    for _ in range(10):
        if pilot.app.focused is widget:
            return
        await pilot.press("tab")
    raise AssertionError(f"tab never reached {widget}")


def saved(home: Home) -> dict:
    return json.loads(home.settings_path("scout").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "field, key, press",
    [
        ("memory", "memory", "space"),
        ("upkeep", "upkeep", "enter"),
        ("helper_model", "helperModel", "space"),
    ],
)
async def test_each_switch_saves_its_key_and_keeps_unknown_keys(tmp_path, field, key, press):
    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        switch = screen.switch(field)
        assert switch.value is True and not switch.disabled
        await tab_to(pilot, switch)
        await pilot.press(press)
        await settle(pilot)
        data = saved(home)
        assert data[key] is False
        for other, value in SETTINGS.items():
            assert data[other] == value  # keys this tool does not know are kept
        others = {s.key for s in SWITCHES} - {key, "compactNightly"}  # compaction is off unless switched on
        assert all(data.get(other, True) is True for other in others)
        assert data.get("compactNightly", False) is False
        # and back on again
        await pilot.press(press)
        await settle(pilot)
        assert saved(home)[key] is True


async def test_letter_keys_toggle_and_say_what_stops(tmp_path):
    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        assert not screen.query_one("#settings-stops").display
        await pilot.press("u")
        await settle(pilot)
        assert saved(home)["upkeep"] is False
        assert text_of(screen, "#settings-stops") == UPKEEP_OFF_STOPS
        await pilot.press("m")
        await settle(pilot)
        assert saved(home)["memory"] is False
        assert text_of(screen, "#settings-stops") == MEMORY_OFF_STOPS
        await pilot.press("h")
        await settle(pilot)
        assert saved(home)["helperModel"] is False
        assert "stays off the helper model" in text_of(screen, "#settings-stops")


async def test_c_switches_nightly_compaction_on_and_says_its_first_week_only_proposes(tmp_path):
    from datetime import date, timedelta

    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        assert text_of(screen, "#label-switch-compact-nightly") == "Nightly compaction: off"
        await pilot.press("c")
        await settle(pilot)
        data = saved(home)
        assert data["compactNightly"] is True and data["compactNightlySince"] == clock.today().isoformat()
        until = (clock.today() + timedelta(days=7)).isoformat()
        assert text_of(screen, "#label-switch-compact-nightly") == (
            f"Nightly compaction: on (only proposes until {until})"
        )
        await pilot.press("c")
        await settle(pilot)
        assert saved(home)["compactNightly"] is False
        assert text_of(screen, "#label-switch-compact-nightly") == "Nightly compaction: off"


async def test_the_screen_shows_the_bot_and_the_app_wide_config(tmp_path):
    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(pilot)
        facts = text_of(screen, "#settings-facts")
        assert "Scout" in facts and "claude" in facts
        assert str(home.workspace("scout")) in facts
        assert str(home.journal_path("scout")) in facts
        config = text_of(screen, "#settings-config")
        assert "claude · claude-haiku-4-5" in config
        assert "off  · features.autoRecall" in config
        assert "on  · features.roomMemoryCapture" in config
        assert "1.5 min  · memory.captureQuietMs" in config
        assert "after 4:00  · memory.tidyHour" in config
        labels = [str(label.content) for label in screen.query(".switch-label").results(Static)]
        # each state in words as well as colour (SETTINGS has every switch on)
        assert labels == [
            "Let this bot use memory: on",
            "Memory upkeep: on",
            "Use the helper model for this bot's jobs: on",
            "Nightly compaction: off",
        ]
        await pilot.press("u")
        await settle(pilot)
        assert str(screen.query_one("#label-switch-upkeep", Static).content) == "Memory upkeep: off"


async def test_an_empty_helper_in_the_environment_is_shown_as_winning_over_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("OMB_HELPER_INSTANCE", "")
    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(pilot)
        config = text_of(screen, "#settings-config")
        assert "none set" in config and "(from OMB_HELPER_INSTANCE, which wins over the file)" in config


async def test_a_broken_settings_file_shows_its_error_and_is_never_written(tmp_path):
    broken = '{"name": "Scout", "memory": '
    home = build_home(tmp_path / "home", settings=broken)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        error = screen.query_one("#settings-error", Static)
        assert error.display
        assert "is not valid JSON" in text_of(screen, "#settings-error")
        assert all(screen.switch(s.field).disabled for s in SWITCHES)
        await pilot.press("m", "u", "h", "tab", "space", "tab", "enter")
        await settle(pilot)
        assert home.settings_path("scout").read_text(encoding="utf-8") == broken


async def test_a_file_broken_after_opening_refuses_the_write(tmp_path):
    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        broken = '{"memory": "yes please"}'
        home.settings_path("scout").write_text(broken, encoding="utf-8")  # edited by hand meanwhile
        await pilot.press("m")
        await settle(pilot)
        assert home.settings_path("scout").read_text(encoding="utf-8") == broken
        assert screen.switch("memory").value is True  # put back: nothing was saved
        assert screen.query_one("#settings-error").display
        assert all(screen.switch(s.field).disabled for s in SWITCHES)


async def test_light_theme(tmp_path):
    home = build_home(tmp_path / "home", settings={**SETTINGS, "memory": False})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = "textual-light"
        screen = await open_settings(pilot)
        assert screen.query_one("#settings-stops").has_class("-stopped")
        assert text_of(screen, "#settings-stops").startswith("Memory is off")


async def test_a_broken_config_shows_its_error(tmp_path):
    home = build_home(tmp_path / "home", config="{nope")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        assert "config.json is not valid JSON" in text_of(screen, "#settings-config")
        assert not any(screen.switch(s.field).disabled for s in SWITCHES)  # the bot's own file is fine


async def test_settings_follow_the_file_on_disk(tmp_path):
    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        home.settings_path("scout").write_text(json.dumps({**SETTINGS, "upkeep": False}), encoding="utf-8")
        app.memory_version += 1
        await settle(pilot)
        assert screen.switch("upkeep").value is False
        assert home.settings_path("scout").read_text(encoding="utf-8") == json.dumps({**SETTINGS, "upkeep": False})


# ----- snapshot -----
@pytest.fixture
def snapshot_home():
    with PicturedHome("/tmp/omb-snapshot-home-settings") as pictured:
        build_home(pictured.home.root, settings={**SETTINGS, "upkeep": False})
        yield pictured


def test_snapshot_settings(snap_compare, snapshot_home):
    assert snap_compare(snapshot_home.app(bot_id="scout"), terminal_size=(80, 24), run_before=open_settings)


async def test_a_switch_key_on_a_broken_file_says_why_and_writes_nothing(tmp_path, monkeypatch):
    home = build_home(tmp_path / "home")
    app = make_app(home, watch=False, bot_id="scout")
    said = []
    monkeypatch.setattr(app, "notify", lambda message, **kwargs: said.append(message))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        broken = '{"memory": '
        home.settings_path("scout").write_text(broken, encoding="utf-8")
        app.memory_version += 1
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert any("not valid JSON" in message and "Nothing is written" in message for message in said)
        assert home.settings_path("scout").read_text(encoding="utf-8") == broken
        assert screen.query_one("#settings-error").display
