"""Reviewed marks: which runs (and single rows) the person has looked at, per bot.

Kept in `<home>/memory-journal/<bot>.reviewed.json` (a person's layer of a bot: `<bot>--member-<person>.reviewed.json`) (0600, written atomically, under the bot's lock):
`{"runs": {run_id: reviewed_at}, "rows": {row_id: reviewed_at}}`. Only ids and times, never a note's text.
Marks older than MARKS_KEPT_DAYS are dropped when the file is written, so it stays small. A damaged file
reads as nothing reviewed (the listing then shows more, never less).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..base import clock
from ..files.disk import read_text, write_private_json
from ..files.paths import Home, validate_workspace_id
from ..journal.journal import now_iso
from ..memory.store import MemoryStore

MARKS_KEPT_DAYS = 60


@dataclass
class ReviewedMarks:
    runs: dict[str, str] = field(default_factory=dict)  # run id -> when it was marked (ISO, UTC)
    rows: dict[str, str] = field(default_factory=dict)  # row id -> when it was marked

    def has_run(self, run_id: str) -> bool:
        return run_id in self.runs

    def has_row(self, row_id: str) -> bool:
        return row_id in self.rows


def marks_path(home: Home, bot_id: str) -> Path:
    return home.journal_dir / f"{validate_workspace_id(bot_id)}.reviewed.json"


def load_marks(home: Home, bot_id: str) -> ReviewedMarks:
    """What the person has reviewed of this bot; nothing when none was marked or the file is damaged."""
    try:
        data = json.loads(read_text(marks_path(home, bot_id)))
    except (OSError, ValueError):
        return ReviewedMarks()
    if not isinstance(data, dict):
        return ReviewedMarks()
    return ReviewedMarks(_ids(data.get("runs")), _ids(data.get("rows")))


def _ids(value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {key: at for key, at in value.items() if isinstance(key, str) and isinstance(at, str)}


def mark_reviewed(
    home: Home, bot_id: str, run_ids: Iterable[str] = (), row_ids: Iterable[str] = (), *, now: datetime | None = None
) -> ReviewedMarks:
    """Mark runs (each whole) and single rows as reviewed; returns the marks as now kept."""
    at = now_iso((lambda: now) if now is not None else None)
    with MemoryStore(home, bot_id).locked():  # the app and a script marking at once: neither mark is lost
        marks = load_marks(home, bot_id)
        marks.runs.update(dict.fromkeys(run_ids, at))
        marks.rows.update(dict.fromkeys(row_ids, at))
        _drop_old(marks, (now or clock.now_utc()).astimezone(UTC))
        write_private_json(marks_path(home, bot_id), {"runs": marks.runs, "rows": marks.rows})
    return marks


def unmark_reviewed(home: Home, bot_id: str, run_ids: Iterable[str] = (), row_ids: Iterable[str] = ()) -> ReviewedMarks:
    """Take marks back: the runs and rows are new to review again (a mark is the person's word, and they may
    take it back); returns the marks as now kept."""
    with MemoryStore(home, bot_id).locked():
        marks = load_marks(home, bot_id)
        for run_id in run_ids:
            marks.runs.pop(run_id, None)
        for row_id in row_ids:
            marks.rows.pop(row_id, None)
        write_private_json(marks_path(home, bot_id), {"runs": marks.runs, "rows": marks.rows})
    return marks


def _drop_old(marks: ReviewedMarks, now: datetime) -> None:
    oldest = now - timedelta(days=MARKS_KEPT_DAYS)
    for kept in (marks.runs, marks.rows):
        for key, at in list(kept.items()):
            try:
                if datetime.fromisoformat(at) < oldest:
                    del kept[key]
            except (TypeError, ValueError):
                del kept[key]
