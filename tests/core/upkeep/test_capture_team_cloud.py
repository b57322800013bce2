"""Capture on a Team Cloud home (docs/team-cloud.md): every room is left out, and a person's 1:1 chat is
read into that person's own layer and About me only, never the bot's shared memory, the owner's About me or another
person's layer. Every model answer comes from the scripted OpenAI-compatible server in tests/support/fake_llm.py."""

from __future__ import annotations

from datetime import timedelta

from support.capture import answer, fact, make_room
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.base import clock
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import layer_store
from omb_tui.core.people.people import add_person
from omb_tui.core.upkeep.capture import capture


def chat_of(home, person, lines, chat_id):
    chat = conv.Conversation(
        id=chat_id,
        title=f"With {person}",
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", person),
        members=[conv.Member("person", person), conv.Member("bot", "scout")],
        created=clock.now() - timedelta(hours=4),
    )
    path = conv.create_conversation(home, chat, "scout")
    at = clock.now() - timedelta(hours=3)
    for n, (said, replied) in enumerate(lines):
        conv.append_message(path, conv.Message("person", person, at + timedelta(minutes=2 * n), said, origin="person"))
        conv.append_message(path, conv.Message("bot", "scout", at + timedelta(minutes=2 * n, seconds=30), replied))


def test_each_persons_chat_fills_their_own_layer_and_about_me_and_rooms_are_left_out(llm_home, fake_llm):
    write_llm_config(llm_home, fake_llm, features={"roomMemoryCapture": True})
    add_person(llm_home, "dana")
    add_person(llm_home, "sam")
    room = [("person", "dana", "The launch moved to Friday."), ("person", "sam", "I'm vegetarian, order for me.")]
    make_room(llm_home, room, members=("dana", "sam"))  # a room capture would read on a home of one owner
    chat_of(llm_home, "dana", [("I'm allergic to peanuts, just so you know.", "Noted.")], "a-dana")
    chat_of(llm_home, "sam", [("I cycle to work every day.", "Nice.")], "b-sam")
    fake_llm.script(
        answer(fact("Dana is allergic to peanuts", ["I'm allergic to peanuts"], about_me=True)),
        answer(fact("Sam cycles to work every day", ["I cycle to work every day"], about_me=True)),
    )
    shared_before = MemoryStore(llm_home, "scout").read("MEMORY.md").text
    result = capture(llm_home, "scout")
    assert sorted(saved.text for saved in result.saved) == [
        "Dana is allergic to peanuts",
        "Sam cycles to work every day",
    ]
    assert len(fake_llm.requests) == 2  # the two chats; the room was never sent
    sent = "\n".join(m["content"] for r in fake_llm.requests for m in r.body["messages"])
    assert "The launch moved to Friday" not in sent
    dana = layer_store(llm_home, "scout", "dana").read("MEMORY.md").text
    sam = layer_store(llm_home, "scout", "sam").read("MEMORY.md").text
    assert "peanuts" in dana and "cycles" not in dana and "cycles" in sam and "peanuts" not in sam
    assert MemoryStore(llm_home, "scout").read("MEMORY.md").text == shared_before
    assert "peanuts" in llm_home.about_me_of("dana").read_text() and "cycles" in llm_home.about_me_of("sam").read_text()
    assert not llm_home.about_me_path.exists() or "peanuts" not in llm_home.about_me_path.read_text()
    rows = layer_store(llm_home, "scout", "dana").journal.rows()
    assert {row.run for row in rows} == {result.run} and {row.who for row in rows} == {"Memory upkeep"}
    room = capture(llm_home, "scout", chat="launch")
    assert "a Team Cloud home's rooms are left out of capture" in (room.reason or "")


def test_the_owners_chat_on_a_team_cloud_home_still_fills_the_bots_memory(llm_home, fake_llm):
    add_person(llm_home, "dana")
    chat_of(llm_home, "Milind", [("I'm vegetarian, by the way.", "Noted.")], "owner")
    fake_llm.script(answer(fact("The person is vegetarian", ["I'm vegetarian"])))
    capture(llm_home, "scout")
    assert "vegetarian" in MemoryStore(llm_home, "scout").read("MEMORY.md").text
    assert not llm_home.workspace("scout--member-dana").exists()


def test_the_nightly_guard_takes_a_failed_run_back_from_every_layer_it_wrote(llm_home):
    from omb_tui.core.guard.night import NightGuard
    from omb_tui.core.runs.run import UpkeepRun

    add_person(llm_home, "dana")
    run = UpkeepRun("scout")
    actor = run.actor("capture", chat="With dana")
    shared, dana = MemoryStore(llm_home, "scout"), layer_store(llm_home, "scout", "dana")
    shared_before = shared.read("MEMORY.md").text
    shared.write("MEMORY.md", shared_before + "- the night's shared note\n", actor)
    dana.write("MEMORY.md", "- the night's note about Dana\n", actor)
    guard = NightGuard(llm_home, "scout", run, clock.now())
    guard._take_back()  # what a failed check after the run does
    assert guard.outcome.undone and len(guard.outcome.undo_rows) == 2
    assert shared.read("MEMORY.md").text == shared_before and dana.read("MEMORY.md").text == ""
