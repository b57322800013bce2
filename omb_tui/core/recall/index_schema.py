"""The recall index's schema and its connection (see :mod:`omb_tui.core.recall.recall_index`).

One file per bot, `<home>/index/<botId>.sqlite` (0600): a bot's file tools work in its workspace and
must not reach the index, and deleting the index loses nothing (it is built again from the files).
A damaged or out-of-date index file is deleted and built again; every write is one transaction, so
another process reading the index never sees half of one.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple, Self

from ..memory import conversations as conv
from ..memory.paths import LOG_DIR, MEMORY_DIR, MEMORY_FILE, FileKind, Home, MemoryInputError, classify, refuse_links
from ..memory.store import make_private_dirs
from .words import TOKENIZER_VERSION

log = logging.getLogger("omb_tui.recall_index")

# 3: a topic's opening is built when recalled, without expired entries; 4: text redacted; 5: FTS5 without
# column sizes (nothing ranks by them), message_times (a time window or a chat left out is checked there)
# 6: a message's text is read from its conversation file (where its line is, and the line's crc32), not kept
# 7: the FTS tables of notes and messages also hold each one's day and 32-day block (time terms), for windows;
# 8: its aligned spans of 4, 16 and 64 days instead of the 32-day block
SCHEMA_VERSION = 8
WAL_KEPT_BYTES = 4 << 20  # the write-ahead log is cut back to this after a checkpoint (a build wrote it full)
USER_VERSION = SCHEMA_VERSION * 1000 + TOKENIZER_VERSION


# A time window is looked up a few days at a time, newest first (IndexSearch._postings_in_window): each note
# and message also holds, in its FTS table, a term for its day and for its aligned spans of 4, 16 and 64 days,
# so a word's notes or messages of some days are found by FTS5 itself, without looking at the word's others,
# and any run of days is named by a few terms.
DAY_SECONDS = 86400
SPAN_DAYS = (64, 16, 4, 1)  # longest first
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def message_day(ts: int) -> int:
    """The day (UTC, from 1970) a message's time term names; 0 for anything before 1970."""
    return max(0, ts // DAY_SECONDS)


def note_day(day: str | None) -> int | None:
    """The day (from 1970) a note's time term names (its ISO date); None for a note without one (or a log named
    for a day that does not exist), which no window holds."""
    try:
        return max(0, date.fromisoformat(day).toordinal() - _EPOCH_ORDINAL) if day else None
    except ValueError:
        return None


def day_iso(day: int) -> str:
    """A day (from 1970) as a note's ISO date."""
    return date.fromordinal(day + _EPOCH_ORDINAL).isoformat()


def span_term(days: int, day: int) -> str:
    """The term of the aligned span of `days` days that holds a day: `_1s20716` for the day itself."""
    return f"_{days}s{day // days}"


def time_terms(day: int | None) -> str:
    """The terms a day adds to a note's or message's terms in its FTS table: one for each span that holds it."""
    return "" if day is None else "".join(f" {span_term(days, day)}" for days in SPAN_DAYS)


def days_terms(first: int, last: int) -> list[str]:
    """The fewest time terms that name the days first..last: from the first, each time the longest aligned span
    that starts there and ends by the last."""
    found, day = [], first
    while day <= last:
        days = next(days for days in SPAN_DAYS if day % days == 0 and day + days - 1 <= last)
        found.append(span_term(days, day))
        day += days
    return found


class FileState(NamedTuple):
    """What a file looked like when the index read it (the files table's size, mtime_ns and ino): a refresh
    reads it again when its stat no longer matches."""

    size: int
    mtime_ns: int  # -1: read just after a change, so read again next time (see IndexRows._set_file)
    ino: int


class Folder(NamedTuple):
    """A folder whose files the index reads, by group (key_group)."""

    group: str
    path: Path
    feed: Path | None  # its `.changes`; None for the memory folders (the bot's journal names their files)


class FolderLook(NamedTuple):
    """A folder as a refresh last listed it: its mtime and size then, and when that was (ns)."""

    mtime_ns: int
    size: int
    looked_at_ns: int


class FeedPlace(NamedTuple):
    """How far a feed (the journal, a `.changes`) has been read: its inode (None: it did not exist) and bytes."""

    ino: int | None
    read_to: int


# A search reads and scores a hundred rows or so per message, and keeps them between lookups: the rows are slotted
# dataclasses, whose fields read as fast as a tuple's items (a NamedTuple's field is a slower, generic attribute
# lookup, and making one costs twice as much). Nothing changes a row once read.


@dataclass(slots=True)
class NoteRow:
    """A note's row as a search reads it (NOTE_COLUMNS), without its text (read for the hits kept only)."""

    id: int
    file: str
    kind: str
    section: str | None
    day: str | None
    until: str | None
    line: int
    spaced_terms: str  # its terms between spaces: whether it holds a word is one test, " word " in it


# NoteRow's columns: the stored terms between spaces, so that a word is found by a substring test
NOTE_COLUMNS = "id, file, kind, section, day, until, line, ' ' || terms || ' '"


@dataclass(slots=True)
class MessageRow:
    """A message's row as a search reads it (MESSAGE_COLUMNS), without its text (read from its file when shown)."""

    id: int
    conv: str
    seq: int
    at: str  # as written, with its offset
    author_kind: str
    author: str
    failed: int
    spaced_terms: str  # as NoteRow's; '' where only the message is wanted (MESSAGE_PLACE_COLUMNS)
    ts: int


MESSAGE_COLUMNS = "id, conv, seq, at, author_kind, author, failed, ' ' || terms || ' ', ts"
# a MessageRow without its terms: a message listed or shown, not scored
MESSAGE_PLACE_COLUMNS = "id, conv, seq, at, author_kind, author, failed, '', ts"


class LookupKey(NamedTuple):
    """What a lookup kept between searches is kept under (IndexDatabase._kept_postings): (an FTS table, a word, the
    cap) for a word's newest row ids; ("topic_names", a word, the cap) for the topics whose name holds it;
    ("topic_notes", a topic's file, 0) for that topic's notes."""

    source: str
    word: str
    cap: int


def index_path(home: Home, bot_id: str) -> Path:
    """`<home>/index/<botId>.sqlite`, beside the workspaces, never inside one."""
    return home.root / "index" / f"{home.workspace(bot_id).name}.sqlite"


_SCHEMA = """
CREATE TABLE files(
    key TEXT PRIMARY KEY,           -- memory/x.md, chat:<id>, room:<id>
    size INTEGER, mtime_ns INTEGER, ino INTEGER,
    hash TEXT,                      -- memory files: sha256 of what was indexed
    read_to INTEGER,                -- conversations: bytes read so far
    tail BLOB,                      -- conversations: the TAIL_BYTES before read_to
    next_seq INTEGER
);
CREATE TABLE notes(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,             -- MEMORY.md, memory/travel.md, memory/archive.md, memory/log/2026-09-10.md
    kind TEXT NOT NULL,             -- memory | topic | archive | log
    section TEXT,
    day TEXT,                       -- the entry's date, the log's day, or the file's last change
    dated INTEGER NOT NULL,         -- 1 when day comes from the text itself
    until TEXT,
    line INTEGER NOT NULL,
    text TEXT NOT NULL,
    terms TEXT NOT NULL
);
CREATE INDEX notes_file ON notes(file);
CREATE INDEX notes_day ON notes(day);
-- each note's day alone: a time window reads it for a word's notes rather than their rows with their text
CREATE TABLE note_days(
    id INTEGER PRIMARY KEY,         -- notes.id
    day TEXT
);
-- a note's terms, then the time terms of its day (note_time_terms)
CREATE VIRTUAL TABLE topic_fts USING fts5(terms, content='notes', content_rowid='id', tokenize="ascii tokenchars '_'", detail='none', columnsize=0);
CREATE VIRTUAL TABLE memo_fts USING fts5(terms, content='notes', content_rowid='id', tokenize="ascii tokenchars '_'", detail='none', columnsize=0);
CREATE TABLE topics(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL UNIQUE,
    name_terms TEXT NOT NULL,       -- the file name, title and aliases
    description TEXT NOT NULL,      -- the frontmatter's description ('' without one); the opening starts with it
    file_day TEXT                   -- the file's last change: the opening's date when no entry is dated
);
CREATE VIRTUAL TABLE topic_names USING fts5(name_terms, content='topics', content_rowid='id', tokenize='ascii', detail='none', columnsize=0);
CREATE TABLE convs(
    key TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    header TEXT NOT NULL,           -- the header JSON, members as they are now
    member INTEGER NOT NULL         -- 1: the bot's chat, or a room it is a member of
);
CREATE TABLE messages(
    id INTEGER PRIMARY KEY,
    conv TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts INTEGER NOT NULL,            -- seconds since the epoch
    at TEXT NOT NULL,               -- as written, with its offset
    author_kind TEXT NOT NULL,
    author TEXT NOT NULL,
    failed INTEGER NOT NULL,
    origin TEXT,
    pos INTEGER NOT NULL,           -- where its line starts in the conversation file, in bytes
    size INTEGER NOT NULL,          -- the line's length: the text is read from there, redacted, when shown
    crc INTEGER NOT NULL,           -- the line's crc32: a line that is no longer there is not shown
    redacted INTEGER NOT NULL,      -- 1: its text held something redaction removes (redacted again when read)
    terms TEXT NOT NULL
);
CREATE INDEX messages_conv ON messages(conv, seq);
CREATE INDEX messages_ts ON messages(ts);
-- the columns a time window or a chat left out filters on, narrow: checking a word's rows against them
-- reads a few MB instead of every message's text
CREATE TABLE message_times(
    id INTEGER PRIMARY KEY,         -- messages.id
    ts INTEGER NOT NULL,
    conv TEXT NOT NULL
);
-- a message's terms, then its time_terms ('_' is in no word, so no word can match those)
CREATE VIRTUAL TABLE message_fts USING fts5(terms, content='messages', content_rowid='id', tokenize="ascii tokenchars '_'", detail='none', columnsize=0);
-- how many topic notes, other notes and messages there are (names: topic, memo, message)
CREATE TABLE stats(name TEXT PRIMARY KEY, n INTEGER NOT NULL);
"""


class IndexDatabase:
    """A bot's index file and the one connection to it; the state the other parts of
    :class:`~omb_tui.core.recall.recall_index.RecallIndex` keep between calls."""

    def __init__(self, home: Home, bot_id: str, path: Path | None = None) -> None:
        self.home = home
        self.bot_id = bot_id
        self.workspace = home.workspace(bot_id)
        self.path = path or index_path(home, bot_id)
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._known: dict[str, dict[str, FileState]] | None = None
        self._data_version: int | None = None
        self._sweeps: dict[str, FolderLook] = {}  # by folder
        self._feeds: dict[str, FeedPlace] = {}  # by journal or .changes
        self._last_full_check = 0.0
        self._counts: dict[str, Any] | None = None
        self._headers: dict[str, conv.Conversation | None] = {}  # parsed convs rows, by key
        self._names: dict[str, bool] = {}  # keys already checked against the naming rules
        self._folders: tuple[str, str] | None = None  # the bot's chats and the rooms, for conversation_file
        self._group_paths: list[Folder] | None = None  # IndexRefresh._groups, built once
        self._memory_and_journal: tuple[Path, Path] | None = None  # MEMORY.md and the bot's journal, likewise
        # Each word's newest row ids in an FTS table, as the last lookup found them: (fts, term, cap) -> ids,
        # newest first. Kept right across writes: appended messages are put in front of the words they hold,
        # any other change to a table drops its entries, another process's commit drops them all.
        # Also (topic_names, term, cap) -> the topics' files, and (topic_notes, file, 0) -> a topic's notes' rows.
        self._kept_postings: dict[LookupKey, list] = {}
        # The rows of candidates already read (recall's next message often meets the same notes and messages), by
        # table and id: a table's are dropped with its words' rows, whenever one of its rows may have changed.
        self._kept_rows: dict[str, dict[int, Any]] = {"notes": {}, "messages": {}}  # NoteRow, MessageRow
        self._appends: list[tuple[int, str]] | None = []  # messages written in the open transaction; None: too many
        self._changed_fts: set[str] = set()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            # a connection opened again counts data_version from its own start: nothing kept can be trusted
            self._data_version = None
            self._known = None
            self._forget_kept()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        make_private_dirs(self.path.parent)
        for path in (self.path, *(self.path.with_name(self.path.name + end) for end in ("-wal", "-shm"))):
            refuse_links(path)  # SQLite would follow a link and write the index outside the home
        for attempt in range(2):
            if not self.path.exists():
                with contextlib.suppress(FileExistsError):
                    os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(f"PRAGMA journal_size_limit={WAL_KEPT_BYTES}")
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version == USER_VERSION:
                    db.execute("SELECT count(*) FROM files").fetchone()
                    return db
                if version != 0:
                    raise sqlite3.DatabaseError(f"index version {version}, expected {USER_VERSION}")
                db.execute("BEGIN IMMEDIATE")
                if db.execute("PRAGMA user_version").fetchone()[0] == 0:  # another process may have won
                    for statement in _SCHEMA.split(";\n"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA user_version={USER_VERSION}")
                db.execute("COMMIT")
                return db
            except sqlite3.DatabaseError as exc:
                db.close()
                if attempt:
                    raise
                log.warning("index %s is damaged or out of date (%s); building it again", self.path, exc)
                self._remove_files()
        raise AssertionError("unreachable")

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")
        self._known = None
        self._forget_kept()
        self._sweeps.clear()
        self._feeds.clear()
        self._invalidate()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        self._appends, self._changed_fts = [], set()
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            self._known = None  # the in-memory copy may hold rows that were rolled back
            self._forget_kept()
            raise
        db.execute("COMMIT")
        self._update_postings()

    # ----- the postings and rows kept between lookups (see self._kept_postings, self._kept_rows) -----
    POSTINGS_KEPT = 512  # words whose rows are kept
    ROWS_KEPT = 8_000  # rows of each table kept (past it, the half kept longest is dropped)
    APPENDS_FOLLOWED = 1000  # more messages than this in one write: the kept postings are dropped instead

    def _forget_kept(self) -> None:
        """Drop every word's rows and every row kept: what the index holds may have changed in any way."""
        self._kept_postings.clear()
        for rows in self._kept_rows.values():
            rows.clear()

    def _see_other_writers(self) -> bool:
        """Whether another connection committed since this one last looked; if so, nothing kept is trusted (its
        rows may have taken the ids of rows kept here) and the files' states are read again at the next refresh.

        (SQLite's `data_version` moves only for another connection's commits, never for this one's.)
        """
        version = self.db.execute("PRAGMA data_version").fetchone()[0]
        if version == self._data_version:
            return False
        self._data_version = version
        self._known = None
        self._invalidate()
        self._forget_kept()
        return True

    def _keep_rows(self, table: str, rows: Iterable[NoteRow | MessageRow]) -> None:
        kept = self._kept_rows[table]
        kept.update((row.id, row) for row in rows)
        if len(kept) > self.ROWS_KEPT:
            for row_id in list(itertools.islice(kept, len(kept) - self.ROWS_KEPT // 2)):
                del kept[row_id]

    def _messages_appended(self, rows: list[tuple[int, str]]) -> None:
        """Messages (id, terms) just written, every id above the ones before: they go in front of their words' rows."""
        if not self._kept_postings:
            return  # no word's rows to put them in front of (and an append changes no row already written)
        if self._appends is not None and len(self._appends) + len(rows) <= self.APPENDS_FOLLOWED:
            self._appends.extend(rows)
        else:
            self._appends = None

    def _postings_changed(self, *fts: str) -> None:
        self._changed_fts.update(fts)

    def _update_postings(self) -> None:
        appends = self._appends
        if appends is None:
            self._changed_fts.add("message_fts")
        for key in [key for key in self._kept_postings if key.source in self._changed_fts]:
            del self._kept_postings[key]
        if self._changed_fts & {"topic_fts", "memo_fts"}:
            self._kept_rows["notes"].clear()  # a file's notes are written again under new ids (maybe ids used before)
        if "message_fts" in self._changed_fts:
            self._kept_rows["messages"].clear()  # appended messages change no row already written
        if appends and "message_fts" not in self._changed_fts:
            newest_first = [(message_id, set(terms.split())) for message_id, terms in reversed(appends)]
            for key, rows in self._kept_postings.items():
                if key.source == "message_fts":
                    found = [message_id for message_id, held in newest_first if key.word in held]
                    if found:
                        self._kept_postings[key] = (found + rows)[: key.cap]
        self._appends, self._changed_fts = [], set()

    def conversation_file(self, key: str) -> str:
        """The file of a conversation the index knows by key (`chat:<id>`, `room:<id>`)."""
        if self._folders is None:  # a Path built per message shown cost more than reading the message
            self._folders = (str(conv.chats_dir(self.home, self.bot_id)), str(conv.rooms_dir(self.home)))
        chats, rooms = self._folders
        if key.startswith("chat:"):
            return f"{chats}{os.sep}{key[len('chat:') :]}.ndjson"
        return f"{rooms}{os.sep}{key[len('room:') :]}.ndjson"

    def _invalidate(self) -> None:
        self._counts = None
        self._headers = {}


# ----- the files table's keys: memory/x.md, chat:<id>, room:<id> -----


def key_group(key: str) -> str:
    """Which folder a key's file is in (the sweep that sees it): MEMORY.md, topics (and the archive), logs, chat:, room:."""
    if key.startswith("chat:"):
        return "chat:"
    if key.startswith("room:"):
        return "room:"
    if key == MEMORY_FILE:
        return MEMORY_FILE
    if key.startswith(f"{MEMORY_DIR}/{LOG_DIR}/"):
        return "logs"
    return "topics"


def is_conversation_key(key: str) -> bool:
    return key.startswith(("chat:", "room:"))


def memory_kind(key: str) -> FileKind | None:
    """Which memory file a key names, by paths.classify's rule; None when it names none."""
    try:
        rel, kind = classify(key)
    except MemoryInputError:
        return None
    return kind if rel == key else None  # "memory/./a.md" is "memory/a.md": one key per file


def valid_key(key: str) -> bool:
    """A file the index reads: a memory file (MEMORY.md, a topic, the archive, a daily log) or a conversation."""
    group = key_group(key)
    if group in ("chat:", "room:"):
        try:
            conv.validate_conversation_id(key[len(group) :])
        except MemoryInputError:
            return False
        return True
    return memory_kind(key) is not None
