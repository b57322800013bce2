"""One guarded upkeep run of one bot (docs/guard.md): the night's budget and the write gate held while the
steps run, a step left out when the run has stopped or the step is skipped for the night, and, at the end, the
checks, the undo or flag, and the record the Review area reads.

The scheduler opens it around a bot's steps: `with NightGuard(home, bot, run, now) as guard:` then
`guard.allows(step)` before each step; `guard.outcome` afterwards says what the guard did.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from ..base import clock
from ..base.errors import disk_refused, oserror_sentence
from ..files.paths import MEMORY_FILE, Home, MemoryInputError, layer_id
from ..journal.changes import Actor
from ..journal.journal import HOW_UNDO, WHO_UPKEEP, now_iso
from ..memory.run_gates import gated_run
from ..memory.settings import load_config
from ..memory.store import MemoryStore
from ..models.night_budget import NightBudget, night_budget
from ..people.layers import bot_layers
from ..review.revert import undo_run
from ..review.runs import find_run
from ..runs.guard_record import amount_of, count_of, guard_line, night_totals, write_guard_record
from ..runs.run import UpkeepRun
from .checks import MemoryBefore, failed_check, short_fact
from .loops import NightGate, bullets_of, diff_facts, recent_upkeep
from .probes import (
    ProbeCheck,
    ProbeFile,
    gather_confirmed,
    make_probes,
    note_check,
    read_probes,
    run_probes,
    write_probes,
)
from .settings import GuardSettings, load_guard_settings


def night_of(now: datetime, tidy_hour: int) -> str:
    """The night a moment belongs to: the day of the latest tidy-up hour that has passed (a run at 01:00 is
    still last night's)."""
    return clock.latest_passed(now, time(tidy_hour)).date().isoformat()


@dataclass
class GuardOutcome:
    """What the guard did in one run: the bot's line in the report and the Review area say it."""

    run: str
    night: str
    stopped: str | None = None  # a limit was reached: the steps after it did not run
    steps_left_out: list[str] = field(default_factory=list)
    loops: int = 0
    no_ops: int = 0
    skipped_for_night: list[str] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    calls: int = 0  # the night's totals after this run
    tokens: int = 0
    usd: float = 0.0
    changed: int = 0
    allowed: int = 0
    failed: str | None = None  # a check after the run failed: why
    undone: bool = False
    flagged: bool = False
    undo_rows: list[str] = field(default_factory=list)
    probes: dict | None = None  # {"before", "after", "total"}

    def to_dict(self) -> dict:
        return {
            "run": self.run,
            "night": self.night,
            "stopped": self.stopped,
            "steps_left_out": self.steps_left_out,
            "loops": self.loops,
            "no_ops": self.no_ops,
            "skipped_for_night": self.skipped_for_night,
            "refused": self.refused,
            "calls": self.calls,
            "tokens": self.tokens,
            "usd": round(self.usd, 6),
            "changed": self.changed,
            "allowed": self.allowed,
            "failed": self.failed,
            "undone": self.undone,
            "flagged": self.flagged,
            "undo_rows": self.undo_rows,
            "probes": self.probes,
        }

    def line(self) -> str | None:
        return guard_line(self.to_dict())


log = logging.getLogger("omb_tui.guard")
GUARD_STEP = "guard"
GUARD_ACTOR = Actor(WHO_UPKEEP, HOW_UNDO, step=GUARD_STEP)  # the journal shows it as Memory upkeep · guard


class NightGuard:
    def __init__(
        self, home: Home, bot_id: str, run: UpkeepRun, now: datetime, settings: GuardSettings | None = None
    ) -> None:
        self.home = home
        self.bot_id = bot_id
        self.run = run
        self.now = now.astimezone()
        self.today: date = self.now.date()
        self.settings = settings or load_guard_settings(home)
        self.night = night_of(self.now, load_config(home).tidy_hour)
        self.store = MemoryStore(home, bot_id)
        self.outcome = GuardOutcome(run.id, self.night)
        self._contexts: list[Any] = []

    # ----- while the steps run -----
    def __enter__(self) -> NightGuard:
        totals = night_totals(self.home, self.bot_id, self.night)
        self.totals = totals
        settings = self.settings
        self.budget = NightBudget(
            settings.max_calls_per_night,
            settings.max_tokens_per_night,
            settings.max_usd_per_night,
            calls=count_of(totals.get("calls")),
            tokens=count_of(totals.get("tokens")),
            usd=amount_of(totals.get("usd")),
        )
        baseline = totals.get("baseline")
        if type(baseline) is not int:
            baseline = sum(bullets_of(self.store.read(MEMORY_FILE).text).values())
        futile = totals.get("futile")
        futile = futile if isinstance(futile, dict) else {}
        skipped = totals.get("skipped")
        skipped = skipped if isinstance(skipped, list) else []
        self.gate = NightGate(
            recent_upkeep(self.store, self.now, exclude_run=self.run.id),
            baseline,
            settings.max_changed_share,
            changed=count_of(totals.get("changed")),
            futile={str(k): count_of(v) for k, v in futile.items()},
            skipped=[str(step) for step in skipped],
        )
        self._skipped_before = list(self.gate.skipped)
        self._spent_at_start = self.budget.refusal()  # said already by the run that spent it
        self._began = now_iso()
        for context in (night_budget(self.home, self.bot_id, self.budget), gated_run(self.run.id, self.gate)):
            context.__enter__()
            self._contexts.append(context)
        try:
            self._probes_before()  # its call counts in the night's budget
            self.before = MemoryBefore.read(self.store, self.today)
        except BaseException:
            self._leave()
            raise
        return self

    def stop_reason(self) -> str | None:
        return self.gate.stopped or self.budget.refusal()

    def allows(self, step: str) -> bool:
        """Run this step now? Not when the run has stopped (a limit reached) or the step is skipped tonight."""
        if step in self.gate.skipped:
            return False
        reason = self.stop_reason()
        if reason:
            self.outcome.stopped = self.outcome.stopped or reason
            self.outcome.steps_left_out.append(step)
            return False
        return True

    def __exit__(self, *exc_info: object) -> None:
        self._leave()
        if exc_info[0] is None:
            self.finish()

    def _leave(self) -> None:
        for context in reversed(self._contexts):
            context.__exit__(None, None, None)
        self._contexts.clear()

    # ----- after the steps -----
    def finish(self) -> GuardOutcome:
        gate, budget, outcome = self.gate, self.budget, self.outcome
        if outcome.stopped is None:  # a limit reached inside the last step that ran: a call or a write refused
            outcome.stopped = gate.stopped or budget.stopped
        outcome.loops, outcome.no_ops, outcome.refused = gate.loops, gate.no_ops, gate.refused
        outcome.skipped_for_night = [step for step in gate.skipped if step not in self._skipped_before]
        outcome.calls, outcome.tokens, outcome.usd = budget.calls, budget.tokens, budget.usd
        outcome.changed, outcome.allowed = gate.changed, gate.allowed
        rows = find_run(self.home, self.bot_id, self.run.id)
        if rows:
            others = self._taken_out_by_others()
            outcome.failed = failed_check(self.before, self.store, rows, self.today, others) or self._probes_after()
            if outcome.failed:
                self._take_back()
        totals = {
            "calls": budget.calls,
            "tokens": budget.tokens,
            "usd": round(budget.usd, 6),
            "changed": gate.changed,
            "baseline": gate.baseline,
            "futile": gate.futile,
            "skipped": gate.skipped,
        }
        record: dict | None = outcome.to_dict() | {"at": clock.now().isoformat(timespec="seconds")}
        if self._spent_at_start and not rows and not outcome.failed:
            record = None  # the night was spent before this run began: the run that spent it says so, once
        write_guard_record(self.home, self.bot_id, self.run.id, record, self.night, totals, self.store)
        return outcome

    def _taken_out_by_others(self) -> set[str]:
        """The facts rows not of this run took out while it went on (an edit saved in the app meanwhile)."""
        gone: set[str] = set()
        for row in self.store.journal.iter_newest_first():
            if row.at < self._began:
                break
            if row.run != self.run.id:
                gone |= set(diff_facts(row.diff)[0])
        return gone

    def _probes_before(self) -> None:
        """Probes for what the person confirmed since the last run (one call, counted in the night's budget),
        then every probe run: which find their fact before the steps."""
        self.probe_file: ProbeFile | None = None
        self.probes_before: ProbeCheck | None = None
        try:
            found = read_probes(self.home, self.bot_id)
            gather_confirmed(self.store, found)
            if found.candidates:
                make_probes(self.store, found)
            if found.probes:
                self.probes_before = run_probes(self.store, found)
            write_probes(self.store, found)
            self.probe_file = found
        except (OSError, ValueError, MemoryInputError) as exc:  # the run goes on without recall checks
            # a disk that refuses writes fails the bot's run too, in its own line: this one would only repeat it
            level = logging.INFO if isinstance(exc, OSError) and disk_refused(exc) else logging.WARNING
            log.log(level, "guard: the probes of %s could not be read or run: %s", self.bot_id, oserror_sentence(exc))

    def _probes_after(self) -> str | None:
        """Run the probes again: the first that found its fact before the steps and does not now, said."""
        before, found = self.probes_before, self.probe_file
        if before is None or found is None:
            return None
        after = run_probes(self.store, found)
        note_check(self.store, found, after)
        self.outcome.probes = {"before": before.finding, "after": after.finding, "total": after.total}
        for was, now in zip(before.probes, after.probes):
            if was["finds"] and not now["finds"]:
                return f'the probe "{now["probe"]}" no longer finds "{short_fact(now["fact"])}"'
        return None

    def _take_back(self) -> None:
        """A check failed: undo the whole run as Memory upkeep (step `guard`), or, with rollback off or an undo
        that cannot be made without taking someone else's change with it, leave it and flag it."""
        outcome = self.outcome
        if not self.settings.rollback:
            outcome.flagged = True
            return
        undo_rows: list[str] = []
        try:
            # the bot's memory, then each person's layer the run wrote to (capture on a Team Cloud home)
            for workspace in self._written_workspaces():
                undone = undo_run(self.home, workspace, self.run.id, agreed=[], actor=GUARD_ACTOR)
                undo_rows += [item["undo_row"] for item in undone.files if item.get("undo_row")]
        except MemoryInputError as refused:  # a later change by someone else, or a row that cannot be undone
            outcome.flagged = True
            outcome.failed = f"{outcome.failed}; it could not be undone ({str(refused).rstrip('.')})"
            outcome.undo_rows = undo_rows
            return
        outcome.undone = True
        outcome.undo_rows = undo_rows

    def _written_workspaces(self) -> list[str]:
        """The bot and every layer of it whose journal holds a row of this run, the bot first (a run with no row
        anywhere: the bot's, whose undo says so)."""
        layers = [layer_id(self.bot_id, person) for person in bot_layers(self.home, self.bot_id)]
        if not layers:
            return [self.bot_id]
        written = [ws for ws in (self.bot_id, *layers) if find_run(self.home, ws, self.run.id)]
        return written or [self.bot_id]
