"""Times and days as people read and type them, one way for the CLI and the app.

Spec: memory.md, "The journal" (rows are written in UTC and shown in local time) and "What a bot knows
about its other conversations" (recall by time: today, yesterday or a date).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from ..files.paths import quoted

RELATIVE_DAYS = {"today": 0, "yesterday": 1}  # how many days back each word means


def parse_day(value: str, *, today: date | None = None) -> date:
    """A day as typed: YYYY-MM-DD; also `today` and `yesterday` (any case) when the caller says what today is.

    The one date parser of the CLI, the app and the core; ValueError is one sentence for people.
    """
    if today is not None and value.lower() in RELATIVE_DAYS:
        return today - timedelta(days=RELATIVE_DAYS[value.lower()])
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{quoted(value)} is not a date; use YYYY-MM-DD.") from None


def local_time(at: str) -> datetime | None:
    """A journal time in the local time zone (rows are written in UTC)."""
    try:
        moment = datetime.fromisoformat(at)
    except (TypeError, ValueError):
        return None
    return moment.astimezone() if moment.tzinfo is not None else moment


def when_text(at: str) -> str:
    """A journal time as a row shows it: local, to the minute."""
    moment = local_time(at)
    return moment.strftime("%Y-%m-%d %H:%M") if moment else str(at)[:16]
