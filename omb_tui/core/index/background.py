"""Vectors made in the background of a long-lived process (docs/recall.md, "Recall by meaning").

The app, the MCP server and `omb-tui serve` switch this on (`enable`); then every recall and session_search with
embeddings on `poke`s it, and at most once every PASS_INTERVAL_S per bot a thread of its own makes up to
MOST_PER_PASS of the bot's missing vectors (index_vectors.bring_up_to_date, on a connection of its own), holding
the bot's build lock so that no other build or pass makes the same ones (another holding it: this pass is skipped).
Nothing waits on it: a message without its vector is found by its words until the pass has made it. A short-lived
command never starts one (upkeep --due and `omb-tui index` make them there).
"""

from __future__ import annotations

import logging
import threading
import time

from ..files.paths import Home
from ..memory import environment

log = logging.getLogger("omb_tui.recall_index")

PASS_INTERVAL_S = 30.0
MOST_PER_PASS = 2000

_enabled = False
_lock = threading.Lock()
_passes: dict[tuple[str, str], threading.Thread] = {}
_started: dict[tuple[str, str], float] = {}


def enable() -> None:
    """Make vectors in the background of this process from now on (a long-lived one)."""
    global _enabled
    _enabled = True


def poke(home: Home, bot_id: str) -> threading.Thread | None:
    """Start a pass for the bot unless one is running or one started within PASS_INTERVAL_S (or this process did
    not enable them); the pass's thread when one was started."""
    if not _enabled:
        return None
    key = (str(home.root), bot_id)
    now = time.monotonic()
    with _lock:
        running = _passes.get(key)
        if running is not None and running.is_alive():
            return None
        if now - _started.get(key, -PASS_INTERVAL_S) < PASS_INTERVAL_S:
            return None
        _started[key] = now
        # the pass reads the key of the session that asked (the MCP service serves many, each its own)
        thread = _passes[key] = threading.Thread(
            target=environment.carried(_pass), args=(home, bot_id), name=f"vectors-{bot_id}", daemon=True
        )
    thread.start()
    return thread


def _pass(home: Home, bot_id: str) -> None:
    from .build import build_lock
    from .recall_index import RecallIndex
    from .vectors import bring_up_to_date

    try:
        with build_lock(home, bot_id) as held:
            if not held:
                return  # a build or another pass is at it
            index = RecallIndex(home, bot_id)
            try:
                report = bring_up_to_date(index, home, bot_id, most=MOST_PER_PASS)
            finally:
                index.close()
        if report.made:
            log.info("%s: %d vectors made in the background, %d left", bot_id, report.made, report.left)
    except Exception as exc:  # a background pass never fails anything: said, and tried again at the next poke
        log.warning("%s: vectors not made in the background: %s", bot_id, exc)


def forget() -> None:
    """Switched off again, every pass forgotten (tests)."""
    global _enabled
    with _lock:
        _enabled = False
        _passes.clear()
        _started.clear()
