"""Scheduling upkeep: what is due, the locks it respects, and running many bots with a bound. It drives upkeep's
steps and nightly compaction, so it sits on the floor above both (neither imports it).

Spec: memory.md, "Memory upkeep" (the nightly tidy-up "once a day after 3 am (`memory.tidyHour`), or at the
next check if the computer was asleep, never while the bot is working"; "Upkeep pauses while a backup runs").

Locks, all advisory flocks under the home, so a cron job, the app and a harness see each other:
- `upkeep.lock`: held by a run of `omb-tui upkeep --due`; a second run finds it held and exits at once.
- `backup.lock`: a backup script holds it while it copies the home (`flock ~/.openmausbot/backup.lock tar …`);
  upkeep runs nothing while it is held.
- a bot's turn lock (`omb_tui.core.files.locks`): upkeep skips a bot that is in a turn, and holds the lock
  while it works on the bot, so a turn starting meanwhile waits for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, time
from pathlib import Path
from typing import NamedTuple, TypeVar

from .base import clock
from .base.errors import oserror_sentence
from .compact.nightly import NightlyOutcome, compact_nightly, last_compaction_at, send_later
from .files.locks import held_exclusively, no_turn_running
from .files.paths import Home
from .guard.night import NightGuard
from .guard.still_true import note_contradicted
from .memory.settings import load_bot_settings, load_config
from .models.call import concurrent_calls
from .models.instances import NO_MODEL_CONNECTED, is_no_model
from .runs.guard_record import guard_line
from .runs.run import UpkeepRun
from .upkeep.capture import capture
from .upkeep.capture_state import capture_due
from .upkeep.organize import organize
from .upkeep.tidy import last_tidy, tidy

DEFAULT_CONCURRENCY = 8
UPKEEP_LOCK = "upkeep.lock"
BACKUP_LOCK = "backup.lock"

T = TypeVar("T")
R = TypeVar("R")


def upkeep_lock_path(home: Home) -> Path:
    return home.root / UPKEEP_LOCK


def backup_lock_path(home: Home) -> Path:
    return home.root / BACKUP_LOCK


def backup_running(home: Home) -> bool:
    """Is a backup holding `backup.lock` now? Never waits, and never keeps the lock."""
    path = backup_lock_path(home)
    if not path.exists():
        return False
    with held_exclusively(path) as free:
        return not free


def tidy_due(last_tidy: datetime | None, now: datetime, tidy_hour: int) -> bool:
    """Once a day after `tidy_hour` (local time): due when no tidy-up ran since the latest such hour that has
    passed, so a machine that slept through it tidies at its next check."""
    return last_tidy is None or last_tidy.astimezone() < clock.latest_passed(now, time(tidy_hour))


def run_bounded(
    items: Iterable[T],
    work: Callable[[T], R],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    done: Callable[[T, R | BaseException], None] | None = None,
) -> list[tuple[T, R | BaseException]]:
    """Run work over items, at most `concurrency` at a time (model calls wait on the network, so threads
    overlap them); an item's exception is its result, never the run's end. `done` is told as each finishes."""
    if concurrency < 1:
        raise ValueError("concurrency must be 1 or more")
    results: list[tuple[T, R | BaseException]] = []
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="upkeep") as pool:
        futures = {pool.submit(work, item): item for item in items}
        for future in as_completed(futures):
            item = futures[future]
            try:
                outcome: R | BaseException = future.result()
            except Exception as exc:  # one bot's failure is its own line in the summary
                outcome = exc
            results.append((item, outcome))
            if done is not None:
                done(item, outcome)
    return results


# ----- one run over every bot: `omb-tui upkeep --due` -----
@dataclass
class BotUpkeep:
    """What one run did for one bot: each step's report (None: not due), or why the bot was left alone."""

    bot: str
    run: str | None = None
    capture: dict | None = None
    organize: dict | None = None
    tidy: dict | None = None
    compact: dict | None = None  # nightly compaction's outcome, for bots where it is switched on
    left_alone: str | None = None  # upkeep off, in a turn, failed: one sentence
    failed: bool = False  # the run stopped on this bot (a read-only home, a damaged file): `upkeep --due` exits 1
    guard: dict | None = None  # what the nightly guard did (guard.night.GuardOutcome.to_dict)
    vectors: dict | None = None  # with embeddings on: the index's missing vectors made (index_vectors.VectorReport)

    def to_dict(self) -> dict:
        return {
            "bot": self.bot,
            "run": self.run,
            "capture": self.capture,
            "organize": self.organize,
            "tidy": self.tidy,
            "compact": self.compact,
            "left_alone": self.left_alone,
            "failed": self.failed,
            "guard": self.guard,
            **({"vectors": self.vectors} if self.vectors is not None else {}),
        }

    @property
    def no_model(self) -> bool:
        """A step found no model connected at all: its line leaves the sentence out, and the run says it once."""
        said = [
            (self.capture or {}).get("reason"),
            (self.organize or {}).get("reason"),
            (self.tidy or {}).get("model"),
            (self.compact or {}).get("error"),
        ]
        return any(is_no_model(reason) for reason in said)

    def line(self) -> str:
        if self.left_alone:
            return f"{self.bot}: left alone: {self.left_alone}"
        done = []
        if self.capture is not None:
            done.append(
                f"capture {len(self.capture.get('saved', []))} saved, "
                f"{len(self.capture.get('skipped', []))} skipped" + _why(self.capture.get("reason"))
            )
        if self.organize is not None:
            done.append(f"organize {len(self.organize.get('moved', []))} moved" + _why(self.organize.get("reason")))
        if self.tidy is not None:
            model = self.tidy.get("model")
            done.append(
                f"tidy-up {self.tidy.get('expired', 0)} expired, {self.tidy.get('duplicates', 0)} duplicates, "
                f"{self.tidy.get('superseded', 0)} superseded" + ("" if is_no_model(model) else f" (model: {model})")
            )
        if self.compact is not None:
            if is_no_model(self.compact.get("error")):
                done.append("compaction: nothing applied")
            elif self.compact.get("error"):
                done.append(f"compaction: {self.compact['error']}")
            else:
                done.append(
                    f"compaction {len(self.compact.get('rows', []))} applied, "
                    f"{len(self.compact.get('pending', []))} proposed"
                )
        guard = guard_line(self.guard) if self.guard else None
        if guard:
            done.append(guard)
        if self.vectors is not None and (self.vectors.get("made") or self.vectors.get("problem")):
            done.append(
                f"vectors {self.vectors.get('made', 0)} made, {self.vectors.get('left', 0)} to make"
                + (f" ({self.vectors['problem']})" if self.vectors.get("problem") else "")
            )
        return f"{self.bot}: " + ("; ".join(done) if done else "nothing due")


