"""`people remove NAME --purge`: nothing of a removed person of a Team Cloud home is left in it (docs/team-cloud.md,
"Purge").

memory/people.py removes the person, their layers with their journals and kept copies, and their own About me.
Here, one floor up where the indexes are: their layers' index files (with `-wal` and `-shm`), their 1:1 chats with
every bot, and the rows those chats left in each bot's index. Every index connection zeroes what it deletes
(`secure_delete`, index_schema.py), but a deleted FTS5 row stays in an older segment until a merge, and a page in
the write-ahead log until it is folded back: so each index that lost rows has its full-text tables merged and its
log folded back and truncated. After the purge no byte of the chats is in it. (No VACUUM: the index file never
shrinks under a reader's memory map.)
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass, field

from ..memory import conversations as conv
from ..memory.layers import chat_person
from ..memory.paths import Home, validate_person_name
from ..memory.people import remove_person
from .index_refresh import FTS_TABLES
from .index_schema import index_path
from .recall_index import conversation_key, open_index

INDEX_SUFFIXES = ("", "-wal", "-shm", "-journal")
CHECKPOINT_PATIENCE_S = 30.0  # as long as any writer of the index waits for a lock


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
        remove_index_files(home, layer)
    for bot_id in home.bot_ids():
        theirs = [c for c in conv.list_conversations(home, bot_id) if chat_person(c, {name}) == name]
        if theirs:
            purged.chats[bot_id] = sorted(c.id for c in theirs)
            remove_chats(home, bot_id, theirs)
    return purged


def remove_index_files(home: Home, workspace_id: str) -> None:
    """A workspace's index file and its companions (an index is built again from the files when needed)."""
    path = index_path(home, workspace_id)
    for suffix in INDEX_SUFFIXES:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def remove_chats(home: Home, bot_id: str, chats: list[conv.Conversation]) -> None:
    """Delete the chats and their rows in one write of the bot's index, so no other process can read a chat
    between (an index reads files inside its write), then leave no trace of them in the index (the module's
    reason)."""
    index = open_index(home, bot_id)
    with index.rows.write() as db:
        for conversation in chats:
            assert conversation.path is not None  # listed from its file
            conv.discard_conversation(conversation.path)
            index.rows.forget(db, conversation_key(conversation))
    with index.rows.write() as db:
        for table in FTS_TABLES:
            db.execute(f"INSERT INTO {table}({table}) VALUES('optimize')")
    with index.connection.lock:
        fold_wal_back(index.db)


def fold_wal_back(db: sqlite3.Connection, patience_s: float = CHECKPOINT_PATIENCE_S) -> bool:
    """Copy the write-ahead log into the file and truncate it to nothing, waiting while another process reads (a
    log only reused would keep older frames past its new end); False when a reader held it all along."""
    deadline = time.monotonic() + patience_s
    while True:
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy or time.monotonic() > deadline:
            return not busy
        time.sleep(0.05)
