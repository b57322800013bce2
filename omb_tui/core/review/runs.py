"""The upkeep runs to review, across every bot of a home: grouped bot → run → change.

Spec: memory.md, "The journal", and docs/review.md. A run is every journal row carrying the same `run` id
(capture, organize, tidy-up and compact steps write them; an interactive compaction too). A change is one
row: its file, step, diff and note (a capture's quotes, a compaction's category and reason, the note of
the other steps), whether it can be undone, and whether it already was.

Reading is newest first from the end of each journal, stopping at the since time (less RUN_SLACK, so a run
that started just before it is listed whole). Decisions (the default window, what "last night" is, the
order): docs/review.md.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING

from ..base import clock
from ..files.paths import Home, MemoryInputError, quoted, validate_bot_id
from ..journal.journal import HOW_UNDO, Journal, JournalRow
from ..journal.when import when_text
from ..runs.guard_record import guard_line, read_guard_record
from .marks import ReviewedMarks, load_marks
from .tally import Tally
from .writers import KIND_UPKEEP, Writer, row_words, writer_of

if TYPE_CHECKING:  # compaction pulls in the model layer: the bots screen's counts need it only when proposals wait
    from ..compact.pending import PendingChange

log = logging.getLogger("omb_tui.review")

NIGHT_STARTS = time(18)  # "last night" is every run since this hour (local) of the day before today
DEFAULT_NIGHTS = 3  # the default listing looks back this many nights
RUN_SLACK = timedelta(hours=1)  # a run that started this long before the since time is still listed whole
STEP_CAPTURE = "capture"
STEP_COMPACT = "compact"
_QUOTES_PREFIX = "quotes: "
_QUOTE_SEPARATOR = '" · "'
_CATEGORY = re.compile(r"^([a-z][a-z-]*): (.+)$", re.DOTALL)


def last_night_start(now: datetime) -> datetime:
    """Where "last night" begins: 18:00 local time on the day before `now`'s day."""
    local = now.astimezone()
    return datetime.combine(local.date() - timedelta(days=1), NIGHT_STARTS).astimezone()


def default_since(now: datetime) -> datetime:
    """The default window: the last DEFAULT_NIGHTS nights (18:00 local, that many days before today)."""
    local = now.astimezone()
    return datetime.combine(local.date() - timedelta(days=DEFAULT_NIGHTS), NIGHT_STARTS).astimezone()


@dataclass
class Change:
    """One journal row of a run: what one step changed in one file."""

    id: str
    bot: str
    run: str
    at: str  # ISO, UTC
    file: str
    step: str | None
    who: str
    how: str
    diff: str
    note: str | None
    chat: str | None
    undoable: bool
    not_undoable_reason: str | None
    undone_by: str | None = None  # the row that took this change back (an undo, or a revert of it alone)
    reviewed: bool = False
    person: str | None = None  # a Team Cloud person's own change (the journal row's `person`)

    @property
    def undone(self) -> bool:
        return self.undone_by is not None

    @property
    def quotes(self) -> list[str]:
        """A capture's quotes: the person's words the fact rests on (its note `quotes: "q1" · "q2"`)."""
        return parse_quotes(self.note) if self.step == STEP_CAPTURE else []

    @property
    def category(self) -> str | None:
        """A compaction's category (its note `category: reason`)."""
        found = _CATEGORY.match(self.note or "") if self.step == STEP_COMPACT else None
        return found.group(1) if found else None

    @property
    def reason(self) -> str | None:
        """Why the change was made, in words: a compaction's reason, or any other step's note (not quotes)."""
        if self.quotes:
            return None
        found = _CATEGORY.match(self.note or "") if self.step == STEP_COMPACT else None
        return found.group(2) if found else self.note

    def line(self) -> str:
        """The change on one line: id, local time, file, step (or category, or its writer when it has no step), its
        quotes or reason, its state."""
        said = " · ".join(f'"{q}"' for q in self.quotes) or self.reason or ""
        state = " [undone]" if self.undone else ("" if self.undoable else f" [cannot undo: {self.not_undoable_reason}]")
        kind = f"{self.step} {self.category}" if self.category else self.step or row_words(self, self.bot)
        said = said.removeprefix(f"{kind}: ")  # a note that names its step already ("tidy-up: …") says it once
        said = f": {said}" if said else ""
        return f"{self.id}  {when_text(self.at)[11:]}  {self.file}  {kind}{said}{state}"

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "run": self.run,
            "at": self.at,
            "file": self.file,
            "step": self.step,
            "who": self.who,
            "how": self.how,
            "diff": self.diff,
            "note": self.note,
            "chat": self.chat,
            "category": self.category,
            "reason": self.reason,
            "quotes": self.quotes,
            "undoable": self.undoable,
            "not_undoable_reason": self.not_undoable_reason,
            "undone": self.undone,
            "undone_by": self.undone_by,
            "reviewed": self.reviewed,
        }


