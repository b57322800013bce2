"""The one wall clock of omb-tui: every "now", "today", journal time, night, tidy hour and usage month reads it.

Spec: memory.md, "The journal" (rows in UTC, shown in local time), "Memory upkeep" (the tidy-up after
`memory.tidyHour`) and "Spending" (a month's usage). docs/clock.md says why one clock and how tests move it.

`OMB_TUI_CLOCK_SHIFT`, a number of seconds (negative for the past), moves this clock from the machine's: the
test harness (`scripts/dev.py test --today …`) sets it once and every process it starts inherits it, the installed
command's too, so the whole suite runs as on another day and hour while threads, timeouts and sleeps keep the
machine's own time. Unset, it is the machine's clock. The time zone is the process's own (TZ), as everywhere.

Two kinds of time stay outside it, on purpose:
- elapsed time (timeouts, waits, rates) is `time.monotonic`, which no calendar moves;
- a stamp compared with a file's mtime (the recall index's racy-stamp rule) is `real_time_ns`: the kernel dates
  files by the machine's clock. Where a file's mtime is read as a moment people see (a note's day), `moment_of`
  puts it on this clock.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import time
from datetime import UTC, date, datetime, timedelta
from datetime import time as time_of_day

SHIFT_ENV = "OMB_TUI_CLOCK_SHIFT"


@functools.lru_cache(maxsize=8)
def _parse_shift(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        print(f"{SHIFT_ENV}={raw!r} is not a number of seconds; the machine's clock is used.", file=sys.stderr)
        return 0.0
    return value


def shift() -> float:
    """How many seconds this clock is ahead of the machine's (0 unless OMB_TUI_CLOCK_SHIFT says otherwise)."""
    raw = os.environ.get(SHIFT_ENV)
    return _parse_shift(raw) if raw else 0.0


def timestamp() -> float:
    """Now, as seconds since the epoch."""
    return time.time() + shift()


def now() -> datetime:
    """Now in the local time zone, aware (the right side of a DST fold too, which a naive local time loses)."""
    return datetime.fromtimestamp(timestamp(), UTC).astimezone()


def now_utc() -> datetime:
    """Now in UTC, aware: what journal rows, runs and usage months are written in."""
    return datetime.fromtimestamp(timestamp(), UTC)


def today() -> date:
    """The local day now."""
    return now().date()


def local_at(day: date, at: time_of_day) -> datetime:
    """A local time on a day, aware, with that day's own UTC offset (not today's: a night across a DST change)."""
    return datetime.combine(day, at).astimezone()


def latest_passed(now: datetime, at: time_of_day) -> datetime:
    """The latest moment at or before `now` whose local time is `at`: today's, or yesterday's when today's is ahead."""
    now = now.astimezone()
    slot = local_at(now.date(), at)
    return slot if slot <= now else local_at(now.date() - timedelta(days=1), at)


def moment_of(real_timestamp: float) -> datetime:
    """A moment the machine's clock stamped (a file's mtime) on this clock, local and aware."""
    return datetime.fromtimestamp(real_timestamp + shift(), UTC).astimezone()


def file_stamp(moment: datetime) -> float:
    """The mtime to give a file so that `moment_of` reads it back as `moment` (a benchmark dating its files)."""
    return moment.timestamp() - shift()


def carried_env() -> dict[str, str]:
    """The variables that carry this clock and the time zone to a process started with an environment of its own."""
    return {name: os.environ[name] for name in ("TZ", SHIFT_ENV) if name in os.environ}


def real_time_ns() -> int:
    """The machine's own time, for stamps compared with the file system's: never shifted."""
    return time.time_ns()
