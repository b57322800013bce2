"""Conversations to start from: a 1:1 chat created at a fixed moment (the conversation and damaged-files tests), and
a chat or room with the messages given (the bot's tools, the app's search, About me)."""

from __future__ import annotations

from datetime import UTC, datetime

from omb_tui.core.files.paths import Home
from omb_tui.core.memory import conversations as conv


def make_chat(
    home: Home, bot: str = "scout", chat_id: str = "plans", *, starter: str = "person", person: str = "Milind"
) -> conv.Conversation:
    conversation = conv.Conversation(
        id=chat_id,
        title="Plans",
        kind=conv.KIND_CHAT,
        started_by=conv.Starter(starter, person),
        members=[conv.Member("person", person), conv.Member("bot", bot)],
        created=datetime(2026, 9, 1, 9, 0, tzinfo=UTC),
    )
    conv.create_conversation(home, conversation, bot)
    return conversation


def make_conversation(home, chat_id, title, starter="person", *, room=False, messages=()):
    chat = conv.Conversation(
        id=chat_id,
        title=title,
        kind=conv.KIND_ROOM if room else conv.KIND_CHAT,
        started_by=conv.Starter(starter, "Milind" if starter == "person" else "Morning digest"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", "scout")],
        created=datetime(2026, 11, 1, 9, 0).astimezone(),
    )
    path = conv.create_conversation(home, chat, None if room else "scout")
    for author_kind, text, at, origin in messages:
        author = "Milind" if author_kind == "person" else ("routine" if author_kind == "harness" else "scout")
        conv.append_message(path, conv.Message(author_kind, author, at, text, origin=origin))
    return path
