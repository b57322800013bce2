"""What the Upkeep area says of the nightly guard (docs/guard.md): its limits, the recall checks' last result,
and what it said of the bot's last guarded run. Read only: nothing here runs a probe or calls a model."""

from __future__ import annotations

from ..memory.paths import Home
from ..memory.when import when_text
from ..runs.guard_record import guard_line, read_guard_record
from .probes import read_probes
from .settings import load_guard_settings


def guard_lines(home: Home, bot_id: str) -> list[str]:
    lines = [load_guard_settings(home).line() + "."]
    found = read_probes(home, bot_id)
    last = found.last_check
    if last and isinstance(last.get("total"), int) and last["total"]:
        lines.append(
            f"Recall checks: {last.get('finding')} of {last['total']} probes found their fact "
            f"({when_text(str(last.get('at')))}); `omb-tui check {bot_id}` runs them now."
        )
    elif found.probes:
        lines.append(f"Recall checks: {len(found.probes)} probes, not run yet; `omb-tui check {bot_id}` runs them.")
    else:
        lines.append("Recall checks: none yet (a fact the person confirms gets a probe at the next upkeep run).")
    runs = read_guard_record(home, bot_id)["runs"]
    said = [(run_id, guard_line(outcome)) for run_id, outcome in sorted(runs.items()) if isinstance(outcome, dict)]
    said = [(run_id, line) for run_id, line in said if line]
    if said:
        run_id, line = said[-1]
        lines.append(f"Last said, run {run_id}: {line}.")
    return lines
