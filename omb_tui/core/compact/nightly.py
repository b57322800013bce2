"""Nightly compaction (`omb-tui compact BOT --auto`, and a step of `omb-tui upkeep --due`).

Spec: compact-memory.en.md, "The nightly run, step by step" and "When the nightly run fails"; docs/compact.md, "Nightly" and "Propose only"
(nightly, propose only). One run: a fresh session (`session.propose`) with a 10-minute limit over every attempt;
each attempt appended to attempts.log; then either nothing (an ERROR report: no valid change-set, no model, the file
changed meanwhile), or, in propose-only, the validated changes kept as pending, or a backup of MEMORY.md, the
changes written as Memory upkeep's rows with the run id (one per change), one memory-clean.log line per change
(the changes left when an editor saves MEMORY.md midway are kept as pending, and the report says so). The
report is composed by code (`report.compose_report`), printed by the command line and sent to the configured sink.
docs/compact.md gives every decision.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from ..base import clock
from ..base.errors import oserror_sentence
from ..files.paths import Home, MemoryInputError, NotFound
from ..journal.journal import now_iso
from ..memory.settings import BotSettings, load_bot_settings, set_bot_switches
from ..memory.store import MemoryStore
from ..runs.record import last_of, write_part
from ..runs.run import UpkeepRun
from .apply import apply_change_set
from .pending import add_pending
from .records import append_attempt, append_clean_log, backup_memory, clean_log_lines, compact_files
from .report import Report, compose_report
from .session import DEADLINE_S, MAX_ATTEMPTS, Proposal, propose
from .validator import FileChangedMeanwhile

STEP = "compact"  # the journal rows' step, and this step's key in memory-journal/<bot>.upkeep.json


class CompactionOff(MemoryInputError):
    """The bot's memory is switched off: nothing is compacted."""


@dataclass
class NightlyOutcome:
    report: Report
    propose_only: bool
    rows: list[str] = field(default_factory=list)  # journal rows written, one per applied change
    pending: list[str] = field(default_factory=list)  # ids kept as pending (propose-only)
    backup: str | None = None  # the backup's path
    sink: dict | None = None  # {"sink", "sent", "error"} when a sink is configured
    changed_meanwhile: bool = False  # MEMORY.md changed between the model's reading and the rewrite

    def to_dict(self) -> dict:
        return self.report.to_dict() | {
            "propose_only": self.propose_only,
            "rows": self.rows,
            "pending": self.pending,
            "backup": self.backup,
            "sink": self.sink,
        }


def propose_only_now(settings: BotSettings, today: date) -> bool:
    """compactProposeOnly when set; unset, the first PROPOSE_ONLY_FIRST_DAYS days after nightly was switched on
    (and always when the day it was switched on is unknown)."""
    return settings.compact_propose_only_on(today)


def switch_nightly(
    home: Home,
    bot_id: str,
    on: bool | None = None,
    propose_only: bool | None | Literal["unchanged"] = "unchanged",
    today: date | None = None,
) -> BotSettings:
    """Switch nightly compaction on or off and/or set propose-only (True, False, or None for the first-week rule).
    Switching it on notes the day, so the first week of proposals starts again."""
    values: dict[str, bool | None] = {}
    if on is not None:
        values["compactNightly"] = on
    if propose_only != "unchanged":
        values["compactProposeOnly"] = propose_only
    if not values:
        return load_bot_settings(home, home.require_bot(bot_id))
    return set_bot_switches(home, bot_id, values, today)


def compact_nightly(
    home: Home | str,
    bot_id: str,
    *,
    run: UpkeepRun | None = None,
    deadline_s: float = DEADLINE_S,
    today: date | None = None,
    propose_only: bool | None = None,
    send: bool = True,
) -> NightlyOutcome:
    """One nightly run for one bot; `propose_only` None follows the bot's settings. Never raises for a model or a
    file changed meanwhile: the report's first line says `Memory compact: ERROR — <why>`."""
    home = Home.of(home)
    if not home.has_bot(bot_id):
        raise NotFound(f"There is no bot {bot_id!r} in {home.root}.")
    settings = load_bot_settings(home, bot_id)
    if not settings.memory:
        raise CompactionOff(f"Memory is switched off for {bot_id}, so there is nothing to compact.")
    today = today or clock.today()
    run = run or UpkeepRun(bot_id)
    only_propose = propose_only_now(settings, today) if propose_only is None else propose_only
    proposal = propose(home, bot_id, deadline_s=deadline_s)
    _log_attempts(home, bot_id, run.id, proposal)
    outcome = _act(home, bot_id, run, proposal, only_propose)
    if send:
        outcome.sink = _send_to_sink(home, outcome.report)
    _record(home, bot_id, outcome)
    return outcome


