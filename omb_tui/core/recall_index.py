"""The search index behind recall, `session_search` and the brief: SQLite FTS5, kept outside the workspace.

Spec: memory.md, "Recall before each turn" (recall runs before every turn, so it must stay fast as
memory and history grow) and "What a bot knows about its other conversations". docs/recall.md
describes it for people.

One file per bot, `<home>/index/<botId>.sqlite` (0600): a bot's file tools work in its workspace and
must not reach the index, and deleting the index loses nothing (it is built again from the files).

Bringing it up to date (`refresh`) reads only what changed, and finds it without looking at every file:

- MEMORY.md is stat'ed every time. A memory folder (`memory/`, `memory/log/`) or conversation folder
  whose mtime moved (a file created, renamed over or deleted) has every file in it stat'ed; so does
  one that changed within two seconds of the last look (mtime ticks are coarse), and every folder at
  least every 30 seconds (FULL_CHECK_SECONDS) or on `refresh(full=True)`.
- Otherwise only the files a feed names are stat'ed: the bot's journal for memory files (every
  change the store writes, or notices made by another program, is a row naming the file) and each
  conversation folder's `.changes` (conversations.note_change), so an appended message costs one
  stat, not 5,000.
- A file whose size, mtime or inode moved is read. A memory file is hashed and split into notes
  again only when its hash changed; one changed in the last two seconds is hashed again next time
  (a same-size edit in the same mtime tick would otherwise hide). A conversation that grew is read
  from where the index stopped, after checking that the bytes just before that point are unchanged;
  anything else is read again whole.
- A file that changes while it is read is read again at the next refresh (the stat taken before
  reading is what is stored); a file that disappears leaves the index. A damaged or out-of-date
  index file is deleted and built again.

Every refresh is one transaction, so another process reading the index never sees half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import json
import logging
import math
import os
import re
import sqlite3
import stat
import threading
import time
from collections import defaultdict
import dataclasses
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Iterator

from . import conversations as conv
from .entries import parse_entries
from .paths import (
    ARCHIVE_NAME,
    LOG_DIR,
    MEMORY_DIR,
    MEMORY_FILE,
    Home,
    MemoryInputError,
    refuse_links,
    validate_topic_name,
)
from .store import decode, make_private_dirs
from .words import TOKENIZER_VERSION, terms

log = logging.getLogger("omb_tui.recall_index")

SCHEMA_VERSION = 4  # 3: a topic's opening is built when recalled, without expired entries; 4: text redacted
USER_VERSION = SCHEMA_VERSION * 1000 + TOKENIZER_VERSION

FULL_CHECK_SECONDS = 30.0  # every file is stat'ed at least this often, even when no folder changed
RACY_NS = 2_000_000_000  # a folder changed this recently is looked at again (mtime ticks are coarse)
TAIL_BYTES = 64  # bytes before the read position compared to trust an append
NOTE_MAX_CHARS = 1200  # a longer paragraph is split into notes of about this size
OPENING_MAX_CHARS = 600

# Ranking (docs/recall.md): a word's weight is its BM25 idf; the sum is multiplied by a recency factor
# from 1 + RECENCY_BOOST (today) halving every RECENCY_HALF_LIFE_DAYS towards 1.
RECENCY_BOOST = 0.5
RECENCY_HALF_LIFE_DAYS = 60.0
NAME_ONLY_WEIGHT = 0.5  # a word matched only by the topic's name, title or aliases
# A word is looked up in at most this many notes (or messages), the newest indexed first. A word found
# in more places says little by itself; the rarer words of the same message are looked up whole.
POSTINGS_CAP_RECALL = 500
POSTINGS_CAP_SEARCH = 5000
EXACT_POOL = 40  # candidates scored exactly (by their stored terms) for recall
SEARCH_POOL = 1000  # the same for session_search
PREFILTER_FACTOR = 5  # candidates looked at to find EXACT_POOL that pass the filters (another chat, a window)
NAME_TOPICS_MAX = 6  # topics whose name matches that are looked into
NAME_TOPIC_NOTES = 6  # the newest notes holding one of the words taken from each


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
CREATE VIRTUAL TABLE topic_fts USING fts5(terms, content='notes', content_rowid='id', tokenize='ascii', detail='none');
CREATE VIRTUAL TABLE memo_fts USING fts5(terms, content='notes', content_rowid='id', tokenize='ascii', detail='none');
CREATE TABLE topics(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL UNIQUE,
    name_terms TEXT NOT NULL,       -- the file name, title and aliases
    description TEXT NOT NULL,      -- the frontmatter's description ('' without one); the opening starts with it
    file_day TEXT                   -- the file's last change: the opening's date when no entry is dated
);
CREATE VIRTUAL TABLE topic_names USING fts5(name_terms, content='topics', content_rowid='id', tokenize='ascii', detail='none');
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
    text TEXT NOT NULL,
    terms TEXT NOT NULL
);
CREATE INDEX messages_conv ON messages(conv, seq);
CREATE INDEX messages_ts ON messages(ts);
CREATE VIRTUAL TABLE message_fts USING fts5(terms, content='messages', content_rowid='id', tokenize='ascii', detail='none');
-- how many topic notes, other notes and messages there are (names: topic, memo, message)
CREATE TABLE stats(name TEXT PRIMARY KEY, n INTEGER NOT NULL);
"""

_LOG_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
_CONV_FILE = re.compile(r"^(.+)\.ndjson$")


@dataclass
class RefreshReport:
    files_read: int = 0
    files_removed: int = 0
    seconds: float = 0.0


@dataclass
class NoteHit:
    """A note found in a memory file; for an `opening`, the start of a topic whose name matched."""

    id: int
    file: str
    kind: str
    section: str | None
    day: date | None
    line: int
    text: str
    matched: list[str]
    score: float
    opening: bool = False


@dataclass
class MessageHit:
    id: int
    conversation: conv.Conversation
    seq: int
    at: datetime
    author_kind: str
    author: str
    failed: bool
    text: str
    matched: list[str] = field(default_factory=list)
    score: float = 0.0
    terms: list[str] = field(default_factory=list, repr=False)