@dataclass
class Run:
    """Every change of one upkeep run of one bot, oldest first."""

    id: str
    bot: str
    changes: list[Change] = field(default_factory=list)
    reviewed: bool = False  # the run was marked reviewed (or every one of its changes was)
    guard: dict | None = None  # what the nightly guard did in it (runs/guard_record.py), when it said something
    at: str = ""  # when the guard ended a run that changed nothing
    kind: str = "upkeep"  # or another writer's group, as changes.py groups them: agent, chat, person, outside, …
    who: str | None = None  # that writer in words (an upkeep run's steps say it)
    rows: list[str] | None = None  # a group undone by its rows, not by one run id (a chat's turns, a day's edits)
    person: str | None = None  # whose layer of the bot it changed (`bot` is then the layer's id), else None

    def mark_ids(self) -> tuple[list[str], list[str]]:
        """What marks it reviewed: (runs, each whole; rows that belong to no run)."""
        if self.rows is None:
            return [self.id], []
        runs = list(dict.fromkeys(change.run for change in self.changes if change.run))
        return runs, [change.id for change in self.changes if not change.run]

    @property
    def started(self) -> str:
        return self.changes[0].at if self.changes else self.at

    @property
    def one_run(self) -> bool:
        """Taken back whole as one run (an upkeep run, an agent's session, the guard's undo), not by its rows."""
        return self.rows is None

    @property
    def guard_line(self) -> str | None:
        return guard_line(self.guard) if self.guard else None

    @property
    def flagged(self) -> bool:
        """A check failed after the run and it was left in place (`upkeep.guard.rollback: false`, or the undo was
        refused): the Review area lists it first."""
        return bool(self.guard and self.guard.get("failed") and not self.guard.get("undone"))

    @property
    def steps(self) -> list[str]:
        """The steps that changed something, in the order they first did (a bot's row names none: its how)."""
        return list(dict.fromkeys(c.step or c.how for c in self.changes))

    @property
    def writer(self) -> Writer:
        """Who made the run, in words (core/review/writers.py)."""
        return writer_of(self.changes, self.bot)

    @property
    def title(self) -> str:
        """An upkeep run by its steps ("capture, tidy-up"), another writer's as its writer ("Claude Code, session …")."""
        if self.changes and self.writer.kind != KIND_UPKEEP:
            return self.who or self.writer.title
        return ", ".join(self.steps)

    @property
    def files(self) -> list[str]:
        return list(dict.fromkeys(c.file for c in self.changes))

    @property
    def undone(self) -> bool:
        return bool(self.changes) and all(c.undone for c in self.changes)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "bot": self.bot,
            "person": self.person,
            "started": self.started,
            "steps": self.steps,
            "files": self.files,
            "reviewed": self.reviewed,
            "undone": self.undone,
            "guard": self.guard_line,
            "flagged": self.flagged,
            "changes": [c.to_dict() for c in self.changes],
        }


@dataclass
class BotReview:
    """One bot's runs in the window, oldest first, and how many compaction proposals wait for the person."""

    bot: str
    runs: list[Run] = field(default_factory=list)
    proposals: list[PendingChange] = field(default_factory=list)  # compaction proposals waiting, oldest first

    @property
    def pending(self) -> int:
        return len(self.proposals)

    @property
    def changes(self) -> int:
        return sum(len(run.changes) for run in self.runs)

    def tally(self) -> Tally:
        return Tally.of(self.runs, self.pending)

    def to_dict(self) -> dict:
        return {
            "bot": self.bot,
            "pending": self.pending,
            "changes": self.changes,
            "runs": [run.to_dict() for run in self.runs],
            "proposals": [proposal.to_dict() for proposal in self.proposals],
        }


