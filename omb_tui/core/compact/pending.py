"""Propose-only compaction: validated changes kept as pending, for a person to accept or reject one by one.

docs/compact.md, "Propose only": the nightly change-set is validated and kept, not applied; in the morning each change is
accepted (checked again against MEMORY.md as it is then, and written as its own journal row) or rejected. A change
whose `original` is no longer exactly once in the file, or that would now remove a protected line, is refused with
one sentence saying why. Kept in `<home>/compact/<bot>/pending.json` (0600, redacted), outside the workspace so the
bot's file tools cannot rewrite it. docs/compact.md gives every decision.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta

from ..base import clock
from ..files.disk import read_text, text_hash, write_private_json
from ..files.paths import MEMORY_FILE, Home, NotFound, quoted
from ..journal.journal import HOW_COMMAND_LINE, now_iso
from ..memory.settings import BrokenFile
from ..memory.store import MemoryStore
from ..redaction.redact import redact
from ..runs.run import new_run_id
from .apply import apply_change_set
from .interactive import you
from .records import compact_files
from .session import KEEP_FILE
from .validator import Change, FileChangedMeanwhile, keep_lines, validate

PENDING, ACCEPTED, REJECTED = "pending", "accepted", "rejected"
DECIDED_KEEP_DAYS = 30  # an accepted or rejected change stays in pending.json this long, then goes
_FIELDS = ("id", "bot", "run", "at", "category", "original", "merged", "reason", "status")


@dataclass
class PendingChange:
    id: str
    bot: str
    run: str
    at: str  # ISO UTC: when the nightly run proposed it
    category: str
    original: str
    merged: str | None
    reason: str
    status: str  # PENDING, ACCEPTED or REJECTED

    def to_dict(self) -> dict:
        return asdict(self)

    def as_change(self) -> dict:
        answer = {"category": self.category, "original": self.original, "reason": self.reason}
        return answer if self.merged is None else answer | {"merged": self.merged}


@dataclass
class AcceptOutcome:
    applied: list[str] = field(default_factory=list)  # the ids written
    refused: list[tuple[str, str]] = field(default_factory=list)  # (id, one sentence why)
    rows: list[str] = field(default_factory=list)  # the journal rows written, one per applied change
    run: str | None = None  # the run id every row of this accept carries

    def to_dict(self) -> dict:
        return {
            "applied": self.applied,
            "refused": [{"id": id_, "reason": why} for id_, why in self.refused],
            "rows": self.rows,
            "run": self.run,
        }


# ----- the file -----
def _load(home: Home, bot_id: str) -> dict:
    path = compact_files(home, bot_id).pending
    try:
        data = json.loads(read_text(path))
    except FileNotFoundError:
        return {"next": 1, "changes": []}
    except ValueError:
        raise BrokenFile(f"{path} is not valid JSON; fix or remove it.") from None
    changes = data.get("changes") if isinstance(data, dict) else None
    if not isinstance(changes, list) or not isinstance(data.get("next"), int):
        raise BrokenFile(f"{path} must hold an object with 'next' (a number) and 'changes' (a list).")
    for number, item in enumerate(changes, 1):
        texts_ok = isinstance(item, dict) and all(
            isinstance(item.get(name), str) for name in _FIELDS if name != "merged"
        )
        if not texts_ok or not isinstance(item.get("merged"), (str, type(None))):
            raise BrokenFile(f"{path}: change {number} lacks one of {', '.join(_FIELDS)}.")
    return data


def _items(data: dict) -> list[PendingChange]:
    return [PendingChange(**{name: item.get(name) for name in _FIELDS}) for item in data["changes"]]


def _save(home: Home, bot_id: str, next_id: int, items: list[PendingChange]) -> None:
    cutoff = clock.now_utc() - timedelta(days=DECIDED_KEEP_DAYS)
    kept = [item for item in items if item.status == PENDING or _when(item.at) >= cutoff]
    write_private_json(
        compact_files(home, bot_id).pending, {"next": next_id, "changes": [item.to_dict() for item in kept]}
    )


def _when(at: str) -> datetime:
    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return clock.now_utc()  # an unreadable time is kept rather than dropped
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# ----- the API -----
def add_pending(
    home: Home, bot_id: str, run_id: str, changes: list[Change], *, at: datetime | None = None
) -> list[PendingChange]:
    """Keep a validated change-set as pending (texts redacted); the new items, ids numbered on from the last.
    `at`: when it was proposed (now by default)."""
    store = MemoryStore(home, bot_id)
    with store.locked():  # one writer of pending.json at a time, the same lock as MEMORY.md's
        data = _load(home, bot_id)
        items, next_id = _items(data), data["next"]
        proposed = at
        at_text = now_iso(None if proposed is None else (lambda: proposed))
        added = []
        for change in changes:
            merged = None if change.merged is None else redact(change.merged).text
            added.append(
                PendingChange(
                    str(next_id),
                    bot_id,
                    run_id,
                    at_text,
                    change.category,
                    redact(change.original).text,
                    merged,
                    redact(change.reason).text,
                    PENDING,
                )
            )
            next_id += 1
        _save(home, bot_id, next_id, items + added)
    return added


def pending_changes(home: Home, bot_id: str) -> list[PendingChange]:
    """The changes still waiting, oldest first."""
    if not home.has_bot(bot_id):
        raise NotFound(f"There is no bot {bot_id!r} in {home.root}.")
    return [item for item in _items(_load(home, bot_id)) if item.status == PENDING]


def accept(home: Home, bot_id: str, ids: list[str], *, how: str = HOW_COMMAND_LINE) -> AcceptOutcome:
    """Apply each pending change in `ids` that still fits MEMORY.md as it is now, each as its own journal row (by
    the person, `how` where they decided: the command line, or the app's "in Settings"; every row of one call
    shares a run id); refuse the others with one sentence."""
    store = MemoryStore(home, bot_id)
    outcome = AcceptOutcome(run=new_run_id())
    actor = you(outcome.run, how)
    with store.locked():
        data = _load(home, bot_id)
        items = _items(data)
        by_id = {item.id: item for item in items}
        keep = keep_lines(store.read(KEEP_FILE).text)
        store.sync_outside_changes()  # an edit since the last look is the person's, journaled before any of ours
        for wanted in _unique(ids):
            item = by_id.get(wanted)
            if item is None or item.status != PENDING:
                outcome.refused.append((wanted, _not_waiting(wanted, item)))
                continue
            text = store.read(MEMORY_FILE).text
            validation = validate(text, {"changes": [item.as_change()]}, keep_lines=keep, read_hash=text_hash(text))
            if not validation.ok:
                outcome.refused.append((wanted, for_a_person(validation.errors[0])))
                continue
            try:
                applied = apply_change_set(store, validation.read_hash, validation.changes, actor)
            except FileChangedMeanwhile:
                outcome.refused.append((wanted, "MEMORY.md changed while it was being written; try again."))
                continue
            item.status = ACCEPTED
            outcome.applied.append(wanted)
            outcome.rows.extend(applied.rows)
        _save(home, bot_id, data["next"], items)
    return outcome


def reject(home: Home, bot_id: str, ids: list[str]) -> None:
    """Mark each change rejected; NotFound (nothing marked) when one is not waiting."""
    store = MemoryStore(home, bot_id)
    with store.locked():
        data = _load(home, bot_id)
        items = _items(data)
        by_id = {item.id: item for item in items}
        for wanted in _unique(ids):
            item = by_id.get(wanted)
            if item is None or item.status != PENDING:
                raise NotFound(_not_waiting(wanted, item) + " Nothing was rejected.")
        for wanted in ids:
            by_id[wanted].status = REJECTED
        _save(home, bot_id, data["next"], items)


def _unique(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _not_waiting(wanted: str, item: PendingChange | None) -> str:
    if item is None:
        return f"There is no proposed change {quoted(wanted)}."
    return f"Change {wanted} was already {item.status}."


def for_a_person(error: str) -> str:
    """A validator error (written to be sent to the model) as one sentence for the person accepting."""
    sentence = error.split(": ", 1)[1] if error.startswith("Change ") else error
    if "is not in the file" in sentence:
        return "Its original is no longer in MEMORY.md, so it cannot be applied."
    if " times in the file" in sentence:
        times = sentence.split("occurs ", 1)[1].split(" times", 1)[0]
        return f"Its original now occurs {times} times in MEMORY.md, not exactly once, so it cannot be applied."
    return sentence[:1].upper() + sentence[1:]


__all__ = ["AcceptOutcome", "PendingChange", "accept", "add_pending", "pending_changes", "reject"]
