"""What a change to a memory file is, in the words the store and its callers share: who makes it (`Actor`),
a file as read (`FileSnapshot`), what a write or an undo did (`WriteResult`, `UndoResult`), and why the store
refused one (`StaleHash`, `ReadOnly`, `NotUndoable`, `LaterChanges`, `RevertConflict`: nothing was written).

Spec: memory.md, "Editing" (hash-checked saves, read-only logs) and "The journal" (undo, revert). The store
(`store.py`) makes and raises them; screens, the command line and the server read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..base.text import plural
from ..files.paths import FileKind, MemoryInputError, MemoryPath
from .journal import JournalRow


@dataclass(frozen=True)
class Actor:
    """Who made a change and how; journal rows carry these."""

    who: str
    how: str
    chat: str | None = None
    step: str | None = None
    run: str | None = None  # an upkeep run's id, on every row the run writes
    person: str | None = None  # a person of a Team Cloud home who made the change themselves (not the owner)


@dataclass(frozen=True)
class FileSnapshot:
    rel: str
    text: str
    hash: str | None  # None when the file does not exist
    kind: FileKind

    @property
    def exists(self) -> bool:
        return self.hash is not None


@dataclass(frozen=True)
class WriteResult:
    rel: str
    hash: str | None
    changed: bool
    redactions: int = 0
    row_id: str | None = None
    journaled: bool = True  # False: saved, but the journal could not be written (the next look journals it)

    def to_dict(self) -> dict:
        """What `omb-tui write --json` prints; `journaled` is left to each surface (the command line warns on
        stderr, the routes add it)."""
        return {
            "path": self.rel,
            "hash": self.hash,
            "changed": self.changed,
            "redactions": self.redactions,
            "row_id": self.row_id,
        }


@dataclass(frozen=True)
class MadeChange:
    """One change of an all-or-nothing step: its file as it was before, its hash after, where its journal row
    starts; `found_outside`: a change someone else made (the step never puts back past it)."""

    mp: MemoryPath
    before: FileSnapshot
    after_hash: str | None
    offset: int
    found_outside: bool = False


@dataclass
class UndoResult:
    row: JournalRow
    write: WriteResult
    later: list[JournalRow] = field(default_factory=list)


class StaleHash(MemoryInputError):
    """The file changed since it was read; nothing was written."""

    def __init__(self, rel: str, current_text: str, current_hash: str | None, *, message: str | None = None) -> None:
        super().__init__(message or f"{rel} changed since it was opened; nothing was written.")
        self.rel = rel
        self.current_text = current_text
        self.current_hash = current_hash


class ReadOnly(MemoryInputError):
    pass


class NotUndoable(MemoryInputError):
    pass


class LaterChanges(MemoryInputError):
    """Undo would also throw away later changes to the same file; the caller must confirm."""

    def __init__(self, row: JournalRow, later: list[JournalRow]) -> None:
        names = ", ".join(f"{r.id} ({r.who}, {r.how}, {r.at[:16]})" for r in later[:5])
        more = f" and {len(later) - 5} more" if len(later) > 5 else ""
        if later:
            message = f"{plural(len(later), 'later change')} to {row.file} would be undone too: {names}{more}."
        else:
            message = (
                f"{row.file} changed after row {row.id} (by another bot or outside the app); "
                "undoing it would throw that change away."
            )
        super().__init__(message)
        self.row = row
        self.later = later


class RevertConflict(MemoryInputError):
    """One change cannot be taken back alone: the file changed since on its lines (or its text was not kept).
    Nothing was written; undo (the whole file back as before the row) may still be offered."""

    def __init__(self, row: JournalRow, later: list[JournalRow], why: str | None = None) -> None:
        if why is None:
            names = ", ".join(r.id for r in later[:5]) + (f" and {len(later) - 5} more" if len(later) > 5 else "")
            by = f"{plural(len(later), 'later change')} ({names})" if later else "a change made since"
            why = f"{by} touched the same lines of {row.file}"
        super().__init__(
            f"Row {row.id} cannot be reverted alone: {why}; undo puts the whole file back as it was before it instead."
        )
        self.row = row
        self.later = later
