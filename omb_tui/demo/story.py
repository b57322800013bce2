"""Telling one demo bot's history, one real change at a time (sample data: not part of the core).

Spec: memory.md, "The journal". A Story collects a bot's steps, each with the day it happened (days ago) and a
phase of that day, and tells them oldest first through the core, by the actor who would have made each change
(MemoryStore: atomic, 0600, redacted, journaled; MemoryUpdate: archive overflow, forget, prefer). Each step's
journal rows carry the simulated moment of that step (its day, at a time of day that follows its phase; a log
line's step at the line's own clock time); no row is later than the moment the demo ran (steps of today still
ahead of the clock are spread, in order, over the hour before it, and a log line says the time its row
carries), so at any hour nothing is in the future and a day's steps stay on their day.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from typing import NamedTuple

from ..core.base import clock
from ..core.files.disk import atomic_write_bytes, encode
from ..core.files.paths import MEMORY_FILE, Home
from ..core.journal.changes import Actor
from ..core.journal.journal import HOW_SETTINGS, HOW_TASK, HOW_UPKEEP, WHO_BOT, WHO_IMPORT, WHO_PERSON, WHO_UPKEEP
from ..core.memory.entries import format_dated_entry, mark_moved, parse_entries, render_entries
from ..core.memory.memory_update import ARCHIVE_REL, MemoryUpdate
from ..core.memory.store import MemoryStore
from ..core.recall.turn_log import append_log_line, turn_log_line, turn_log_source

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)
IMPORT = Actor(WHO_IMPORT, HOW_SETTINGS)
ROOMS = {"Studio standup"}
# When in its day a step happens: the nightly tidy-up first, routine turns open and close the day, everything
# else comes between; last night's upkeep pass (demo/night.py) after everything else of its day.
NIGHT, MORNING, DAYTIME, EVENING, LATE = -1, 0, 1, 2, 3
TIDY_HOUR = 3  # the demo config's tidyHour: the nightly tidy-up's steps are journaled at this hour
# Where a phase's steps without a clock time of their own begin, local time (see Story.moments).
PHASE_START = {NIGHT: time(TIDY_HOUR), MORNING: time(8, 30), DAYTIME: time(10), EVENING: time(18)}
# Turns in which the bot saved a note get a log line of their own this many days back (later days are written
# out by hand in demo/scout_logs.py).
AUTO_LOG_DAYS = range(14, 28)
LATE_STEPS_WITHIN = timedelta(hours=1)  # today's steps still ahead of the clock happen within this before it


# ----- telling a bot's history, one real change at a time -----
def _bot(chat: str) -> Actor:
    return Actor(WHO_BOT, HOW_TASK, chat)


def _upkeep(step: str, chat: str | None = None) -> Actor:
    return Actor(WHO_UPKEEP, HOW_UPKEEP, chat, step)


def with_line(text: str, line: str) -> str:
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{text}{line}\n"


def _source(chat: str) -> str:
    """How a note or a log line names the demo chat or room it came from (the turn log's one format)."""
    return turn_log_source(chat, chat in ROOMS)


def topic_header(title: str, description: str, aliases: tuple[str, ...]) -> str:
    return f"---\ntitle: {title}\ndescription: {description}\naliases: [{', '.join(aliases)}]\n---\n# {title}\n\n"


def is_weekend(day: date) -> bool:
    return day.weekday() >= 5


def short(day: date) -> str:
    """'14 March', as a person writes a date in a note."""
    return f"{day.day} {day:%B}"


@dataclass(frozen=True)
class Topic:
    title: str
    description: str
    aliases: tuple[str, ...]

    @property
    def header(self) -> str:
        return topic_header(self.title, self.description, self.aliases)


def _before(moments: list[datetime], now: datetime) -> list[datetime]:
    """`moments` (UTC, increasing) with those after `now` spread evenly, in order, over the last hour before it
    (not before the last moment already past, nor before now's local midnight: a step of today stays today), so
    none is in the future."""
    late = [i for i, moment in enumerate(moments) if moment > now]  # a tail: the moments increase
    if not late:
        return moments
    midnight = datetime.combine(now.astimezone().date(), time()).astimezone(UTC)
    start = max(midnight, now - LATE_STEPS_WITHIN, *moments[late[0] - 1 : late[0]])
    gap = (now - start) / (len(late) + 1)
    out = list(moments)
    for k, i in enumerate(late, 1):
        out[i] = (start + gap * k).replace(microsecond=0)  # whole seconds, as every other step
    return out


class Step(NamedTuple):
    ago: int
    phase: int
    order: int  # when it was queued: the order of steps of one day and phase
    clock: time | None  # the step's own time of day (a log line's), local time; None: placed by its phase
    action: Callable[[], object]


class Story:
    """One bot's history. Steps are collected with the day they happened (days ago) and told oldest first,
    so the journal reads in the order a person would have seen the changes, each at its own moment."""

    def __init__(self, home: Home, bot_id: str, today: date) -> None:
        self.home = home
        self.bot_id = bot_id
        self.today = today
        self.store = MemoryStore(home, bot_id)
        self.topics: dict[str, Topic] = {}
        self._steps: list[Step] = []
        self._turn_times: dict[int, int] = {}

    def day(self, ago: int) -> date:
        """The date `ago` days before today (negative: after today)."""
        return self.today - timedelta(days=ago)

    def tell(self, now: datetime | None = None) -> None:
        """Run the steps in order; each step's journal rows carry its moment (see moments)."""
        steps = sorted(self._steps, key=lambda step: (-step.ago, step.phase, step.order))
        try:
            for step, moment in zip(steps, self.moments(steps, now or clock.now_utc())):
                self.store.clock = lambda moment=moment: moment
                step.action()
        finally:
            self.store.clock = None
        self._steps.clear()

    def moments(self, steps: list[Step], now: datetime) -> list[datetime]:
        """When each step (in telling order) happened, in UTC, strictly increasing and never after `now`.

        A step with a clock time (a log line's turn) happens at it. A step without one, followed on its day and
        in its phase by one with a clock time, happens in the minutes just before it (the note a turn saved,
        just before the turn's log line); any other starts its phase (PHASE_START, a little later on some days)
        or comes a few minutes after the step before. Steps of today still ahead of `now` are spread, in order,
        over the hour before it (see _before).
        """
        second = timedelta(seconds=1)
        anchors: list[tuple[datetime, int] | None] = [None] * len(steps)  # next clock time of the day and phase
        following: tuple[datetime, int] | None = None
        for i in range(len(steps) - 1, -1, -1):
            step = steps[i]
            if step.clock is not None:
                following = (datetime.combine(self.day(step.ago), step.clock), 0)
            elif following is not None and (steps[i + 1].ago, steps[i + 1].phase) == (step.ago, step.phase):
                following = (following[0], following[1] + 1)  # this many steps, itself included, before it
            else:
                following = None
            anchors[i] = following if step.clock is None else None
        local: list[datetime] = []
        for step, anchor in zip(steps, anchors):
            day = self.day(step.ago)
            before = local[-1] if local and local[-1].date() == day else datetime.combine(day, time())
            if step.clock is not None:
                moment = datetime.combine(day, step.clock)
            elif anchor is not None:
                clock, count = anchor
                moment = max(clock - count * timedelta(minutes=1), before + (clock - before) / (count + 1))
            else:
                start = datetime.combine(day, PHASE_START[step.phase])
                if step.phase != NIGHT:
                    start += timedelta(minutes=step.ago * 37 % 50)
                moment = max(start, before + timedelta(minutes=4 + step.order * 7 % 23))
            local.append(moment.replace(microsecond=0))
        out: list[datetime] = []
        for moment in local:  # naive local time to UTC, then strictly increasing whatever the zone did
            moment = moment.astimezone(UTC)
            out.append(max(moment, out[-1] + second) if out else moment)
        return _before(out, now.astimezone(UTC))

    def _at(
        self,
        ago: int,
        action: Callable[..., object],
        *args: object,
        _phase: int = DAYTIME,
        _clock: time | None = None,
        **kwargs: object,
    ) -> None:
        self._steps.append(Step(ago, _phase, len(self._steps), _clock, partial(action, *args, **kwargs)))

    def at_clock(self, ago: int, clock: time, action: Callable[[], object]) -> None:
        """A step at its own time of day, after every other step of its day (last night's pass, demo/night.py)."""
        self._at(ago, action, _phase=LATE, _clock=clock)

    def _update(self, chat: str) -> MemoryUpdate:
        """memory_update by the bot during a task in `chat`, through this story's store (and so its clock)."""
        return MemoryUpdate(self.home, self.bot_id, _bot(chat), store=self.store)

    # -- the steps --
    def write(self, ago: int, rel: str, text: str, actor: Actor = PERSON) -> None:
        self._at(ago, self.store.write, rel, text, actor)

    def edit(self, ago: int, rel: str, change: Callable[[str], str], actor: Actor = PERSON) -> None:
        def run() -> None:
            current = self.store.read(rel)
            self.store.write(rel, change(current.text), actor, expected_hash=current.hash)

        self._at(ago, run)

    def outside(self, ago: int, rel: str, change: Callable[[str], str]) -> None:
        """A change made in another editor (Obsidian, say): written straight to disk, then seen by the app."""

        def run() -> None:
            mp = self.store.resolve(rel)
            atomic_write_bytes(mp.path, encode(change(self.store.read(rel).text)))
            self.store.sync_outside_changes()

        self._at(ago, run)

    def remember(self, ago: int, chat: str, fact: str, until: int | None = None) -> None:
        """memory_update add during a task (until: the last day, in days ago; negative is in the future)."""
        self._at(ago, self._remember, ago, chat, fact, until)
        self._log_turn(ago, chat, fact)

    def _remember(self, ago: int, chat: str, fact: str, until: int | None) -> None:
        update = self._update(chat)
        update.add(fact, today=self.day(ago), until=None if until is None else self.day(until))

    def notice(self, ago: int, chat: str, fact: str, *, topic: str | None = None, until: int | None = None) -> None:
        """Memory upkeep noticing a fact in a quiet chat: core facts to MEMORY.md, the rest to a topic."""
        line = format_dated_entry(
            self.day(ago), fact, source=_source(chat), noticed=True, until=None if until is None else self.day(until)
        )
        rel = MEMORY_FILE if topic is None else f"memory/{topic}"
        self._at(ago, self._append_line, rel, line, _upkeep("noticed facts", chat))

    def note(self, ago: int, chat: str, topic: str, fact: str) -> None:
        """The bot keeping a longer note in a topic file during a task."""
        line = format_dated_entry(self.day(ago), fact, source=_source(chat))
        self._at(ago, self._append_line, f"memory/{topic}", line, _bot(chat))
        self._log_turn(ago, chat, fact)

    def _append_line(self, rel: str, line: str, actor: Actor) -> None:
        current = self.store.read(rel)
        base = current.text if current.exists else self._new_file_text(rel)
        self.store.write(rel, with_line(base, line), actor, expected_hash=current.hash)

    def _new_file_text(self, rel: str) -> str:
        name = rel.removeprefix("memory/")
        return self.topics[name].header if name in self.topics else ""

    def supersede(self, ago: int, chat: str, old: str, new_fact: str) -> None:
        """The bot replacing a fact: the old bullet is struck through and dated, the new one added."""

        def run() -> None:
            current = self.store.read(MEMORY_FILE)
            entries = parse_entries(current.text)
            (entry,) = [e for e in entries if e.kind == "dated" and old in e.fact]
            body = entry.lines[0].rstrip("\n")[2:]
            entry.lines[0] = f"- ~~{body}~~ · superseded {self.day(ago).isoformat()}\n"
            text = with_line(render_entries(entries), format_dated_entry(self.day(ago), new_fact, source=_source(chat)))
            self.store.write(MEMORY_FILE, text, _bot(chat), expected_hash=current.hash)

        self._at(ago, run)

    def file_into_topics(self, ago: int, moves: dict[str, tuple[str, ...]]) -> None:
        """Memory upkeep organizing: detail lines move unchanged from MEMORY.md into their subject's topic.
        Each topic is written before MEMORY.md, so a line is never out of one without being in the other."""

        def run() -> None:
            actor = _upkeep("filed into topics")
            current = self.store.read(MEMORY_FILE)
            entries = parse_entries(current.text)
            moved: set[int] = set()
            for topic, fragments in moves.items():
                chosen = [i for i, e in enumerate(entries) if e.kind == "dated" and any(f in e.fact for f in fragments)]
                missing = [f for f in fragments if not any(f in entries[i].fact for i in chosen)]
                if missing:
                    raise ValueError(f"demo: nothing in {self.bot_id}'s MEMORY.md matches {missing}")
                rel = f"memory/{topic}"
                target = self.store.read(rel)
                base = target.text if target.exists else self._new_file_text(rel)
                for i in chosen:
                    base = with_line(base, entries[i].raw.rstrip("\n"))
                self.store.write(rel, base, actor, expected_hash=target.hash)
                moved.update(chosen)
            kept = [e for i, e in enumerate(entries) if i not in moved]
            self.store.write(MEMORY_FILE, render_entries(kept), actor, expected_hash=current.hash)

        self._at(ago, run)

    def tidy(self, ago: int) -> None:
        """The nightly tidy-up: expired entries move to the archive, marked `· moved DATE`, archive first."""

        def run() -> None:
            actor = _upkeep("tidy-up: moved expired notes")
            day = self.day(ago)
            current = self.store.read(MEMORY_FILE)
            entries = parse_entries(current.text)
            expired = {i for i, e in enumerate(entries) if e.kind == "dated" and e.expired(day)}
            if not expired:
                return
            archive = self.store.read(ARCHIVE_REL)
            text = archive.text
            for i in sorted(expired):
                text = with_line(text, mark_moved(entries[i], day).raw.rstrip("\n"))
            self.store.write(ARCHIVE_REL, text, actor, expected_hash=archive.hash)
            kept = [e for i, e in enumerate(entries) if i not in expired]
            self.store.write(MEMORY_FILE, render_entries(kept), actor, expected_hash=current.hash)

        self._at(ago, run, _phase=NIGHT)

    def _log_turn(self, ago: int, chat: str, fact: str) -> None:
        """The log line of the turn in which the bot saved a note: it confirms in one plain line."""
        if ago not in AUTO_LOG_DAYS:
            return
        minutes = self._turn_times.get(ago, 10 * 60 + 5)
        self._turn_times[ago] = minutes + 47
        said = f"Got it: {fact}" + ("" if fact.endswith(("?", ".")) else ".")
        self.log(ago, f"{minutes // 60:02d}:{minutes % 60:02d}", chat, said, "memory_update")

    def log(
        self, ago: int, clock: str, chat: str, said: str, tools: str = "", failed: bool = False, phase: int = DAYTIME
    ) -> None:
        """The harness's line for one finished turn in memory/log/YYYY-MM-DD.md, written by the turn log itself
        (turn_log_line and append_log_line), so the demo's logs read exactly like the ones real turns leave.
        `clock` is "HH:MM"; `tools` is comma-separated; a failed turn's `said` is what the person was told."""
        day = self.day(ago)
        at = time(*(int(part) for part in clock.split(":")))
        used = [tool.strip() for tool in tools.split(",") if tool.strip()]

        def run() -> None:
            # the line says the moment its row carries: a turn of today still ahead of now was moved before it
            moment = self.store.clock() if self.store.clock else datetime.combine(day, at)
            append_log_line(self.store, day, turn_log_line(_source(chat), said, used, failed, moment), _bot(chat))

        self._at(ago, run, _phase=phase, _clock=at)

    def delete(self, ago: int, rel: str, actor: Actor = PERSON) -> None:
        self._at(ago, self.store.delete, rel, actor)

    def forget(self, ago: int, chat: str, words: str) -> None:
        self._at(ago, lambda: self._update(chat).forget(words, today=self.day(ago)))

    def prefer(self, ago: int, chat: str, preference: str) -> None:
        self._at(ago, lambda: self._update(chat).prefer(preference, today=self.day(ago)))

    def undo_latest(self, ago: int) -> None:
        """The person pressing Undo in Settings on the change just made."""

        def run() -> None:
            (row,) = self.store.journal.rows(limit=1)
            self.store.undo(row.id, PERSON)

        self._at(ago, run)
