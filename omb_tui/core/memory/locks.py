"""Advisory locks other processes respect (flock on a file under the home), for steps that must not overlap:
a bot's turn and upkeep on that bot, two upkeep runs, upkeep and a backup. The store's own per-bot write lock is
`store._BotLock` (re-entrant, blocking); these never wait unless they say so.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Iterator

from .paths import refuse_links
from .store import make_private_dirs

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

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
