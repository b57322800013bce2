"""One upkeep run: its id, and the actor its steps write as (who: Memory upkeep, how: upkeep step)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..base import clock
from ..journal.changes import Actor
from ..journal.journal import HOW_UPKEEP, WHO_UPKEEP


def new_run_id(now: datetime | None = None) -> str:
    """Sortable by time, unique: `20261201T031500-1a2b3c`."""
    moment = (now or clock.now_utc()).astimezone(UTC)
    return f"{moment:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True)
class UpkeepRun:
    """Every journal row a run writes carries `id`; each step names itself (capture, organize, tidy-up…)."""

    bot_id: str
    id: str = field(default_factory=new_run_id)

    def actor(self, step: str, chat: str | None = None) -> Actor:
        return Actor(WHO_UPKEEP, HOW_UPKEEP, chat=chat, step=step, run=self.id)


@dataclass
class Skipped:
    """An item the model proposed that code refused, and why (one sentence)."""

    text: str
    reason: str

    def to_dict(self) -> dict:
        return {"text": self.text, "reason": self.reason}
