"""Last night in the demo home: the nightly `upkeep --due` pass a person reviews in the morning.

docs/review.md. At NIGHT_PASS on the day before today (after 18:00, so the bots
screen's Night column counts it whenever the demo is written, and never later than now; docs/review.md, "Last
night") one pass ran over the bots with upkeep on:

- scout    capture saved a fact from yesterday's "Invoice reconciliation" chat with the words it rests on, then
           the tidy-up moved an expired entry to the archive;
- ledger   the tidy-up (an expired entry, older duplicates), then nightly compaction applied two changes;
- harbor   nightly compaction in its first week, so propose only: its change-set waits as proposals.

Before the pass, at AGENT_SESSION_AT, Nadia worked in Claude Code with Scout's memory wired in (docs/agents.md):
the session saved two notes through memory_update, one chat and one run as the hooks and the MCP server write
them, so Review shows an agent's session beside the upkeep runs (docs/review.md). The session's own chat file is not
part of the demo; its rows name it.

Each run writes through the core as upkeep does: its id from `new_run_id` at the moment it began, every row as
`UpkeepRun(bot).actor(step)`; capture's row carries `quotes_note`; the tidy-up is the tidy-up's own steps 1 and 2
(expiry and duplicates; its third step asks a model, and the demo calls none); compaction's change-set is checked
by the validator against MEMORY.md as it is then and applied by `apply_change_set` (with the attempt log, the
backup and the memory-clean.log lines a nightly run leaves), or kept by `add_pending` when the bot's settings say
propose only. No journal line is written by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, time, timedelta

from ..core.base import clock
from ..core.compact.apply import apply_change_set
from ..core.compact.nightly import STEP as COMPACT_STEP
from ..core.compact.nightly import propose_only_now, switch_nightly
from ..core.compact.pending import add_pending
from ..core.compact.records import append_attempt, append_clean_log, backup_memory, clean_log_lines
from ..core.compact.session import KEEP_FILE
from ..core.compact.validator import keep_lines, validate
from ..core.files.disk import text_hash
from ..core.files.paths import MEMORY_FILE, MemoryInputError
from ..core.journal.changes import Actor
from ..core.journal.journal import HOW_TASK, WHO_BOT
from ..core.memory.entries import Entry, parse_entries
from ..core.memory.memory_update import MemoryUpdate
from ..core.memory.settings import load_bot_settings
from ..core.runs.run import UpkeepRun, new_run_id
from ..core.turn.agent_session import chat_id_for
from ..core.upkeep.capture import STEP as CAPTURE_STEP
from ..core.upkeep.capture import quotes_note

# The tidy-up's own steps (private in the core: `tidy` itself makes its own store, with no clock to set), so the
# demo's tidy rows are written by the same code as a real night's, never imitated.
from ..core.upkeep.tidy import tidy_by_rule
from .story import Story

NIGHT_PASS = time(23, 40)  # when last night's pass began, local time, on the day before today
PASS_ORDER = ("harbor", "ledger", "scout")  # `upkeep --due` goes through the bots by id, one after the other
BOT_SECONDS = 30  # each bot's run begins this long after the one before
STEP_SECONDS = 7  # how long one step of a run takes, near enough (capture and compaction wait for a model)

# What capture noticed in yesterday's chat (demo/conversations.py): Nadia's own words, quoted exactly.
SCOUT_CAPTURE_CHAT = "Invoice reconciliation"
SCOUT_CAPTURE_FACT = "Invoices sent back to Acme go with a short note, and Dana in finance is copied"
SCOUT_CAPTURE_QUOTES = ["Send the three flagged invoices back to Acme with a short note, and copy Dana in finance."]
LEDGER_NIGHTLY_SINCE = 12  # days ago Nadia switched nightly compaction on: past the first week, so it applies
HARBOR_NIGHTLY_SINCE = 2  # days ago: still the first week, so it only proposes
AGENT_SESSION_AT = time(21, 5)  # yesterday evening: a Claude Code session with Scout's memory
AGENT_SESSION_ID = "5f0c2a9e-8d41-4b7a-b1e3-2c6f9a0d7e14"  # a session id as Claude Code's hooks send it
AGENT_SESSION_NOTES = (
    "The Kroonfiets booking flow lives in the kroonfiets-web repo; its tests run with pnpm test",
    "Kroonfiets staging deploys from the main branch every night at 02:00",
)


class NightRun:
    """One bot's run in last night's pass: its steps, queued on the bot's story a few seconds apart, each told at
    its moment through the story's store (whose clock is that moment while the step runs)."""

    def __init__(self, story: Story) -> None:
        self.story = story
        self.home, self.bot_id, self.store = story.home, story.bot_id, story.store
        self.day = story.day(1)  # the pass ran before midnight: its steps' "today"
        self._run: UpkeepRun | None = None
        self._steps = 0

    @property
    def run(self) -> UpkeepRun:
        """The run, its id from the moment its first step began (so runs sort by time, as upkeep's do)."""
        if self._run is None:
            self._run = UpkeepRun(self.bot_id, new_run_id(self._now()))
        return self._run

    def _now(self) -> datetime:
        return self.store.clock() if self.store.clock else clock.now_utc()

    def _queue(self, action: Callable[[], object]) -> None:
        seconds = PASS_ORDER.index(self.bot_id) * BOT_SECONDS + self._steps * STEP_SECONDS
        start = datetime.combine(self.day, NIGHT_PASS) + timedelta(seconds=seconds)
        self.story.at_clock(1, start.time(), action)
        self._steps += 1

    # -- the steps, in the order upkeep runs them --
    def capture(self, chat: str, fact: str, quotes: list[str]) -> None:
        """Capture saving a fact noticed in a quiet chat to MEMORY.md, its row's note the quotes it rests on."""

        def run() -> None:
            update = MemoryUpdate(self.home, self.bot_id, self.run.actor(CAPTURE_STEP, chat=chat), store=self.store)
            update.add(fact, today=self.day, chat=chat, noticed=True, note=quotes_note(quotes))

        self._queue(run)

    def tidy(self) -> None:
        """The tidy-up's steps 1 and 2 as `tidy.tidy` runs them: expired entries to the archive, older duplicates out."""

        def run() -> None:
            tidy_by_rule(self.store, self.run, self.day)

        self._queue(run)

    def compact(self, answer: Callable[[str], list[dict]]) -> None:
        """Nightly compaction of MEMORY.md; `answer` gives the change-set the model answered, from the text it read."""

        def run() -> None:
            moment = self._now()
            text = self.store.read(MEMORY_FILE).text
            changes = {"changes": answer(text)}
            keep = keep_lines(self.store.read(KEEP_FILE).text)
            validation = validate(text, changes, keep_lines=keep, read_hash=text_hash(text))
            if not validation.ok:  # the sample change-set and the sample memory are written together: say which drifted
                raise MemoryInputError(f"The demo's compaction of {self.bot_id} was refused: {validation.errors[0]}")
            append_attempt(
                self.home,
                self.bot_id,
                self.run.id,
                1,
                json.dumps(changes, ensure_ascii=False, indent=2),
                [],
                now=moment,
            )
            if propose_only_now(load_bot_settings(self.home, self.bot_id), self.day):
                add_pending(self.home, self.bot_id, self.run.id, validation.changes, at=moment)
                return
            backup_memory(self.home, self.bot_id, text, now=moment)
            written = apply_change_set(
                self.store, validation.read_hash, validation.changes, self.run.actor(COMPACT_STEP)
            )
            applied = [item.change for item in written.applied]
            append_clean_log(self.home, self.bot_id, clean_log_lines(self.run.id, applied, now=moment))

        self._queue(run)


