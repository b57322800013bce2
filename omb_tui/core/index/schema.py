"""The recall index's schema, its rows as searches read them, and its connection (see
:mod:`omb_tui.core.index.recall_index`).

One file per bot, `<home>/index/<botId>.sqlite` (0600): a bot's file tools work in its workspace and
must not reach the index, and deleting the index loses nothing (it is built again from the files).
A damaged or out-of-date index file is deleted and built again; every write is one transaction, so
another process reading the index never sees half of one.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import NamedTuple

from ..base.errors import disk_refused
from ..files.disk import make_private_dirs
from ..files.paths import LOG_DIR, MEMORY_DIR, MEMORY_FILE, FileKind, Home, MemoryInputError, classify, refuse_links
from ..memory import conversations as conv
from .words import TOKENIZER_VERSION

log = logging.getLogger("omb_tui.recall_index")

# 3: a topic's opening is built when recalled, without expired entries; 4: text redacted; 5: FTS5 without
# column sizes (nothing ranks by them), message_times (a time window or a chat left out is checked there)
# 6: a message's text is read from its conversation file (where its line is, and the line's crc32), not kept
# 7: the FTS tables of notes and messages also hold each one's day and 32-day block (time terms), for windows;
# 8: its aligned spans of 4, 16 and 64 days instead of the 32-day block
# 9: each message's and note's vector from the embeddings instance (index_vectors.py), and the model that made them
# 10: an undated note has no day (not its file's mtime), and a topic no file_day
SCHEMA_VERSION = 10
WAL_KEPT_BYTES = 4 << 20  # the write-ahead log is cut back to this after a checkpoint (a build wrote it full)
# The index is read through a memory map (SQLite's mmap_size; it caps this at about 2 GB): a page read is a memory read,
# not a system call (at scale 1, 168 of them a recall). The file never shrinks under a reader (no VACUUM here), which
# is what makes a map safe (docs/recall.md, "The index").
MMAP_BYTES = 2_000_000_000
USER_VERSION = SCHEMA_VERSION * 1000 + TOKENIZER_VERSION


# A time window is looked up a few days at a time, newest first (WordLookup._postings_in_window): each note
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


# A search reads and scores a hundred rows or so per message, and keeps them between lookups: the rows are slotted
# dataclasses, whose fields read as fast as a tuple's items (a NamedTuple's field is a slower, generic attribute
# lookup, and making one costs twice as much). Nothing changes a row once read but a message's `day`, filled in once.


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
    day: date | None = None  # the local day of `ts`: worked out by the first search that scores the row, then kept


MESSAGE_COLUMNS = "id, conv, seq, at, author_kind, author, failed, ' ' || terms || ' ', ts"
# a MessageRow without its terms: a message listed or shown, not scored
MESSAGE_PLACE_COLUMNS = "id, conv, seq, at, author_kind, author, failed, '', ts"


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
    day TEXT,                       -- the entry's date or the log's day; NULL for an undated note
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
    description TEXT NOT NULL       -- the frontmatter's description ('' without one); the opening starts with it
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
-- recall by meaning: a message's or a note's vector (index_vectors.pack: its scale, then int8s), dropped
-- with its row; all made by the one model vector_model names (another model: every vector is made again)
CREATE TABLE message_vectors(id INTEGER PRIMARY KEY, vec BLOB NOT NULL);
CREATE TABLE note_vectors(id INTEGER PRIMARY KEY, vec BLOB NOT NULL);
CREATE TABLE vector_model(one INTEGER PRIMARY KEY CHECK (one = 1), model TEXT NOT NULL, dims INTEGER NOT NULL);
"""


# SQLite's answers that mean the disk refused, not that the index is damaged: it is kept, never built again.
_REFUSED_ERRNO = {sqlite3.SQLITE_FULL: errno.ENOSPC}
# SQLite's answers that are the disk's refusal when its file system is full or read-only (the -shm file of the
# write-ahead log cannot grow or be made), and damage or a bad file otherwise.
_REFUSED_IF_THE_DISK_SAYS = {sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN}


def disk_refusal(exc: sqlite3.Error, path: Path) -> OSError | None:
    """The OSError a full disk (or a read-only home) is, when SQLite's error is one; None for any other error."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    refused = _REFUSED_ERRNO.get(primary) if primary is not None else None
    if primary == sqlite3.SQLITE_READONLY:  # a read-only file system, or else a file or folder it may not write
        refused = errno.EROFS if _file_system_refusal(path.parent) == errno.EROFS else errno.EACCES
    if refused is None and primary in _REFUSED_IF_THE_DISK_SAYS:
        refused = _file_system_refusal(path.parent)
    return None if refused is None else OSError(refused, os.strerror(refused), str(path))


def _file_system_refusal(folder: Path) -> int | None:
    """EROFS for a read-only file system, ENOSPC for one with no block left; None when it takes writes."""
    try:
        info = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs on Windows
        return None
    if info.f_flag & os.ST_RDONLY:
        return errno.EROFS
    return errno.ENOSPC if info.f_bavail == 0 else None


def remove_index_files(path: Path) -> None:
    """An index file and its companions (the write-ahead log, its index, a rollback journal), where they are."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def _inode_of(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _create_schema(db: sqlite3.Connection) -> None:
    for statement in _SCHEMA.split(";\n"):
        if statement.strip():
            db.execute(statement)
    db.execute(f"PRAGMA user_version={USER_VERSION}")


