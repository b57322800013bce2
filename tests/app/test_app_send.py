"""The recall preview's Send: the same turn a chat runs, its answer and each tool call shown (Pilot at 80x24)."""

from __future__ import annotations

import json

from support.app_helpers import put_message, settle
from support.scripted_model import Answer, Unavailable, model  # noqa: F401 (model: the fixture)
from textual.widgets import Input, Select

from omb_tui.app.app import make_app
from omb_tui.app.screens.recall import PREVIEW_CHAT_ID, RecallScreen
from omb_tui.app.widgets.turn_answer import TurnAnswer
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.store import MemoryStore

REMEMBER = {
    "id": "c1",
    "type": "function",
    "function": {"name": "memory_update", "arguments": '{"action": "add", "text": "Short answers"}'},
}


async def open_recall_with(pilot, message: str) -> RecallScreen:
    await settle(pilot)
    pilot.app.action_open_area("recall")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RecallScreen)
    await put_message(pilot, screen, message)
    return screen


def shown(screen: RecallScreen) -> str:
    return screen.query_one(TurnAnswer).text.plain


async def test_send_shows_the_answer_and_each_tool_call_and_memory_changes(home, model):
    model.answers += [Answer(tool_calls=[REMEMBER]), Answer("Got it: short answers.")]
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall_with(pilot, "Remember: short answers, please")
        assert not screen.query_one(TurnAnswer).display  # nothing sent yet
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        text = shown(screen)
        assert screen.query_one(TurnAnswer).display
        assert text.startswith("Scout answered, after 1 tool call:\nGot it: short answers.")
        assert '[1] memory_update {"action": "add", "text": "Short answers"}' in text
        assert "→ Saved to MEMORY.md." in text
        # the chat list now holds the preview chat the turn went into
        assert PREVIEW_CHAT_ID in screen.chat_ids
    assert (
        'from chat "Sent from the recall preview" · Short answers'
        in (home.workspace("scout") / "MEMORY.md").read_text()
    )
    row = next(r for r in MemoryStore(home, "scout").journal.rows() if r.file == "MEMORY.md")
    assert (row.who, row.how, row.chat) == (WHO_BOT, HOW_TASK, PREVIEW_CHAT_ID)
    messages = conv.find_conversation(home, "scout", PREVIEW_CHAT_ID, with_messages=True).messages
    assert [(m.author_kind, m.text) for m in messages] == [
        ("person", "Remember: short answers, please"),
        ("bot", "Got it: short answers."),
    ]
    system = model.requests[0][0]["content"]
    assert "The person lives in Pune" in system  # the memory block as it is now


async def test_send_goes_into_the_chosen_chat(home, model):
    chat = conv.Conversation(
        id="plans",
        title="Plans",
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", "scout")],
        created=conv.parse_time("2026-11-01T09:00:00+00:00"),
    )
    conv.create_conversation(home, chat, "scout")
    model.answers.append(Answer("Window seats it is."))
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall_with(pilot, "Book window seats for Lisbon")
        screen.query_one("#chat", Select).value = "plans"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert shown(screen) == (
            'Scout answered:\nWindow seats it is.\nThe message and the answer are in 1:1 with Milind · "Plans".'
        )  # where it went, said
    lines = (conv.chats_dir(home, "scout") / "plans.ndjson").read_text().splitlines()
    assert [json.loads(line)["text"] for line in lines[1:]] == ["Book window seats for Lisbon", "Window seats it is."]
    assert not (conv.chats_dir(home, "scout") / f"{PREVIEW_CHAT_ID}.ndjson").exists()


async def test_an_unavailable_model_says_why_on_the_screen(home, model):
    model.answers.append(Unavailable("No model is set up for scout: give it an instance or set the helper."))
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall_with(pilot, "Hello there, Scout")
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert shown(screen) == (
            "Scout could not answer\nNo model is set up for scout: give it an instance or set the helper.\n"
            'Your message is kept in chat "Sent from the recall preview", marked not answered.'
        )
        assert screen.sending is False


async def test_send_with_no_message_sends_nothing(home, model):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall_with(pilot, "   ")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert model.requests == [] and not screen.query_one(TurnAnswer).display
