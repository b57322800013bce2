"""Applying a validated change-set to MEMORY.md: one journal row per change, under the bot's lock.

Spec: compact-memory.en.md, "The nightly run, step by step" 3 and 5; docs/compact.md, "Applying" ("the file's sha256 when applying
equals what the model read", "the rewrite atomic, journaled … undoable"). Each change is one atomic store write
(temp file, fsync, rename) whose row's note is `<category>: <reason>`, so Review shows and reverts one change at a
time. All the writes happen under one hold of the bot's lock, after one check that the file is still exactly the
text the model read; docs/compact.md argues this against one rename for the whole set.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..files.paths import MEMORY_FILE
from ..journal.changes import Actor, StaleHash
from ..memory.store import MemoryStore
from .validator import Change, FileChangedMeanwhile, check_unchanged


@dataclass(frozen=True)
class AppliedChange:
    change: Change
    row_id: str | None  # None only when the journal could not be written (the next look journals the change)


@dataclass
class ApplyOutcome:
    applied: list[AppliedChange] = field(default_factory=list)
    not_applied: list[Change] = field(default_factory=list)  # left when a lock-free editor changed the file mid-way
    refused: list[Change] = field(default_factory=list)  # refused by the nightly guard (docs/guard.md)
    hash: str | None = None  # MEMORY.md's hash afterwards

    @property
    def rows(self) -> list[str]:
        return [item.row_id for item in self.applied if item.row_id]


def change_note(change: Change) -> str:
    """The journal row's note, as Review shows it: `merge: two lines on the same trip`."""
    return f"{change.category}: {change.reason}"


def apply_change_set(store: MemoryStore, read_hash: str, changes: list[Change], actor: Actor) -> ApplyOutcome:
    """Write each change as its own row, in file order; FileChangedMeanwhile (nothing written) when MEMORY.md is
    no longer the text whose hash the model read. `changes` carry their spans in that text (the validator's)."""
    outcome = ApplyOutcome()
    with store.locked():
        store.sync_outside_changes()
        current = store.read(MEMORY_FILE)
        check_unchanged(current.text, read_hash)
        shift = 0  # how far the changes written so far moved the later spans
        ordered = sorted(changes, key=lambda change: change.start)
        for index, change in enumerate(ordered):
            start = _locate(current.text, change, change.start + shift)
            if start is None:
                outcome.not_applied.extend(ordered[index:])
                break
            end = start + len(change.original)
            new_text = current.text[:start] + change.replacement + current.text[end:]
            try:
                write = store.write(MEMORY_FILE, new_text, actor, expected_hash=current.hash, note=change_note(change))
            except StaleHash:  # an editor that takes no lock saved the file between two of these writes
                outcome.not_applied.extend(ordered[index:])
                break
            if not write.changed:  # the nightly guard refused it (a loop, the night's share): not applied
                outcome.refused.append(change)
                continue
            outcome.applied.append(AppliedChange(change, write.row_id))
            current = store.read(MEMORY_FILE)
            # Redaction may have changed the text written; the later spans then move by what it changed too.
            shift = _shift_after(shift, change, new_text, current.text)
        outcome.hash = current.hash
    if not outcome.applied and outcome.not_applied:
        raise FileChangedMeanwhile(current.text)
    return outcome


def _locate(text: str, change: Change, expected: int) -> int | None:
    """Where the change's original is now: its shifted span when it still holds it, else its one occurrence."""
    if text[expected : expected + len(change.original)] == change.original:
        return expected
    first = text.find(change.original)
    if first == -1 or text.find(change.original, first + 1) != -1:
        return None  # gone, or no longer once: never cut blind
    return first


def _shift_after(shift: int, change: Change, written: str, now: str) -> int:
    return shift + len(change.replacement) - len(change.original) + (len(now) - len(written))
