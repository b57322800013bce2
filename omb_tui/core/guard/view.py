"""What the Upkeep area says of the nightly guard (docs/guard.md): its limits, the recall checks' last result,
and what it said of the bot's last guarded run. Read only: nothing here runs a probe or calls a model."""

from __future__ import annotations

from datetime import datetime

from ..base import clock
from ..base.text import plural
from ..files.paths import Home
from ..journal.when import when_text
from ..memory.settings import load_config
from ..runs.guard_record import amount_of, count_of, guard_line, night_totals, read_guard_record
from .night import night_of
from .probes import read_probes
from .settings import load_guard_settings


def guard_lines(home: Home, bot_id: str, now: datetime | None = None) -> list[str]:
    lines = [load_guard_settings(home).line() + "."]
    night = night_of(now or clock.now(), load_config(home).tidy_hour)
    spent = night_totals(home, bot_id, night)
    if spent:
        lines.append(
            f"Tonight ({night}): {plural(count_of(spent.get('calls')), 'call')}, "
            f"{plural(count_of(spent.get('tokens')), 'token', grouped=True)}, ${amount_of(spent.get('usd')):.2f}."
        )
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
