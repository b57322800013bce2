"""Chats and rooms for capture to read, and capture's answers as the scripted model gives them: shared by the
upkeep, review, team, search, recall and app tests."""

from __future__ import annotations

import json
from datetime import timedelta

from omb_tui.core.base import clock
from omb_tui.core.memory import conversations as conv

PERSON_NAME = "Milind"


def make_chat(home, turns, *, chat_id="plans", title="Plans", started="person", bot="scout", hours_ago=5):
    """A 1:1 chat: each turn is (person_text, bot_text) or a dict with origin/failed/author_kind."""
    chat = conv.Conversation(
        id=chat_id,
        title=title,
        kind=conv.KIND_CHAT,
        started_by=conv.Starter(started, PERSON_NAME if started == "person" else "digest"),
        members=[conv.Member("person", PERSON_NAME), conv.Member("bot", bot)],
        created=clock.now() - timedelta(hours=hours_ago + 1),
    )
    path = conv.create_conversation(home, chat, bot)
    add_turns(path, turns, hours_ago=hours_ago, bot=bot)
    return path


def add_turns(path, turns, *, hours_ago=5, bot="scout"):
    at = clock.now() - timedelta(hours=hours_ago)
    for n, turn in enumerate(turns):
        turn = turn if isinstance(turn, dict) else {"person": turn[0], "bot": turn[1]}
        origin = turn.get("origin", "person")
        author_kind = "person" if origin == "person" else "harness"
        conv.append_message(
            path,
            conv.Message(
                author_kind,
                PERSON_NAME if origin == "person" else origin,
                at + timedelta(minutes=2 * n),
                turn["person"],
                origin=origin,
            ),
        )
        conv.append_message(
            path,
            conv.Message(
                "bot", bot, at + timedelta(minutes=2 * n, seconds=30), turn["bot"], failed=turn.get("failed", False)
            ),
        )


def answer(*facts):
    return {"content": json.dumps({"facts": list(facts)})}


def fact(text, quotes=(), kind="fact", target="MEMORY.md", **more):
    return {
        "text": text,
        "kind": kind,
        "quotes": list(quotes),
        "target": target,
        "until": None,
        "about_me": False,
        **more,
    }


VEG = ("I'm vegetarian, by the way.", "Noted, I'll keep that in mind.")


# ----- rooms -----
def make_room(home, lines, *, members=("Milind", "Anna"), room_id="launch"):
    room = conv.Conversation(
        id=room_id,
        title="Launch",
        kind=conv.KIND_ROOM,
        started_by=conv.Starter("person", "Milind"),
        members=[
            *(conv.Member("person", p) for p in members),
            conv.Member("bot", "scout"),
            conv.Member("bot", "ledger"),
        ],
        created=clock.now() - timedelta(hours=6),
    )
    path = conv.create_conversation(home, room)
    at = clock.now() - timedelta(hours=5)
    for n, (kind, author, text) in enumerate(lines):
        conv.append_message(
            path,
            conv.Message(kind, author, at + timedelta(minutes=n), text, origin="person" if kind == "person" else None),
        )
    return path