MessageFilter = Callable[[MessageHit], bool]


@dataclass
class NoteChunk:
    """One note of a memory file, as the index stores it."""

    section: str | None
    day: str | None
    dated: bool
    until: str | None
    line: int
    text: str


def recency_factor(day: date | None, today: date) -> float:
    """1 + RECENCY_BOOST for today's notes, halving towards 1 every RECENCY_HALF_LIFE_DAYS."""
    if day is None:
        return 1.0
    age = max(0, (today - day).days)
    return 1.0 + RECENCY_BOOST * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS)


def idf(total: int, found_in: int) -> float:
    """BM25's inverse document frequency, kept positive: a rarer word weighs more."""
    return math.log(1.0 + (total - found_in + 0.5) / (found_in + 0.5))


def _fts_query(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _day_of(ts: float) -> str:
    return datetime.fromtimestamp(ts).date().isoformat()


def memory_chunks(text: str, file_day: str | None, log_day: str | None = None) -> list[NoteChunk]:
    """A memory file split into notes: each bullet with its lines, each paragraph; superseded entries left out.

    Spec: "Current topic search excludes superseded entries; their text remains in the file".
    """
    chunks: list[NoteChunk] = []
    section: str | None = None
    paragraph: list[str] = []
    paragraph_line = 0
    line_number = 1

    def flush() -> None:
        nonlocal paragraph
        if paragraph:
            body = "".join(paragraph).strip()
            if body:
                for piece in _split_long(body):
                    chunks.append(NoteChunk(section, log_day or file_day, log_day is not None, None, paragraph_line, piece))
        paragraph = []

    for entry in parse_entries(text):
        start = line_number
        line_number += entry.line_count
        if entry.kind in ("frontmatter", "blank"):
            flush()
            continue
        if entry.kind == "heading":
            flush()
            section = entry.fact or None
            continue
        if entry.kind == "text":
            if not paragraph:
                paragraph_line = start
            paragraph.append(entry.raw)
            continue
        flush()
        if entry.struck:
            continue
        day = entry.day.isoformat() if entry.day else None
        body = entry.raw.strip()
        for piece in _split_long(body):
            chunks.append(
                NoteChunk(
                    section,
                    day or log_day or file_day,
                    bool(day or log_day),
                    entry.until.isoformat() if entry.until else None,
                    start,
                    piece,
                )
            )
    flush()
    return chunks


def _split_long(text: str) -> list[str]:
    if len(text) <= NOTE_MAX_CHARS:
        return [text]
    pieces: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > NOTE_MAX_CHARS:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:NOTE_MAX_CHARS])
            line = line[NOTE_MAX_CHARS:]
        if len(current) + len(line) > NOTE_MAX_CHARS and current:
            pieces.append(current)
            current = ""
        current += line
    if current.strip():
        pieces.append(current)
    return [piece.strip() for piece in pieces if piece.strip()]


def topic_name(name: str, text: str) -> tuple[str, str]:
    """(name terms, description) of a topic: its file name, title and aliases; its frontmatter's description."""
    from .budget import read_topic_info  # frontmatter's YAML loads only when a topic is indexed

    info = read_topic_info(name, text)
    stem = re.sub(r"[-_.]+", " ", name[: -len(".md")])
    name_words = " ".join([stem, info.title or "", *info.aliases])
    return " ".join(terms(name_words)), info.description or ""


def topic_opening(description: str, notes: Iterable[str]) -> str:
    """A topic's opening: its description, then its first notes, at most OPENING_MAX_CHARS.

    `notes` are the topic's notes in file order, already without superseded entries and (for recall)
    without expired ones: the opening is built when it is recalled, so it is as of that day.
    """
    parts = [description] if description else []
    size = len(description)
    for note in notes:
        if size >= OPENING_MAX_CHARS:
            break
        parts.append(note)
        size += len(note)
    opening = "\n".join(parts)
    if len(opening) > OPENING_MAX_CHARS:
        opening = opening[:OPENING_MAX_CHARS].rsplit(" ", 1)[0] + "…"
    return opening


