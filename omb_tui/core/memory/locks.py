"""Advisory locks other processes respect (flock on a file under the home), for steps that must not overlap:
a bot's turn and upkeep on that bot, two upkeep runs, upkeep and a backup. The store's own per-bot write lock is
`store._BotLock` (re-entrant, blocking); these never wait unless they say so.

Spec: memory.md, "Memory upkeep" (upkeep never works on a bot in a turn). The per-bot turn lock is here, below
everything that takes it: the turn (turn/turn.py) holds it shared; upkeep, the command line and the server check
it and hold it exclusively. docs/turns.md, "The turn lock".
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from .paths import Home, refuse_links, validate_bot_id
from .store import make_private_dirs

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: the lock is skipped where it is None

log = logging.getLogger("omb_tui.locks")


def open_lock_file(path: Path) -> int | None:
    """The lock file's descriptor (created 0600, never through a link); None, logged, when it cannot be opened."""
    try:
        refuse_links(path)
        make_private_dirs(path.parent)
        return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        log.error("could not open the lock %s (%s); going on without it", path, exc)
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
