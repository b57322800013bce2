"""The team block: accepted notes within 6,000 bytes, pinned first, then in the order their keys were first
accepted; the gauge; and every member bot's prompt carries it (spec: "Shared team memory integrity")."""

from __future__ import annotations

import pytest
from support.home import make_bot

from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.team import api
from omb_tui.core.team.prompt import TEAM_BLOCK_MAX_BYTES, utf8_size
from omb_tui.core.team.storage import create_team
from omb_tui.core.turn.bot import Bot

TEAM = "Tapa crew"


@pytest.fixture
def crew(home):
    make_bot(home, "ledger", "Ledger")
    make_bot(home, "outsider", "Outsider")
    return create_team(home, TEAM, ["scout", "ledger"])


def accept(home, key, text, title=None):
    card = api.propose(home, TEAM, key, title or key, text)
    return api.accept(home, TEAM, key, card.revision)


def test_every_member_bots_prompt_carries_the_block_and_no_other_bots_does(home, crew):
    accept(home, "tapa/colour", "Warm amber grade, never teal.")
    for bot in ("scout", "ledger"):
        prompt = Bot(home, bot).prompt()
        assert "## Team memory: Tapa crew" in prompt and "Warm amber grade, never teal." in prompt
    assert "Warm amber" not in Bot(home, "outsider").prompt()


def test_a_bot_with_memory_off_loads_no_team_block(home, crew):
    accept(home, "tapa/colour", "Warm amber grade.")
    update_bot_settings(home, "scout", memory=False)
    assert Bot(home, "scout").prompt() == ""


def test_notes_past_6000_bytes_do_not_load_pinned_first_then_oldest_first(home, crew):
    big = "é" * 900  # 1,800 bytes a note: three fit
    notes = [accept(home, f"tapa/note-{n}", f"{n} {big}") for n in range(5)]
    load = api.gauge(home, TEAM)
    assert [n.key for n in load.loaded] == ["tapa/note-0", "tapa/note-1", "tapa/note-2"]
    assert utf8_size(load.block) <= TEAM_BLOCK_MAX_BYTES and load.gauge()["bytes"] == utf8_size(load.block)
    assert load.gauge()["not_loaded"] == 2 and 'session_search with scope "team"' in load.block
    api.set_pinned(home, TEAM, "tapa/note-4", notes[4].revision, True)
    load = api.gauge(home, TEAM)
    assert [n.key for n in load.loaded] == ["tapa/note-4", "tapa/note-0", "tapa/note-1"]
    assert load.block.index("4 éé") < load.block.index("0 éé")


def test_a_correction_keeps_its_place_in_the_order(home, crew):
    accept(home, "tapa/a", "first")
    accept(home, "tapa/b", "second")
    accept(home, "tapa/a", "first, corrected")
    block = api.gauge(home, TEAM).block
    assert block.index("first, corrected") < block.index("second")


def test_a_note_too_long_for_the_room_left_is_passed_over_for_a_shorter_one(home, crew):
    accept(home, "tapa/a", "a" * 1990)
    accept(home, "tapa/b", "b" * 1990)
    accept(home, "tapa/c", "c" * 1990)
    accept(home, "tapa/d", "short one")
    load = api.gauge(home, TEAM)
    assert [n.key for n in load.loaded] == ["tapa/a", "tapa/b", "tapa/d"]
    assert [n.key for n in load.not_loaded] == ["tapa/c"]


def test_the_gauge_reports_bytes_max_loaded_and_not_loaded(home, crew):
    accept(home, "tapa/colour", "Warm amber grade.")
    gauge = api.gauge(home, TEAM).gauge()
    assert {k: gauge[k] for k in ("max_bytes", "loaded", "not_loaded")} == {
        "max_bytes": 6000,
        "loaded": 1,
        "not_loaded": 0,
    }
    assert gauge["bytes"] == utf8_size(api.gauge(home, TEAM).block) > 0


def test_no_accepted_notes_no_block(home, crew):
    api.propose(home, TEAM, "tapa/colour", "Colour", "Warm amber.")
    assert api.gauge(home, TEAM).block == "" and "Team memory" not in Bot(home, "scout").prompt()
