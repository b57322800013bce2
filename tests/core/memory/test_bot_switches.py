"""A bot's switches: checked field by field (core), and `omb-tui bot BOT set KEY VALUE` (spec memory.md, "Keeping
one bot off the helper"; the route is tests/server/test_serve_bot_switches.py)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from omb_tui.core.compact.nightly import switch_nightly
from omb_tui.core.memory.settings import BadSwitch, load_bot_settings, set_bot_switches


def test_nothing_is_saved_when_one_field_of_several_is_wrong(home):
    before = home.settings_path("scout").read_bytes()
    with pytest.raises(BadSwitch, match="'upkeep' must be true or false"):
        set_bot_switches(home, "scout", {"memory": False, "upkeep": "off"})
    assert home.settings_path("scout").read_bytes() == before


def test_switching_nightly_on_notes_the_day_once(home):
    set_bot_switches(home, "scout", {"compactNightly": True}, today=date(2026, 12, 1))
    set_bot_switches(home, "scout", {"compactNightly": True}, today=date(2026, 12, 5))  # already on: kept
    assert load_bot_settings(home, "scout").compact_nightly_since == "2026-12-01"
    assert switch_nightly(home, "scout", on=False).compact_nightly is False
    assert switch_nightly(home, "scout", on=True, today=date(2026, 12, 9)).compact_nightly_since == "2026-12-09"


def test_bot_set_saves_one_switch(run_cli, home):
    result = run_cli("bot", "scout", "set", "helperModel", "false")
    assert result.code == 0, result.err
    assert result.out == "scout: helperModel is false.\n"
    assert json.loads(home.settings_path("scout").read_text())["helperModel"] is False


@pytest.mark.parametrize(
    "key, value, field, expected",
    [
        ("helper-model", "off", "helper_model", False),
        ("memory", "no", "memory", False),
        ("upkeep", "0", "upkeep", False),
        ("compactNightly", "on", "compact_nightly", True),
        ("compactProposeOnly", "null", "compact_propose_only", None),
        ("compact_propose_only", "true", "compact_propose_only", True),
    ],
)
def test_bot_set_takes_the_words_a_person_types(run_cli, home, key, value, field, expected):
    assert run_cli("bot", "scout", "set", key, value).code == 0
    assert getattr(load_bot_settings(home, "scout"), field) is expected


def test_bot_set_json_prints_the_saved_settings(run_cli):
    result = run_cli("bot", "scout", "set", "upkeep", "false", "--json")
    data = json.loads(result.out)
    assert data["bot"] == "scout" and data["upkeep"] is False and data["helperModel"] is True


@pytest.mark.parametrize(
    "argv, sentence",
    [
        (("bot", "scout", "set", "helperModel", "maybe"), "'helperModel' must be true or false."),
        (("bot", "scout", "set", "memory", "null"), "'memory' must be true or false."),
        (("bot", "scout", "set", "colour", "true"), "'colour' is not a bot switch"),
        (("bot", "nobody", "set", "memory", "off"), "There is no bot 'nobody'"),
    ],
)
def test_bot_set_refuses_in_one_sentence(run_cli, home, argv, sentence):
    before = home.settings_path("scout").read_bytes()
    result = run_cli(*argv)
    assert result.code == 2
    assert sentence in result.err and len(result.err.strip().splitlines()) == 1
    assert home.settings_path("scout").read_bytes() == before
