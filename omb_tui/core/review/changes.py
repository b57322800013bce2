"""Everything that changed in a home's bots since the person last looked, by every writer: grouped bot → who →
change (docs/review.md, "Since I last looked").

Where runs.py lists the upkeep runs alone, this lists every journal row: an upkeep run, an agent's session (Claude
Code, Codex, any MCP client: one run each), a bot's turns in one chat, the person (the command line, the app, the
API), a change made outside the app, a copy brought in by import, and the nightly guard's undos. A group is:

- a run (`kind` upkeep, agent or guard): every row carrying its id, as the Review area's runs;
- a bot's chat (`kind` chat): every turn's rows in that chat, each turn its own run;
- a day (`kind` person, outside or import): the rows of that writer on that local day, which carry no run.

The person's own changes (the command line, the app, Settings, the API) are listed as seen already: they made
them. A change outside the app is not: a script or another program may have made it.

A person's layer of a bot (docs/team-cloud.md, "The app") has its own journal and marks: its groups are listed with
the bot's, each naming the person (`person`), and undone through the layer's store.

The window: since the person's last review mark of that bot or the start of the last three nights, whichever is
earlier (a person back after a week sees the week); `since` says otherwise. Reviewed groups are listed too, each
saying so, after the unreviewed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..base import clock
from ..base.errors import disk_refused
from ..files.paths import Home, split_layer
from ..journal.journal import Journal
from ..journal.when import when_text
from ..memory.store import MemoryStore
from ..people.layers import bot_workspaces
from .marks import MARKS_KEPT_DAYS, ReviewedMarks, load_marks, mark_reviewed
from .runs import (
    RUN_SLACK,
    BotReview,
    Change,
    Review,
    Run,
    UndoneTracker,
    bot_ids_of,
    change_of,
    default_since,
    last_night_start,
    moment_of,
    review,
    waiting_proposals,
)
from .tally import Tally
from .writers import (
    KIND_CHAT,
    KIND_PERSON,
    KIND_UPKEEP,
    KINDS,
    Writer,
    kind_of,
    writer_of,
)


@dataclass
class Group:
    """One writer's changes to one bot: a run, a chat's turns, or a day of the person's (module docstring)."""

    bot: str  # the workspace: the bot's id, or a person's layer of it (`<bot>--member-<person>`)
    kind: str
    id: str
    changes: list[Change] = field(default_factory=list)  # oldest first

    @property
    def person(self) -> str | None:
        """Whose layer of the bot the group changed; None for the bot's own memory."""
        return split_layer(self.bot)[1]

    @property
    def at(self) -> str:
        return self.changes[0].at if self.changes else ""

    @property
    def runs(self) -> list[str]:
        """The runs the group's changes belong to, oldest first (none for the person's, outside and import)."""
        return list(dict.fromkeys(change.run for change in self.changes if change.run))

    @property
    def reviewed(self) -> bool:
        return bool(self.changes) and all(change.reviewed for change in self.changes)

    @property
    def undone(self) -> bool:
        return bool(self.changes) and all(change.undone for change in self.changes)

    @property
    def one_run(self) -> bool:
        """Taken back whole as one run (an upkeep run, an agent's session, the guard's undo), not by its rows."""
        return self.runs == [self.id]

    @property
    def writer(self) -> Writer:
        """The writer in words (core/review/writers.py), and whose layer it wrote in when it was a person's."""
        return writer_of(self.changes, self.bot)

    @property
    def who(self) -> str:
        return self.writer.title

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "who": self.who,
            "person": self.person,
            "id": self.id,
            "at": self.at,
            "runs": self.runs,
            "reviewed": self.reviewed,
            "undone": self.undone,
            "changes": [change.to_dict() for change in self.changes],
        }


@dataclass
class BotChanges:
    bot: str
    since: datetime
    groups: list[Group] = field(default_factory=list)
    waiting: int = 0  # compaction proposals waiting for the person

    def tally(self) -> Tally:
        return Tally.of(self.groups, self.waiting)

    @property
    def count(self) -> int:
        return sum(len(group.changes) for group in self.groups)

    @property
    def unreviewed(self) -> int:
        return sum(len(group.changes) for group in self.groups if not group.reviewed)

    def to_dict(self) -> dict:
        return {
            "bot": self.bot,
            "since": self.since.isoformat(),
            "changes": self.count,
            "unreviewed": self.unreviewed,
            "runs": self.tally().runs,
            "others": self.tally().others,
            "pending": self.waiting,
            "groups": [group.to_dict() for group in self.groups],
        }


