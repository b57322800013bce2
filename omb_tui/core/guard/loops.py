"""Loops, no-ops and the night's share of MEMORY.md, decided write by write (docs/guard.md, "Loops and no-ops").

A fact is a bullet's words (no date, source, markers or strike-through), case and spacing folded: a strike keeps
its fact, so striking a line changes no fact. A run's facts taken out are those it removed from one file and
put in no other (a move is neither); put in, the reverse. A change that puts back a fact an upkeep run of the
last 7 days took out, or takes out again one such a run put back after taking it out, is a loop: not written,
counted (a fact upkeep put in once may still be taken out: the guard's checks look at that). A write that leaves
a file byte for byte as it was is a no-op: counted. A step with two such changes in a row, and nothing applied
between, is skipped for the rest of the night. A write to MEMORY.md that would bring the entries the night
took out of memory (deleted or merged away: not moved, struck or a duplicate removed) past its share of the
entries the night began with is refused and stops the run.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..base.text import plural
from ..files.paths import MEMORY_FILE
from ..journal.journal import HOW_UNDO, WHO_UPKEEP
from ..memory.entries import parse_entries
from ..memory.store import MemoryStore

LOOP_WINDOW = timedelta(days=7)
FUTILE_IN_A_ROW = 2


_CONFIRMED = re.compile(r"[ \t]+·[ \t]+confirmed[ \t]+[0-9]{4}-[0-9]{2}-[0-9]{2}")


def without_confirmed(text: str) -> str:
    """A fact without the `· confirmed DATE` a "still true?" keep put in it."""
    return _CONFIRMED.sub("", text)


def fact_key(text: str) -> str:
    """A fact's words as the guard compares them: strike-through, `· confirmed DATE`, case and spacing folded."""
    return " ".join(without_confirmed(text).replace("~~", " ").split()).casefold().rstrip(".")


def facts_of(text: str | None) -> Counter[str]:
    if not text:
        return Counter()
    return Counter(fact_key(entry.fact) for entry in parse_entries(text) if entry.is_bullet and entry.fact.strip())


def bullets_of(text: str | None) -> Counter[str]:
    if not text:
        return Counter()
    return Counter(entry.raw.rstrip("\r\n") for entry in parse_entries(text) if entry.is_bullet)


def diff_facts(diff: str) -> tuple[Counter[str], Counter[str]]:
    """The facts a journal row's short diff took out and put in (a diff cut for size gives what it holds)."""
    removed: list[str] = []
    added: list[str] = []
    for line in diff.splitlines():
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
    return facts_of("\n".join(removed) + "\n"), facts_of("\n".join(added) + "\n")


@dataclass
class RecentUpkeep:
    """What upkeep runs of the last 7 days left taken out of the bot's memory, and what they put back after taking
    it out (moves cancel out within a run)."""

    taken_out: set[str] = field(default_factory=set)  # its last upkeep change took it out
    put_back: set[str] = field(default_factory=set)  # an upkeep change took it out, a later one put it back


def recent_upkeep(store: MemoryStore, now: datetime, exclude_run: str | None = None) -> RecentUpkeep:
    """Read the last 7 days of the journal, oldest change first: an upkeep run's facts taken out and put in (its
    rows together, so a move cancels out), and any other change (the person's, an undo) putting a fact back, which
    ends that fact's see-saw: the person decided."""
    since = now - LOOP_WINDOW
    changes: dict[str, tuple[bool, Counter[str], Counter[str]]] = {}  # newest first: (by upkeep, out, into)
    for row in store.journal.iter_newest_first():
        try:
            at = datetime.fromisoformat(row.at)
        except ValueError:
            continue
        if at < since:
            break
        if row.run is not None and row.run == exclude_run:
            continue
        by_upkeep = row.who == WHO_UPKEEP and row.run is not None and row.how != HOW_UNDO
        removed, added = diff_facts(row.diff)
        _, out, into = changes.setdefault(
            row.run if by_upkeep and row.run else row.id, (by_upkeep, Counter(), Counter())
        )
        out.update(removed)
        into.update(added)
    recent = RecentUpkeep()
    taken_before: set[str] = set()
    for by_upkeep, out, into in reversed(changes.values()):  # oldest first
        gone, came = set(out - into), set(into - out)
        if not by_upkeep:
            recent.taken_out -= came
            recent.put_back -= came
            taken_before -= came
            continue
        recent.put_back |= came & taken_before
        recent.taken_out = (recent.taken_out - came) | gone
        taken_before |= gone
    return recent


@dataclass
class NightGate:
    """The write gate of one guarded run (memory/run_gates.WriteGate)."""

    recent: RecentUpkeep
    baseline: int  # MEMORY.md's entries when the night began
    share: float
    changed: int = 0  # MEMORY.md's entries taken out of memory tonight so far
    futile: dict[str, int] = field(default_factory=dict)  # a step's loops and no-ops in a row
    skipped: list[str] = field(default_factory=list)  # steps skipped for the rest of the night
    loops: int = 0
    no_ops: int = 0
    stopped: str | None = None
    refused: list[dict] = field(default_factory=list)  # {"file", "step", "why"}, for the report
    _put_in_now: set[str] = field(default_factory=set)
    _refused_in: set[str] = field(default_factory=set)

    @property
    def allowed(self) -> int:
        return max(1, math.floor(self.share * self.baseline))

    def refusal(self, rel: str, before: str | None, after: str | None, step: str | None) -> str | None:
        step = step or "upkeep"
        if self.stopped:
            return self.stopped
        if step in self.skipped:
            return f"{step} is skipped for the rest of the night"
        old, new = facts_of(before), facts_of(after)
        added, removed = set(new - old), set(old - new)
        loop = sorted(
            (added & self.recent.taken_out)
            | {fact for fact in removed & self.recent.put_back if fact not in self._put_in_now}
            | (removed & self._refused_in)
        )
        if loop:
            self.loops += 1
            self._refused_in |= added
            why = f"it would undo an upkeep change of the last 7 days ({_shown(loop[0])})"
            self.refused.append({"file": rel, "step": step, "why": why})
            self._futile(step)
            return why
        if rel == MEMORY_FILE:
            # lost: words that leave memory (deleted, merged away); a move, a strike or a duplicate's removal is not
            count = sum(1 for fact in (old - new).elements() if fact not in new and fact not in self._put_in_now)
            if count and self.changed + count > self.allowed:
                self.stopped = (
                    f"the night may take out at most {plural(self.allowed, 'entry', 'entries')} of MEMORY.md "
                    f"({round(self.share * 100)}% of {self.baseline}), and {self.changed} are out already"
                )
                self.refused.append({"file": rel, "step": step, "why": self.stopped})
                return self.stopped
            self.changed += count
        self.futile[step] = 0
        self._put_in_now |= added
        return None

    def unchanged(self, rel: str, step: str | None) -> None:
        step = step or "upkeep"
        self.no_ops += 1
        self.refused.append({"file": rel, "step": step, "why": "it would leave the file byte for byte as it was"})
        self._futile(step)

    def _futile(self, step: str) -> None:
        self.futile[step] = self.futile.get(step, 0) + 1
        if self.futile[step] >= FUTILE_IN_A_ROW and step not in self.skipped:
            self.skipped.append(step)


def _shown(fact: str, limit: int = 60) -> str:
    return f'"{fact}"' if len(fact) <= limit else f'"{fact[: limit - 1]}…"'
