"""The upkeep record, `memory-journal/<bot>.upkeep.json`: each step keeps its last run under its own part
("capture", "tidy", "compact"), counts and times only, never a note's text. It lives beside the journal,
outside the workspace, so the bot's file tools cannot edit it. Every step writes its part under the bot's lock
and leaves the other parts as they are."""

from __future__ import annotations

import json
from pathlib import Path

from ..memory.disk import read_json_object, read_text, write_private_json
from ..memory.paths import Home, validate_bot_id
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