def _act(home: Home, bot_id: str, run: UpkeepRun, proposal: Proposal, only_propose: bool) -> NightlyOutcome:
    attempts = len(proposal.attempts)
    log = compact_files(home, bot_id).attempts_log

    def failed(why: str) -> NightlyOutcome:
        return NightlyOutcome(
            compose_report(bot_id, run.id, [], error=why, attempts=attempts, attempts_log=log), only_propose
        )

    if proposal.error:
        return failed(proposal.error)
    if not proposal.changes:
        return NightlyOutcome(compose_report(bot_id, run.id, [], attempts=attempts), only_propose)
    if only_propose:
        waiting = add_pending(home, bot_id, run.id, proposal.changes)
        report = compose_report(bot_id, run.id, proposal.changes, attempts=attempts, proposed=True)
        return NightlyOutcome(report, True, pending=[item.id for item in waiting])
    backup = backup_memory(home, bot_id, proposal.text)  # the text the model read: what the rewrite starts from
    try:
        written = apply_change_set(MemoryStore(home, bot_id), proposal.read_hash, proposal.changes, run.actor(STEP))
    except FileChangedMeanwhile as changed:
        outcome = failed(str(changed))
        outcome.changed_meanwhile = True
        return outcome
    applied = [item.change for item in written.applied]
    append_clean_log(home, bot_id, clean_log_lines(run.id, applied))
    kept, not_kept = _keep_not_applied(home, bot_id, run, written.not_applied)
    report = compose_report(
        bot_id, run.id, applied, attempts=attempts, not_applied=len(written.not_applied), not_kept=not_kept
    )
    return NightlyOutcome(report, False, rows=written.rows, pending=kept, backup=str(backup))


def _keep_not_applied(home: Home, bot_id: str, run: UpkeepRun, left: list) -> tuple[list[str], str | None]:
    """An editor saved MEMORY.md between two of the run's writes: the changes left wait for the person as
    proposals (checked again on accept). Their ids, or none and why they could not be kept."""
    if not left:
        return [], None
    try:
        return [item.id for item in add_pending(home, bot_id, run.id, left)], None
    except (MemoryInputError, OSError) as exc:  # a damaged pending.json: the report says they were dropped
        return [], oserror_sentence(exc)


def _log_attempts(home: Home, bot_id: str, run_id: str, proposal: Proposal) -> None:
    for number, attempt in enumerate(proposal.attempts, 1):
        append_attempt(home, bot_id, run_id, number, attempt.answer, attempt.errors)
    if proposal.error and len(proposal.attempts) < MAX_ATTEMPTS:
        # an attempt with no answer (no model, or none in time): the log still says why nothing was applied
        append_attempt(home, bot_id, run_id, len(proposal.attempts) + 1, None, [proposal.error])


def send_later(home: Home, outcome: NightlyOutcome, line: str | None) -> None:
    """Send a report kept back (`send=False`) once the nightly guard has had its say: its line, when it has one
    (the run was stopped, undone or flagged), ends the report's text (docs/guard.md)."""
    if line:
        text = f"{outcome.report.text.rstrip()}\n{line[:1].upper()}{line[1:]}."
        outcome.report = dataclasses.replace(outcome.report, text=text)
    outcome.sink = _send_to_sink(home, outcome.report)


def _send_to_sink(home: Home, report: Report) -> dict | None:
    """The report to the sink config.json's `compact.report` names; None when there is none. A sink that fails
    is one sentence here, never the run's failure (docs/compact-nightly.md)."""
    from .sinks import send_report  # only a run that reports needs subprocess and urllib

    result = send_report(home, report)
    if result.sink is None and result.error is None:
        return None
    return {"sink": result.sink, "sent": result.sent, "error": result.error}


# ----- the last run, for the scheduler -----
def last_compaction(home: Home, bot_id: str) -> dict | None:
    """The last nightly run of the bot (`at`, `run`, `applied`, `proposed`, `error`), or None when it never ran."""
    return last_of(home, bot_id, STEP)


def last_compaction_at(home: Home, bot_id: str) -> datetime | None:
    last = last_compaction(home, bot_id)
    with contextlib.suppress(TypeError, ValueError):
        return datetime.fromisoformat(last["at"].replace("Z", "+00:00")) if last else None
    return None


def _record(home: Home, bot_id: str, outcome: NightlyOutcome) -> None:
    """Keep the last run under "compact" in the upkeep record, every other part as it is."""
    summary = {
        "at": now_iso(),
        "run": outcome.report.run,
        "applied": len(outcome.rows),
        "proposed": len(outcome.pending),
        "error": outcome.report.error,
    }
    write_part(home, bot_id, STEP, {"last": summary})
