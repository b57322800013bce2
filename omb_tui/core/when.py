"""Times and days as people read and type them, one way for the CLI and the app.

Spec: memory.md, "The journal" (rows are written in UTC and shown in local time).
"""

from __future__ import annotations

from datetime import datetime


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
