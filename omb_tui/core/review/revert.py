"""Taking changes back from Review: one change alone (`revert_change`), or a whole run (`undo_run`).

A revert merges the change's reverse into the file as it is now (MemoryStore.revert; a conflict says why
in one sentence and leaves the file as it is). Undoing a run puts each file the run touched back as it was
before the run's first change to it, through the store's undo: changes made after the run to those files
go too, so they are named first and the undo waits for a yes. Decisions: docs/review.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..base.text import plural
from ..files.paths import Home, MemoryInputError, NotFound
from ..journal.changes import Actor, NotUndoable, UndoResult
from ..journal.journal import HOW_UNDO, WHO_PERSON, JournalRow
from ..memory.store import MemoryStore
from ..people.layers import require_workspace
from .runs import find_run


@dataclass
class Reverted:
    """One change taken back alone: the row, the row that journals its revert, the later rows kept."""

    row: str
    file: str
    reverted_by: str | None
    kept_later: list[str] = field(default_factory=list)

    def message(self) -> str:
        kept = f" ({plural(len(self.kept_later), 'later change')} kept)" if self.kept_later else ""
        return f"Reverted row {self.row} in {self.file} alone{kept}."

    def to_dict(self) -> dict:
        return {
            "row": self.row,
            "file": self.file,
            "reverted_by": self.reverted_by,
            "kept_later": self.kept_later,
            "message": self.message(),
        }


def revert_change(home: Home, bot_id: str, row_id: str, actor: Actor | None = None) -> Reverted:
    """Revert one journal row alone; RevertConflict, NotUndoable or NotFound (one sentence) when it cannot be."""
    home = Home.of(home)
    result = MemoryStore(home, _known_bot(home, bot_id)).revert(row_id, actor)
    return Reverted(result.row.id, result.row.file, result.write.row_id, [r.id for r in result.later])


class RunHasLaterChanges(MemoryInputError):
    """Undoing the run would also throw away changes made after it to the same files: the person must agree."""

    def __init__(self, run_id: str, later: list[JournalRow], outside: list[str]) -> None:
        parts = []
        if later:
            names = ", ".join(f"{r.id} ({r.file}, {r.who}, {r.how}, {r.at[:16]})" for r in later[:5])
            more = f" and {len(later) - 5} more" if len(later) > 5 else ""
            parts.append(f"{plural(len(later), 'later change')} would be undone too: {names}{more}")
        if outside:
            parts.append(
                f"{', '.join(outside)} changed since where this journal cannot see (another bot, or "
                "outside the app), and that would go too"
            )
        super().__init__(f"Undoing run {run_id}: " + "; ".join(parts) + ".")
        self.later = later
        self.outside = outside


@dataclass
class RunUndo:
    """A run undone: per file, the run's first row on it and the undo row; the later rows undone with it."""

    run: str
    files: list[dict] = field(default_factory=list)  # {"file", "undo_of", "undo_row"}
    later: list[str] = field(default_factory=list)  # rows after the run that went too (agreed to)

    def message(self) -> str:
        files = ", ".join(item["file"] for item in self.files)
        later = f" ({plural(len(self.later), 'later change')} undone too)" if self.later else ""
        return f"Undid run {self.run}: {files} back as before it{later}."

    def to_dict(self) -> dict:
        return {"run": self.run, "files": self.files, "later": self.later, "message": self.message()}


@dataclass
class _FilePlan:
    first: JournalRow  # the run's first row on the file
    later: list[JournalRow]  # every row after it on the file, newest first
    foreign: list[JournalRow]  # of those, the rows that are not the run's own (nor a take-back of one of them)
    changed_unseen: bool  # the file is not what the last row left, and no row says why


def run_undo_later(
    home: Home, bot_id: str, run_id: str, rows: Sequence[str] | None = None
) -> RunHasLaterChanges | None:
    """What undoing the run would take with it, writing nothing: the later changes and the files changed
    unseen (None when there are none), so a person is asked once, naming them. NotUndoable as undo_run."""
    home = Home.of(home)
    store = MemoryStore(home, _known_bot(home, bot_id))
    with store.locked():
        store.sync_outside_changes()
        foreign, unseen, _ = _checked_plan(home, store, bot_id, run_id, rows)
    return RunHasLaterChanges(run_id, foreign, unseen) if foreign or unseen else None


