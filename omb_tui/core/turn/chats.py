"""Which conversation a turn is in, and who is talking: the chat opened, or started as the person's.

Spec: memory.md, "Recall before each turn" (a 1:1 chat the person started recalls their other conversations) and
"What a bot knows about its other conversations". `omb-tui chat`, the app's Send and a turn another program runs
(turn/outside.py) open their chat here; docs/turns.md says how the person is named.
"""

from __future__ import annotations

import contextlib

from ..base import clock
from ..files.paths import Home, NotFound
from ..memory import conversations as conv


def default_person(home: Home, bot_id: str) -> str:
    """Who is talking, when the caller does not say: the person of the bot's newest 1:1 chat they started,
    else the login name (recall brings passages only from conversations that person is in).

    The chats are read from the recall index when it has any (its conversations table holds every header it
    read: one query, where reading 8,000 headers took a second); else from their files.

    On a Team Cloud home the caller who does not say is the owner: the chats of its people are passed over, and a
    login name that is one of theirs is "owner" (docs/team-cloud.md), so no turn acts for a person unasked."""
    from ..people.people import list_people

    team = {person.name for person in list_people(home)}  # none on a home of one owner
    chats = [
        c
        for c in _conversations(home, bot_id)
        if not c.is_room and c.started_by.kind == "person" and c.people() and c.people()[0] not in team
    ]
    if chats:
        return max(chats, key=lambda c: c.created).people()[0]
    import getpass

    with contextlib.suppress(Exception):
        login = getpass.getuser()
        return login if login not in team else "owner"
    return "person"


def open_chat(
    home: Home, bot_id: str, chat_id: str, *, person: str | None = None, title: str | None = None
) -> conv.Conversation:
    """The bot's conversation `chat_id`; created, when missing, as a 1:1 chat the person started."""
    conv.validate_conversation_id(chat_id)
    with contextlib.suppress(NotFound):
        return conv.find_conversation(home, bot_id, chat_id)
    person = person or default_person(home, bot_id)
    chat = conv.Conversation(
        id=chat_id,
        title=title or chat_id,
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", person),
        members=[conv.Member("person", person), conv.Member("bot", bot_id)],
        created=clock.now(),
    )
    conv.create_conversation(home, chat, bot_id)
    return chat


def _conversations(home: Home, bot_id: str) -> list[conv.Conversation]:
    from ..index.recall_index import open_index
    from ..index.schema import index_path

    if index_path(home, bot_id).is_file():
        with contextlib.suppress(Exception):  # an index that cannot be read: the files say the same, slower
            index = open_index(home, bot_id)
            with index.reading():
                found = list(index.conversations().values())
            if found:
                return found
    return conv.list_conversations(home, bot_id)
