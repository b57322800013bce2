"""One story of a night on every screen: the counts and their words, in one place (docs/review.md, "One count,
one word").

The bots screen's line and Night column (`changes.overnight`), the Review area's status line, its tree's bot lines
and its detail, `omb-tui review` and `omb-tui changes` each say what they list with `Tally`. The words:

- a **run** is every row carrying one run id, taken back whole by `U` or `undo-run`: an upkeep run, an agent's
  session (Claude Code, Codex, an MCP client: one run each) and the nightly guard's undo;
- an **other group** is the rows of one writer that carry no one run id: a bot's turns in a chat, a day of your
  edits, of edits made outside the app, of an import;
- **new** is a change in a run or group not yet reviewed; **waiting** is a compaction proposal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..base.text import plural


class Listed(Protocol):
    """A run or group as a listing holds it (runs.Run, changes.Group)."""

    @property
    def changes(self) -> Sequence[object]: ...
    @property
    def reviewed(self) -> bool: ...
    @property
    def one_run(self) -> bool: ...


@dataclass(frozen=True)
class Tally:
    """What a listing holds, counted one way."""

    changes: int = 0
    new: int = 0  # changes in runs and groups not reviewed yet
    runs: int = 0  # one undo-run each: an upkeep run, an agent's session, the guard's undo
    others: int = 0  # a bot's turns in a chat, a day of your edits, outside the app or of an import
    waiting: int = 0  # compaction proposals waiting for the person

    @classmethod
    def of(cls, listed: Iterable[Listed], waiting: int = 0) -> Tally:
        items = list(listed)
        return cls(
            changes=sum(len(item.changes) for item in items),
            new=sum(len(item.changes) for item in items if not item.reviewed),
            runs=sum(1 for item in items if item.one_run),
            others=sum(1 for item in items if not item.one_run),
            waiting=waiting,
        )

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.changes + other.changes,
            self.new + other.new,
            self.runs + other.runs,
            self.others + other.others,
            self.waiting + other.waiting,
        )

    @property
    def pending(self) -> int:
        """The bots screen's name for `waiting` (its JSON field)."""
        return self.waiting

    @property
    def unreviewed(self) -> int:
        """The bots screen's name for `new` (its JSON field)."""
        return self.new

    def to_dict(self) -> dict:
        return {
            "changes": self.changes,
            "runs": self.runs,
            "others": self.others,
            "pending": self.waiting,
            "unreviewed": self.new,
            "line": self.line(),
        }

    @property
    def empty(self) -> bool:
        return not (self.changes or self.runs or self.others or self.waiting)

    def groups(self) -> str:
        """ "2 runs + 9 other groups", "1 run", "3 other groups"."""
        runs = plural(self.runs, "run")
        if not self.others:
            return runs
        others = plural(self.others, "other group")
        return f"{runs} + {others}" if self.runs else others

    def parts(self) -> list[tuple[str, str]]:
        """The line in pieces, each with its role ("", "new" or "waiting"), for a screen that colours them."""
        parts = []
        if self.changes or self.runs or self.others:
            parts.append((f"{plural(self.changes, 'change')} in {self.groups()}", ""))
            if self.new:
                parts.append((f" ({self.new} new)", "new"))
        if self.waiting:
            parts.append((", " if parts else "", ""))
            parts.append((f"{plural(self.waiting, 'proposal')} waiting", "waiting"))
        return parts or [("nothing", "")]

    def line(self) -> str:
        """ "20 changes in 2 runs + 9 other groups (17 new), 2 proposals waiting"; what is none is left out."""
        return "".join(text for text, _ in self.parts())
