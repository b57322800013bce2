"""Usage: one row per model call, failed ones included, and the monthly spend limit.

Spec: memory.md, "The helper model" (helper calls count toward the limit and stop at it; each is its own row,
`triggered_by` "Helper model"); docs/models.md, "Usage" and "The spend limit". Rows live under the home, outside any
workspace: `usage/YYYY-MM.ndjson` (the month in UTC, as `at` is), one JSON line each, 0600, appended with one
write, every text field redacted. A key is never part of a row: the call path removes it from any error
sentence before the row is made.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import threading
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..base import clock
from ..files.disk import make_private_dirs
from ..files.paths import Home, MemoryInputError, quoted
from ..journal.journal import append_line, utf8_json
from .night_budget import count_night_call

log = logging.getLogger("omb_tui.models")

USAGE_DIR = "usage"
LIMIT_REACHED = "the monthly spend limit is reached"
# The fields `omb-tui usage --json` and --csv give, in this order (the first agreed list, then duration and error).
ROW_FIELDS = (
    "at",
    "bot",
    "job",
    "instance",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "ok",
    "triggered_by",
    "cost",
    "duration_ms",
    "attempts",
    "error",
)
# Fields an engine's call adds (engine_call.py), given after ROW_FIELDS by `omb-tui usage --json` and --csv:
# the engine, what the CLI reported the call would cost on the person's plan, and whether it was dropped.
PLAN_FIELDS = ("engine", "plan_cost_usd", "dropped")
REPORT_FIELDS = ROW_FIELDS + PLAN_FIELDS
# `cost`: how cost_usd was found.
COST_PRICED = "litellm"  # litellm's own price list knows the model
COST_UNKNOWN = "unknown"  # it does not: cost_usd is empty and counts as 0 toward the limit
COST_NO_ANSWER = "no answer"  # the call failed before any answer: nothing is billed, cost_usd is 0
COST_PLAN = "plan"  # an engine's call on the person's own plan: cost_usd 0, what the CLI reported in plan_cost_usd
_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


def month_of(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m")


def usage_path(home: Home, month: str) -> Path:
    return home.root / USAGE_DIR / f"{month}.ndjson"


def check_month(text: str) -> str:
    if not _MONTH.fullmatch(text):
        raise MemoryInputError(f"{quoted(text)} is not a month: write it as YYYY-MM, such as 2026-03.")
    return text


def record_usage(home: Home, row: dict) -> bool:
    """Append one row (its text redacted) to its month's file; False, logged, when it could not be written.
    A usage row that cannot be written never fails the call it describes."""
    from ..redaction.data import redact_data

    clean = redact_data(row)
    path = usage_path(home, clean["at"][:7])
    try:
        make_private_dirs(path.parent)
        append_line(path, (utf8_json(clean, separators=(",", ":")) + "\n").encode("utf-8"))
    except (OSError, MemoryInputError) as exc:
        log.error("a usage row could not be written to %s: %s", path, exc)
        return False
    _spent_cache.pop(path, None)
    count_night_call(home, clean)
    return True


def read_usage(home: Home, month: str) -> list[dict]:
    """Every row of a month, oldest first; a damaged line is skipped."""
    path = usage_path(home, month)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    rows = []
    for line in data.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("at"), str):
            rows.append(row)
    return rows


# ----- the spend limit -----
@dataclass(frozen=True)
class _Spent:
    size: int
    mtime_ns: int
    total: float


_spent_cache: dict[Path, _Spent] = {}
_spent_lock = threading.Lock()


def spent_this_month(home: Home, now: datetime | None = None) -> float:
    """The recorded cost of this month's calls, in USD (a row with an unknown cost counts 0).

    Read again only when the month's file changed, so checking the limit before every call stays cheap.
    """
    month = month_of(now or clock.now_utc())
    path = usage_path(home, month)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return 0.0
    with _spent_lock:
        cached = _spent_cache.get(path)
        if cached and (cached.size, cached.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            return cached.total
    total = sum(_cost(row) for row in read_usage(home, month))
    with _spent_lock:
        _spent_cache[path] = _Spent(stat.st_size, stat.st_mtime_ns, total)
    return total


def limit_reached(home: Home, monthly_spend_usd: float | None, now: datetime | None = None) -> bool:
    return monthly_spend_usd is not None and spent_this_month(home, now) >= monthly_spend_usd


def _cost(row: dict) -> float:
    cost = row.get("cost_usd")
    return float(cost) if type(cost) is int or type(cost) is float else 0.0


# ----- what `omb-tui usage` shows -----
def usage_report(home: Home, month: str, bot_id: str | None = None) -> dict:
    """The month's rows (of one bot, when given), totals per bot and model, and the total cost."""
    rows = [row for row in read_usage(home, month) if bot_id is None or row.get("bot") == bot_id]
    shown = [{name: row.get(name) for name in REPORT_FIELDS} for row in rows]
    totals: dict[tuple, dict] = defaultdict(
        lambda: {
            "calls": 0,
            "failed": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost_usd": 0.0,
            "unknown_cost": 0,
            "plan_calls": 0,
            "plan_cost_usd": 0.0,
        }
    )
    for row in shown:
        total = totals[(row["bot"] or "", row["model"] or "")]
        total["calls"] += 1
        total["failed"] += 0 if row["ok"] else 1
        total["prompt_tokens"] += row["prompt_tokens"] or 0
        total["completion_tokens"] += row["completion_tokens"] or 0
        total["cost_usd"] += _cost(row)
        total["unknown_cost"] += 1 if row["cost"] == COST_UNKNOWN else 0
        total["plan_calls"] += 1 if is_plan_call(row) else 0
        total["plan_cost_usd"] += plan_cost(row)
    return {
        "month": month,
        "rows": shown,
        "totals": [
            {"bot": bot or None, "model": model or None, **values} for (bot, model), values in sorted(totals.items())
        ],
        "total_cost_usd": round(sum(_cost(row) for row in shown), 6),
        "plan_cost_usd": round(sum(plan_cost(row) for row in shown), 6),
    }


def is_plan_call(row: dict) -> bool:
    """A call an engine made on the person's plan: its money is the plan's, never counted toward the limit. A call
    an engine dropped before any usage was reported is one too (it went out on the plan all the same)."""
    return row.get("cost") == COST_PLAN or bool(row.get("engine"))


def plan_cost(row: dict) -> float:
    """What the engine's CLI reported the call would cost (0 when it reported nothing): shown, never spent."""
    cost = row.get("plan_cost_usd")
    return float(cost) if type(cost) is int or type(cost) is float else 0.0


def usage_csv(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=REPORT_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({name: _csv_cell(row.get(name)) for name in REPORT_FIELDS})
    return out.getvalue()


def _csv_cell(value: object) -> object:
    if value is None:
        return ""  # an unknown cost is an empty cell; the row's `cost` column says unknown
    if isinstance(value, bool):
        return "true" if value else "false"
    return value
