"""Changing a bot's settings through the core: one read-modify-write under the home lock (spec: "The helper model",
the memory and upkeep switches), so two processes changing different switches at once both keep their change."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from omb_tui.core.files.paths import Home
from omb_tui.core.memory import settings as settings_module
from omb_tui.core.memory.settings import BrokenFile, load_bot_settings, load_config, update_bot_settings

SETTINGS = {"name": "Scout", "memory": True, "upkeep": True, "avatar": "owl.png"}


def _home(tmp_path) -> Home:
    home = Home(tmp_path / "home")
    home.bots_dir.mkdir(parents=True)
    home.settings_path("scout").write_text(json.dumps(SETTINGS), encoding="utf-8")
    return home


def _switch_off_after_the_other_reads(root: str, field: str, other_has_read, done) -> None:
    other_has_read.wait(timeout=60)
    update_bot_settings(Home(root), "scout", **{field: False})
    done.set()


def _switch_off_reading_first(root: str, field: str, has_read, other_done) -> None:
    read = settings_module.load_bot_settings

    def read_then_let_the_other_in(home, bot_id):
        loaded = read(home, bot_id)
        has_read.set()
        # Under the home lock the other process waits for this one, so waiting for it ends by the timeout.
        other_done.wait(timeout=1)
        return loaded

    settings_module.load_bot_settings = read_then_let_the_other_in
    update_bot_settings(Home(root), "scout", **{field: False})


def test_two_processes_switching_different_switches_at_once_both_keep_their_change(tmp_path):
    home = _home(tmp_path)
    context = multiprocessing.get_context("fork")
    first_has_read, second_done = context.Event(), context.Event()
    first = context.Process(
        target=_switch_off_reading_first, args=(str(home.root), "memory", first_has_read, second_done)
    )
    second = context.Process(
        target=_switch_off_after_the_other_reads, args=(str(home.root), "upkeep", first_has_read, second_done)
    )
    first.start()
    second.start()
    first.join(60)
    second.join(60)
    assert (first.exitcode, second.exitcode) == (0, 0)
    settings = load_bot_settings(home, "scout")
    assert (settings.memory, settings.upkeep) == (False, False)  # neither change lost
    assert json.loads(home.settings_path("scout").read_text(encoding="utf-8"))["avatar"] == "owl.png"


def test_an_update_keeps_unknown_keys_and_returns_the_saved_settings(tmp_path):
    home = _home(tmp_path)
    saved = update_bot_settings(home, "scout", helper_model=False)
    assert (saved.memory, saved.upkeep, saved.helper_model) == (True, True, False)
    data = json.loads(home.settings_path("scout").read_text(encoding="utf-8"))
    assert data["helperModel"] is False and data["avatar"] == "owl.png"


def test_an_update_never_writes_a_broken_file(tmp_path):
    home = _home(tmp_path)
    home.settings_path("scout").write_text('{"memory": "yes"}', encoding="utf-8")
    with pytest.raises(BrokenFile, match="true or false"):
        update_bot_settings(home, "scout", upkeep=False)
    assert home.settings_path("scout").read_text(encoding="utf-8") == '{"memory": "yes"}'


@pytest.mark.parametrize(
    "environ, instance, from_environment",
    [
        ({}, "claude", False),
        ({"OMB_HELPER_INSTANCE": "openai"}, "openai", True),
        ({"OMB_HELPER_INSTANCE": "  "}, None, True),  # set and empty switches the saved helper off
    ],
)
def test_the_config_says_when_the_helper_comes_from_the_environment(tmp_path, environ, instance, from_environment):
    home = _home(tmp_path)
    home.config_path.write_text('{"helper": {"instanceId": "claude"}}', encoding="utf-8")
    config = load_config(home, environ=environ)
    assert (config.helper.instance_id if config.helper else None) == instance
    assert config.helper_from_environment is from_environment


def test_a_feature_switch_is_saved_in_config_json_keeping_every_other_key(tmp_path):
    from omb_tui.core.memory.settings import update_config_features

    home = _home(tmp_path)
    config = {"helper": {"instanceId": "claude"}, "features": {"autoRecall": False}, "theme": "dark"}
    home.config_path.write_text(json.dumps(config), encoding="utf-8")
    saved = update_config_features(home, roomMemoryCapture=True)
    assert saved.room_memory_capture is True and saved.auto_recall is False
    on_disk = json.loads(home.config_path.read_text(encoding="utf-8"))
    assert on_disk == {**config, "features": {"autoRecall": False, "roomMemoryCapture": True}}
    assert home.config_path.stat().st_mode & 0o777 == 0o600
    assert load_config(home).room_memory_capture is True


def test_a_feature_switch_creates_config_json_and_never_writes_a_broken_one(tmp_path):
    from omb_tui.core.memory.settings import update_config_features

    home = _home(tmp_path)
    assert update_config_features(home, roomMemoryCapture=True).room_memory_capture is True
    broken = '{"features": '
    home.config_path.write_text(broken, encoding="utf-8")
    with pytest.raises(BrokenFile):
        update_config_features(home, roomMemoryCapture=False)
    assert home.config_path.read_text(encoding="utf-8") == broken
