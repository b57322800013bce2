"""What the recall index gave, kept in the process between lookups (see :mod:`omb_tui.core.index.recall_index`).

Recall runs before every turn, and the next turn's message often meets the same words, notes, messages and
topics: each word's newest rows, the candidates' rows, the notes of a topic whose name matched, how many rows
there are, the conversations' parsed headers and the texts of the messages shown are kept. They stay right across this process's writes (appended
messages are put in front of the words they hold; any other change drops what it may have changed) and are all
dropped when another process commits, a write is rolled back or the index is closed (docs/recall.md, "The index").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, NamedTuple

from ..files.file_stamp import FileStamp
from ..memory import conversations as conv
from .schema import MessageRow, NoteRow


class LookupKey(NamedTuple):
    """What a lookup is kept under: (an FTS table, a word, the cap) for a word's newest row ids; ("topic_names", a
    word, the cap) for the topics whose name holds it; ("topic_notes", a topic's file, 0) for that topic's notes."""

    source: str
    word: str
    cap: int


class KeptLookups:
    """Each word's newest rows, the candidates' rows, the counts and the conversations' headers, kept by one index."""

    POSTINGS_KEPT = 512  # words whose rows are kept
    ROWS_KEPT = 8_000  # rows of each table kept (past it, the half kept longest is dropped)
    APPENDS_FOLLOWED = 1000  # more messages than this in one write: the kept postings are dropped instead
    TEXTS_KEPT = 4_000  # texts of messages shown (past it, the conversations whose texts were kept first are dropped)

    def __init__(self) -> None:
        # Each word's newest row ids in an FTS table, as the last lookup found them, newest first (and the other
        # lookups LookupKey names). Kept right across writes: appended messages are put in front of the words they
        # hold, any other change to a table drops its entries, another process's commit drops them all.
        self._postings: dict[LookupKey, list] = {}
        # The rows of candidates already read (recall's next message often meets the same notes and messages), by
        # table and id: a table's are dropped with its words' rows, whenever one of its rows may have changed.
        self._rows: dict[str, dict[int, Any]] = {"notes": {}, "messages": {}}  # NoteRow, MessageRow
        self.counts: dict[str, Any] | None = None  # WordLookup.counts, until a write
        # WordLookup.window_size's counts, until a write: by (table, the window's last time), then by first time (and
        # the first times in order)
        self.window_sizes: dict[tuple[str, Any], tuple[dict[Any, int], list[Any]]] = {}
        self.headers: dict[str, conv.Conversation | None] = {}  # the convs rows parsed, by key, until one changes
        # The texts of messages shown, as read from their files (and redacted): by conversation, with the stamp its
        # file had then (FileStamp), then by message id. A conversation's are dropped whenever the index reads it
        # again (a message appended or changed) or its file's stamp is no longer the same.
        self._texts: dict[str, tuple[FileStamp, dict[int, str]]] = {}
        self._texts_count = 0
        self._appends: list[tuple[int, str]] | None = []  # messages written in the open transaction; None: too many
        self._changed: set[str] = set()  # the FTS tables (and "topic_names", "topic_notes") the write changed
        # index_vectors' matrices of the messages' and notes' vectors, by kind, until one of them may have changed
        self.vector_tables: dict[str, Any] = {}

    def forget(self) -> None:
        """Drop everything kept: what the index holds may have changed in any way."""
        self._postings.clear()
        for rows in self._rows.values():
            rows.clear()
        self.counts = None
        self.window_sizes.clear()
        self.headers.clear()
        self._texts.clear()
        self._texts_count = 0
        self.vector_tables.clear()

    # ----- reading -----
    def postings(self, key: LookupKey) -> list | None:
        return self._postings.get(key)

    def keep_postings(self, key: LookupKey, rows: list) -> None:
        if len(self._postings) >= self.POSTINGS_KEPT:
            del self._postings[next(iter(self._postings))]  # the one kept longest
        self._postings[key] = rows

    def rows(self, table: str) -> dict[int, Any]:
        """The rows of a table kept, by id (keep_rows adds to them)."""
        return self._rows[table]

    def keep_rows(self, table: str, rows: Iterable[NoteRow | MessageRow]) -> None:
        kept = self._rows[table]
        kept.update((row.id, row) for row in rows)
        if len(kept) > self.ROWS_KEPT:
            for row_id in list(itertools.islice(kept, len(kept) - self.ROWS_KEPT // 2)):
                del kept[row_id]

    def texts(self, key: str, stamp: FileStamp) -> dict[int, str]:
        """The texts kept of a conversation's messages, by id, while its file has the stamp they were read under."""
        kept = self._texts.get(key)
        if kept is None:
            return {}
        if kept[0] != stamp:
            self._drop_texts(key)
            return {}
        return kept[1]

    def keep_texts(self, key: str, stamp: FileStamp, texts: dict[int, str]) -> None:
        """Keep texts read from a conversation's file while it has `stamp` (which must be settled: see FileStamp)."""
        if self._texts_count + len(texts) > self.TEXTS_KEPT:
            while self._texts and self._texts_count + len(texts) > self.TEXTS_KEPT // 2:
                self._drop_texts(next(iter(self._texts)))  # the conversation kept longest
        held = self.texts(key, stamp)
        if not held:
            self._texts[key] = (stamp, held)
        before = len(held)
        held.update(texts)
        self._texts_count += len(held) - before

    def _drop_texts(self, key: str) -> None:
        self._texts_count -= len(self._texts.pop(key)[1])

    # ----- what a write changed (IndexRows tells, inside the transaction) -----
    def begin_write(self) -> None:
        self._appends, self._changed = [], set()

    def messages_appended(self, rows: list[tuple[int, str]]) -> None:
        """Messages (id, terms) just written, every id above the ones before: they go in front of their words' rows."""
        if not self._postings:
            return  # no word's rows to put them in front of (and an append changes no row already written)
        if self._appends is not None and len(self._appends) + len(rows) <= self.APPENDS_FOLLOWED:
            self._appends.extend(rows)
        else:
            self._appends = None

    def postings_changed(self, *sources: str) -> None:
        self._changed.update(sources)

    def conversation_changed(self, key: str) -> None:
        self.headers.pop(key, None)  # its header (members) may change: parsed again when next needed
        if key in self._texts:  # its lines may have moved or changed
            self._drop_texts(key)

    def written(self) -> None:
        """The write committed: drop what it changed, put the messages it appended in front of their words' rows."""
        appends, changed = self._appends, self._changed
        if appends is None:
            changed.add("message_fts")
        for key in [key for key in self._postings if key.source in changed]:
            del self._postings[key]
        if changed & {"topic_fts", "memo_fts", "message_fts"}:
            self.vector_tables.clear()  # rows dropped (their vectors with them), or written again under new ids
        if changed & {"topic_fts", "memo_fts"}:
            self._rows["notes"].clear()  # a file's notes are written again under new ids (maybe ids used before)
        if "message_fts" in changed:
            self._rows["messages"].clear()  # appended messages change no row already written
        if appends and "message_fts" not in changed:
            newest_first = [(message_id, set(terms.split())) for message_id, terms in reversed(appends)]
            for key, rows in self._postings.items():
                if key.source == "message_fts":
                    found = [message_id for message_id, held in newest_first if key.word in held]
                    if found:
                        self._postings[key] = (found + rows)[: key.cap]
        self._appends, self._changed = [], set()
        self.counts = None
        self.window_sizes.clear()
