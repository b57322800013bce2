"""Scheduling upkeep: what is due, the locks it respects, and running many bots with a bound.

Spec: memory.md, "Memory upkeep" (the nightly tidy-up "once a day after 3 am (`memory.tidyHour`), or at the
next check if the computer was asleep, never while the bot is working"; "Upkeep pauses while a backup runs").

Locks, all advisory flocks under the home, so a cron job, the app and a harness see each other:
- `upkeep.lock`: held by a run of `omb-tui upkeep --due`; a second run finds it held and exits at once.
- `backup.lock`: a backup script holds it while it copies the home (`flock ~/.openmausbot/backup.lock tar …`);
  upkeep runs nothing while it is held.
- a bot's turn lock (`omb_tui.core.models.turn`): upkeep skips a bot that is in a turn, and holds the lock
  while it works on the bot, so a turn starting meanwhile waits for it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from ..memory.locks import held_exclusively
from ..memory.paths import Home

DEFAULT_CONCURRENCY = 8
UPKEEP_LOCK = "upkeep.lock"
BACKUP_LOCK = "backup.lock"

T = TypeVar("T")
R = TypeVar("R")


def upkeep_lock_path(home: Home) -> Path:
    return home.root / UPKEEP_LOCK


def backup_lock_path(home: Home) -> Path:
    return home.root / BACKUP_LOCK


def backup_running(home: Home) -> bool:
    """Is a backup holding `backup.lock` now? Never waits, and never keeps the lock."""
    path = backup_lock_path(home)
    if not path.exists():
        return False
    with held_exclusively(path) as free:
        return not free


def tidy_due(last_tidy: datetime | None, now: datetime, tidy_hour: int) -> bool:
    """Once a day after `tidy_hour` (local time): due when no tidy-up ran since the latest such hour that has
    passed, so a machine that slept through it tidies at its next check."""
    now = now.astimezone()
    latest_slot = datetime.combine(now.date(), time(tidy_hour), tzinfo=now.tzinfo)
    if latest_slot > now:
        latest_slot -= timedelta(days=1)
    return last_tidy is None or last_tidy.astimezone() < latest_slot


def run_bounded(items: Iterable[T], work: Callable[[T], R], *, concurrency: int = DEFAULT_CONCURRENCY,
                done: Callable[[T, R | BaseException], None] | None = None) -> list[tuple[T, R | BaseException]]:
    """Run work over items, at most `concurrency` at a time (model calls wait on the network, so threads
    overlap them); an item's exception is its result, never the run's end. `done` is told as each finishes."""
    if concurrency < 1:
        raise ValueError("concurrency must be 1 or more")
    results: list[tuple[T, R | BaseException]] = []
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="upkeep") as pool:
        futures = {pool.submit(work, item): item for item in items}
        for future in as_completed(futures):
            item = futures[future]
            try:
                outcome: R | BaseException = future.result()
            except Exception as exc:  # one bot's failure is its own line in the summary
                outcome = exc
            results.append((item, outcome))
            if done is not None:
                done(item, outcome)
    return results
