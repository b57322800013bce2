"""The night's budget for one bot's upkeep: at most so many model calls, tokens and dollars (config.json
`upkeep.guard`; docs/guard.md). The guard above holds one while a bot's run lasts; the call path asks it before
each call (`night_refusal`) and the usage row of each call is counted into it (`count_night_call`). The monthly
spend limit stays above it, checked first. Nothing here reads a file: the guard starts a budget from what the
night has spent so far.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from ..base.text import plural
from ..files.paths import Home


@dataclass
class NightBudget:
    max_calls: int
    max_tokens: int
    max_usd: float
    calls: int = 0
    tokens: int = 0
    usd: float = 0.0
    stopped: str | None = None  # a call was refused: why

    def refusal(self) -> str | None:
        """Why no more calls may go out tonight (one sentence, no full stop), or None."""
        if self.calls >= self.max_calls:
            return f"the night's limit of {plural(self.max_calls, 'model call')} is reached"
        if self.tokens >= self.max_tokens:
            return f"the night's limit of {plural(self.max_tokens, 'token', grouped=True)} is reached"
        if self.usd >= self.max_usd:
            return f"the night's limit of ${self.max_usd:.{2 if self.max_usd >= 0.01 else 4}f} is reached"
        return None

    def count(self, row: dict) -> None:
        self.calls += 1
        for name in ("prompt_tokens", "completion_tokens"):
            value = row.get(name)
            self.tokens += value if type(value) is int else 0
        cost = row.get("cost_usd")
        self.usd += float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else 0.0


_budgets: dict[tuple[str, str], NightBudget] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def night_budget(home: Home, bot_id: str, budget: NightBudget) -> Iterator[NightBudget]:
    """Every call for the bot counts against `budget` while this lasts (one run of the bot at a time)."""
    key = (str(home.root), bot_id)
    with _lock:
        _budgets[key] = budget
    try:
        yield budget
    finally:
        with _lock:
            _budgets.pop(key, None)


def night_refusal(home: Home, bot_id: str | None) -> str | None:
    with _lock:
        budget = _budgets.get((str(home.root), bot_id)) if bot_id else None
        if budget is None:
            return None
        refusal = budget.refusal()
        budget.stopped = budget.stopped or refusal
        return refusal


def count_night_call(home: Home, row: dict) -> None:
    with _lock:
        budget = _budgets.get((str(home.root), str(row.get("bot"))))
        if budget is not None:
            budget.count(row)
