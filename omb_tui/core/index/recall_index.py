"""The search index behind recall, `session_search` and the brief: SQLite FTS5, kept outside the workspace.

Spec: memory.md, "Recall before each turn" (recall runs before every turn, so it must stay fast as
memory and history grow) and "What a bot knows about its other conversations". docs/recall.md
describes it for people.

One file per bot, `<home>/index/<botId>.sqlite` (0600): a bot's file tools work in its workspace and
must not reach the index, and deleting the index loses nothing (it is built again from the files).
:class:`RecallIndex` is the one face of parts that each own their state, one module each:

- :mod:`.index_schema`: the schema, the rows as searches read them, and the connection (`IndexConnection`:
  created 0600, built again when damaged, one transaction per write);
- :mod:`.index_kept`: what lookups gave, kept between them (`KeptLookups`), and when it is dropped;
- :mod:`.index_rows`: writing a memory file's notes and a conversation's messages, redacted (`IndexRows`);
- :mod:`.index_refresh`: keeping the index fresh, reading only what changed (`IndexRefresh`);
- :mod:`.index_search`: a word's newest rows, in a time window or not, and the candidates worth scoring
  (`WordLookup`);
- :mod:`.index_ranking`: a hit's score;
- :mod:`.index_notes`: searching notes, and topics' openings (`NoteSearch`);
- :mod:`.index_messages`: searching messages, and reading their text from their files (`MessageSearch`).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from datetime import date
from pathlib import Path
from typing import Any, Self

from ..files.paths import Home
from ..memory import conversations as conv
from .kept import KeptLookups
from .messages import ConversationFilter, MessageHit, MessageSearch, conversation_key
from .notes import NoteHit, NoteSearch, Opening
from .refresh import IndexRefresh, Progress, RefreshReport
from .rows import IndexRows
from .schema import IndexConnection, index_path
from .search import EXACT_POOL, WordLookup

__all__ = [
    "ConversationFilter",
    "MessageHit",
    "NoteHit",
    "Progress",
    "RecallIndex",
    "RefreshReport",
    "close_all",
    "forget_index",
    "conversation_key",
    "index_path",
    "open_index",
]


class RecallIndex:
    """One bot's index. Thread-safe; every public method brings the index up to date only when asked."""

    def __init__(self, home: Home, bot_id: str, path: Path | None = None) -> None:
        self.home = home
        self.bot_id = bot_id
        self.workspace = home.workspace(bot_id)
        self.path = path or index_path(home, bot_id)
        self.connection = IndexConnection(self.path, self._forget)
        self.kept = KeptLookups()
        self.rows = IndexRows(bot_id, self.connection, self.kept)
        self.refresher = IndexRefresh(home, bot_id, self.connection, self.rows)
        self.words = WordLookup(self.connection, self.kept)
        self.notes = NoteSearch(self.connection, self.kept, self.words)
        self.messages = MessageSearch(home, bot_id, self.connection, self.kept, self.words)

    def _forget(self, removed: bool) -> None:
        """What the parts keep of the index may be wrong (IndexConnection's on_stale): dropped, read again when needed."""
        self.kept.forget()
        self.rows.forget_known()
        if removed:
            self.refresher.forget_folders()

    @property
    def db(self) -> sqlite3.Connection:
        return self.connection.db

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def refresh(self, *, full: bool = False, progress: Progress | None = None) -> RefreshReport:
        """Read what changed since the last refresh (IndexRefresh.refresh)."""
        return self.refresher.refresh(full=full, progress=progress)

    def reading(self) -> contextlib.AbstractContextManager[None]:
        """Lookups in one read transaction (IndexConnection.reading): call refresh before, not inside."""
        return self.connection.reading()

    def counts(self) -> dict[str, Any]:
        """How many topic notes, other notes and messages the index holds (WordLookup.counts)."""
        return self.words.counts()

    # ----- notes -----
    def search_notes(
        self,
        query_terms: list[str],
        *,
        need: int,
        today: date,
        topics_only: bool,
        limit: int,
        since: date | None = None,
        until: date | None = None,
        skip_expired: bool = True,
        pool: int | None = EXACT_POOL,
    ) -> list[NoteHit]:
        """Notes holding at least `need` of the words, best first (NoteSearch.search_notes)."""
        return self.notes.search_notes(
            query_terms,
            need=need,
            today=today,
            topics_only=topics_only,
            limit=limit,
            since=since,
            until=until,
            skip_expired=skip_expired,
            pool=pool,
        )

    def recent_notes(self, *, since: date | None, until: date | None, topics_only: bool, limit: int) -> list[NoteHit]:
        """Notes dated in a window, newest first (NoteSearch.recent_notes)."""
        return self.notes.recent_notes(since=since, until=until, topics_only=topics_only, limit=limit)

    def name_matches(self, query_terms: list[str]) -> dict[str, set[str]]:
        """Topics whose file name, title or aliases hold one of the words (NoteSearch.name_matches)."""
        return self.notes.name_matches(query_terms)

    def opening(self, file: str, today: date | None) -> Opening | None:
        """A topic's opening, or None when it has none (NoteSearch.opening)."""
        return self.notes.opening(file, today)

    # ----- messages -----
    def search_messages(
        self,
        query_terms: list[str],
        *,
        need: int,
        today: date,
        limit: int,
        accept: ConversationFilter | None = None,
        since_ts: float | None = None,
        until_ts: float | None = None,
        other_than: conv.Conversation | None = None,
        replies_only: bool = False,
        pool: int | None = EXACT_POOL,
        texts: bool = True,
    ) -> list[MessageHit]:
        """Messages of the bot's conversations holding at least `need` of the words, best first
        (MessageSearch.search_messages)."""
        return self.messages.search_messages(
            query_terms,
            need=need,
            today=today,
            limit=limit,
            accept=accept,
            since_ts=since_ts,
            until_ts=until_ts,
            other_than=other_than,
            replies_only=replies_only,
            pool=pool,
            texts=texts,
        )

    def recent_messages(
        self,
        *,
        since_ts: float | None,
        until_ts: float | None,
        limit: int | None,
        author: str | None = None,
        texts: bool = True,
    ) -> list[MessageHit]:
        """Messages in a time window, newest first (MessageSearch.recent_messages)."""
        return self.messages.recent_messages(
            since_ts=since_ts, until_ts=until_ts, limit=limit, author=author, texts=texts
        )

    def neighbour(self, hit: MessageHit, offset: int, *, texts: bool = True) -> MessageHit | None:
        """The message `offset` places before or after a hit in its conversation (MessageSearch.neighbour)."""
        return self.messages.neighbour(hit, offset, texts=texts)

    def message_texts(self, hits: list[MessageHit]) -> list[MessageHit]:
        """The hits with their text, read from their files; those whose line changed left out
        (MessageSearch.message_texts)."""
        return self.messages.message_texts(hits)

    def conversations(self, *, members_only: bool = True) -> dict[str, conv.Conversation]:
        """The conversations the index knows, by key (MessageSearch.conversations)."""
        return self.messages.conversations(members_only=members_only)

    def conversation_file(self, key: str) -> str:
        """The file of a conversation the index knows by key (MessageSearch.conversation_file)."""
        return self.messages.conversation_file(key)


# One open index per (home, bot) in this process, so recall before each turn reuses it.
_open_indexes: dict[tuple[str, str], RecallIndex] = {}
_open_guard = threading.Lock()


def open_index(home: Home, bot_id: str) -> RecallIndex:
    """The bot's index, opened once per process and reused."""
    key = (str(home.root), bot_id)
    with _open_guard:
        index = _open_indexes.get(key)
        if index is None:
            index = _open_indexes[key] = RecallIndex(home, bot_id)
        return index


def forget_index(home: Home, bot_id: str) -> None:
    """Close this process's index of the bot, if open, and forget it (its file is about to go)."""
    with _open_guard:
        index = _open_indexes.pop((str(home.root), bot_id), None)
    if index is not None:
        index.close()


def close_all() -> None:
    """Close every index this process opened (tests, and the app on exit)."""
    with _open_guard:
        for index in _open_indexes.values():
            index.close()
        _open_indexes.clear()