@dataclass
class Review:
    """What there is to review: the window it covers and, per bot with something in it, its runs."""

    since: datetime
    only_new: bool
    bots: list[BotReview] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # one sentence per file that could not be read

    def lines(self) -> list[str]:
        """The listing as the command line prints it: a bot's line, its runs, each run's changes indented."""
        out = [f"Not read: {why}" for why in self.unread]
        if not self.bots:
            return out + [
                f"Nothing {'new ' if self.only_new else ''}to review since {when_text(self.since.isoformat())}."
            ]
        for bot in self.bots:
            out.append(f"{bot.bot}: {bot.tally().line()}")
            for run in bot.runs:
                state = " (undone)" if run.undone else (" (reviewed)" if run.reviewed else "")
                state = " (flagged)" if run.flagged else state
                out.append(f"  run {run.id}  {when_text(run.started)}  {run.title}{state}")
                if run.guard_line:
                    out.append(f"    {run.guard_line}")
                out += [f"    {change.line()}" for change in run.changes]
        return out

    def to_dict(self) -> dict:
        return {
            "since": self.since.isoformat(),
            "only_new": self.only_new,
            "unread": self.unread,
            "bots": [bot.to_dict() for bot in self.bots],
        }


def parse_quotes(note: str | None) -> list[str]:
    """The quotes of a capture row's note `quotes: "q1" · "q2"`; [] for any other note."""
    if not note or not note.startswith(_QUOTES_PREFIX + '"') or not note.endswith('"'):
        return []
    return note[len(_QUOTES_PREFIX) + 1 : -1].split(_QUOTE_SEPARATOR)


def review(
    home: Home,
    *,
    since: datetime | None = None,
    bot_ids: Iterable[str] | None = None,
    only_new: bool | None = None,
    now: datetime | None = None,
) -> Review:
    """The runs to review across the home's bots (or `bot_ids`).

    Default: the runs not yet reviewed of the last DEFAULT_NIGHTS nights. With `since`, every run since then,
    reviewed or not (each says which), unless `only_new` says otherwise."""
    home = Home.of(home)
    now = now or clock.now()
    if only_new is None:
        only_new = since is None
    since = since or default_since(now)
    ids = bot_ids_of(home, bot_ids)
    found = Review(since, only_new)
    for bot_id in ids:
        marks = load_marks(home, bot_id)
        runs = bot_runs(home, bot_id, since, marks)
        if only_new:
            runs = [run for run in runs if not run.reviewed]
        proposals, unread = _read_proposals(home, bot_id)
        if unread:
            found.unread.append(unread)
        if runs or proposals:
            found.bots.append(BotReview(bot_id, runs, proposals))
    found.bots.sort(key=lambda bot: not any(run.flagged for run in bot.runs))  # a flagged run first; stable
    return found


def bot_runs(
    home: Home, bot_id: str, since: datetime, marks: ReviewedMarks | None = None, *, whole_runs: bool = True
) -> list[Run]:
    """One bot's runs with a change since `since`, oldest first, each change marked undone when it was.

    Reads the journal newest first and stops at `since` (with `whole_runs`, at RUN_SLACK before it, taking
    only the rows of runs already found there, so a run that began just before `since` is listed whole)."""
    marks = marks or load_marks(home, bot_id)
    since = since.astimezone()
    stop = since - RUN_SLACK if whole_runs else since
    tracker = UndoneTracker()
    runs: dict[str, Run] = {}
    for row in Journal(home.journal_path(bot_id)).iter_newest_first():
        at = moment_of(row.at)
        if at is not None and at < stop:
            break
        undone_by = tracker.see(row)
        if not row.run or (at is not None and at < since and row.run not in runs):
            continue
        run = runs.get(row.run)
        if run is None:
            run = runs[row.run] = Run(row.run, bot_id)
        run.changes.append(change_of(row, undone_by, marks.has_row(row.id) or marks.has_run(row.run)))
    _add_guard(home, bot_id, since, runs)
    ordered = []
    for run in runs.values():
        run.changes.reverse()  # read newest first; shown oldest first
        run.reviewed = marks.has_run(run.id) or (bool(run.changes) and all(c.reviewed for c in run.changes))
        ordered.append(run)
    ordered.sort(key=lambda run: (not run.flagged, run.started, run.id))  # a run the guard flagged first
    return ordered


def _add_guard(home: Home, bot_id: str, since: datetime, runs: dict[str, Run]) -> None:
    """What the guard said of each run, and the runs it stopped or undid before they changed anything (else
    they would not be listed, and the Review area could not say why the night did nothing)."""
    for run_id, outcome in read_guard_record(home, bot_id)["runs"].items():
        if not isinstance(outcome, dict) or guard_line(outcome) is None:
            continue
        if run_id in runs:
            runs[run_id].guard = outcome
            continue
        at = moment_of(outcome["at"]) if isinstance(outcome.get("at"), str) else None
        if at is not None and at >= since:
            runs[run_id] = Run(run_id, bot_id, guard=outcome, at=at.astimezone(UTC).isoformat(timespec="milliseconds"))