@dataclass
class Changes:
    """What changed in each bot with something in its window, the unreviewed first."""

    bots: list[BotChanges] = field(default_factory=list)
    given_since: datetime | None = None

    def lines(self) -> list[str]:
        """As the command line prints it: a bot's line, then each group's line and its changes indented."""
        if not self.bots:
            since = f" since {when_text(self.given_since.isoformat())}" if self.given_since else ""
            return [f"Nothing changed{since}."]
        out = []
        for bot in self.bots:
            seen = ", all reviewed" if bot.groups and not bot.unreviewed else ""
            out.append(f"{bot.bot}: {bot.tally().line()}{seen} (since {when_text(bot.since.isoformat())})")
            for group in bot.groups:
                state = " (undone)" if group.undone else (" (reviewed)" if group.reviewed else "")
                out.append(f"  {group.kind} {group.id}  {when_text(group.at)}  {group.who}{state}")
                out += [f"    {change.line()}" for change in group.changes]
        return out

    def to_dict(self) -> dict:
        return {
            "since": self.given_since.isoformat() if self.given_since else None,
            "bots": [bot.to_dict() for bot in self.bots],
        }


def since_last_look(marks: ReviewedMarks, now: datetime) -> datetime:
    """A bot's default window: from the earlier of its last review mark and the last three nights' start (never
    further back than the marks are kept)."""
    start = default_since(now)
    moments = (moment_of(at) for at in [*marks.runs.values(), *marks.rows.values()])
    last = max((moment for moment in moments if moment is not None), default=None)
    if last is not None and last < start:
        start = max(last, now.astimezone() - timedelta(days=MARKS_KEPT_DAYS))
    return start


def changes(
    home: Home, *, since: datetime | None = None, bot_ids: Iterable[str] | None = None, now: datetime | None = None
) -> Changes:
    """Every change to the home's bots (or `bot_ids`) in each bot's window, grouped bot → who → change. A person's
    layer of a bot is listed with the bot, in its own window (its own marks); the bot's `since` is the earliest."""
    home = Home.of(home)
    now = now or clock.now()
    found = Changes(given_since=since)
    for bot_id in bot_ids_of(home, bot_ids):
        starts, groups = [], []
        for workspace in bot_workspaces(home, bot_id):
            marks = load_marks(home, workspace)
            starts.append(since or since_last_look(marks, now))
            groups += bot_groups(home, workspace, starts[-1], marks)
        waiting = len(waiting_proposals(home, bot_id))
        if groups or waiting:
            found.bots.append(BotChanges(bot_id, min(starts), sorted(groups, key=_listed_order), waiting))
    found.bots.sort(key=lambda bot: not bot.unreviewed)  # stable: the home's order within each
    return found


def look_outside(home: Home, bot_ids: Iterable[str] | None = None) -> None:
    """Journal every edit made outside the app since the last look, in each workspace `changes` lists (a bot's and
    its people's layers), so the listing that follows shows it, as the app's areas look before they draw. On a
    home the disk refuses, nothing can be journaled: the listing is the journal as it is."""
    home = Home.of(home)
    for bot_id in bot_ids_of(home, bot_ids):
        for workspace in bot_workspaces(home, bot_id):
            try:
                MemoryStore(home, workspace).sync_outside_changes()
            except OSError as exc:
                if not disk_refused(exc):
                    raise


def bot_groups(home: Home, bot_id: str, since: datetime, marks: ReviewedMarks) -> list[Group]:
    """One bot's groups with a change since `since`: the unreviewed first, each part oldest first. A run that
    began up to RUN_SLACK before `since` is listed whole, as runs.py lists it."""
    since = since.astimezone()
    tracker = UndoneTracker()
    groups: dict[tuple[str, str], Group] = {}
    for row in Journal(home.journal_path(bot_id)).iter_newest_first():
        at = moment_of(row.at)
        if at is not None and at < since - RUN_SLACK:
            break
        undone_by = tracker.see(row)
        kind = kind_of(row.who, row.how, row.chat, row.person)
        key = (kind, _group_id(kind, row.run, row.chat, at))
        if at is not None and at < since and (not row.run or key not in groups):
            continue
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(bot_id, kind, key[1])
        reviewed = kind == KIND_PERSON or marks.has_row(row.id) or (row.run is not None and marks.has_run(row.run))
        group.changes.append(change_of(row, undone_by, reviewed))
    for group in groups.values():
        group.changes.reverse()  # read newest first; shown oldest first
    return sorted(groups.values(), key=_listed_order)


