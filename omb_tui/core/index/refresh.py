"""Keeping the recall index fresh (see :mod:`omb_tui.core.index.recall_index`).

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

A refresh that reads fewer than BATCH_FILES files is one transaction, so another process reading the index never
sees half of one. A longer one (a build from nothing) commits every BATCH_FILES files: each file's rows always
change whole, and what is built survives a kill, so the next refresh goes on from there. Inside `refresh_budget`
(a hook, which has its seconds) a refresh stops at the first commit past the budget and says so
(`RefreshBudget.unfinished`); the caller answers from what the index holds and lets the build go on elsewhere.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import math
import os
import sqlite3
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..base import clock
from ..files.disk import decode
from ..files.paths import LOG_DIR, MEMORY_DIR, MEMORY_FILE, Home, split_layer
from ..memory import conversations as conv
from .rows import RACY_NS, IndexRows
from .schema import WAL_KEPT_BYTES, FileState, IndexConnection, disk_refusal, key_group, valid_key

log = logging.getLogger("omb_tui.recall_index")

BUSY_TIMEOUT_MS = 30_000  # as the connection is opened (sqlite3.connect's timeout=30)
FULL_CHECK_SECONDS = 30.0  # every file is stat'ed at least this often, even when no folder changed
OPTIMIZE_AFTER_FILES = 500  # a refresh that read this many files merges each FTS table into one b-tree
FTS_TABLES = ("topic_fts", "memo_fts", "topic_names", "message_fts")
Progress = Callable[[int, int], None]


class Folder(NamedTuple):
    """A folder whose files the index reads, by group (index_schema.key_group)."""

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


class Listed(NamedTuple):
    """A file a refresh looked at: its path, its stat (None: not stat'ed, as it was) and its group."""

    path: str
    stat: os.stat_result | None
    group: str


@dataclass
class RefreshReport:
    files_read: int = 0
    files_removed: int = 0
    seconds: float = 0.0
    files_left: int = 0  # changed files a budget left for a later refresh


BATCH_FILES = 200  # a refresh reading more files commits every this many: a build survives a kill
MIN_FILES_A_REFRESH = 20  # a refresh past its budget still reads this many, so each one moves the build on


@dataclass
class RefreshBudget:
    """How long the refreshes inside `refresh_budget` may take, and whether one stopped before it was done."""

    deadline: float  # time.monotonic()
    skip: bool = False  # another process is building this index: answer from what it holds, read nothing
    unfinished: bool = False


_BUDGET: contextvars.ContextVar[RefreshBudget | None] = contextvars.ContextVar("refresh_budget", default=None)


@contextlib.contextmanager
def refresh_budget(seconds: float, *, skip: bool = False):
    """Inside it, each refresh stops at its first commit past `seconds` from now (or, with `skip`, reads
    nothing); the budget yielded says whether one was left unfinished."""
    budget = RefreshBudget(time.monotonic() + seconds, skip)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


class IndexRefresh:
    """Brings the index up to date with the files, reading only what changed (its rows written by IndexRows)."""

    def __init__(self, home: Home, bot_id: str, connection: IndexConnection, rows: IndexRows) -> None:
        self.home = home
        self.bot_id = bot_id
        self.workspace = home.workspace(bot_id)
        self.connection = connection
        self.rows = rows
        self._sweeps: dict[str, FolderLook] = {}  # by folder: when its files were last all looked at
        self._feeds: dict[str, FeedPlace] = {}  # by journal or .changes: how far it was read
        self._last_full_check = -math.inf
        self._names: dict[str, bool] = {}  # keys already checked against the naming rules
        self._folders: list[Folder] | None = None  # _groups, built once
        self._memory_and_journal: tuple[Path, Path] | None = None  # MEMORY.md and the bot's journal, likewise

    def forget_folders(self) -> None:
        """The index was built again from nothing: every folder and every feed is looked at again."""
        self._sweeps.clear()
        self._feeds.clear()

    def refresh(self, *, full: bool = False, progress: Progress | None = None) -> RefreshReport:
        """Read what changed since the last refresh (spec: recall stays fast as memory and history grow).

        `progress(files done, files to read)` is called as a long refresh (a build from nothing) goes on.
        """
        started = time.perf_counter()
        budget = _BUDGET.get()
        with self.connection.lock:
            self.connection.reopen_if_replaced()
            try:
                with self._waiting_at_most(budget):
                    report = self._refresh(full, progress)
            except sqlite3.DatabaseError as exc:
                self._last_full_check = -math.inf  # what the feeds named may not be in: look at everything next time
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    if budget is None:
                        raise
                    budget.unfinished = True  # another process writes the index: answer from what it holds
                    log.info("index %s is being written by another process; not waited for", self.connection.path)
                    return RefreshReport(seconds=time.perf_counter() - started)
                refusal = self.connection.refused or disk_refusal(exc, self.connection.path)
                if refusal is not None:  # a full disk: the index is whole as it was (SQLite rolled back), kept
                    self.connection.close()  # the next refresh opens it to write again
                    raise refusal from exc
                log.warning("index %s failed (%s); building it again", self.connection.path, exc)
                self.connection.close()
                self.connection.remove_files()
                report = self._refresh(True, progress)
            except BaseException:
                self._last_full_check = -math.inf
                raise
        report.seconds = time.perf_counter() - started
        return report

    @contextlib.contextmanager
    def _waiting_at_most(self, budget: RefreshBudget | None):
        """Inside a budget, another process's write is waited for only as long as the budget lasts (SQLite's
        busy timeout is 30 s otherwise: a hook would wait on a build)."""
        if budget is None:
            yield
            return
        left = max(0, int((budget.deadline - time.monotonic()) * 1000))
        db = self.connection.db
        db.execute(f"PRAGMA busy_timeout={left}")
        try:
            yield
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.connection.db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    def _groups(self) -> list[Folder]:
        """The folders the index reads, built once: a refresh runs before every turn, and building paths was a
        third of one that found nothing to read."""
        if self._folders is None:
            memory = self.workspace / MEMORY_DIR
            self._folders = [Folder("topics", memory, None), Folder("logs", memory / LOG_DIR, None)]
            if split_layer(self.bot_id)[1] is None:  # a person's layer has notes only; the bot's has the talk
                chats, rooms = conv.chats_dir(self.home, self.bot_id), conv.rooms_dir(self.home)
                self._folders += [
                    Folder("chat:", chats, chats / conv.CHANGES_FILE),
                    Folder("room:", rooms, rooms / conv.CHANGES_FILE),
                ]
        return self._folders

    def _refresh(self, full: bool, progress: Progress | None = None) -> RefreshReport:
        """Look at what may have changed, read what did.

        A folder whose mtime moved (a file created, renamed over or deleted there) has every file
        looked at; otherwise only the files its feed names: the journal for memory files (every
        change the store writes or notices), a folder's `.changes` for conversations. MEMORY.md is
        looked at every time, and every file at least every FULL_CHECK_SECONDS.
        """
        report = RefreshReport()
        budget = _BUDGET.get()
        if budget is not None and budget.skip:
            return report
        known = self.rows.known()
        now = time.monotonic()
        check_all = full or now - self._last_full_check >= FULL_CHECK_SECONDS
        present: dict[str, Listed] = {}
        looked_at: set[str] = {MEMORY_FILE}  # single files looked at
        swept: set[str] = set()  # groups whose files were all looked at
        if self._memory_and_journal is None:
            self._memory_and_journal = (self.workspace / MEMORY_FILE, self.home.journal_path(self.bot_id))
        memory_file, journal = self._memory_and_journal
        self._stat_file(MEMORY_FILE, memory_file, present)
        named_by_journal = None if check_all else self._read_feed(journal, _journal_files)
        if named_by_journal is None:
            self._note_feed(journal)
        named_files: dict[str, Path] = {}  # key -> path, for the files a feed named
        for rel in named_by_journal or []:
            named_files[rel] = self.workspace / rel
        for group, folder, feed in self._groups():
            if feed is None:  # the memory folders: the journal names their files
                named = named_by_journal
            else:
                named = None if check_all else self._read_feed(feed, _file_names)
                if named is None:
                    self._note_feed(feed)
                for conversation_id in named or []:
                    named_files[group + conversation_id] = folder / f"{conversation_id}.ndjson"
            if named is None or self._changed_since_sweep(folder):
                self._note_sweep(folder)
                # a feed that cannot tell what changed (None): every file is stat'ed
                self._scan_folder(group, folder, present, known[group], stat_all=named is None, named=named_files)
                swept.add(group)
        for key, path in named_files.items():
            if key_group(key) not in swept and key != MEMORY_FILE:
                looked_at.add(key)
                self._stat_file(key, path, present)
        if check_all:
            self._last_full_check = now
        changed = [
            key
            for key, listed in present.items()
            if (st := listed.stat) is not None
            and known[listed.group].get(key) != FileState(st.st_size, st.st_mtime_ns, st.st_ino)
        ]
        removed = [key for key in looked_at if key not in present and key in known[key_group(key)]]
        for group in swept:
            removed += [key for key in known[group] if key not in present]
        if not changed and not removed:
            return report
        step = max(1, len(changed) // 100)
        done = 0
        while True:
            with self.rows.write() as db:
                for key in removed:
                    self.rows.forget(db, key)
                    report.files_removed += 1
                removed = []
                for key in changed[done : done + BATCH_FILES]:
                    listed = present[key]
                    assert listed.stat is not None  # only files stat'ed can have changed
                    if self.rows.index_file(db, key, Path(listed.path), listed.stat):
                        report.files_read += 1
                    done += 1
                    if progress is not None and (done % step == 0 or done == len(changed)):
                        progress(done, len(changed))
                    if budget is not None and done >= MIN_FILES_A_REFRESH and time.monotonic() >= budget.deadline:
                        break  # commit what is read: the budget is spent
                if done == len(changed) and len(changed) >= OPTIMIZE_AFTER_FILES:
                    for fts in FTS_TABLES:  # one b-tree per word instead of one per batch: lookups read less
                        db.execute(f"INSERT INTO {fts}({fts}) VALUES('optimize')")
            if done == len(changed):
                break
            if budget is not None and time.monotonic() >= budget.deadline:
                budget.unfinished = True
                report.files_left = len(changed) - done
                self._last_full_check = -math.inf  # what was not read is found again by the next look
                break
        # another connection may have committed between this refresh's first look and its write (its rows may
        # have taken ids kept here): then nothing kept is trusted, and the files' states are read again next time
        self.connection.see_other_writers()
        self._trim_wal()
        return report

    def _trim_wal(self) -> None:
        """After a large write (a build writes the whole index to the log first), give the log's space back."""
        try:
            wal_bytes = os.stat(f"{self.connection.path}-wal").st_size
        except OSError:
            return
        if wal_bytes > WAL_KEPT_BYTES:
            # without waiting: a reader in another process may hold the log, and a turn must not wait for it
            # (the log is then cut back at a later refresh; journal_size_limit bounds it meanwhile)
            db = self.connection.db
            db.execute("PRAGMA busy_timeout=0")
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    def _changed_since_sweep(self, folder: Path) -> bool:
        """Whether a folder changed since its files were last looked at (or just before that look)."""
        try:
            st = folder.stat()
            now_seen = (st.st_mtime_ns, st.st_size)
        except OSError:
            now_seen = (-1, 0)
        seen = self._sweeps.get(str(folder))
        if seen is None or (seen.mtime_ns, seen.size) != now_seen:
            return True
        return now_seen[0] >= seen.looked_at_ns - RACY_NS  # mtime ticks are coarse: a change just before may hide

    def _note_sweep(self, folder: Path) -> None:
        swept_at = clock.real_time_ns()  # compared with the folder's mtime
        try:
            st = folder.stat()
            self._sweeps[str(folder)] = FolderLook(st.st_mtime_ns, st.st_size, swept_at)
        except OSError:
            self._sweeps[str(folder)] = FolderLook(-1, 0, swept_at)

    def _read_feed(self, feed: Path, names: Callable[[bytes], list[str]]) -> list[str] | None:
        """What a feed (the journal, a `.changes`) names since the last look; None when it cannot tell."""
        ino, offset = self._feeds.get(str(feed), FeedPlace(None, -1))
        if offset < 0:
            return None
        try:  # most looks find nothing new: a stat, not an open
            st = os.stat(feed)
            if st.st_ino == ino and st.st_size == offset:
                return []
        except FileNotFoundError:
            return [] if ino is None else None
        except OSError:
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
        self._feeds[str(feed)] = FeedPlace(ino, offset + end)
        return list(dict.fromkeys(names(data[:end])))

    def _note_feed(self, feed: Path) -> None:
        """Before looking at every file: what the feed says up to now is covered by that look."""
        try:
            st = feed.stat()
            self._feeds[str(feed)] = FeedPlace(st.st_ino, st.st_size)
        except OSError:
            self._feeds[str(feed)] = FeedPlace(None, 0)

    def _stat_file(self, key: str, path: Path, present: dict[str, Listed]) -> None:
        if not self._valid_key(key):
            return
        with contextlib.suppress(OSError):
            st = path.lstat()
            if stat.S_ISREG(st.st_mode):
                present[key] = Listed(str(path), st, key_group(key))

    def _valid_key(self, key: str) -> bool:
        valid = self._names.get(key)
        if valid is None:
            valid = valid_key(key)
            self._names[key] = valid
        return valid

    def _scan_folder(
        self,
        group: str,
        folder: Path,
        present: dict[str, Listed],
        known: dict[str, FileState],
        *,
        stat_all: bool,
        named: dict[str, Path],
    ) -> None:
        """Every file of a folder that changed. Without `stat_all`, a file whose inode is the one indexed is not
        stat'ed (present as None: as it was): a folder changes when a file is created, renamed over (a new
        inode) or deleted, and an edit in place is named by a feed or seen by the full check."""
        prefix = {"topics": f"{MEMORY_DIR}/", "logs": f"{MEMORY_DIR}/{LOG_DIR}/"}.get(group)
        as_it_was = Listed("", None, group)  # a file not stat'ed: its path is not needed
        for entry in _scandir(folder):
            name = entry.name
            if prefix is not None:
                key = prefix + name
            else:
                if not name.endswith(".ndjson"):
                    continue
                key = group + name[: -len(".ndjson")]
            if not stat_all and key not in named:
                seen = known.get(key)  # a known key passed the naming rules when it was first read
                # mtime -1: read just after a change, so looked at again (see IndexRows._set_file)
                if (
                    seen is not None
                    and seen.ino == entry.inode()
                    and seen.mtime_ns != -1
                    and entry.is_file(follow_symlinks=False)
                ):
                    present[key] = as_it_was
                    continue
            # a known key passed the naming rules when it was first read: checking 5,000 again costs a turn
            if (key not in known and not self._valid_key(key)) or not entry.is_file(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                present[key] = Listed(entry.path, entry.stat(follow_symlinks=False), group)


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


def _scandir(folder: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