def find_run(home: Home, bot_id: str, run_id: str) -> list[JournalRow]:
    """Every row of one run, oldest first ([] when the journal has none). Reads back until the run began
    (its id starts with its UTC start time), so an old run costs a longer read, never a wrong answer."""
    started = _run_start(run_id)
    rows = []
    for row in Journal(home.journal_path(bot_id)).iter_newest_first():
        if row.run == run_id:
            rows.append(row)
        elif rows and started is not None:
            at = moment_of(row.at)
            if at is not None and at < started - RUN_SLACK:
                break
    rows.reverse()
    return rows


def waiting_proposals(home: Home, bot_id: str) -> list[PendingChange]:
    """The compaction proposals waiting for the person, oldest first ([] when they cannot be read)."""
    return _read_proposals(home, bot_id)[0]


def _read_proposals(home: Home, bot_id: str) -> tuple[list[PendingChange], str | None]:
    """The waiting proposals, or none and the sentence saying why they could not be read."""
    from ..compact.records import compact_files

    if not compact_files(home, bot_id).pending.exists():
        return [], None  # none ever proposed: no need to load compaction at all
    from ..compact.pending import pending_changes

    try:
        return pending_changes(home, bot_id), None
    except ValueError as exc:  # a damaged pending file (BrokenFile) is named, and the listing still shows
        why = str(exc)
    except OSError as exc:
        why = f"The pending proposals of {bot_id} could not be read: {exc.strerror or exc}."
    log.warning("the pending proposals of %s could not be read: %s", bot_id, why)
    return [], why


def pending_count(home: Home, bot_id: str) -> int:
    """How many compaction proposals wait for the person."""
    return len(waiting_proposals(home, bot_id))


class UndoneTracker:
    """Which rows were taken back, told row by row from the newest.

    A revert row takes back its one row. An undo row puts its file back to before its row, so it takes back
    that row and every later row on the same file before the undo itself. An undo or revert that was itself
    undone takes nothing back."""

    def __init__(self) -> None:
        self.reverted: dict[str, str] = {}  # row id -> the revert row
        self.undoing: dict[str, list[tuple[str, str]]] = {}  # file -> [(the row undone back to, the undo row)]

    def see(self, row: JournalRow) -> str | None:
        """The row that took `row` back, or None; then note what `row` itself takes back."""
        covering = self.undoing.get(row.file, [])
        undone_by = self.reverted.pop(row.id, None) or (covering[0][1] if covering else None)
        if covering:
            self.undoing[row.file] = [(target, by) for target, by in covering if target != row.id]
        if row.undo_of and undone_by is None:
            if row.how == HOW_UNDO:
                self.undoing.setdefault(row.file, []).append((row.undo_of, row.id))
            else:
                self.reverted[row.undo_of] = row.id
        return undone_by


def change_of(row: JournalRow, undone_by: str | None, reviewed: bool) -> Change:
    return Change(
        id=row.id,
        bot=row.bot,
        run=row.run or "",
        at=row.at,
        file=row.file,
        step=row.step,
        who=row.who,
        how=row.how,
        diff=row.diff,
        note=row.note,
        chat=row.chat,
        undoable=row.undoable,
        not_undoable_reason=row.not_undoable_reason,
        undone_by=undone_by,
        reviewed=reviewed,
        person=row.person,
    )


def bot_ids_of(home: Home, bot_ids: Iterable[str] | None) -> list[str]:
    if bot_ids is None:
        return home.bot_ids()
    ids = []
    for bot_id in bot_ids:
        if not home.has_bot(validate_bot_id(bot_id)):
            raise MemoryInputError(f"There is no bot {quoted(bot_id)}.")
        ids.append(bot_id)
    return ids


def moment_of(at: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(at)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else moment.astimezone()


def _run_start(run_id: str) -> datetime | None:
    """A run id's start time (`20261201T031500-1a2b3c` began at 03:15:00 UTC), or None for another shape."""
    try:
        return datetime.strptime(run_id[:15] + "+0000", "%Y%m%dT%H%M%S%z")
    except ValueError:
        return None
