"""Advisory locks other processes respect (flock on a file under the home), for steps that must not overlap:
a bot's turn and upkeep on that bot, two upkeep runs, upkeep and a backup; these never wait unless they say so.
The store's own write locks are here too: one per bot and one for the files every bot shares (`BotLock`,
re-entrant, blocking).

Spec: memory.md, "Memory upkeep" (upkeep never works on a bot in a turn). The per-bot turn lock is here, below
everything that takes it: the turn (turn/turn.py) holds it shared; upkeep, the command line and the server check
it and hold it exclusively. docs/turns.md, "The turn lock".
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from ..base.errors import disk_refused
from .disk import make_private_dirs
from .paths import Home, refuse_links, validate_bot_id

try:  # POSIX advisory locks keep two writers (the app and a cron job) from interleaving.
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: the lock is skipped where it is None

log = logging.getLogger("omb_tui.locks")
store_log = logging.getLogger("omb_tui.store")  # the store's write lock logs under the store's name


def lock_failure_level(exc: OSError) -> int:
    """How loud a lock that cannot be taken is: on a home the disk refuses (full, read-only) what the lock guards
    refuses too, in its own one sentence, so no second line is printed for the lock; anything else is an error."""
    return logging.INFO if disk_refused(exc) else logging.ERROR


def open_lock_file(path: Path) -> int | None:
    """The lock file's descriptor (created 0600, never through a link); None, logged, when it cannot be opened."""
    try:
        refuse_links(path)
        make_private_dirs(path.parent)
        return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        log.log(lock_failure_level(exc), "could not open the lock %s (%s); going on without it", path, exc)
        return None


@contextlib.contextmanager
def held_exclusively(path: Path) -> Iterator[bool]:
    """Yields True while holding path's lock exclusively, or False at once (holding nothing) when another
    holder has it. Never waits. Where no lock can be taken at all, nothing could hold it either: True."""
    fd = open_lock_file(path) if fcntl is not None else None
    if fd is None:
        yield True
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing releases the lock


def held_shared(path: Path) -> contextlib.AbstractContextManager[None]:
    """Hold path's lock shared for the block (waits while someone holds it exclusively)."""
    return _held_waiting(path, fcntl.LOCK_SH if fcntl is not None else 0)


def held_for_writing(path: Path) -> contextlib.AbstractContextManager[None]:
    """Hold path's lock exclusively for the block, waiting for it. Not re-entrant: a second hold from the same
    process, even the same thread, waits for the first (flock belongs to each opened file)."""
    return _held_waiting(path, fcntl.LOCK_EX if fcntl is not None else 0)


@contextlib.contextmanager
def _held_waiting(path: Path, mode: int) -> Iterator[None]:
    fd = open_lock_file(path) if fcntl is not None else None
    try:
        if fd is not None:
            fcntl.flock(fd, mode)
        yield
    finally:
        if fd is not None:
            os.close(fd)


# ----- the per-bot turn lock -----
def turn_lock_path(home: Home, bot_id: str) -> Path:
    """`memory-journal/<bot>.turn.lock`: held shared by every turn of the bot, by any process.

    Not the store's write lock (`<bot>.lock`): holding that for a whole turn would block the person's saves.
    """
    return home.journal_dir / f"{validate_bot_id(bot_id)}.turn.lock"


@contextlib.contextmanager
def turn_lock(home: Home, bot_id: str) -> Iterator[None]:
    """Hold the bot's turn lock shared for the turn: turns of one bot run side by side, upkeep waits.

    A turn that starts while upkeep holds the lock waits for that upkeep step to end.
    """
    with held_shared(turn_lock_path(home, bot_id)):
        yield


def turn_in_progress(home: Home, bot_id: str) -> bool:
    """Is the bot in a turn now, in this process or another? Never waits (for upkeep to check first)."""
    path = turn_lock_path(home, bot_id)
    if not path.exists():
        return False
    with held_exclusively(path) as held:
        return not held


@contextlib.contextmanager
def no_turn_running(home: Home, bot_id: str) -> Iterator[bool]:
    """For upkeep: yields True while holding the bot's turn lock exclusively (no turn can start until the
    block ends), or False at once, holding nothing, when the bot is in a turn. Never waits."""
    with held_exclusively(turn_lock_path(home, bot_id)) as held:
        yield held


# ----- the store's write locks -----
# One lock per journal path for the whole process, re-entrant, plus flock across processes.
_bot_locks: dict[Path, BotLock] = {}
_bot_locks_guard = threading.Lock()


class BotLock:
    """A write lock of the store: one per lock file for the whole process, re-entrant in it, flock across
    processes (taken at the outermost hold, released when it ends)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.thread_lock = threading.RLock()
        self.depth = 0
        self.fd: int | None = None
        self.synced = False  # outside changes already journaled during this hold
        self.made: list | None = None  # the changes of an all-or-nothing step under way (MemoryStore.all_or_nothing)

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        with self.thread_lock:
            if self.depth == 0:
                self.synced = False
            if self.depth == 0 and fcntl is not None:
                # A linked lock file or journal folder refuses the whole step: everything after it writes there.
                refuse_links(self.path)
                try:
                    make_private_dirs(self.path.parent)
                    self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
                    fcntl.flock(self.fd, fcntl.LOCK_EX)
                except OSError as exc:  # the journal side never stops a memory write
                    store_log.log(
                        lock_failure_level(exc), "could not take the lock %s (%s); going on without it", self.path, exc
                    )
                    if self.fd is not None:
                        os.close(self.fd)
                    self.fd = None
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
                if self.depth == 0 and self.fd is not None:
                    fcntl.flock(self.fd, fcntl.LOCK_UN)
                    os.close(self.fd)
                    self.fd = None


def bot_lock(path: Path) -> BotLock:
    with _bot_locks_guard:
        lock = _bot_locks.get(path)
        if lock is None:
            lock = _bot_locks[path] = BotLock(path)
        return lock


def home_lock(home: Home):
    """The lock for files every bot shares (About me, profile-learned.json): one writer at a time."""
    return bot_lock(home.journal_dir / "_home.lock").hold()
