"""session_search and team notes: scope "team" finds accepted notes (those that did not load too), ordinary
search includes them, and proposals, superseded and deleted entries are never found."""

from __future__ import annotations

import json

import pytest
from support.home import make_bot

from omb_tui.core.files.paths import MemoryInputError
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.search.session_search import session_search
from omb_tui.core.team import api
from omb_tui.core.team.storage import create_team
from omb_tui.core.turn.tools import SESSION_SEARCH, run_tool

TEAM = "Tapa crew"


@pytest.fixture
def crew(home):
    make_bot(home, "outsider", "Outsider")
    create_team(home, TEAM, ["scout"])
    return home


def accept(home, key, text, title="Note"):
    card = api.propose(home, TEAM, key, title, text)
    return api.accept(home, TEAM, key, card.revision)


def found(result) -> list[tuple[str, str]]:
    return [(hit.source, hit.key) for hit in result.hits if hit.source == "team"]


def test_scope_team_finds_accepted_notes_including_those_that_did_not_load(crew):
    for n in range(4):
        accept(crew, f"tapa/reel-{n}", f"Reel {n} " + "padding " * 240)
    accept(crew, "tapa/colour", "Sequence 02 grade is warm amber " + "padding " * 230)
    assert "tapa/colour" in [n.key for n in api.gauge(crew, TEAM).not_loaded]
    result = session_search(crew, "scout", "amber grade", scope="team")
    assert found(result) == [("team", "tapa/colour")]
    assert result.hits[0].where == 'team "Tapa crew" · note tapa/colour'
    assert result.to_dict()["hits"][0]["team"] == api.show(crew, TEAM).team.key


def test_ordinary_search_includes_accepted_team_notes(crew):
    accept(crew, "tapa/colour", "Sequence 02 grade is warm amber.")
    result = session_search(crew, "scout", "amber")
    assert ("team", "tapa/colour") in found(result)
    assert found(session_search(crew, "outsider", "amber")) == []  # not a member


def test_proposals_superseded_and_deleted_entries_are_never_found(crew):
    api.propose(crew, TEAM, "tapa/pending", "Pending", "Zebra stripes pending review.")
    accept(crew, "tapa/colour", "Walnut grade at first.")
    accept(crew, "tapa/colour", "Amber grade now.")
    note = accept(crew, "tapa/gone", "Obsidian frames, later deleted.")
    api.delete_note(crew, TEAM, "tapa/gone", note.revision)
    for words in ("zebra", "walnut", "obsidian"):
        assert found(session_search(crew, "scout", words, scope="team")) == []
        assert found(session_search(crew, "scout", words)) == []
    assert found(session_search(crew, "scout", "amber", scope="team")) == [("team", "tapa/colour")]


def test_a_deleted_teams_notes_are_never_found(crew):
    accept(crew, "tapa/colour", "Amber grade.")
    api_team = api.show(crew, TEAM).team
    from omb_tui.core.team.storage import delete_team

    delete_team(crew, api_team.key)
    assert found(session_search(crew, "scout", "amber", scope="team")) == []


def test_memory_off_searches_no_team_notes(crew):
    accept(crew, "tapa/colour", "Amber grade.")
    update_bot_settings(crew, "scout", memory=False)
    assert found(session_search(crew, "scout", "amber", scope="team")) == []


def test_an_unknown_scope_is_refused(crew):
    with pytest.raises(MemoryInputError, match="'scope' must be one of all, team"):
        session_search(crew, "scout", "amber", scope="rooms")


def test_the_tool_and_the_command_take_the_scope(crew, run_cli):
    accept(crew, "tapa/colour", "Sequence 02 grade is warm amber.", title="Seq 02 colour")
    answer = run_tool(crew, "scout", SESSION_SEARCH, json.dumps({"scope": "team", "query": "amber"}), chat=None)
    assert 'team "Tapa crew" · note tapa/colour' in answer and "warm amber" in answer
    done = run_cli("search", "scout", "amber", "--scope", "team", "--json")
    assert done.code == 0 and json.loads(done.out)["hits"][0]["key"] == "tapa/colour"
