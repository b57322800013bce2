"""`people remove NAME --purge`: nothing of a removed person of a Team Cloud home is left in it (docs/team-cloud.md,
"Purge").

people/people.py removes the person, their layers with their journals and kept copies, and their own About me.
Here, one floor up where the indexes are: their layers' index files (with `-wal` and `-shm`), their 1:1 chats with
every bot, and each such bot's index whole. Deleting a chat's rows would not do: SQLite keeps a deleted row's bytes
in free pages, FTS5 a deleted entry's words in older segments, and the write-ahead log older frames past its end.
An index is only ever built from the files, so it is removed and built again at its next use (the vectors too,
which the background pass makes again); a process that has the old file open notices at its next refresh
(IndexConnection.reopen_if_replaced) and opens the new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..files.paths import Home, validate_person_name
from ..memory import conversations as conv
from ..people.layers import chat_person
from ..people.people import remove_person
from .recall_index import forget_index
from .schema import index_path, remove_index_files


@dataclass
class Purged:
    """What a purge took away: the layers (by workspace id) and the person's 1:1 chats (by bot)."""

    layers: list[str]
    chats: dict[str, list[str]] = field(default_factory=dict)


def purge_person(home: Home, name: str) -> Purged:
    """Remove the person and everything of theirs in the home (the module's list); the token stops working first."""
    home = Home.of(home)
    validate_person_name(name)
    purged = Purged(remove_person(home, name, purge=True))
    for layer in purged.layers:
        drop_index(home, layer)
    for bot_id in home.bot_ids():
        theirs = [c for c in conv.list_conversations(home, bot_id) if chat_person(c, {name}) == name]
        if theirs:
            purged.chats[bot_id] = sorted(c.id for c in theirs)
            remove_chats(home, bot_id, theirs)
    return purged


def drop_index(home: Home, workspace_id: str) -> None:
    """Close this process's index of the workspace and delete its files: it is built again from the files."""
    forget_index(home, workspace_id)
    remove_index_files(index_path(home, workspace_id))


def remove_chats(home: Home, bot_id: str, chats: list[conv.Conversation]) -> None:
    """Delete the chats, then the bot's index whole (the module's reason): it is built again from the files."""
    for conversation in chats:
        assert conversation.path is not None  # listed from its file
        conv.discard_conversation(conversation.path)
    drop_index(home, bot_id)