def _why(reason: str | None) -> str:
    """A step's reason in brackets; none for NO_MODEL_CONNECTED, which the run says once (UpkeepRunReport.no_model)."""
    return f" ({reason})" if reason and not is_no_model(reason) else ""


@dataclass
class UpkeepRunReport:
    busy: str | None = None  # another run, or a backup, held its lock: nothing was done
    bots: list[BotUpkeep] = field(default_factory=list)

    @property
    def failed(self) -> list[str]:
        """The bots the run stopped on: cron is told by the exit code when there is any."""
        return [bot.bot for bot in self.bots if bot.failed]

    @property
    def no_model(self) -> str | None:
        """NO_MODEL_CONNECTED when a bot's step found no model at all: said once after the bots' lines."""
        return NO_MODEL_CONNECTED if any(bot.no_model for bot in self.bots) else None

    def to_dict(self) -> dict:
        return {"busy": self.busy, "bots": [bot.to_dict() for bot in self.bots]}


def upkeep_due(
    home: Home,
    *,
    now: datetime | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Callable[[int, int], None] | None = None,
) -> UpkeepRunReport:
    """Run what is due for every bot whose memory and upkeep are on: capture (a chat quiet long enough, six
    turns waiting, or left pending at a shutdown), organizing after it, the daily tidy-up (with organizing
    first), and nightly compaction after it where it is switched on. Never while a backup runs, never on a bot
    in a turn, never twice at once."""
    now = (now or clock.now()).astimezone()
    report = UpkeepRunReport()
    # bots at a time is also calls at a time, for this run only
    with concurrent_calls(concurrency), held_exclusively(upkeep_lock_path(home)) as ours:
        if not ours:
            report.busy = "another upkeep run is going on; this one did nothing"
            return report
        if backup_running(home):
            report.busy = f"a backup holds {BACKUP_LOCK}; upkeep waits for the next run"
            return report
        bots = home.bot_ids()
        finished = 0

        def one_done(_bot: str, _outcome: object) -> None:
            nonlocal finished
            finished += 1
            if progress is not None:
                progress(finished, len(bots))

        for bot_id, outcome in run_bounded(
            bots, lambda bot_id: _upkeep_bot(home, bot_id, now), concurrency=concurrency, done=one_done
        ):
            if isinstance(outcome, BaseException):  # said in words, as every surface says a disk's refusal
                outcome = BotUpkeep(bot_id, left_alone=f"failed: {oserror_sentence(outcome)}", failed=True)
            report.bots.append(outcome)
    report.bots.sort(key=lambda item: item.bot)
    return report