class RecallIndex:
    """One bot's index. Thread-safe; every public method brings the index up to date only when asked."""

    def __init__(self, home: Home, bot_id: str, path: Path | None = None) -> None:
        self.home = home
        self.bot_id = bot_id
        self.workspace = home.workspace(bot_id)
        self.path = path or index_path(home, bot_id)
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._known: dict[str, dict[str, tuple[int, int, int]]] | None = None
        self._data_version: int | None = None
        self._sweeps: dict[str, tuple[int, int, int]] = {}  # folder -> (mtime_ns, size, when looked at, ns)
        self._feeds: dict[str, tuple[int | None, int]] = {}  # journal or .changes -> (inode, bytes read)
        self._last_full_check = 0.0
        self._counts: dict[str, int] | None = None
        self._headers: dict[str, conv.Conversation | None] = {}  # parsed convs rows, by key
        self._names: dict[str, bool] = {}  # keys already checked against the naming rules

    # ----- the database -----
    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> "RecallIndex":
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
        self._sweeps.clear()
        self._feeds.clear()
        self._invalidate()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            self._known = None  # the in-memory copy may hold rows that were rolled back
            raise
        db.execute("COMMIT")

    # ----- bringing it up to date -----
    def refresh(self, *, full: bool = False) -> RefreshReport:
        """Read what changed since the last refresh (spec: recall stays fast as memory and history grow)."""
        started = time.perf_counter()
        with self._lock:
            try:
                report = self._refresh(full)
            except sqlite3.DatabaseError as exc:
                self._last_full_check = 0.0  # what the feeds named may not be in: look at everything next time
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise
                log.warning("index %s failed (%s); building it again", self.path, exc)
                self.close()
                self._remove_files()
                report = self._refresh(True)
            except BaseException:
                self._last_full_check = 0.0
                raise
        report.seconds = time.perf_counter() - started
        return report

    def _load_known(self) -> dict[str, dict[str, tuple[int, int, int]]]:
        """What each indexed file looked like when it was read, by group (see _key_group)."""
        version = self.db.execute("PRAGMA data_version").fetchone()[0]
        if self._known is None or version != self._data_version:
            # another connection committed: our copy of the file states may be old
            known: dict[str, dict[str, tuple[int, int, int]]] = defaultdict(dict)
            for key, size, mtime, ino in self.db.execute("SELECT key, size, mtime_ns, ino FROM files"):
                known[_key_group(key)][key] = (size, mtime, ino)
            self._known = known
            self._data_version = version
            self._invalidate()
        return self._known

    def _groups(self) -> list[tuple[str, Path]]:
        memory = self.workspace / MEMORY_DIR
        return [
            ("topics", memory),
            ("logs", memory / LOG_DIR),
            ("chat:", conv.chats_dir(self.home, self.bot_id)),
            ("room:", conv.rooms_dir(self.home)),
        ]

    def _refresh(self, full: bool) -> RefreshReport:
        """Look at what may have changed, read what did.

        A folder whose mtime moved (a file created, renamed over or deleted there) has every file
        looked at; otherwise only the files its feed names: the journal for memory files (every
        change the store writes or notices), a folder's `.changes` for conversations. MEMORY.md is
        looked at every time, and every file at least every FULL_CHECK_SECONDS.
        """
        known = self._load_known()
        report = RefreshReport()
        now = time.time()
        check_all = full or now - self._last_full_check >= FULL_CHECK_SECONDS
        present: dict[str, tuple[str, os.stat_result, str]] = {}
        looked_at: set[str] = {MEMORY_FILE}  # single files looked at
        swept: set[str] = set()  # groups whose files were all looked at
        self._stat_file(MEMORY_FILE, self.workspace / MEMORY_FILE, present)
        journal = self.home.journal_path(self.bot_id)
        named_by_journal = None if check_all else self._read_feed(journal, _journal_files)
        if named_by_journal is None:
            self._note_feed(journal)
        named_files: dict[str, Path] = {}  # key -> path, for the files a feed named
        for rel in named_by_journal or []:
            named_files[rel] = self.workspace / rel
        for group, folder in self._groups():
            if group in ("topics", "logs"):
                named = named_by_journal
            else:
                feed = folder / conv.CHANGES_FILE
                named = None if check_all else self._read_feed(feed, _file_names)
                if named is None:
                    self._note_feed(feed)
                for conversation_id in named or []:
                    named_files[group + conversation_id] = folder / f"{conversation_id}.ndjson"
            if named is None or self._changed_since_sweep(folder):
                self._note_sweep(folder)
                self._scan_folder(group, folder, present)
                swept.add(group)
        for key, path in named_files.items():
            if _key_group(key) not in swept and key != MEMORY_FILE:
                looked_at.add(key)
                self._stat_file(key, path, present)
        if check_all:
            self._last_full_check = now
        changed = [
            key
            for key, (_, st, group) in present.items()
            if known[group].get(key) != (st.st_size, st.st_mtime_ns, st.st_ino)
        ]
        removed = [key for key in looked_at if key not in present and key in known[_key_group(key)]]
        for group in swept:
            removed += [key for key in known[group] if key not in present]
        if not changed and not removed:
            return report
        with self._write() as db:
            for key in removed:
                self._forget(db, key)
                known[_key_group(key)].pop(key, None)
                report.files_removed += 1
            for key in changed:
                path, st, _ = present[key]
                if self._index_file(db, key, Path(path), st):
                    report.files_read += 1
        self._data_version = self.db.execute("PRAGMA data_version").fetchone()[0]
        self._invalidate()
        return report

    def _changed_since_sweep(self, folder: Path) -> bool:
        """Whether a folder changed since its files were last looked at (or just before that look)."""
        try:
            st = folder.stat()
            now_seen = (st.st_mtime_ns, st.st_size)
        except OSError:
            now_seen = (-1, 0)
        seen = self._sweeps.get(str(folder))
        if seen is None or seen[:2] != now_seen:
            return True
        return now_seen[0] >= seen[2] - RACY_NS  # mtime ticks are coarse: a change just before may hide

    def _note_sweep(self, folder: Path) -> None:
        swept_at = time.time_ns()
        try:
            st = folder.stat()
            self._sweeps[str(folder)] = (st.st_mtime_ns, st.st_size, swept_at)
        except OSError:
            self._sweeps[str(folder)] = (-1, 0, swept_at)

    def _read_feed(self, feed: Path, names: Callable[[bytes], list[str]]) -> list[str] | None:
        """What a feed (the journal, a `.changes`) names since the last look; None when it cannot tell."""
        ino, offset = self._feeds.get(str(feed), (None, -1))
        if offset < 0:
            return None
        try:
            with open(feed, "rb") as handle:
                st = os.fstat(handle.fileno())
                if st.st_ino != ino or st.st_size < offset:
                    return None  # replaced or cut short
                if st.st_size == offset:
                    return []
                handle.seek(offset)
                data = handle.read()
        except FileNotFoundError:
            return [] if ino is None else None
        except OSError:
            return None
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next look
        self._feeds[str(feed)] = (ino, offset + end)
        return list(dict.fromkeys(names(data[:end])))

    def _note_feed(self, feed: Path) -> None:
        """Before looking at every file: what the feed says up to now is covered by that look."""
        try:
            st = feed.stat()
            self._feeds[str(feed)] = (st.st_ino, st.st_size)
        except OSError:
            self._feeds[str(feed)] = (None, 0)

    def _stat_file(self, key: str, path: Path, present: dict[str, tuple[str, os.stat_result, str]]) -> None:
        if not self._valid_key(key):
            return
        with contextlib.suppress(OSError):
            st = path.lstat()
            if stat.S_ISREG(st.st_mode):
                present[key] = (str(path), st, _key_group(key))

    def _valid_key(self, key: str) -> bool:
        valid = self._names.get(key)
        if valid is None:
            valid = _valid_key(key)
            self._names[key] = valid
        return valid

    def _invalidate(self) -> None:
        self._counts = None
        self._headers = {}

    def _scan_folder(self, group: str, folder: Path, present: dict[str, tuple[str, os.stat_result, str]]) -> None:
        prefix = {"topics": f"{MEMORY_DIR}/", "logs": f"{MEMORY_DIR}/{LOG_DIR}/"}.get(group)
        for entry in _scandir(folder):
            name = entry.name
            if prefix is not None:
                key = prefix + name
            else:
                if not name.endswith(".ndjson"):
                    continue
                key = group + name[: -len(".ndjson")]
            if not self._valid_key(key) or not entry.is_file(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                present[key] = (entry.path, entry.stat(follow_symlinks=False), group)

    def _set_file(self, db: sqlite3.Connection, key: str, st: os.stat_result, *, racy: bool = False, **values: object) -> None:
        # A file changed in the last moments could change again within the same mtime tick and size:
        # store no mtime for it, so the next refresh reads (and hashes) it again.
        mtime = -1 if racy and st.st_mtime_ns >= time.time_ns() - RACY_NS else st.st_mtime_ns
        row = {"key": key, "size": st.st_size, "mtime_ns": mtime, "ino": st.st_ino}
        row.update(values)
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        updates = ", ".join(f"{c}=excluded.{c}" for c in row if c != "key")
        db.execute(
            f"INSERT INTO files({columns}) VALUES({marks}) ON CONFLICT(key) DO UPDATE SET {updates}",
            tuple(row.values()),
        )
        assert self._known is not None
        self._known[_key_group(key)][key] = (st.st_size, mtime, st.st_ino)

    def _forget(self, db: sqlite3.Connection, key: str) -> None:
        if _key_prefix(key) == "memory":
            self._drop_notes(db, key)
        else:
            self._drop_messages(db, key)
            db.execute("DELETE FROM convs WHERE key=?", (key,))
        db.execute("DELETE FROM files WHERE key=?", (key,))

    def _index_file(self, db: sqlite3.Connection, key: str, path: Path, st: os.stat_result) -> bool:
        try:
            if _key_prefix(key) == "memory":
                return self._index_memory_file(db, key, path, st)
            return self._index_conversation(db, key, path, st)
        except (FileNotFoundError, IsADirectoryError, PermissionError):
            self._forget(db, key)  # gone (or unreadable) since it was listed
            if self._known is not None:
                self._known[_key_group(key)].pop(key, None)
            return False

    # ----- memory files -----
    def _index_memory_file(self, db: sqlite3.Connection, key: str, path: Path, st: os.stat_result) -> bool:
        with open(path, "rb") as handle:
            data = handle.read()
        digest = hashlib.sha256(data).hexdigest()
        row = db.execute("SELECT hash FROM files WHERE key=?", (key,)).fetchone()
        if row is not None and row[0] == digest:
            self._set_file(db, key, st, racy=True)  # touched, not changed
            return False
        from .redact import redact  # compiled when the index is first brought up to date, not at start-up

        text = redact(decode(data)).text  # a file changed outside the app may hold a key: the index never does
        self._drop_notes(db, key)
        kind = _memory_kind(key)
        file_day = _day_of(st.st_mtime)
        log_match = _LOG_NAME.match(key.rsplit("/", 1)[-1]) if kind == "log" else None
        chunks = memory_chunks(text, file_day, log_match.group(1) if log_match else None)
        fts = "topic_fts" if kind == "topic" else "memo_fts"
        _bump(db, "topic" if kind == "topic" else "memo", len(chunks))
        for chunk in chunks:
            chunk_terms = " ".join(terms(f"{chunk.section or ''}\n{chunk.text}"))
            cursor = db.execute(
                "INSERT INTO notes(file, kind, section, day, dated, until, line, text, terms) VALUES(?,?,?,?,?,?,?,?,?)",
                (key, kind, _sql_text(chunk.section), chunk.day, int(chunk.dated), chunk.until, chunk.line,
                 _sql_text(chunk.text), chunk_terms),
            )
            db.execute(f"INSERT INTO {fts}(rowid, terms) VALUES(?, ?)", (cursor.lastrowid, chunk_terms))
        if kind == "topic":
            # the opening itself is built when recalled (RecallIndex.opening): which entries have
            # expired depends on the day of the recall, not the day the file was read
            name_terms, description = topic_name(key.split("/", 1)[1], text)
            cursor = db.execute(
                "INSERT INTO topics(file, name_terms, description, file_day) VALUES(?,?,?,?)",
                (key, name_terms, _sql_text(description), file_day),
            )
            db.execute("INSERT INTO topic_names(rowid, name_terms) VALUES(?, ?)", (cursor.lastrowid, name_terms))
        self._set_file(db, key, st, racy=True, hash=digest)
        return True

    def _drop_notes(self, db: sqlite3.Connection, key: str) -> None:
        for note_id, kind, note_terms in db.execute("SELECT id, kind, terms FROM notes WHERE file=?", (key,)).fetchall():
            fts = "topic_fts" if kind == "topic" else "memo_fts"
            db.execute(f"INSERT INTO {fts}({fts}, rowid, terms) VALUES('delete', ?, ?)", (note_id, note_terms))
        for kind, n in db.execute("SELECT kind, count(*) FROM notes WHERE file=? GROUP BY kind", (key,)).fetchall():
            _bump(db, "topic" if kind == "topic" else "memo", -n)
        db.execute("DELETE FROM notes WHERE file=?", (key,))
        for topic_id, name_terms in db.execute("SELECT id, name_terms FROM topics WHERE file=?", (key,)).fetchall():
            db.execute("INSERT INTO topic_names(topic_names, rowid, name_terms) VALUES('delete', ?, ?)", (topic_id, name_terms))
        db.execute("DELETE FROM topics WHERE file=?", (key,))

    # ----- conversations -----
    def _index_conversation(
        self, db: sqlite3.Connection, key: str, path: Path, st: os.stat_result, *, whole: bool = False
    ) -> bool:
        row = db.execute("SELECT ino, read_to, tail, next_seq FROM files WHERE key=?", (key,)).fetchone()
        stored = db.execute("SELECT header FROM convs WHERE key=?", (key,)).fetchone()
        start = 0
        reader = conv.ConversationReader()
        appendable = row is not None and stored is not None and row[0] == st.st_ino and st.st_size >= (row[1] or 0)
        if appendable and not whole:
            read_to, tail = row[1] or 0, row[2] or b""
            if read_to and _tail_matches(path, read_to, tail):
                start = read_to
                reader = conv.ConversationReader(conv.header_from_json(json.loads(stored[0]), path), row[3] or 0)
        if start == 0:
            self._drop_messages(db, key)
            db.execute("DELETE FROM convs WHERE key=?", (key,))
        was_member = bool(start and db.execute("SELECT member FROM convs WHERE key=?", (key,)).fetchone()[0])
        lines, read_to = conv.read_lines(path, start)
        messages = []
        for raw in lines:
            message = reader.feed(raw, path)
            if message is not None:
                messages.append(message)
        conversation = reader.conversation
        if conversation is None:  # no header (yet): look again when it changes
            self._set_file(db, key, st, read_to=0, tail=b"", next_seq=0)
            return True
        member = key.startswith("chat:") or conversation.has_bot(self.bot_id)
        if start and member and not was_member:
            # joined a room: everything said before counts too, so read it whole
            return self._index_conversation(db, key, path, st, whole=True)
        if not member and was_member:
            self._drop_messages(db, key)
        header = json.dumps(conversation.header_json())  # ASCII: a lone surrogate cannot break it
        db.execute(
            "INSERT INTO convs(key, id, header, member) VALUES(?,?,?,?) "
            "ON CONFLICT(key) DO UPDATE SET header=excluded.header, member=excluded.member",
            (key, conversation.id, header, int(member)),
        )
        if member:
            from .redact import redact  # a conversation written by another tool may hold a key: the index never does

            _bump(db, "message", len(messages))
            for message in messages:
                message = dataclasses.replace(message, text=redact(message.text).text)
                message_terms = " ".join(terms(message.text))
                cursor = db.execute(
                    "INSERT INTO messages(conv, seq, ts, at, author_kind, author, failed, origin, text, terms) "
                    "VALUES(?,?,?,?,?,?,?,?,?,?)",
                    (
                        key,
                        message.seq,
                        int(message.at.timestamp()),
                        message.at.isoformat(timespec="seconds"),
                        message.author_kind,
                        _sql_text(message.author),
                        int(message.failed),
                        message.origin,
                        _sql_text(message.text),
                        message_terms,
                    ),
                )
                db.execute("INSERT INTO message_fts(rowid, terms) VALUES(?, ?)", (cursor.lastrowid, message_terms))
        tail = _read_tail(path, read_to)
        self._set_file(db, key, st, read_to=read_to, tail=tail, next_seq=reader.next_seq)
        return True

    def _drop_messages(self, db: sqlite3.Connection, key: str) -> None:
        for message_id, message_terms in db.execute("SELECT id, terms FROM messages WHERE conv=?", (key,)).fetchall():
            db.execute("INSERT INTO message_fts(message_fts, rowid, terms) VALUES('delete', ?, ?)", (message_id, message_terms))
        gone = db.execute("DELETE FROM messages WHERE conv=?", (key,)).rowcount
        _bump(db, "message", -gone)

    # ----- reading -----
    def counts(self) -> dict[str, int]:
        """How many topic notes, other memory notes and messages the index holds (the N of idf)."""
        with self._lock:
            if self._counts is None:
                counts = {"topic": 0, "memo": 0, "message": 0}
                counts.update(dict(self.db.execute("SELECT name, n FROM stats")))
                for table in ("notes", "messages"):
                    low, high = self.db.execute(f"SELECT min(id), max(id) FROM {table}").fetchone()
                    counts[f"{table}_span"] = (high - low + 1) if high is not None else 0
                    counts[f"{table}_max"] = high or 0
                self._counts = counts
            return dict(self._counts)

    def _postings(self, fts: str, term: str, cap: int, table: str = "", where: str = "", params: tuple = ()) -> list[int]:
        if where:  # only rows that pass: a busy chat left out cannot use up the cap
            query = (f"SELECT f.rowid FROM {fts} f JOIN {table} t ON t.id = f.rowid "
                     f"WHERE {fts} MATCH ? AND {where} ORDER BY f.rowid DESC LIMIT ?")
        else:
            query = f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY rowid DESC LIMIT ?"
        return [row[0] for row in self.db.execute(query, (_fts_query(term), *params, cap))]

    def _lookup(
        self,
        fts: str,
        table: str,
        query_terms: list[str],
        cap: int,
        where: str = "",
        params: tuple = (),
        leave_out: set[int] | None = None,
    ) -> tuple[dict[str, list[int]], dict[str, int]]:
        """Each word's row ids (newest first, at most `cap`, passing `where`) and how many rows hold it.

        Up to `cap` the count is exact; past it, it is estimated from how far back the newest `cap`
        reach in the table's row ids (a word in every tenth row reaches back ten times `cap` rows).
        With `where`, the count is of the rows that pass, which is what the ranking needs to compare.
        `leave_out` rows (the current chat's) are dropped; when they filled the cap, the word is looked
        up again past them (with `where`, which must leave them out too).
        """
        counts = self.counts()
        span, high = counts[f"{table}_span"], counts[f"{table}_max"]
        postings, frequency = {}, {}
        for term in query_terms:
            if leave_out is None:
                rows = self._postings(fts, term, cap, table, where, params)
            else:
                rows = self._postings(fts, term, cap)
                kept = [rowid for rowid in rows if rowid not in leave_out]
                if len(rows) == cap and len(kept) < cap:
                    rows = self._postings(fts, term, cap, table, where, params)
                else:
                    rows = kept
            postings[term] = rows
            if len(rows) < cap:
                frequency[term] = len(rows)
            else:
                frequency[term] = int(cap * span / max(1, high - rows[-1] + 1))
        return postings, frequency

    @staticmethod
    def _candidates(postings: dict[str, list[int]], weights: dict[str, float], most: int) -> list[int]:
        """Up to `most` row ids that hold any of the words, best first by the words' weight summed (newest first on ties)."""
        partial: dict[int, float] = {}
        get = partial.get
        for term, rows in postings.items():
            weight = weights[term]
            for rowid in rows:
                partial[rowid] = get(rowid, 0.0) + weight
        return heapq.nlargest(most, partial, key=lambda rowid: (partial[rowid], rowid))

    def _keep(self, table: str, ordered: list[int], where: str, params: tuple, most: int) -> list[int]:
        """The first `most` of `ordered` (best first) whose row passes `where`; the order is kept."""
        if not where:
            return ordered[:most]
        kept: list[int] = []
        for chunk in _chunks(ordered, 500):
            marks = ",".join("?" * len(chunk))
            passing = {row[0] for row in self.db.execute(f"SELECT id FROM {table} WHERE id IN ({marks}) AND {where}",
                                                         (*chunk, *params))}
            kept += [rowid for rowid in chunk if rowid in passing]
            if len(kept) >= most:
                break
        return kept[:most]

    def name_matches(self, query_terms: list[str]) -> dict[str, set[str]]:
        """Topics whose file name, title or aliases hold one of the words: {file: words}."""
        found: dict[str, set[str]] = defaultdict(set)
        with self._lock:
            for term in query_terms:
                rows = self.db.execute(
                    "SELECT t.file FROM topic_names JOIN topics t ON t.id = topic_names.rowid "
                    "WHERE topic_names MATCH ? LIMIT ?",
                    (_fts_query(term), NAME_TOPICS_MAX * 4),
                )
                for (file,) in rows:
                    found[file].add(term)
        return dict(found)

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
        """Notes holding at least `need` of the words, best first (docs/recall.md, "Ranking").

        With `topics_only`, only topic files (recall); otherwise every memory file, daily logs included.
        A topic whose name matches gives its matching notes the name's words at half weight; when
        none of its notes match by their own words, its opening stands in for it, ranked as such.
        """
        with self._lock:
            counts = self.counts()
            sources = ["topic_fts"] if topics_only else ["topic_fts", "memo_fts"]
            total = counts["topic"] + (0 if topics_only else counts["memo"])
            cap = POSTINGS_CAP_SEARCH if pool is None else POSTINGS_CAP_RECALL
            frequency: dict[str, int] = defaultdict(int)
            postings = {}
            for fts in sources:
                postings[fts], found_in = self._lookup(fts, "notes", query_terms, cap)
                for term, n in found_in.items():
                    frequency[term] += n
            weights = {term: idf(total, min(total, frequency[term])) for term in query_terms}
            names = self.name_matches(query_terms)
            if len(names) > NAME_TOPICS_MAX:
                best = sorted(names, key=lambda f: sum(weights[t] for t in names[f]), reverse=True)
                names = {f: names[f] for f in best[:NAME_TOPICS_MAX]}
            most = pool or SEARCH_POOL
            where, params = _day_window("day", since, until)
            candidate_ids: set[int] = set()
            for fts in sources:
                ordered = self._candidates(postings[fts], weights, most * PREFILTER_FACTOR)
                candidate_ids.update(self._keep("notes", ordered, where, params, most))
            rows = self._note_rows(candidate_ids, names, query_terms)
            hits: list[NoteHit] = []
            with_own_match: set[str] = set()
            query = set(query_terms)
            for row in rows:
                note_id, file, kind, section, day, expires, line, text, note_terms = row
                own = query.intersection(note_terms.split())
                by_name = names.get(file, set()) - own
                if not own:
                    continue  # a note matched by its topic's name alone: the opening stands in
                if len(own) + len(by_name) < need:
                    continue
                note_day = date.fromisoformat(day) if day else None
                if not _in_window(note_day, since, until):
                    continue
                if skip_expired and expires and date.fromisoformat(expires) < today:
                    continue
                score = (sum(weights[t] for t in own) + NAME_ONLY_WEIGHT * sum(weights[t] for t in by_name))
                score *= recency_factor(note_day, today)
                with_own_match.add(file)
                hits.append(NoteHit(note_id, file, kind, section, note_day, line, text,
                                    _ordered(query_terms, own | by_name), score))
            for file, matched in names.items():
                if file in with_own_match or len(matched) < need:
                    continue
                found = self.opening(file, today if skip_expired else None)
                if found is None:
                    continue
                topic_id, opening, topic_day = found
                if not _in_window(topic_day, since, until):
                    continue
                score = NAME_ONLY_WEIGHT * sum(weights[t] for t in matched) * recency_factor(topic_day, today)
                hits.append(NoteHit(-topic_id, file, "topic", None, topic_day, 1, opening,
                                    _ordered(query_terms, matched), score, opening=True))
            hits.sort(key=lambda hit: (-hit.score, hit.opening, -(hit.day.toordinal() if hit.day else 0), hit.file, hit.line))
            return hits[:limit] if limit else hits

    def opening(self, file: str, today: date | None) -> tuple[int, str, date | None] | None:
        """(topic id, opening, date) of a topic, or None when it has none (no description, no current note).

        Built from the stored notes, so superseded entries are never in it; with `today`, neither are
        entries whose until date is before it (recall), without it they are (session_search: history).
        It is dated by the topic's newest dated entry still shown, else by the file's last change.
        """
        with self._lock:
            row = self.db.execute("SELECT id, description, file_day FROM topics WHERE file=?", (file,)).fetchone()
            if row is None:
                return None
            topic_id, description, file_day = row
            current = "" if today is None else " AND (until IS NULL OR until >= ?)"
            params = (file,) if today is None else (file, today.isoformat())
            rows = self.db.execute(f"SELECT text FROM notes WHERE file=?{current} ORDER BY id", params)
            try:
                opening = topic_opening(description, (text for (text,) in rows))
            finally:
                rows.close()  # read only as far as the opening needs
            if not opening.strip():
                return None
            newest = self.db.execute(f"SELECT max(day) FROM notes WHERE file=? AND dated=1{current}", params).fetchone()[0]
            day = newest or file_day
            return topic_id, opening, date.fromisoformat(day) if day else None

    def _note_rows(self, ids: set[int], names: dict[str, set[str]], query_terms: list[str]) -> list[tuple]:
        columns = "id, file, kind, section, day, until, line, text, terms"
        rows: dict[int, tuple] = {}
        for chunk in _chunks(sorted(ids), 500):
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(f"SELECT {columns} FROM notes WHERE id IN ({marks})", chunk):
                rows[row[0]] = row
        holds = " OR ".join("instr(' ' || terms || ' ', ?) > 0" for _ in query_terms)
        words = tuple(f" {term} " for term in query_terms)
        for file in names:
            # the newest notes of a topic whose name matched that hold one of the words themselves
            query = f"SELECT {columns} FROM notes WHERE file = ? AND ({holds}) ORDER BY day DESC LIMIT ?"
            for row in self.db.execute(query, (file, *words, NAME_TOPIC_NOTES)):
                rows[row[0]] = row
        return list(rows.values())

    def recent_notes(self, *, since: date | None, until: date | None, topics_only: bool, limit: int) -> list[NoteHit]:
        """Notes dated in a window, newest first: `session_search` by time alone."""
        with self._lock:
            where, params = ["day IS NOT NULL"], []
            if since:
                where.append("day >= ?")
                params.append(since.isoformat())
            if until:
                where.append("day <= ?")
                params.append(until.isoformat())
            if topics_only:
                where.append("kind = 'topic'")
            rows = self.db.execute(
                f"SELECT id, file, kind, section, day, line, text FROM notes WHERE {' AND '.join(where)} "
                "ORDER BY day DESC, file, line LIMIT ?",
                (*params, limit),
            )
            return [
                NoteHit(r[0], r[1], r[2], r[3], date.fromisoformat(r[4]), r[5], r[6], [], 0.0) for r in rows
            ]

    # ----- messages -----
    def conversations(self, *, members_only: bool = True) -> dict[str, conv.Conversation]:
        """The conversations the index knows, by key (`chat:<id>`, `room:<id>`)."""
        with self._lock:
            out = {}
            query = "SELECT key, header FROM convs" + (" WHERE member=1" if members_only else "")
            for key, header in self.db.execute(query):
                conversation = conv.header_from_json(json.loads(header))
                if conversation is not None:
                    out[key] = conversation
            return out

    def search_messages(
        self,
        query_terms: list[str],
        *,
        need: int,
        today: date,
        limit: int,
        accept: MessageFilter | None = None,
        since_ts: float | None = None,
        until_ts: float | None = None,
        other_than: conv.Conversation | None = None,
        replies_only: bool = False,
        pool: int | None = EXACT_POOL,
    ) -> list[MessageHit]:
        """Messages of the bot's conversations holding at least `need` of the words, best first.

        `other_than` leaves a conversation out and `replies_only` keeps only what a person or a bot
        said in a turn that did not fail; both, and the time window, are applied before the best are
        chosen, so a busy current chat cannot crowd the others out.
        """
        with self._lock:
            total = self.counts()["message"]
            cap = POSTINGS_CAP_SEARCH if pool is None else POSTINGS_CAP_RECALL
            most = pool or SEARCH_POOL
            conditions, params = [], []
            if since_ts is not None:
                conditions.append("ts >= ?")
                params.append(int(math.floor(since_ts)))
            if until_ts is not None:
                conditions.append("ts <= ?")
                params.append(int(math.ceil(until_ts)))
            leave_out = None
            if other_than is not None:
                conditions.append("conv != ?")
                params.append(conversation_key(other_than))
                if since_ts is None and until_ts is None:  # usually cheaper than joining every word's rows
                    leave_out = {row[0] for row in self.db.execute(
                        "SELECT id FROM messages WHERE conv = ?", (conversation_key(other_than),))}
            where = " AND ".join(f"t.{c}" for c in conditions)
            postings, frequency = self._lookup(
                "message_fts", "messages", query_terms, cap, where, tuple(params), leave_out
            )
            weights = {term: idf(total, min(total, frequency[term])) for term in query_terms}
            candidate_ids = self._candidates(postings, weights, most)
            query = set(query_terms)
            hits = []
            for message in self._message_rows(candidate_ids):
                if since_ts is not None and message.at.timestamp() < since_ts:
                    continue
                if until_ts is not None and message.at.timestamp() > until_ts:
                    continue
                if replies_only and (message.author_kind not in ("person", "bot") or message.failed):
                    continue
                if accept is not None and not accept(message):
                    continue
                own = query.intersection(message.terms)
                if len(own) < need:
                    continue
                message.matched = _ordered(query_terms, own)
                message.score = sum(weights[t] for t in own) * recency_factor(message.at.astimezone().date(), today)
                hits.append(message)
            hits.sort(key=lambda hit: (-hit.score, -hit.at.timestamp(), hit.id))
            return hits[:limit] if limit else hits

    def _message_rows(self, ids: Iterable[int]) -> list[MessageHit]:
        rows: list[tuple] = []
        for chunk in _chunks(sorted(ids), 500):
            marks = ",".join("?" * len(chunk))
            rows += self.db.execute(
                "SELECT id, conv, seq, at, author_kind, author, failed, text, terms FROM messages "
                f"WHERE id IN ({marks})",
                chunk,
            ).fetchall()
        return self._hits(rows)

    def _hits(self, rows: list[tuple]) -> list[MessageHit]:
        conversations = self._conversations_for({row[1] for row in rows})
        return [hit for hit in (_message_hit(row, conversations) for row in rows) if hit is not None]

    def _conversations_for(self, keys: set[str]) -> dict[str, conv.Conversation]:
        """The conversations (the bot's chats and the rooms it is in) with these keys, parsed once per change."""
        missing = [key for key in keys if key not in self._headers]
        for chunk in _chunks(missing, 500):
            marks = ",".join("?" * len(chunk))
            found = dict(self.db.execute(f"SELECT key, header FROM convs WHERE member=1 AND key IN ({marks})", chunk))
            for key in chunk:
                header = found.get(key)
                self._headers[key] = conv.header_from_json(json.loads(header)) if header else None
        return {key: self._headers[key] for key in keys if self._headers.get(key) is not None}  # type: ignore[misc]

    def recent_messages(
        self,
        *,
        since_ts: float | None,
        until_ts: float | None,
        limit: int | None,
        author: str | None = None,
    ) -> list[MessageHit]:
        """Messages in a time window, newest first (optionally only one bot's own)."""
        with self._lock:
            where, params = ["1=1"], []
            if since_ts is not None:
                where.append("ts >= ?")
                params.append(int(math.floor(since_ts)))
            if until_ts is not None:
                where.append("ts <= ?")
                params.append(int(math.ceil(until_ts)))
            if author is not None:
                where.append("author_kind='bot' AND author=?")
                params.append(author)
            rows = self.db.execute(
                "SELECT id, conv, seq, at, author_kind, author, failed, text, terms FROM messages "
                f"WHERE {' AND '.join(where)} ORDER BY ts DESC, id DESC" + (" LIMIT ?" if limit else ""),
                (*params, limit) if limit else tuple(params),
            ).fetchall()
            return self._hits(rows)

    def neighbour(self, hit: MessageHit, offset: int) -> MessageHit | None:
        """The message `offset` places before or after a hit in its conversation."""
        with self._lock:
            key = _conversation_key(hit.conversation)
            row = self.db.execute(
                "SELECT id, conv, seq, at, author_kind, author, failed, text, terms FROM messages WHERE conv=? AND seq=?",
                (key, hit.seq + offset),
            ).fetchone()
            return _message_hit(row, {key: hit.conversation}) if row else None


def _conversation_key(conversation: conv.Conversation) -> str:
    return ("room:" if conversation.is_room else "chat:") + conversation.id


def conversation_key(conversation: conv.Conversation) -> str:
    """The index's key for a conversation: `chat:<id>` or `room:<id>`."""
    return _conversation_key(conversation)


def _message_hit(row: tuple, conversations: dict[str, conv.Conversation]) -> MessageHit | None:
    message_id, key, seq, at, author_kind, author, failed, text, message_terms = row
    conversation = conversations.get(key)
    if conversation is None:
        return None
    moment = conv.parse_time(at) or datetime.fromtimestamp(0, timezone.utc)
    return MessageHit(message_id, conversation, seq, moment, author_kind, author, bool(failed), text,
                      terms=message_terms.split())


def _day_window(column: str, since: date | None, until: date | None) -> tuple[str, tuple]:
    conditions, params = [], []
    if since is not None:
        conditions.append(f"{column} >= ?")
        params.append(since.isoformat())
    if until is not None:
        conditions.append(f"{column} <= ?")
        params.append(until.isoformat())
    return " AND ".join(conditions), tuple(params)


def _in_window(day: date | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if day is None:
        return False
    return (since is None or day >= since) and (until is None or day <= until)


def _ordered(query_terms: list[str], matched: set[str]) -> list[str]:
    return [term for term in query_terms if term in matched]


def _chunks(items: list, size: int) -> Iterator[tuple]:
    for start in range(0, len(items), size):
        yield tuple(items[start : start + size])


def _scandir(folder: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def _sql_text(text: str | None) -> str | None:
    """Text SQLite can store: bytes that were not UTF-8 (kept as lone surrogates) become U+FFFD."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape" if _only_escapes(text) else "replace").decode("utf-8", "replace")


def _only_escapes(text: str) -> bool:
    return all(not 0xD800 <= ord(ch) < 0xDC80 for ch in text if 0xD800 <= ord(ch) <= 0xDFFF)


def _bump(db: sqlite3.Connection, name: str, delta: int) -> None:
    if delta:
        db.execute(
            "INSERT INTO stats(name, n) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n", (name, delta)
        )


def _key_group(key: str) -> str:
    """Which folder a key's file is in: MEMORY.md, topics (and the archive), logs, chat:, room:."""
    if key.startswith("chat:"):
        return "chat:"
    if key.startswith("room:"):
        return "room:"
    if key == MEMORY_FILE:
        return MEMORY_FILE
    if key.startswith(f"{MEMORY_DIR}/{LOG_DIR}/"):
        return "logs"
    return "topics"


def _valid_key(key: str) -> bool:
    """A file the index reads: MEMORY.md, a valid topic name, the archive, a daily log, a conversation id."""
    group = _key_group(key)
    if group == MEMORY_FILE:
        return True
    if group in ("chat:", "room:"):
        try:
            conv.validate_conversation_id(key[len(group):])
        except MemoryInputError:
            return False
        return True
    name = key.rsplit("/", 1)[-1]
    if key.count("/") != (2 if group == "logs" else 1):
        return False
    if group == "logs":
        return bool(_LOG_NAME.match(name))
    if name == ARCHIVE_NAME:
        return True
    try:
        validate_topic_name(name)
    except MemoryInputError:
        return False
    return True


def _journal_files(data: bytes) -> list[str]:
    """The memory files named by journal rows (one JSON object a line)."""
    files = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            row = json.loads(decode(line))
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("file"), str):
            files.append(row["file"])
    return files


def _file_names(data: bytes) -> list[str]:
    """The conversation ids a `.changes` feed names (file names, one a line)."""
    return [decode(line)[: -len(".ndjson")] for line in data.split(b"\n") if line.endswith(b".ndjson")]


def _key_prefix(key: str) -> str:
    if key.startswith("chat:"):
        return "chat:"
    if key.startswith("room:"):
        return "room:"
    return "memory"


def _memory_kind(key: str) -> str:
    if key == MEMORY_FILE:
        return "memory"
    if key == f"{MEMORY_DIR}/{ARCHIVE_NAME}":
        return "archive"
    if key.startswith(f"{MEMORY_DIR}/{LOG_DIR}/"):
        return "log"
    return "topic"


def _read_tail(path: Path, read_to: int) -> bytes:
    start = max(0, read_to - TAIL_BYTES)
    with open(path, "rb") as handle:
        handle.seek(start)
        return handle.read(read_to - start)


def _tail_matches(path: Path, read_to: int, tail: bytes) -> bool:
    try:
        return _read_tail(path, read_to) == tail
    except OSError:
        return False


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
