"""A turn acting for a person of a Team Cloud home (core/turn/person_turn.py): their layer loads after the
bot's block, memory_update keeps what is about them in their layer and what is about the work in the bot's shared
memory, a preference goes to their own About me, recall and search read their layer and only their conversations;
a room where another person spoke acts for no one; a home without people is exactly as before."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from test_turn import Answer, ScriptedModel, tool_call

from omb_tui.core.base import clock
from omb_tui.core.files.paths import NotFound
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import LAYER_HEADING, layer_store
from omb_tui.core.people.people import add_person
from omb_tui.core.recall.recall import recall
from omb_tui.core.search.session_search import session_search
from omb_tui.core.turn.tools import MEMORY_UPDATE
from omb_tui.core.turn.turn import chat_turn

PERSON_EDIT = Actor(WHO_PERSON, HOW_SETTINGS)


@pytest.fixture
def team(home):
    add_person(home, "dana")
    add_person(home, "sam")
    layer_store(home, "scout", "sam").write("MEMORY.md", "- Sam takes his coffee black\n", PERSON_EDIT)
    return home


def saying(*calls, text="Done."):
    return ScriptedModel(
        Answer(tool_calls=[tool_call(MEMORY_UPDATE, args, f"c{n}") for n, args in enumerate(calls)]), Answer(text=text)
    )


def test_danas_turn_loads_her_layer_and_keeps_what_is_about_her_there(team):
    layer_store(team, "scout", "dana").write("MEMORY.md", "- Dana reads on a small screen\n", PERSON_EDIT)
    model = saying(
        {"action": "add", "text": "Dana is allergic to peanuts"},
        {"action": "add", "text": "The launch review is on Thursday", "about": "work"},
        {"action": "prefer", "text": "Answer Dana in bullet points"},
    )
    result = chat_turn(
        team, "scout", "I'm allergic to peanuts; review is Thursday", chat="d1", person="dana", complete=model
    )
    system = model.requests[0]["messages"][0]["content"]
    assert LAYER_HEADING.format(person="dana") in system and "small screen" in system
    assert "coffee black" not in system  # Sam's layer never loads for Dana
    assert "about" in model.requests[0]["schemas"][MEMORY_UPDATE]["parameters"]["properties"]
    assert [call.result for call in result.tool_calls][:2] == ["Saved to MEMORY.md.", "Saved to MEMORY.md."]
    dana = layer_store(team, "scout", "dana")
    assert "allergic to peanuts" in dana.read("MEMORY.md").text
    shared = MemoryStore(team, "scout").read("MEMORY.md").text
    assert "launch review is on Thursday" in shared and "peanuts" not in shared
    about_dana = team.about_me_of("dana").read_text()
    assert "bullet points" in about_dana
    assert not team.about_me_path.exists() or "bullet points" not in team.about_me_path.read_text()
    assert "peanuts" not in layer_store(team, "scout", "sam").read("MEMORY.md").text
    newest = dana.journal.rows(limit=1)[0]
    assert (newest.who, newest.how, newest.chat) == (WHO_BOT, HOW_TASK, "d1")  # the bot's work in her chat
    assert newest.file.startswith("memory/log/")  # the turn's line: in her layer's log, not the bot's
    saved = [row for row in dana.journal.rows(limit=None) if not row.file.startswith("memory/log/")]
    assert saved[0].file in ("MEMORY.md", "about-me.md")


def room_with(home, lines, room_id="standup"):
    room = conv.Conversation(
        id=room_id,
        title="Standup",
        kind=conv.KIND_ROOM,
        started_by=conv.Starter("person", "dana"),
        members=[conv.Member("person", "dana"), conv.Member("person", "sam"), conv.Member("bot", "scout")],
        created=clock.now() - timedelta(hours=2),
    )
    path = conv.create_conversation(home, room)
    for n, (author, text) in enumerate(lines):
        at = clock.now() - timedelta(hours=1) + timedelta(minutes=n)
        conv.append_message(path, conv.Message("person", author, at, text, origin="person"))
    return room_id


def test_a_room_where_another_person_spoke_acts_for_no_one(team):
    chat = room_with(team, [("sam", "I prefer morning meetings")])
    model = saying(
        {"action": "prefer", "text": "Dana likes short standups"},
        {"action": "add", "text": "Dana is on leave next week"},
        {"action": "add", "text": "Standups move to 9:30", "about": "work"},
    )
    result = chat_turn(
        team, "scout", "Standups move to 9:30, and I like them short", chat=chat, person="dana", complete=model
    )
    told = [call.result for call in result.tool_calls]
    assert told[0].startswith("Nothing was done") and "no one's here" in told[0]
    assert told[1].startswith("Nothing was done") and "more than one person" in told[1]
    assert told[2] == "Saved to MEMORY.md."
    assert LAYER_HEADING.format(person="dana") not in model.requests[0]["messages"][0]["content"]
    assert not team.about_me_of("dana").exists() and not team.about_me_path.exists()
    assert not team.workspace("scout--member-dana").exists()


def test_a_room_where_only_she_spoke_acts_for_her(team):
    chat = room_with(team, [("dana", "Morning all")], room_id="quiet")
    model = saying({"action": "prefer", "text": "Dana likes short standups"})
    chat_turn(team, "scout", "I like standups short", chat=chat, person="dana", complete=model)
    assert "short standups" in team.about_me_of("dana").read_text()


def test_a_team_turn_must_name_a_person_of_the_home(team):
    with pytest.raises(NotFound, match="no person of this Team Cloud home"):
        chat_turn(team, "scout", "hello there", chat="x1", person="bob", complete=saying())


def test_a_home_without_people_offers_the_tools_as_before(home):
    model = saying({"action": "prefer", "text": "Short answers"})
    chat_turn(home, "scout", "keep answers short please", chat="m1", person="Milind", complete=model)
    assert "about" not in model.requests[0]["schemas"][MEMORY_UPDATE]["parameters"]["properties"]
    assert "Short answers" in home.about_me_path.read_text()
    assert not (home.root / "people").exists()


def test_recall_and_search_read_her_layer_and_only_her_conversations(team):
    layer_store(team, "scout", "dana").write(
        "memory/garden.md", "# Garden\n\n- Dana grows tomatoes on her balcony garden\n", PERSON_EDIT
    )
    layer_store(team, "scout", "sam").write(
        "memory/garden.md", "# Garden\n\n- Sam grows chillies in his balcony garden\n", PERSON_EDIT
    )
    chat_turn(team, "scout", "My balcony garden chillies are red", chat="s1", person="sam", complete=saying())
    chat_turn(team, "scout", "Hello", chat="d1", person="dana", complete=saying())
    block = recall(team, "scout", "what grows in the balcony garden?", chat_id="d1", for_person="dana").block
    assert "tomatoes" in block and "dana's own memory/garden.md" in block
    assert "chillies" not in block  # neither Sam's layer nor Sam's chat
    hits = session_search(team, "scout", "balcony garden chillies", for_person="dana").hits
    assert any("tomatoes" in hit.text for hit in hits)
    assert not any("chillies" in hit.text for hit in hits)
    owner = session_search(team, "scout", "balcony garden chillies").hits  # the owner's search, as before
    assert any(hit.conversation == "s1" for hit in owner)


def test_prefer_and_about_me_per_person_on_the_command_line(team, run_cli):
    assert run_cli("prefer", "scout", "Answer Sam in French", "--person", "sam").code == 0
    assert "Answer Sam in French" in team.about_me_of("sam").read_text()
    assert not team.about_me_path.exists()
    listed = json.loads(run_cli("about-me", "--person", "sam", "--json").out)
    assert [line["text"] for line in listed] == ["Answer Sam in French"] and listed[0]["bot"] == "scout"
    assert json.loads(run_cli("about-me", "--json").out) == []  # the owner's About me holds nothing of Sam's
    removed = run_cli("about-me", "--person", "sam", "remove", listed[0]["id"], "--json")
    assert removed.code == 0 and "French" not in team.about_me_of("sam").read_text()
    layer_rows = layer_store(team, "scout", "sam").journal.rows()
    assert [row.file for row in layer_rows[:2]] == ["about-me.md", "about-me.md"]  # in Sam's layer's journal
    again = run_cli("prefer", "scout", "Answer Sam in French", "--person", "sam")
    assert again.code == 2 and "removed this from About me" in again.err  # his removal holds, as the owner's would
    nobody = run_cli("about-me", "--person", "lee")
    assert nobody.code == 2 and "There is no person 'lee'" in nobody.err


def test_the_librarys_turn_acts_for_the_person_it_names(team):
    from omb_tui import Memory

    scout = Memory(team.root).bot("scout")
    with scout.turn(chat="lib-1", person="sam") as turn:
        assert "coffee black" in turn.prompt() and "coffee black" not in scout.prompt()
        turn.remember("Sam runs on Tuesdays")
        turn.remember("The Q3 report is due Friday", about="work")
        turn.prefer("Sam wants replies in French")
    assert "Sam runs on Tuesdays" in layer_store(team, "scout", "sam").read("MEMORY.md").text
    shared = MemoryStore(team, "scout").read("MEMORY.md").text
    assert "Q3 report" in shared and "Tuesdays" not in shared
    assert "French" in team.about_me_of("sam").read_text()
    with pytest.raises(NotFound):
        with scout.turn(person="lee"):
            pass


def test_claude_codes_hooks_with_person_load_and_recall_their_layer(team):
    from omb_tui.hooks.run import prompt, session_start

    layer_store(team, "scout", "dana").write(
        "memory/garden.md", "# Garden\n\n- Dana grows tomatoes on her balcony garden\n", PERSON_EDIT
    )
    start = session_start(team, "scout", {"session_id": "s-1", "source": "startup"}, person="dana")
    assert LAYER_HEADING.format(person="dana") in start and "coffee black" not in start
    recalled = prompt(team, "scout", {"session_id": "s-1", "prompt": "what grows in the balcony garden?"}, "dana")
    assert "tomatoes" in recalled
    owners = session_start(team, "scout", {"session_id": "s-2", "source": "startup"})
    assert LAYER_HEADING.format(person="dana") not in owners


def test_search_by_time_finds_her_layers_notes_of_that_window(team):
    today = clock.today().isoformat()
    layer_store(team, "scout", "dana").write("MEMORY.md", f"- {today} · Dana moved desks to the window\n", PERSON_EDIT)
    layer_store(team, "scout", "sam").write(
        "memory/desk.md", f"# Desk\n\n- {today} · Sam moved desks too\n", PERSON_EDIT
    )
    found = [hit.text for hit in session_search(team, "scout", since="today", for_person="dana").hits]
    assert any("Dana moved desks" in text for text in found)
    assert not any("Sam moved desks" in text for text in found)


def test_the_brief_in_her_turn_never_names_another_persons_chat(team):
    answer = ScriptedModel(Answer(text="Your marathon plan is set."))
    chat_turn(team, "scout", "hello", chat="sam-1", person="sam", complete=answer)
    model = ScriptedModel(Answer(text="Hi Dana."))
    chat_turn(team, "scout", "hello", chat="dana-1", person="dana", complete=model)
    assert "marathon plan" not in model.requests[0]["messages"][0]["content"]
    owners = ScriptedModel(Answer(text="Hi."))
    chat_turn(team, "scout", "hello", chat="owner-1", complete=owners)  # the owner's turn: the brief as before
    system = owners.requests[0]["messages"][0]["content"]
    assert "marathon plan" in system and LAYER_HEADING.format(person="sam") not in system  # never acting for Sam


def test_chat_names_a_person_the_home_lacks_in_one_sentence_before_any_chat_is_made(team, run_cli):
    refused = run_cli("chat", "scout", "--person", "lee", "--chat", "nope")
    assert refused.code == 2 and refused.err.count("\n") == 1 and "no person of this Team Cloud home" in refused.err
    assert not (conv.chats_dir(team, "scout") / "nope.ndjson").exists()
