"""Make room: move entries of MEMORY.md to the archive until everything in it loads.

Spec: memory.md, "What loads, and the budget". The rule is the one `remember` uses when a note overflows
(`archive_overflow`): struck entries first, then expired ones, then the oldest live ones, each marked
`· moved DATE` in memory/archive.md, the archive written first; undated lines, headings, health and safety
facts never move. Here nothing was just written, so no entry is protected. Planning reads only; making
room writes both files under the bot's lock, journaled (one row each), refused if MEMORY.md changed since
the plan that was shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ..base import clock
from ..base.text import plural
from ..files.disk import encode
from ..files.paths import MEMORY_FILE, Home
from ..journal.changes import Actor, FileSnapshot, StaleHash
from .budget import MEMORY_MAX_BYTES, MEMORY_MAX_LINES
from .entries import Entry, parse_entries, render_entries, split_lines
from .memory_update import ARCHIVE_REL, MemoryUpdate, archive_overflow, newline_of, over_budget


@dataclass(frozen=True)
class MovingEntry:
    line: int  # where the entry starts in MEMORY.md, from 1
    text: str  # its first line, without the line ending

    def to_dict(self) -> dict:
        return {"line": self.line, "text": self.text}


@dataclass(frozen=True)
class RoomPlan:
    """What making room would move (or moved), and how MEMORY.md stands before and after."""

    moving: tuple[MovingEntry, ...]  # in file order
    based_on: str | None  # MEMORY.md's hash when planned: making room refuses a file changed since
    lines_before: int
    lines_after: int
    bytes_after: int
    done: bool = False  # True once moved

    @property
    def must_trim(self) -> bool:
        """Still over the budget after the move: the lines that never move fill it by themselves."""
        return over_budget(self.lines_after, self.bytes_after)

    def message(self) -> str:
        count = len(self.moving)
        entries = plural(count, "entry", "entries")
        if not count and not self.must_trim:
            return "Everything in MEMORY.md loads: nothing needs to move."
        parts = []
        if count:
            verb = "Moved" if self.done else "Would move"
            parts.append(
                f"{verb} {entries} to {ARCHIVE_REL}; MEMORY.md {'went' if self.done else 'would go'} "
                f"from {self.lines_before} to {self.lines_after} lines."
            )
        if self.must_trim:
            parts.append(
                f"MEMORY.md is still over its budget ({MEMORY_MAX_LINES} lines or "
                f"{MEMORY_MAX_BYTES // 1024} KB) with only lines that never move: trim it by hand."
            )
        return " ".join(parts)

    def to_dict(self) -> dict:
        return {
            "moving": [entry.to_dict() for entry in self.moving],
            "moving_count": len(self.moving),
            "lines_before": self.lines_before,
            "lines_after": self.lines_after,
            "must_trim": self.must_trim,
            "memory_hash": self.based_on,
            "done": self.done,
            "message": self.message(),
        }


def _split(text: str, today: date) -> tuple[list[Entry], list[Entry], list[MovingEntry]]:
    """(kept, moved, what moves as shown) by the overflow rule."""
    entries = parse_entries(text)
    kept, moved = archive_overflow(entries, set(), today)
    moving_ids = {id(entry) for entry in moved}
    shown, line = [], 1
    for entry in entries:
        if id(entry) in moving_ids:
            shown.append(MovingEntry(line, entry.lines[0].rstrip("\r\n")))
        line += entry.line_count
    return kept, moved, shown


def plan_room(snapshot: FileSnapshot, today: date | None = None) -> RoomPlan:
    """What making room would move from MEMORY.md as read (nothing is written)."""
    kept, _, shown = _split(snapshot.text, today or clock.today())
    return _plan(snapshot, kept, shown)


def _plan(snapshot: FileSnapshot, kept: list[Entry], shown: list[MovingEntry], *, done: bool = False) -> RoomPlan:
    after = render_entries(kept)
    return RoomPlan(
        tuple(shown), snapshot.hash, len(split_lines(snapshot.text)), len(split_lines(after)), len(encode(after)), done
    )


def make_room(
    home: Home, bot_id: str, actor: Actor, *, expected_hash: str | None = None, today: date | None = None
) -> RoomPlan:
    """Move entries to the archive until everything loads, journaled as `actor`; returns what moved.

    With `expected_hash` (the plan's `based_on`), a MEMORY.md changed since the plan was shown raises
    StaleHash and nothing moves: the person decides on what they saw."""
    today = today or clock.today()
    update = MemoryUpdate(home, bot_id, actor)
    store = update.store
    with store.locked():
        store.sync_outside_changes()
        current = store.read(MEMORY_FILE)
        if expected_hash is not None and current.hash != expected_hash:
            raise StaleHash(
                MEMORY_FILE,
                current.text,
                current.hash,
                message=("MEMORY.md changed since what would move was shown; nothing was moved: look again."),
            )
        kept, moved, shown = _split(current.text, today)
        if moved:
            count = len(moved)
            update.move_out(
                current,
                kept,
                moved,
                today,
                newline_of(current.text),
                note=f"make room: {plural(count, 'entry', 'entries')} moved to {ARCHIVE_REL}",
            )
    return _plan(current, kept, shown, done=bool(moved))