def undo_run(
    home: Home,
    bot_id: str,
    run_id: str,
    *,
    yes: bool = False,
    agreed: Sequence[str] | None = None,
    unseen_ok: bool = False,
    actor: Actor | None = None,
    rows: Sequence[str] | None = None,
) -> RunUndo:
    """Put every file the run changed back as it was before the run's first change to it.

    Refuses (RunHasLaterChanges, nothing written) when other changes came after the run to those files,
    naming them, unless `yes` (whatever came), or `agreed` lists exactly those later rows (checked under the
    lock, so a row written after the person was asked is never undone unnamed); files changed unseen (About
    me by another bot) need `yes` or `unseen_ok`, which agrees to those alone, never to a later row.
    Refuses (NotUndoable, nothing written) when one of the run's first rows cannot be undone. `actor`: who the
    undo rows are by (the person by default; the nightly guard undoes as Memory upkeep, step `guard`). `rows`:
    another writer's group (a chat's turns, a day of the person's edits; core/review/changes.py), undone as one
    run is, `run_id` then naming the group."""
    home = Home.of(home)
    store = MemoryStore(home, _known_bot(home, bot_id))
    with store.locked():  # the plan and the undo see the same journal: nothing slips in between
        store.sync_outside_changes()
        foreign, unseen, plans = _checked_plan(home, store, bot_id, run_id, rows)
        named = agreed is not None and [row.id for row in foreign] == list(agreed)
        if (foreign and not (yes or named)) or (unseen and not (yes or unseen_ok)):
            raise RunHasLaterChanges(run_id, foreign, unseen)
        done = RunUndo(run_id, later=[row.id for row in foreign])
        # The files back in the reverse of the order the run first wrote them: a run moved a line to the archive
        # first and out of MEMORY.md after (the spec's archive-first rule), so MEMORY.md gets it back before the
        # archive lets it go, and a kill between the two leaves it in at least one file. `files` is
        # said in the run's order.
        for plan in reversed(plans):
            result = _undo_file(store, plan, actor or Actor(WHO_PERSON, HOW_UNDO))
            done.files.insert(0, {"file": plan.first.file, "undo_of": plan.first.id, "undo_row": result.write.row_id})
        return done


def _checked_plan(
    home: Home, store: MemoryStore, bot_id: str, run_id: str, row_ids: Sequence[str] | None = None
) -> tuple[list[JournalRow], list[str], list[_FilePlan]]:
    """The run's plan (or the group's of `row_ids`), every first row undoable: (later rows not the run's, files
    changed unseen, the plan)."""
    if row_ids is None:
        rows = find_run(home, bot_id, run_id)
    else:
        found = (store.journal.find(row_id) for row_id in row_ids)
        rows = sorted((row for row in found if row is not None), key=lambda row: row.at)
    if not rows:
        raise NotFound(f"There is no run {run_id} in the journal of {bot_id}.")
    plans = _plan(store, rows)
    for plan in plans:
        if not plan.first.undoable:
            raise NotUndoable(
                f"Run {run_id} cannot be undone whole: its change to {plan.first.file} (row "
                f"{plan.first.id}) cannot be undone: {plan.first.not_undoable_reason}."
            )
    foreign = [row for plan in plans for row in plan.foreign]
    unseen = [plan.first.file for plan in plans if plan.changed_unseen]
    return foreign, unseen, plans


def _plan(store: MemoryStore, rows: list[JournalRow]) -> list[_FilePlan]:
    own = {row.id for row in rows}
    plans = []
    for file in dict.fromkeys(row.file for row in rows):
        first = next(row for row in rows if row.file == file)
        later = store.journal.later_rows_for_file(first)
        undone = _undone_already(later)
        foreign = [r for r in later if r.id not in own and r.undo_of not in own and r.id not in undone]
        last = later[0] if later else first
        current = store.read(file)
        if first.before_hash is None and not current.exists:
            continue  # the run created it and it is gone already: it is as before the run
        plans.append(_FilePlan(first, later, foreign, changed_unseen=current.hash != last.after_hash))
    return plans


def _undone_already(later: list[JournalRow]) -> set[str]:
    """The rows among `later` (one file's, newest first) that an undo among them took back already, with that
    undo: an undo of row X puts the file back as before X, so X, every row after it up to the undo, and the undo
    itself leave the file as they found it (a later session's run undone before an earlier one's). Undoing the
    earlier run takes nothing of theirs that is still there, so no one is asked about them."""
    oldest_first = list(reversed(later))
    position = {row.id: index for index, row in enumerate(oldest_first)}
    undone: set[str] = set()
    for index, row in enumerate(oldest_first):
        start = position.get(row.undo_of or "")
        if start is not None:
            undone.update(r.id for r in oldest_first[start : index + 1])
    return undone


def _undo_file(store: MemoryStore, plan: _FilePlan, actor: Actor) -> UndoResult:
    later_ids = [row.id for row in plan.later]
    # Later rows: confirmed one by one (checked again under the lock). None: the file changed unseen, agreed to.
    return store.undo(plan.first.id, actor, confirmed_later=later_ids, force=not later_ids)


def _known_bot(home: Home, bot_id: str) -> str:
    """The bot, or a person's layer of it (the Review area reaches a layer from its bot; the command line's
    `--bot` refuses one before it gets here)."""
    return require_workspace(home, bot_id)
