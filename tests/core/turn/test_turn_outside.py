"""A turn another program runs, noted at its two ends from separate processes (omb_tui/core/turn/outside.py).

Spec: memory.md, "The journal" (bot writes are caught at the turn boundary; a file changed between turns is the
person's) and "What a bot knows about its other conversations" (the turn in a conversation of the bot, one log line
per finished turn). Also recall's `person`, for a turn whose conversation is not in the home yet.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from support.home import BOT_ID

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON, Journal
from omb_tui.core.memory import conversations as conv
from omb_tui.core.recall.recall import recall
from omb_tui.core.turn.outside import Exchange, note_turn_start, record_turn

pytestmark = pytest.mark.dates

TURN = Exchange(
    "Where do I keep the offsite budget?",
    "In memory/work.md, under Budget.",
    prompt_at=datetime(2026, 12, 2, 9, 0, tzinfo=UTC),
    prompt_id="p-1",
    answer_id="a-1",
    tools=("Read", "Read", "Grep"),
)


def rows(home: Home):
    return list(reversed(Journal(home.journal_path(BOT_ID)).rows()))


def lines(home: Home, chat: str) -> list[str]:
    return (conv.chats_dir(home, BOT_ID) / f"{chat}.ndjson").read_text(encoding="utf-8").splitlines()


def test_a_turn_starts_a_persons_1to1_chat_and_is_recorded_whole(home):
    done = record_turn(home, BOT_ID, "cc-1", TURN, person="Nadia", title="Claude Code in atlas")
    assert (done.created, done.appended, done.logged) == (True, 2, True)
    found = conv.find_conversation(home, BOT_ID, "cc-1", with_messages=True)
    assert found.title == "Claude Code in atlas" and found.recall_kind() == "person"
    assert found.people() == ["Nadia"]
    person, bot = found.messages
    assert (person.author, person.text, person.origin, person.id) == ("Nadia", TURN.prompt, "person", "p-1")
    assert person.at == TURN.prompt_at
    assert (bot.author_kind, bot.author, bot.text, bot.id, bot.failed) == ("bot", BOT_ID, TURN.answer, "a-1", False)
    log = (home.workspace(BOT_ID) / "memory" / "log" / f"{clock.today().isoformat()}.md").read_text(encoding="utf-8")
    assert 'from chat "Claude Code in atlas" · tools: Read, Grep · said: "In memory/work.md, under Budget."' in log


def test_a_turn_recorded_again_adds_nothing(home):
    record_turn(home, BOT_ID, "cc-1", TURN, person="Nadia")
    again = record_turn(home, BOT_ID, "cc-1", TURN)
    assert (again.created, again.appended, again.logged) == (False, 0, False)
    assert len(lines(home, "cc-1")) == 3


def test_a_second_answer_to_the_same_prompt_is_appended_alone(home):
    record_turn(home, BOT_ID, "cc-1", TURN, person="Nadia")
    more = Exchange(TURN.prompt, "And the receipts are in memory/receipts.md.", prompt_id="p-1", answer_id="a-2")
    assert record_turn(home, BOT_ID, "cc-1", more).appended == 1
    found = conv.find_conversation(home, BOT_ID, "cc-1", with_messages=True)
    assert [m.text for m in found.messages] == [TURN.prompt, TURN.answer, more.answer]


def test_the_two_ends_of_the_boundary_say_whose_each_change_is(home):
    workspace = home.workspace(BOT_ID)
    before = len(rows(home))
    (workspace / "MEMORY.md").write_text("# Memory\n\n- edited in Obsidian\n", encoding="utf-8")
    started = note_turn_start(home, BOT_ID)
    assert [(r.who, r.how, r.file) for r in started] == [(WHO_PERSON, HOW_OUTSIDE, "MEMORY.md")]
    (workspace / "memory" / "work.md").write_text("# Work\n\n- Budget: 14,000 EUR\n", encoding="utf-8")
    done = record_turn(home, BOT_ID, "cc-1", TURN, person="Nadia")
    assert [(r.who, r.how, r.chat, r.file) for r in done.rows] == [(WHO_BOT, HOW_TASK, "cc-1", "memory/work.md")]
    assert [r.file for r in rows(home)[before:]] == ["MEMORY.md", "memory/work.md", done_log(home)]


def done_log(home: Home) -> str:
    return f"memory/log/{clock.today().isoformat()}.md"


def test_a_turn_starts_the_workspace_of_a_bot_whose_first_turn_it_is(tmp_path):
    home = Home(tmp_path / "home")
    home.bots_dir.mkdir(parents=True)
    home.settings_path("atlas").write_text('{"name": "Atlas"}\n', encoding="utf-8")
    assert note_turn_start(home, "atlas") == []
    assert home.workspace("atlas").is_dir()


def test_a_chat_id_that_cannot_be_one_is_refused_before_anything_is_written(home):
    with pytest.raises(conv.InvalidName):
        record_turn(home, BOT_ID, "../escape", TURN)
    assert not conv.chats_dir(home, BOT_ID).exists()


def test_messages_appended_together_are_one_write(home, monkeypatch):
    path = conv.create_conversation(
        home,
        conv.Conversation("plans", "Plans", conv.KIND_CHAT, conv.Starter("person", "Nadia"), [], clock.now()),
        BOT_ID,
    )
    writes = []
    real_write = conv.os.write
    monkeypatch.setattr(conv.os, "write", lambda fd, data: writes.append(data) or real_write(fd, data))
    now = clock.now()
    conv.append_messages(path, [conv.Message("person", "Nadia", now, "one"), conv.Message("bot", BOT_ID, now, "two")])
    assert len([w for w in writes if b'"type":"message"' in w]) == 1
    assert [m.text for m in conv.read_conversation(path).messages] == ["one", "two"]
    with pytest.raises(conv.MemoryInputError):
        conv.append_messages(path, [conv.Message("person", "Nadia", now, "ok"), conv.Message("robot", "x", now, "no")])
    assert [m.text for m in conv.read_conversation(path).messages] == ["one", "two"]  # nothing of a refused batch


# ----- recall's person, before the conversation is in the home -----
def _chat(home: Home, chat_id: str, person: str, said: str) -> None:
    moment = datetime(2026, 11, 20, 9, tzinfo=UTC)
    chat = conv.Conversation(
        chat_id,
        chat_id,
        conv.KIND_CHAT,
        conv.Starter("person", person),
        [conv.Member("person", person), conv.Member("bot", BOT_ID)],
        moment,
        messages=[conv.Message("person", person, moment, said), conv.Message("bot", BOT_ID, moment, "Noted.")],
    )
    conv.write_conversation(conv.chats_dir(home, BOT_ID) / f"{chat_id}.ndjson", chat)


def test_recall_with_a_person_brings_only_their_conversations(home):
    conv.chats_dir(home, BOT_ID).mkdir(parents=True)
    _chat(home, "nadia-chat", "Nadia", "The marmalade recipe needs Seville oranges")
    _chat(home, "tom-chat", "Tom", "My marmalade recipe uses blood oranges")
    anyone = recall(home, BOT_ID, "What goes into the marmalade recipe?")
    assert {p.conversation for p in anyone.passages} == {"nadia-chat", "tom-chat"}
    nadia = recall(home, BOT_ID, "What goes into the marmalade recipe?", person="Nadia")
    assert {p.conversation for p in nadia.passages} == {"nadia-chat"}
