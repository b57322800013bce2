"""A bot's `team_note` proposal passes capture's checks before it becomes a pending card; one that fails never
becomes a card and the model is told why (spec: "Checks before a dream saves a fact")."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from support.home import make_bot

from omb_tui.core.base import clock
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.team import api
from omb_tui.core.team.storage import create_team
from omb_tui.core.turn.tools import MEMORY_UPDATE, SESSION_SEARCH, TEAM_NOTE, TurnStart, run_tool, tools_for

TEAM = "Tapa crew"
KEY = "tapa/sequence-02/colour"
SAID = "Sequence 02 is graded warm amber, 3200K, never teal."


def make_chat(home, chat_id="grading", *, room=False, lines=()):
    chat = conv.Conversation(
        id=chat_id,
        title="Grading",
        kind=conv.KIND_ROOM if room else conv.KIND_CHAT,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", "scout")],
        created=datetime(2026, 11, 1, 9, 0).astimezone(),
    )
    path = conv.create_conversation(home, chat, None if room else "scout")
    at = clock.now() - timedelta(minutes=len(lines) + 1)
    for n, (author_kind, author, text) in enumerate(lines):
        origin = "person" if author_kind == "person" else None
        conv.append_message(path, conv.Message(author_kind, author, at + timedelta(minutes=n), text, origin=origin))


@pytest.fixture
def crew(home):
    make_bot(home, "ledger", "Ledger")
    create_team(home, TEAM, ["scout", "ledger"])
    make_chat(
        home,
        lines=[
            ("person", "Milind", SAID),
            ("bot", "scout", "Noted: warm amber at 4400K."),
            ("person", "Milind", "Could you check whether reel 7 is at /mnt/reels/07?"),
        ],
    )
    return home


def team_note(home, chat="grading", **arguments):
    arguments.setdefault("key", KEY)
    arguments.setdefault("title", "Grade colour")
    return run_tool(home, "scout", TEAM_NOTE, json.dumps(arguments), chat=chat)


def pending(home):
    return api.show(home, TEAM).to_dict()["pending"]


def test_a_proposal_resting_on_the_persons_words_becomes_a_pending_card_not_a_note(crew):
    answer = team_note(
        crew,
        title="Sequence 02 colour",
        text="Sequence 02 is warm amber at 3200K, never teal.",
        quotes=["Sequence 02 is graded warm amber, 3200K, never teal"],
    )
    assert answer.startswith("Proposed to the team 'Tapa crew'")
    [card] = pending(crew)
    assert (card["key"], card["by"], card["chat"], card["quotes"]) == (
        KEY,
        "bot:scout",
        "grading",
        ["Sequence 02 is graded warm amber, 3200K, never teal"],
    )
    assert api.show(crew, TEAM).to_dict()["notes"] == [] and "3200K" not in api.gauge(crew, TEAM).block


@pytest.mark.parametrize("field", ["text", "title"])
@pytest.mark.parametrize("character, code", [("\x1b", "U+001B"), ("\x00", "U+0000"), ("\ud800", "U+D800")])
def test_a_proposal_with_a_character_that_is_not_text_never_becomes_a_card(crew, field, character, code):
    arguments = {
        "title": "Sequence 02 colour",
        "text": "Sequence 02 is warm amber at 3200K, never teal.",
        "quotes": ["Sequence 02 is graded warm amber, 3200K, never teal"],
    }
    arguments[field] += character
    answer = team_note(crew, **arguments)
    assert answer.startswith(f"Nothing was done: the arguments.{field} holds a ") and f"({code})" in answer
    assert pending(crew) == []


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"text": "It is warm amber.", "quotes": []}, "needs the words it rests on"),
        ({"text": "It is warm amber at 4400K.", "quotes": ["warm amber at 4400K"]}, "the bot's own words"),
        ({"text": "It is warm amber.", "quotes": ["graded cool blue"]}, "not in what was said"),
        ({"text": "It is warm amber at 5600K.", "quotes": ["graded warm amber, 3200K"]}, "“5600” is not in the quotes"),
        ({"title": "Sequence 02", "text": "Warm amber.", "quotes": ["graded warm amber"]}, "“02” is not in the quotes"),
        ({"text": "Reel 7 is at /mnt/reels/07.", "quotes": ["whether reel 7 is at /mnt/reels/07"]}, "a question"),
        (
            {"text": "Grade token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "quotes": ["graded warm amber"]},
            "holds a secret",
        ),
        ({"key": "Tapa/Colour", "text": "Warm amber.", "quotes": ["graded warm amber"]}, "not a note key"),
    ],
)
def test_a_proposal_failing_a_check_never_becomes_a_card(crew, arguments, reason):
    answer = team_note(crew, **arguments)
    assert answer.startswith("Not proposed:") and reason in answer, answer
    assert pending(crew) == []


def test_words_the_person_asked_to_forget_are_never_proposed(crew, run_cli):
    run_cli("forget", "scout", "amber")
    answer = team_note(crew, text="It is warm amber.", quotes=["graded warm amber"])
    assert "asked to forget" in answer and pending(crew) == []


def test_a_room_fact_may_rest_on_another_persons_words(crew):
    make_chat(crew, "launch", room=True, lines=[("person", "Anna", "The trailer locks on 12 December.")])
    answer = team_note(
        crew,
        chat="launch",
        key="tapa/trailer",
        title="Trailer lock",
        text="The trailer locks on 12 December.",
        quotes=["The trailer locks on 12 December"],
    )
    assert answer.startswith("Proposed"), answer


def test_a_correction_names_the_key_and_waits_for_review(crew):
    card = api.propose(crew, TEAM, KEY, "Sequence 02 colour", "Cool blue.")
    api.accept(crew, TEAM, KEY, card.revision)
    answer = team_note(crew, text="It is warm amber, never teal.", quotes=["graded warm amber", "never teal"])
    assert "a correction" in answer and pending(crew)[0]["based_on"] == card.revision + 1
    assert "Cool blue" in api.gauge(crew, TEAM).block


def test_no_team_no_conversation_several_teams(home):
    assert team_note(home, text="x", quotes=["x"]) == "Not proposed: you are not a member of any team."
    create_team(home, TEAM, ["scout"])
    create_team(home, "Ops", ["scout"])
    make_chat(home, lines=[("person", "Milind", SAID)])
    assert "several teams" in team_note(home, text="Warm amber.", quotes=["graded warm amber"])
    assert team_note(home, team="Ops", text="Warm amber.", quotes=["graded warm amber"]).startswith("Proposed")
    assert "no conversation" in team_note(home, chat=None, team="Ops", text="Warm amber.", quotes=["warm amber"])


def test_team_note_is_offered_only_to_a_team_member_with_memory_on(crew):
    names = [t["function"]["name"] for t in tools_for(True, in_team=True)]
    assert names == [MEMORY_UPDATE, SESSION_SEARCH, TEAM_NOTE]
    assert TEAM_NOTE not in [t["function"]["name"] for t in tools_for(True)]
    assert TEAM_NOTE not in [t["function"]["name"] for t in tools_for(False, in_team=True)]
    update_bot_settings(crew, "scout", memory=False)
    assert "Memory is off" in team_note(crew, text="Warm amber.", quotes=["graded warm amber"])


def test_a_proposal_from_no_conversation_rests_on_a_persons_words_in_one_of_the_bots_conversations(crew):
    """An MCP client's session is in no conversation of the home: its quotes are looked for in the bot's newest
    conversations, and the card names the one they came from; the checks needing none run first."""
    outside = TurnStart("person", True, False, "test-client (MCP)")

    def propose(**arguments):
        arguments = {"key": KEY, "title": "Grade colour", **arguments}
        return run_tool(crew, "scout", TEAM_NOTE, arguments, chat=None, start=outside)

    made_up = propose(text="Sequence 02 is teal.", quotes=["Sequence 02 is teal"])
    assert made_up == (
        "Not proposed: the quotes are not a person's own statement in a conversation of yours this home keeps (a "
        "team note rests on what a person said; 1 conversation looked through, newest first)."
    )
    assert propose(text="Warm amber at 4400K.", quotes=["graded warm amber"]) == (  # checked before any conversation
        "Not proposed: “4400” is not in the quotes."
    )
    assert propose(text="Warm amber, never teal.", quotes=["graded warm amber", "never teal"]).startswith("Proposed")
    [card] = pending(crew)
    assert (card["chat"], card["by"]) == ("grading", "bot:scout")
