"""Team memory end to end, without the app: a bot proposes a team note in a chat turn, a person accepts it from
the command line, every member's next system prompt carries it, and a stale edit is refused."""

from __future__ import annotations

import json

from support.home import make_bot
from support.scripted_model import Answer, model  # noqa: F401 (the fixture)

from omb_tui.core.turn import turn as turn_module
from omb_tui.core.turn.turn import chat_turn

KEY = "tapa/sequence-02/colour"
SAID = "For the record: sequence 02 is graded warm amber, never teal."


def tool_call(name, arguments):
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_a_bot_proposes_a_person_accepts_every_member_loads_it_and_a_stale_edit_is_refused(
    home,
    run_cli,
    model,  # noqa: F811
    monkeypatch,
):
    offered = []

    def recording(*args, tools=None, **kwargs):  # the scripted model, noting the tools each request offers
        offered.append([tool["function"]["name"] for tool in tools or []])
        return model(*args, tools=tools, **kwargs)

    monkeypatch.setattr(turn_module, "_default_complete", lambda: recording)
    make_bot(home, "ledger", "Ledger")
    make_bot(home, "outsider", "Outsider")
    assert run_cli("team", "create", "Tapa crew", "--bots", "scout,ledger").code == 0
    model.answers += [
        Answer(
            tool_calls=[
                tool_call(
                    "team_note",
                    {
                        "key": KEY,
                        "title": "Sequence colour",
                        "text": "Sequence 02 is warm amber, never teal.",
                        "quotes": ["sequence 02 is graded warm amber, never teal"],
                    },
                )
            ]
        ),
        Answer("I proposed it to the team."),
    ]
    result = chat_turn(home, "scout", SAID, chat="grading", person="Milind")
    assert offered[0] == ["memory_update", "session_search", "team_note"]
    assert [(call.name, call.result.split(" as ")[0]) for call in result.tool_calls] == [
        ("team_note", "Proposed to the team 'Tapa crew'")
    ]
    card = json.loads(run_cli("team", "show", "Tapa crew", "--json").out)["pending"][0]
    assert card["by"] == "bot:scout"
    assert "warm amber" not in run_cli("prompt", "ledger").out  # a card never loads

    note = json.loads(run_cli("team", "accept", "Tapa crew", KEY, "--revision", str(card["revision"]), "--json").out)
    for bot in ("scout", "ledger"):
        assert "Sequence 02 is warm amber, never teal." in run_cli("prompt", bot).out
    model.answers += [Answer("Warm amber.")]
    chat_turn(home, "ledger", "What colour is sequence 02?", chat="ask", person="Milind")
    assert "Sequence 02 is warm amber, never teal." in model.requests[-1][0]["content"]
    model.answers += [Answer("No idea.")]
    chat_turn(home, "outsider", "What colour is sequence 02?", chat="ask", person="Milind")
    assert "warm amber" not in model.requests[-1][0]["content"] and "team_note" not in offered[-1]

    # The app (or anyone) edits first; a CLI edit based on the older revision is refused, exit 3.
    run_cli("team", "edit", "Tapa crew", KEY, "--revision", str(note["revision"]), stdin=b"Warm amber, softer.")
    stale = run_cli("team", "edit", "Tapa crew", KEY, "--revision", str(note["revision"]), stdin=b"Teal.")
    assert stale.code == 3 and f"revision {note['revision'] + 1} now" in stale.err
    assert "Warm amber, softer." in run_cli("prompt", "scout").out
