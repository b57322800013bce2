"""The search index behind recall, `session_search` and the brief: SQLite FTS5, kept outside the workspace.

Spec: memory.md, "Recall before each turn" (recall runs before every turn, so it must stay fast as
memory and history grow) and "What a bot knows about its other conversations". docs/recall.md
describes it for people.

One file per bot, `<home>/index/<botId>.sqlite` (0600): a bot's file tools work in its workspace and
must not reach the index, and deleting the index loses nothing (it is built again from the files).
:class:`RecallIndex` does four jobs, one module each:

- :mod:`.index_schema`: the schema and the connection (created 0600, built again when damaged);
- :mod:`.index_refresh`: keeping the index fresh, reading only what changed (`refresh`);
- :mod:`.index_rows`: writing a memory file's notes and a conversation's messages, redacted;
- :mod:`.index_search`: search and ranking (`search_notes`, `search_messages`, the openings).
"""

from __future__ import annotations

import threading

from ..memory.paths import Home
from .index_refresh import IndexRefresh, Progress, RefreshReport
from .index_schema import index_path
from .index_search import ConversationFilter, IndexSearch, MessageHit, NoteHit, conversation_key

__all__ = [
    "ConversationFilter",
    "MessageHit",
    "NoteHit",
    "Progress",
    "RecallIndex",
    "RefreshReport",
    "close_all",
    "conversation_key",
    "index_path",
    "open_index",
]


class RecallIndex(IndexRefresh, IndexSearch):
    """One bot's index. Thread-safe; every public method brings the index up to date only when asked."""


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


def close_all() -> None:
    """Close every index this process opened (tests, and the app on exit)."""
    with _open_guard:
        for index in _open_indexes.values():
            index.close()
        _open_indexes.clear()