def _upkeep_bot(home: Home, bot_id: str, now: datetime) -> BotUpkeep:
    done = BotUpkeep(bot_id)
    settings = load_bot_settings(home, bot_id)
    if not settings.memory or not settings.upkeep:
        done.left_alone = "its memory is switched off" if not settings.memory else "its upkeep is switched off"
        return done
    with no_turn_running(home, bot_id) as free:
        if not free:
            done.left_alone = "it is in a turn; the next run sees to it"
            return done
        run = UpkeepRun(bot_id)
        done.run = run.id
        due = _due(home, bot_id, now, settings.compact_nightly)
        if due.chats or due.tidy or due.compact:  # nothing due: no guard, no record (most cron runs find this)
            with NightGuard(home, bot_id, run, now) as guard:  # budgets, loops, checks: docs/guard.md
                compacted = _steps(home, bot_id, now, run, due, guard, done)
            done.guard = guard.outcome.to_dict()
            if compacted is not None:  # the compaction's report goes out once the guard has had its say
                send_later(home, compacted, guard.outcome.line())
                done.compact = compacted.to_dict()
        done.vectors = _vectors(home, bot_id)
    return done


VECTORS_PER_RUN = 2000  # at most this many vectors a run (a few batches a minute): a build from nothing spreads out


def _vectors(home: Home, bot_id: str) -> dict | None:
    """With an embeddings instance set: the index brought up to date and up to VECTORS_PER_RUN of its missing
    vectors made, after the steps (vectors are no memory write: the guard has nothing to check in them); None off."""
    from .index.recall_index import open_index
    from .index.vectors import bring_up_to_date
    from .models.embeddings import EmbeddingsUnavailable, embeddings_route

    try:
        if embeddings_route(home) is None:
            return None
    except EmbeddingsUnavailable as problem:
        return {"model": None, "made": 0, "left": 0, "problem": problem.reason}
    index = open_index(home, bot_id)
    index.refresh()
    return bring_up_to_date(index, home, bot_id, most=VECTORS_PER_RUN).to_dict()


class _Due(NamedTuple):
    chats: list  # the chats capture reads now
    tidy: bool
    compact: bool


def _due(home: Home, bot_id: str, now: datetime, nightly: bool) -> _Due:
    last = last_tidy(home, bot_id)
    last_at = datetime.fromisoformat(last["at"]) if last and isinstance(last.get("at"), str) else None
    tidy_hour = load_config(home).tidy_hour
    # Compaction once a day after the tidy-up's hour, after it, on what the tidy-up left (a fresh session).
    compact_now = nightly and tidy_due(last_compaction_at(home, bot_id), now, tidy_hour)
    return _Due(capture_due(home, bot_id, now), tidy_due(last_at, now, tidy_hour), compact_now)


def _steps(
    home: Home, bot_id: str, now: datetime, run: UpkeepRun, due: _Due, guard: NightGuard, done: BotUpkeep
) -> NightlyOutcome | None:
    """Each step that is due, unless the guard has stopped the run; the compaction's outcome, its report not sent."""
    if due.chats and guard.allows("capture"):
        done.capture = capture(home, bot_id, chats=due.chats, today=now.date(), run=run).to_dict()
    if (due.chats or due.tidy) and guard.allows("organize"):
        done.organize = organize(home, bot_id, run=run, today=now.date()).to_dict()
    if due.tidy and guard.allows("tidy-up"):
        done.tidy = tidy(home, bot_id, today=now.date(), run=run).to_dict()
        note_contradicted(home, bot_id, done.tidy, now.date())  # what it could not strike: "still true?"
    if due.compact and guard.allows("compact"):
        return compact_nightly(home, bot_id, run=run, today=now.date(), send=False)
    return None


def compact_guarded(home: Home, bot_id: str, now: datetime | None = None) -> tuple[NightlyOutcome | None, dict]:
    """`compact BOT --auto` run by cron (no terminal): the nightly compaction under the nightly guard, as `upkeep
    --due` runs it (docs/compact-nightly.md): the night's budget, the share of MEMORY.md a night may change, the
    checks after it and the rollback. (None when the guard left it out, and) what the guard did."""
    now = now or clock.now()
    run = UpkeepRun(bot_id)
    with NightGuard(home, bot_id, run, now) as guard:
        compacted = None
        if guard.allows("compact"):
            compacted = compact_nightly(home, bot_id, run=run, today=now.date(), send=False)
    if compacted is not None:  # the report goes out once the guard has had its say, as upkeep --due sends it
        send_later(home, compacted, guard.outcome.line())
    return compacted, guard.outcome.to_dict()
