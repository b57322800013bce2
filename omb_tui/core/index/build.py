"""Building a bot's recall index on purpose: `omb-tui index BOT`, in the foreground, and the build a hook starts in
the background when its own seconds ran out (docs/agents.md, "The first index build").

One build of a bot's index runs at a time: it holds `<home>/index/<bot>.build.lock` (an flock, let go when the
process ends however it ends). A hook never builds in its own time: it refreshes within its budget
(index_refresh.refresh_budget), answers from what the index holds, and when the refresh was left unfinished
starts `omb-tui index BOT` as a process of its own that outlives the hook; what it builds is committed every
BATCH_FILES files, so a build that is killed goes on from there the next time.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..files.disk import make_private_dirs
from ..files.paths import Home
from .schema import index_path

if TYPE_CHECKING:
    import subprocess


def build_lock_path(home: Home, bot_id: str) -> Path:
    return index_path(home, bot_id).with_suffix(".build.lock")


LOCK_FD_ENV = "OMB_INDEX_BUILD_LOCK_FD"  # a build started by a hook: the lock it was handed, already held


@contextlib.contextmanager
def build_lock(home: Home, bot_id: str, *, wait: bool = False) -> Iterator[bool]:
    """Hold the bot's build lock while it lasts: True when held, False when another process holds it (with
    `wait`, waits for it instead). A build a hook started is handed the lock the hook took (LOCK_FD_ENV), so no
    hook in between finds the index free to write."""
    handed = _handed_lock(home, bot_id)
    if handed is not None:
        try:
            yield True
        finally:
            os.close(handed)
        return
    fd = _open_lock(home, bot_id)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing lets the lock go


def _open_lock(home: Home, bot_id: str) -> int:
    path = build_lock_path(home, bot_id)
    make_private_dirs(path.parent)
    return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)


def build_running(home: Home, bot_id: str) -> bool:
    """Whether another process is building the bot's index now."""
    if not build_lock_path(home, bot_id).exists():
        return False
    with build_lock(home, bot_id) as held:
        return not held


def _handed_lock(home: Home, bot_id: str) -> int | None:
    """The build lock's descriptor this process was handed, when it is this bot's (taken once)."""
    given = os.environ.pop(LOCK_FD_ENV, "")
    if not given.isdigit():
        return None
    fd = int(given)
    try:
        if os.fstat(fd).st_ino != os.stat(build_lock_path(home, bot_id)).st_ino:
            os.close(fd)
            return None
    except OSError:
        return None
    return fd


def start_background_build(home: Home, bot_id: str) -> subprocess.Popen | None:
    """`omb-tui index BOT` in a session of its own, outliving the caller, its output nowhere, holding the build
    lock from before it starts (taken here, handed to it); None when it could not be started or another process
    holds the lock (building already)."""
    try:
        fd = _open_lock(home, bot_id)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        import subprocess  # here: a hook imports this module at every prompt, and starts a build rarely

        command = [sys.executable, "-m", "omb_tui.cli", "--home", str(home.root), "index", bot_id]
        try:
            return subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                pass_fds=(fd,),
                env={**os.environ, LOCK_FD_ENV: str(fd)},
            )
        except OSError:
            return None
    finally:
        os.close(fd)  # the child holds the lock now (one open file, shared); or nobody does
