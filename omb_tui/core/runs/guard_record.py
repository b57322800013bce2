"""The nightly guard's record, `memory-journal/<bot>.guard.json` (docs/guard.md): what each guarded run did
(`runs`: stopped and why, changes refused as loops or no-ops, checks failed, undone or flagged) and what each
night has spent so far (`nights`: calls, tokens, dollars, MEMORY.md entries changed, steps skipped). It lives
beside the journal, outside the workspace, so a bot's file tools cannot edit it; the Review area reads a run's
part to say why the guard stopped or undid it. Times and counts only, and the guard's own sentences.
"""

from __future__ import annotations

from pathlib import Path

from ..base.text import plural
from ..files.disk import read_json_object, write_private_json
from ..files.paths import Home, validate_bot_id
from ..memory.store import MemoryStore

KEEP_RUNS = 200  # the newest runs kept (about a month of a bot whose capture runs often)
KEEP_NIGHTS = 14


def guard_record_path(home: Home, bot_id: str) -> Path:
    return home.journal_dir / f"{validate_bot_id(bot_id)}.guard.json"


def read_guard_record(home: Home, bot_id: str) -> dict:
    """{"runs": {run id: outcome}, "nights": {night: totals}}; empty parts when there is none or it is damaged
    (a damaged record starts the night's budget from nothing, never stops a run)."""
    data = read_json_object(guard_record_path(home, bot_id))
    runs = data.get("runs") if isinstance(data.get("runs"), dict) else {}
    nights = data.get("nights") if isinstance(data.get("nights"), dict) else {}
    return {"runs": runs, "nights": nights}


def guard_of_run(home: Home, bot_id: str, run_id: str) -> dict | None:
    found = read_guard_record(home, bot_id)["runs"].get(run_id)
    return found if isinstance(found, dict) else None


def night_totals(home: Home, bot_id: str, night: str) -> dict:
    found = read_guard_record(home, bot_id)["nights"].get(night)
    return found if isinstance(found, dict) else {}


def write_guard_record(
    home: Home,
    bot_id: str,
    run_id: str,
    outcome: dict | None,
    night: str,
    totals: dict,
    store: MemoryStore | None = None,
) -> None:
    """Keep the run's outcome (None: the night's totals alone) and the night's totals, under the bot's lock; the
    oldest beyond the caps go."""
    with (store or MemoryStore(home, bot_id)).locked():
        data = read_guard_record(home, bot_id)
        runs = {key: value for key, value in data["runs"].items() if key != run_id}
        if outcome is not None:
            runs[run_id] = outcome
        nights = dict(data["nights"])
        nights[night] = totals
        kept_runs = dict(sorted(runs.items())[-KEEP_RUNS:])  # run ids sort by time
        kept_nights = dict(sorted(nights.items())[-KEEP_NIGHTS:])
        write_private_json(guard_record_path(home, bot_id), {"runs": kept_runs, "nights": kept_nights})


def guard_line(outcome: dict) -> str | None:
    """The guard's line for a run, from its record (the report and the Review area say the same); None when
    the guard had nothing to say."""
    parts = []
    if outcome.get("failed"):
        what = "undone by the guard" if outcome.get("undone") else "flagged by the guard, left in place"
        parts.append(f"run {what}: {outcome['failed']}")
    if outcome.get("stopped"):
        left = outcome.get("steps_left_out") or []
        parts.append(f"stopped: {outcome['stopped']}" + (f" ({', '.join(left)} not run)" if left else ""))
    loops, no_ops = count_of(outcome.get("loops")), count_of(outcome.get("no_ops"))
    if loops or no_ops:
        said = [plural(loops, "loop")] if loops else []
        said += [plural(no_ops, "no-op")] if no_ops else []
        parts.append(" and ".join(said) + " not applied")
    skipped = outcome.get("skipped_for_night") or []
    if skipped:
        parts.append(f"{', '.join(skipped)} skipped for the night")
    return "guard: " + "; ".join(parts) if parts else None


def count_of(value: object) -> int:
    return value if type(value) is int else 0


def amount_of(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
