"""Capture proposes team notes from a team's rooms (docs/team.md): a fact the model marks for the team passes the
`team_note` checks and becomes a pending card with its quotes, never an accepted note; one that fails is
skipped with its reason; a 1:1 chat never proposes to the team.

Every model answer comes from the scripted OpenAI-compatible server in tests/support/fake_llm.py on 127.0.0.1.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from support.capture import answer, fact, make_chat, make_room
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from support.home import make_bot

from omb_tui.core.base import clock
from omb_tui.core.memory import conversations as conv
from omb_tui.core.team import api
from omb_tui.core.team.storage import create_team
from omb_tui.core.upkeep.capture import capture

TEAM = "Tapa crew"
TRAILER = "The trailer locks on 12 December."
ROOM = [
    ("person", "Anna", TRAILER),
    ("person", "Milind", "Sequence 02 is graded warm amber, never teal."),
    ("bot", "ledger", "I guess the budget is 9000."),
    ("bot", "scout", "Noted: trailer and grade."),
]


def team_fact(text, quotes, **more):
    more.setdefault("team_key", "tapa/trailer")
    more.setdefault("team_title", "Trailer lock")
    return fact(text, quotes, target="memory/launch.md", **more)


def pending(home):
    return api.show(home, TEAM).to_dict()["pending"]


def last_user_message(fake_llm) -> str:
    return fake_llm.requests[-1].body["messages"][-1]["content"]


@pytest.fixture
def crew(llm_home, fake_llm):
    """Scout and Ledger in a team; Milind talks with Scout 1:1; the room "Launch" holds both bots, Milind and
    Anna; Learn from group chats is on."""
    write_llm_config(llm_home, fake_llm, features={"roomMemoryCapture": True})
    make_bot(llm_home, "ledger", "Ledger")
    create_team(llm_home, TEAM, ["scout", "ledger"])
    make_chat(llm_home, [("Hi.", "Hello.")])
    make_room(llm_home, ROOM)
    return llm_home


def test_a_room_fact_for_the_team_becomes_a_pending_card_with_its_quotes(crew, fake_llm, run_cli):
    fake_llm.script(answer(team_fact("The trailer locks on 12 December", ["The trailer locks on 12 December"])))
    data = json.loads(run_cli("capture", "scout", "--chat", "launch", "--json").out)

    assert [(p["team_name"], p["key"], p["conversation"]) for p in data["proposed"]] == [
        (TEAM, "tapa/trailer", "launch")
    ]
    [card] = pending(crew)
    assert (card["key"], card["title"], card["text"], card["by"], card["chat"], card["quotes"]) == (
        "tapa/trailer",
        "Trailer lock",
        "The trailer locks on 12 December",
        "bot:scout",
        "launch",
        ["The trailer locks on 12 December"],
    )
    # nothing is accepted on its own: no note, nothing in any member's prompt, and not the bot's own note either
    assert api.show(crew, TEAM).to_dict()["notes"] == [] and "trailer" not in api.gauge(crew, TEAM).block
    assert data["saved"] == [] and not (crew.workspace("scout") / "memory" / "launch.md").exists()
    user = last_user_message(fake_llm)
    assert 'the team "Tapa crew" works' in user and "[OTHER PERSON Anna] The trailer locks" in user


def test_the_plain_report_says_what_was_proposed_for_review(crew, fake_llm, run_cli):
    fake_llm.script(answer(team_fact("The trailer locks on 12 December", ["The trailer locks on 12 December"])))
    first = run_cli("capture", "scout", "--chat", "launch").out.splitlines()[0]
    assert first == (
        "proposed to the team 'Tapa crew' as tapa/trailer, for a person to review: The trailer locks on 12 December"
    )


@pytest.mark.parametrize(
    ("text", "quotes", "reason"),
    [
        ("The trailer locks on 14 December", ["The trailer locks on 12 December"], "“14” is not in the quotes"),
        (
            "The trailer token is ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            ["The trailer locks on 12 December"],
            "holds a secret",
        ),
        ("The trailer locks in December", ["The trailer locks in December"], "is not in what was said"),
        ("The budget is 9000", ["the budget is 9000"], "another bot's words"),
        ("The trailer locks in December", [], "needs the words it rests on"),
    ],
)
def test_a_team_fact_failing_the_checks_never_becomes_a_card_and_is_reported(crew, fake_llm, text, quotes, reason):
    fake_llm.script(answer(team_fact(text, quotes)))
    result = capture(crew, "scout", chat="launch")
    assert pending(crew) == [] and result.proposed == [] and result.saved == []
    [skipped] = result.skipped
    assert skipped.reason.startswith("not proposed to the team: ") and reason in skipped.reason, skipped.reason


def test_a_fact_for_the_team_from_a_one_to_one_chat_is_never_proposed(crew, fake_llm):
    make_chat(
        crew, [("The trailer locks on 12 December, for the record.", "Noted.")], chat_id="plans-2", title="Plans 2"
    )
    fake_llm.script(answer(team_fact("The trailer locks on 12 December", ["The trailer locks on 12 December"])))
    result = capture(crew, "scout", chat="plans-2")

    assert pending(crew) == [] and result.proposed == []
    assert "a 1:1 chat is never proposed to a team" in result.skipped[0].reason
    assert "## Team" not in last_user_message(fake_llm)  # the model is never offered the team in a 1:1 chat
    # it is the bot's own fact, under the rules of any fact
    assert [s.target for s in result.saved] == ["memory/launch.md"]


def test_a_room_is_the_teams_only_when_every_member_is_in_it_and_everyone_they_talk_with_can_see_it(crew, fake_llm):
    # Rosa talks with Ledger alone: the room leaves her out, so a note from it would reach her bot unseen
    rosa = conv.Conversation(
        id="rosa",
        title="Rosa",
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", "Rosa"),
        members=[conv.Member("person", "Rosa"), conv.Member("bot", "ledger")],
        created=clock.now(),
    )
    conv.create_conversation(crew, rosa, "ledger")
    fake_llm.script(answer(team_fact("The trailer locks on 12 December", ["The trailer locks on 12 December"])))
    result = capture(crew, "scout", chat="launch")

    assert pending(crew) == [] and "## Team" not in last_user_message(fake_llm)
    assert "this room is not a room of a team of the bot's" in result.skipped[0].reason
