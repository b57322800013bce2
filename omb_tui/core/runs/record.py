"""The upkeep record, `memory-journal/<bot>.upkeep.json`: each step keeps its last run under its own part
("capture", "tidy", "compact"), counts and times only, never a note's text. It lives beside the journal,
outside the workspace, so the bot's file tools cannot edit it. Every step writes its part under the bot's lock
and leaves the other parts as they are."""

from __future__ import annotations

import json
from pathlib import Path

from ..files.disk import read_json_object, read_text, write_private_json
from ..files.paths import Home, validate_bot_id
from ..memory.store import MemoryStore


def upkeep_record_path(home: Home, bot_id: str) -> Path:
    return home.journal_dir / f"{validate_bot_id(bot_id)}.upkeep.json"


def read_part(home: Home, bot_id: str, part: str) -> dict:
    """One step's part of the record; {} when there is none or the record cannot be read."""
    found = read_json_object(upkeep_record_path(home, bot_id)).get(part)
    return found if isinstance(found, dict) else {}


def last_of(home: Home, bot_id: str, part: str) -> dict | None:
    """The `last` run a step kept, or None when it never ran (or the record is damaged)."""
    last = read_part(home, bot_id, part).get("last")
    return last if isinstance(last, dict) else None


def write_part(home: Home, bot_id: str, part: str, value: dict, store: MemoryStore | None = None) -> None:
    """Replace one step's part, under the bot's lock (the lock every step holds for this file)."""
    with (store or MemoryStore(home, bot_id)).locked():
        path = upkeep_record_path(home, bot_id)
        try:
            data = json.loads(read_text(path))
        except (OSError, ValueError):
            data = {}
        data = data if isinstance(data, dict) else {}
        data[part] = value
        write_private_json(path, data)


JOURNAL_ROWS_LOOKED_AT = 5_000  # how far back the journal is read for a run a step's record does not hold


def last_run_in_journal(home: Home, bot_id: str, step: str) -> dict | None:
    """The newest run of `step` the bot's journal holds (`at`: its first row, `run`, `changes`), whoever ran it:
    a run the step's record does not know (an earlier version's, a restored home's, the demo's) is still the
    last one, as Review shows it; None when the journal's newest rows hold none."""
    from ..journal.journal import Journal

    found: dict | None = None
    for n, row in enumerate(Journal(home.journal_path(bot_id)).iter_newest_first()):
        if n >= JOURNAL_ROWS_LOOKED_AT:
            break
        if found is None and row.step == step and row.run:
            found = {"at": row.at, "run": row.run, "changes": 0}
        if found is not None and row.run == found["run"]:
            found["changes"] += 1
            found["at"] = row.at  # the run's first row, as the rows go back
    return found