def agent_session(story: Story) -> None:
    """Yesterday evening's Claude Code session: its notes, one chat and one run (core/turn/agent_session.py)."""

    def run() -> None:
        moment = story.store.clock() if story.store.clock else clock.now_utc()
        actor = Actor(WHO_BOT, HOW_TASK, chat=chat_id_for(AGENT_SESSION_ID), run=new_run_id(moment))
        update = MemoryUpdate(story.home, story.bot_id, actor, store=story.store)
        for note in AGENT_SESSION_NOTES:
            update.add(note, today=story.day(1), chat="Claude Code")

    story.at_clock(1, AGENT_SESSION_AT, run)


# ----- each bot's night -----
def scout_night(story: Story) -> None:
    agent_session(story)
    night = NightRun(story)
    night.capture(SCOUT_CAPTURE_CHAT, SCOUT_CAPTURE_FACT, SCOUT_CAPTURE_QUOTES)
    night.tidy()


def ledger_night(story: Story) -> None:
    switch_nightly(story.home, story.bot_id, on=True, today=story.day(LEDGER_NIGHTLY_SINCE))
    night = NightRun(story)
    night.tidy()
    night.compact(_ledger_changes)


def harbor_night(story: Story) -> None:
    switch_nightly(story.home, story.bot_id, on=True, today=story.day(HARBOR_NIGHTLY_SINCE))
    night = NightRun(story)
    night.tidy()
    night.compact(_harbor_changes)


def _first(entries: list[Entry], wanted: Callable[[Entry], bool], what: str) -> Entry:
    for entry in entries:
        if entry.is_bullet and wanted(entry):
            return entry
    raise MemoryInputError(f"The demo's compaction found no {what} to change.")


def _ledger_changes(text: str) -> list[dict]:
    """Ledger's change-set: the chart of accounts as detail (the one a person may well want back), and the
    oldest paid invoice as done with."""
    entries = parse_entries(text)
    accounts = _first(entries, lambda e: e.fact.startswith("Ledger accounts:"), "chart of accounts")
    paid = _first(entries, lambda e: e.day is not None and " paid by " in e.fact, "paid invoice")
    return [
        {
            "category": "detail",
            "original": accounts.raw,
            "reason": "The chart of accounts lives in Moneybird, and every note already names its account.",
        },
        {
            "category": "ephemeral",
            "original": paid.raw,
            "reason": "The invoice is paid and its BTW is in the reserve, so nothing about it is left to do.",
        },
    ]


def _harbor_changes(text: str) -> list[dict]:
    """Harbor's change-set: the seven steps the board's five-step decision overtook, and the two card rules as one."""
    _first(parse_entries(text), lambda e: "five steps, not seven" in e.fact, "five-step decision")  # what overtook them
    return [
        {
            "category": "superseded",
            "original": "- Steps: Route, Date, Passengers, Vehicle, Extras, Details, Pay.\n",
            "reason": "The board's later decision makes it five steps, with Extras merged into Details.",
        },
        {
            "category": "merge",
            "original": "- Cards are for choices, not for layout.\n- The whole card is the target; one link inside at most.",
            "merged": "- Cards are for choices, not layout: the whole card is the target, one link inside at most.",
            "reason": "Two short rules about the same cards read as one.",
        },
    ]