def _listed_order(group: Group) -> tuple:
    return (group.reviewed, group.at, KINDS.index(group.kind), group.id)


def _group_id(kind: str, run: str | None, chat: str | None, at: datetime | None) -> str:
    if kind == KIND_CHAT and chat:
        return chat
    if run:
        return run
    day = (at or clock.now()).astimezone().date().isoformat()
    return f"{kind}-{day}"


def mark_groups(home: Home, groups: Iterable[Group], *, now: datetime | None = None) -> int:
    """Mark groups reviewed (their runs whole, and the rows of no run); how many changes that covered."""
    by_bot: dict[str, tuple[set[str], set[str]]] = {}
    count = 0
    for group in groups:
        runs, rows = by_bot.setdefault(group.bot, (set(), set()))
        runs.update(group.runs)
        rows.update(change.id for change in group.changes if not change.run)
        count += len(group.changes)
    for bot_id, (runs, rows) in by_bot.items():
        mark_reviewed(home, bot_id, sorted(runs), sorted(rows), now=now)
    return count


def everyone(home: Home, *, now: datetime | None = None, since: datetime | None = None) -> Review:
    """The Review area's listing: `review`'s upkeep runs (with the guard's words and the proposals waiting) and
    every other writer's groups beside them, as runs of their kind, in one window: the earliest of the bots'
    "since I last looked", or `since`. A person's layer's groups are listed under its bot (`Run.person` names them)."""
    home = Home.of(home)
    now = now or clock.now()
    ids = home.bot_ids()
    workspaces = {bot_id: bot_workspaces(home, bot_id) for bot_id in ids}
    marks = {workspace: load_marks(home, workspace) for bot_id in ids for workspace in workspaces[bot_id]}
    if since is None:
        since = min((since_last_look(kept, now) for kept in marks.values()), default=default_since(now))
    found = review(home, since=since, only_new=False, now=now)
    for bot in found.bots:  # review() lists every run; the other writers' runs are listed below, grouped
        bot.runs = [run for run in bot.runs if not run.changes or _kind(run.changes[0]) == KIND_UPKEEP]
    listed = {bot.bot: bot for bot in found.bots}
    for bot_id in ids:
        others = [  # a layer's upkeep runs too: review() lists the bot's own alone
            _as_run(group)
            for workspace in workspaces[bot_id]
            for group in bot_groups(home, workspace, since, marks[workspace])
            if group.kind != KIND_UPKEEP or not group.runs or workspace != bot_id
        ]
        if not others:
            continue
        if bot_id not in listed:
            listed[bot_id] = BotReview(bot_id)
            found.bots.append(listed[bot_id])
        listed[bot_id].runs.extend(others)
    found.bots = [bot for bot in found.bots if bot.runs or bot.proposals]
    order = {bot_id: n for n, bot_id in enumerate(ids)}
    found.bots.sort(key=lambda bot: (not any(run.flagged for run in bot.runs), order.get(bot.bot, len(order))))
    return found


def _kind(change: Change) -> str:
    return kind_of(change.who, change.how, change.chat, change.person)


def _as_run(group: Group) -> Run:
    """Another writer's group as the Review area's tree shows a run: undone by its one run when it is one (an
    agent's session), else by its rows."""
    one_run = group.runs == [group.id]
    rows = None if one_run else [change.id for change in group.changes]
    return Run(
        group.id,
        group.bot,
        group.changes,
        group.reviewed,
        kind=group.kind,
        who=group.who,
        rows=rows,
        person=group.person,
    )


def overnight(home: Home, now: datetime | None = None) -> dict[str, Tally]:
    """Per bot: what changed since last night began (18:00 local the day before), by every writer, counted as the
    Review area counts it, and what waits. Every bot of the home has one (the bots screen's Night column)."""
    home = Home.of(home)
    now = now or clock.now()
    listed = {bot.bot: bot.tally() for bot in everyone(home, now=now, since=last_night_start(now)).bots}
    return {bot_id: listed.get(bot_id, Tally()) for bot_id in home.bot_ids()}