class IndexConnection:
    """A bot's index file and the one connection to it, opened when first used and built again when damaged.

    What other parts keep of what the index gave (word lookups, rows, what each file looked like) is right only
    while nobody else changed the file: `on_stale(removed)` is told whenever it may not be (another process
    committed, a write was rolled back, the connection was closed), `removed` when the file itself was deleted to
    be built again.
    """

    def __init__(self, path: Path, on_stale: Callable[[bool], None]) -> None:
        self.path = path
        self.lock = threading.RLock()  # every public method of the index holds it: one thread at a time
        self._on_stale = on_stale
        self._db: sqlite3.Connection | None = None
        self._data_version: int | None = None  # PRAGMA data_version when this connection last looked
        self.refused: OSError | None = None  # the disk's refusal, while the index is open only to read
        self.in_memory: OSError | None = None  # the disk's refusal, while the index is built in memory instead
        self._inode: int | None = None  # the file this connection opened (None: none, or not one to write)

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def close(self) -> None:
        with self.lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            self.refused = self.in_memory = None
            # a connection opened again counts data_version from its own start: nothing kept can be trusted
            self._data_version = None
            self._on_stale(False)

    def _open(self) -> sqlite3.Connection:
        try:
            self._make_file()
        except OSError as exc:  # a read-only home: no folder or file can be made for the index
            if not disk_refused(exc):
                raise
            return self._open_to_read(exc)
        for attempt in range(2):
            if attempt:  # the damaged file was removed: a new one
                self._make_file()
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            self._inode = _inode_of(self.path)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(f"PRAGMA journal_size_limit={WAL_KEPT_BYTES}")
                db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version == USER_VERSION:
                    db.execute("SELECT count(*) FROM files").fetchone()
                    return db
                if version != 0:
                    raise sqlite3.DatabaseError(f"index version {version}, expected {USER_VERSION}")
                db.execute("BEGIN IMMEDIATE")
                if db.execute("PRAGMA user_version").fetchone()[0] == 0:  # another process may have won
                    _create_schema(db)
                db.execute("COMMIT")
                return db
            except sqlite3.DatabaseError as exc:
                db.close()
                refusal = disk_refusal(exc, self.path)
                if refusal is not None:
                    return self._open_to_read(refusal)
                if attempt:
                    raise
                log.warning("index %s is damaged or out of date (%s); building it again", self.path, exc)
                self.remove_files()
        raise AssertionError("unreachable")

    def _make_file(self) -> None:
        """The index's folder and (empty, 0600) file, unless there; never through a link."""
        make_private_dirs(self.path.parent)
        for path in (self.path, *(self.path.with_name(self.path.name + end) for end in ("-wal", "-shm"))):
            refuse_links(path)  # SQLite would follow a link and write the index outside the home
        if not self.path.exists():
            with contextlib.suppress(FileExistsError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))

    def _open_to_read(self, refusal: OSError) -> sqlite3.Connection:
        """On a home the disk refuses (full, read-only), the index as it is, opened only to read: searches answer
        from it, and the refresh that tries to write meets the refusal (SQLITE_READONLY). The refusal itself when
        no whole index is there to read: one built in memory instead."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return self._open_in_memory(refusal)
        db = sqlite3.connect(
            f"{self.path.as_uri()}?immutable=1", uri=True, isolation_level=None, check_same_thread=False
        )
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != USER_VERSION:
                raise sqlite3.DatabaseError("not an index of this version")
            db.execute("SELECT count(*) FROM files").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise refusal from None
        self.refused = refusal
        return db

    def _open_in_memory(self, refusal: OSError) -> sqlite3.Connection:
        """No index to read on a home the disk refuses: one in memory, for this process only, that the refresh
        builds from the files as it would the file; a search answers from what the files hold, reading them all.
        The refusal itself when even that fails (SQLite's own memory full)."""
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        try:
            _create_schema(db)
        except sqlite3.DatabaseError:
            db.close()
            raise refusal from None
        self.in_memory = refusal
        return db

    def remove_files(self) -> None:
        """Delete the index file (damaged, or of another version): it is built again from nothing."""
        remove_index_files(self.path)
        self._on_stale(True)

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: committed whole, or rolled back whole (and then nothing kept is trusted)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            self._on_stale(False)  # what was kept may hold rows that were rolled back
            raise
        db.execute("COMMIT")

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Several lookups in one read transaction: they see one state of the index, and SQLite takes its read lock
        and looks at the file once, not for every statement (at scale 1, three system calls each). Nothing inside
        may write (refresh first)."""
        with self.lock:
            db = self.db
            if db.in_transaction:
                yield
                return
            db.execute("BEGIN")
            try:
                yield
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")  # (nothing written: it only lets the read lock go)

    def reopen_if_replaced(self) -> bool:
        """Close the connection when its file was deleted or replaced since it was opened (a purge removes an
        index whole), so the next use opens the file that is there now; True when it did."""
        with self.lock:
            if self._db is None or self._inode is None or self._db.in_transaction:
                return False
            if _inode_of(self.path) == self._inode:
                return False
            self.close()
            self._inode = None
            self._on_stale(True)
            return True

    def see_other_writers(self) -> bool:
        """Whether another connection committed since this one last looked; if so, nothing kept is trusted (its
        rows may have taken the ids of rows kept here, and the files' states are read again at the next refresh).

        (SQLite's `data_version` moves only for another connection's commits, never for this one's.)
        """
        version = self.db.execute("PRAGMA data_version").fetchone()[0]
        if version == self._data_version:
            return False
        self._data_version = version
        self._on_stale(False)
        return True


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
