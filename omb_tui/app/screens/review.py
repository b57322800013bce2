"""Review: what changed since you last looked, across every bot and by every writer, with undo by the keyboard.

Spec: memory.md, "The journal" (undo), and docs/review.md; decisions in docs/app.md, "Review". The tree is bot →
run or group → change: the upkeep runs (capture, organizing, tidy-up, compaction) with the compaction proposals
waiting under the run that made them, and beside them each other writer's group (an agent's session, a bot's
turns in a chat, edits outside the app, the guard's undos, your own edits; core.review.changes.everyone), and
each person's layer of the bot's groups under it, naming the person (docs/team-cloud.md, "The app").
Everything shown comes from the core: the listing, the reviewed marks (`mark_reviewed`), revert of one change
alone and undo of a whole run or group (`core.review.revert`), and the pending proposals (read with the listing;
a damaged pending file is named in the status line). Keys follow `git add -p`, lazygit, less and mutt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Container
from textual.markup import escape
from textual.message import Message
from textual.widgets import Header, Static

from ...core.base.clock import now as local_now
from ...core.base.text import plural
from ...core.files.paths import Home, MemoryInputError
from ...core.journal.when import when_text
from ...core.people.layers import workspace_words
from ...core.review.runs import Run
from ...core.review.tally import Tally
from ...core.review.writers import KIND_PERSON, row_words
from ..styles import style_path
from ..widgets.keys_footer import KeysFooter
from ..widgets.review_detail import ReviewDetail
from ..widgets.review_tree import BOT, CHANGE, PROPOSAL, BotGroup, ReviewTree, TreeLine, build_groups
from .base import AreaScreen
from .review_keys import BINDINGS

PROPOSAL_ACTIONS = {"accept", "reject", "accept_all", "reject_all"}


def clock() -> datetime:
    """Now, local (the snapshot tests fix it)."""
    return local_now()


class ReviewRead(Message, bubble=False):
    """The tree's bots, read in `read_review`'s thread."""

    def __init__(self, bots: list[BotGroup], since: datetime, unread: list[str]) -> None:
        super().__init__()
        self.bots = bots
        self.since = since
        self.unread = unread  # the core's sentence for each file that could not be read


class ReviewWritten(Message, bubble=False):
    """Marks, an undo or a decision on a proposal were written: every screen reads again."""


@dataclass(frozen=True)
class ApplicableKeys:
    """Which of the Review area's keys act on the line under the cursor (the footer is rebuilt when this changes)."""

    change: bool  # a change of a run: u undoes it
    run: bool  # anything inside a run: U undoes the whole run
    proposal: bool  # a waiting proposal: a accepts, x rejects
    proposals: bool  # a group with proposals: A and X decide them all
    markable: bool  # a bot, or a line of a run: m marks it reviewed, or takes the mark back

    @classmethod
    def at(cls, line: TreeLine | None) -> ApplicableKeys:
        if line is None:
            return cls(False, False, False, False, False)
        group = line.group
        in_run = group is not None and group.run is not None
        return cls(
            change=line.kind == CHANGE,
            run=in_run,
            proposal=line.kind == PROPOSAL,
            proposals=group is not None and bool(group.proposals),
            markable=line.kind == BOT or in_run,
        )


class ReviewScreen(AreaScreen):
    EXPLAINS = (
        "What changed since you last looked, by every writer: upkeep runs (their steps), and each agent session, "
        "a bot's turns in a chat, edits outside the app, the guard's undos and your own edits (seen already).\n"
        "new: not reviewed yet. ✓ reviewed: you marked it with m (m again takes the mark back); moving the "
        "cursor past never marks. undone: every change of it was taken back.\n"
        "On a change: ⊘ cannot be undone (the reason is below), ↶ was undone already. ? a compaction proposal "
        "waiting for a (accept) or x (reject)."
    )
    CSS_PATH = style_path("review.tcss")
    AUTO_FOCUS = "#review-tree"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = BINDINGS

    def __init__(self) -> None:
        super().__init__()
        self._marking: set[tuple[str, str]] = set()  # (bot, group) being marked reviewed (each marked once)
        self._since: datetime | None = None
        self._unread: list[str] = []
        self._keys_shown: ApplicableKeys | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Reading the journals…", id="review-status")
        with Container(id="review-body"):
            yield ReviewTree(id="review-tree")
            yield ReviewDetail(id="review-detail")
        yield KeysFooter()

    @property
    def tree(self) -> ReviewTree:
        return self.query_one("#review-tree", ReviewTree)

    @property
    def detail(self) -> ReviewDetail:
        return self.query_one("#review-detail", ReviewDetail)

    # ----- reading -----
    def read_from_disk(self) -> None:
        self.read_review()

    def action_reread(self) -> None:
        self.read_again()

    @work(thread=True, exclusive=True, exit_on_error=False, group="review-read")
    def read_review(self) -> None:
        from ...core.review.changes import everyone

        found = everyone(self.app.home, now=clock())
        self.post_message(ReviewRead(build_groups(found), found.since, found.unread))

    def on_review_read(self, message: ReviewRead) -> None:
        self._since = message.since
        self._unread = message.unread
        self.tree.show(message.bots)
        # the cursor stays where it was, so no Highlighted comes: the detail shows what a key just did itself
        self.detail.show(self.tree.line_at_cursor())
        self.query_one("#review-status", Static).update(self.status_text())
        self.refresh_bindings()  # whether any proposal waits decides whether a and x are in the footer

    def status_text(self) -> str:
        bots = self.tree.bots
        since = when_text(self._since.isoformat()) if self._since else ""
        if not bots:
            return f"Nothing changed since {since}. ? lists every key." + self._unread_text()
        tally = sum((bot.tally for bot in bots), Tally())
        return f"Since {since}: {tally.line()} · ? keys" + self._unread_text()  # fits 80 columns

    def _unread_text(self) -> str:
        return "".join(f"\nNot read: {why}" for why in self._unread)

    def action_still_true(self) -> None:
        from .still_true import StillTrueScreen

        self.app.push_screen(StillTrueScreen())

    def on_review_written(self) -> None:
        self.app.note_disk_change()  # the watcher would too; without one (OMB_TUI_NO_WATCH) this is the news

    # ----- the cursor -----
    @on(ReviewTree.Highlighted, "#review-tree")
    def _line_highlighted(self, event: ReviewTree.Highlighted) -> None:
        self.detail.show(event.line)
        keys = self._applicable(event.line)
        if keys != self._keys_shown:  # the footer is rebuilt only when a key turns on or off
            self._keys_shown = keys
            self.refresh_bindings()

    def _applicable(self, line: TreeLine | None) -> ApplicableKeys:
        return ApplicableKeys.at(line)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        line = self.tree.line_at_cursor()
        keys = self._applicable(line)
        allowed = {
            "undo_change": keys.change,
            "undo_run": keys.run,
            "accept": keys.proposal,
            "reject": keys.proposal,
            "accept_all": keys.proposals,
            "reject_all": keys.proposals,
            "mark": keys.markable,
            "open": line is not None and line.kind != BOT,
        }.get(action, True)
        if not allowed and action in PROPOSAL_ACTIONS and not any(bot.proposals for bot in self.tree.bots):
            return False  # no proposal anywhere: out of the footer, which then fits 80 columns
        return True if allowed else None

    def action_move(self, step: int) -> None:
        self.tree.move_cursor(self.tree.cursor + step)
        self.tree.focus()

    def action_open(self) -> None:
        line = self.tree.line_at_cursor()
        if line is None or line.kind == BOT:
            return
        if line.kind in (CHANGE, PROPOSAL):
            self.detail.focus()
        else:
            self.tree.toggle_fold()

    def action_back(self) -> None:
        self.tree.focus()

    def action_next_bot(self, step: int) -> None:
        found = self.tree.bot_with_news(step)
        if found is None:
            self.notify("No other bot has anything new to review.", timeout=3, markup=False)
            return
        bot = self.tree.lines[found].bot
        first_new = next(
            (
                i
                for i in range(found + 1, len(self.tree.lines))
                if self.tree.lines[i].bot is bot
                and self.tree.lines[i].kind in (CHANGE, PROPOSAL)
                and self.tree.lines[i].group.is_new
            ),
            found,
        )
        self.tree.move_cursor(first_new)
        self.tree.focus()

    # ----- reviewed marks -----
    # A mark is the person's statement that they read a run: only `m` (or `omb-tui review --mark`) makes one, never
    # the cursor passing over it, and `m` on a run already marked takes the mark back.
    def action_mark(self) -> None:
        line = self.tree.line_at_cursor()
        if line is None:
            return
        if line.kind != BOT and line.group is not None and line.group.run is not None and line.group.run.reviewed:
            if line.group.run.kind == KIND_PERSON:
                self.notify("Your own changes count as seen: there is no mark to take back.", timeout=3, markup=False)
                return
            self._mark([line.group.run], take_back=True)
            self.notify("Mark taken back: it is new to review again (m marks it).", timeout=3, markup=False)
            return
        groups = line.bot.runs if line.kind == BOT else [line.group]
        runs = [group.run for group in groups if group.run is not None and not group.run.reviewed]
        if runs:
            self._mark(runs)
            self.notify(
                f"Marked {plural(len(runs), 'group')} of {line.bot.bot} reviewed (m on one takes its mark back).",
                timeout=3,
                markup=False,
            )
        elif line.kind == BOT:
            self.notify(f"Everything of {line.bot.bot} is marked reviewed already.", timeout=3, markup=False)

    @work(exclusive=True, exit_on_error=False, group="review-act")
    async def action_mark_all(self) -> None:
        groups = [
            (bot.bot, group.run)
            for bot in self.tree.bots
            for group in bot.runs
            if group.run is not None and not group.run.reviewed
        ]
        if not groups:
            self.notify("Everything listed is marked reviewed already.", timeout=3, markup=False)
            return
        changes = sum(len(run.changes) for _, run in groups)
        question = (
            f"Mark all {plural(len(groups), 'run or group', 'runs and groups')} ({plural(changes, 'change')}) reviewed?"
        )
        if not await self._ask(question + "\nm on one takes its mark back.", "Mark reviewed"):
            return
        self._mark([run for _, run in groups])
        self.notify(f"Marked {plural(changes, 'change')} reviewed.", timeout=3, markup=False)

    # ----- reading on -----
    def action_page(self) -> None:
        """Space: the detail down a page while it has more; at its end, the next run or group not yet reviewed
        (whose detail holds every change's diff), or, from a change, the next change of its group."""
        detail = self.detail
        if detail.scroll_y < detail.max_scroll_y:
            detail.scroll_page_down(animate=False)
            return
        line, lines, at = self.tree.line_at_cursor(), self.tree.lines, self.tree.cursor
        following = lines[at + 1] if line is not None and at + 1 < len(lines) else None
        if line is not None and line.kind in (CHANGE, PROPOSAL) and following is not None:
            if following.kind in (CHANGE, PROPOSAL) and following.group is line.group:
                self.tree.move_cursor(at + 1)  # within a group read from one of its changes: the next change
                return
        found = self.tree.next_group(1, new_only=True)  # reading on: what is new (J goes to any group)
        if found is None:
            self.notify("Nothing new below. M marks it all reviewed.", timeout=3, markup=False)
            return
        self.tree.move_cursor(found)
        self.tree.focus()

    def action_next_group(self, step: int) -> None:
        found = self.tree.next_group(step)
        if found is None:
            self.notify("That was the last." if step > 0 else "That was the first.", timeout=2, markup=False)
            return
        self.tree.move_cursor(found)
        self.tree.focus()

    def _mark(self, runs: list[Run], *, take_back: bool = False) -> None:
        """Mark runs (or take the marks back), each in its workspace's marks: a bot's, or a person's layer's."""
        fresh = [run for run in runs if (run.bot, run.id) not in self._marking]
        self._marking.update((run.bot, run.id) for run in fresh)
        for workspace in dict.fromkeys(run.bot for run in fresh):
            self.mark_runs(workspace, [run for run in fresh if run.bot == workspace], take_back)

    @work(thread=True, exit_on_error=False, group="review-mark")
    def mark_runs(self, bot_id: str, runs: list[Run], take_back: bool = False) -> None:
        from ...core.review.marks import mark_reviewed, unmark_reviewed

        ids = [run.mark_ids() for run in runs]
        run_ids = [run_id for each_runs, _ in ids for run_id in each_runs]
        row_ids = [row_id for _, each_rows in ids for row_id in each_rows]
        try:
            (unmark_reviewed if take_back else mark_reviewed)(self.app.home, bot_id, run_ids, row_ids)
        finally:
            self._marking.difference_update((run.bot, run.id) for run in runs)
        self.post_message(ReviewWritten())

    # ----- undo -----
    async def _ask(self, question: str, yes: str, details: str = "") -> bool:
        from ..dialogs.confirm import ConfirmDialog

        dialog = ConfirmDialog(escape(question), yes=yes, details=details)
        return bool(await self.app.push_screen_wait(dialog))

    async def _core(self, call: Callable[[], object]) -> object:
        return await asyncio.to_thread(call)

    @work(exclusive=True, exit_on_error=False, group="review-act")
    async def action_undo_change(self) -> None:
        from ...core.journal.changes import RevertConflict
        from ...core.review.revert import revert_change

        line = self.tree.line_at_cursor()
        if line is None or line.change is None:
            return
        change, home = line.change, self.app.home
        if change.undone:
            self.notify(f"This change was undone already (row {change.undone_by}).", timeout=4, markup=False)
            return
        if not change.undoable:
            reason = change.not_undoable_reason or "no earlier text was kept"
            self.notify(
                f"This change to {change.file} cannot be undone: {reason}.",
                title="Cannot undo",
                severity="warning",
                markup=False,
            )
            return
        said = change.category or change.step or row_words(change, change.bot)
        question = (
            f"Undo this change to {change.file} of {workspace_words(change.bot)} alone?\n"
            f"  {when_text(change.at)} · {said}\n"
            "Changes made to the file since are kept. The undo is journaled, so it can be undone in turn."
        )
        if not await self._ask(question, "Undo"):
            return
        try:
            reverted = await self._core(lambda: revert_change(home, change.bot, change.id))
        except RevertConflict as conflict:
            await self._undo_whole_file(change.bot, change.id, str(conflict))
            return
        except MemoryInputError as exc:
            self.notify(str(exc), title="Not undone", severity="error", markup=False)
            return
        self.notify(reverted.message(), title="Undone", timeout=4, markup=False)
        self.post_message(ReviewWritten())

    async def _undo_whole_file(self, bot_id: str, row_id: str, why: str) -> None:
        """The change cannot be taken back alone: offer the journal's undo, the file back as before it, naming
        the later changes that go with it (the journal screen's `u`, with the reason above its question)."""
        from ...core.memory.store import MemoryStore
        from .journal import ask_and_undo

        store = MemoryStore(self.app.home, bot_id)
        row = await self._core(lambda: store.journal.find(row_id))
        if row is not None and await ask_and_undo(self, store, row, why) is not None:
            self.post_message(ReviewWritten())

    @work(exclusive=True, exit_on_error=False, group="review-act")
    async def action_undo_run(self) -> None:
        from ...core.review.revert import RunHasLaterChanges, run_undo_later, undo_run

        line = self.tree.line_at_cursor()
        if line is None or line.group is None or line.group.run is None:
            return
        run, home = line.group.run, self.app.home
        writer = run.writer
        question = (
            f"Undo {writer.whole}?\n"
            f"  {when_text(run.started)} · {writer.changes(len(run.changes), run.files)}\n"
            "Each file goes back as it was before the first of them. The undo is journaled."
        )
        try:
            later = await self._core(lambda: run_undo_later(home, run.bot, run.id, run.rows))
            details = ""
            if later is not None:  # one question, naming what would go too (the list scrolls in the dialog)
                heading, details = later_changes_question(later)
                question += "\n\n" + heading
            if not await self._ask(question, writer.undo_button(len(run.changes)), details):
                return
            agreed = [row.id for row in later.later] if later is not None else []
            unseen = later is not None and bool(later.outside)  # named in the question, so agreed to
            done = await self._core(
                lambda: undo_run(home, run.bot, run.id, agreed=agreed, unseen_ok=unseen, rows=run.rows)
            )
        except RunHasLaterChanges:  # a change came in while the question was open: nothing was undone
            self.notify(
                "The files changed while you were asked; nothing was undone. Press U again to see what would go now.",
                title="Not undone",
                severity="warning",
                markup=False,
            )
            return
        except MemoryInputError as exc:
            self.notify(str(exc), title="Not undone", severity="error", markup=False)
            return
        self.notify(done.message(), title="Undone", timeout=5, markup=False)
        self.post_message(ReviewWritten())

    # ----- proposals -----
    def action_accept(self) -> None:
        line = self.tree.line_at_cursor()
        if line is not None and line.proposal is not None:
            self.decide(line.bot.bot, [line.proposal], accept=True, ask=True)

    def action_reject(self) -> None:
        line = self.tree.line_at_cursor()
        if line is not None and line.proposal is not None:
            self.decide(line.bot.bot, [line.proposal], accept=False, ask=True)

    def action_accept_all(self) -> None:
        line = self.tree.line_at_cursor()
        if line is not None and line.group is not None and line.group.proposals:
            self.decide(line.bot.bot, list(line.group.proposals), accept=True, ask=True)

    def action_reject_all(self) -> None:
        line = self.tree.line_at_cursor()
        if line is not None and line.group is not None and line.group.proposals:
            self.decide(line.bot.bot, list(line.group.proposals), accept=False, ask=True)

    @work(exclusive=True, exit_on_error=False, group="review-act")
    async def decide(self, bot_id: str, proposals: list, *, accept: bool, ask: bool) -> None:
        """Accept or reject proposals, after asking (a key that writes never acts unasked: over a slow link keys
        arrive in bursts, and a letter meant for a box elsewhere must not decide a proposal)."""
        home, ids = self.app.home, [proposal.id for proposal in proposals]
        verb = "Accept" if accept else "Reject"
        if ask:
            effect = (
                "MEMORY.md changes as each proposes (journaled, undoable); one whose text is no longer "
                "in the file is refused and says why."
                if accept
                else ("It is" if len(ids) == 1 else "They are") + " dropped; MEMORY.md stays as it is."
            )
            if not await self._ask(
                f"{verb} {plural(len(ids), 'proposal')} of {bot_id}?\n{effect}", f"{verb} {len(ids)}"
            ):
                return
        try:
            if accept:
                outcome = await self._core(lambda: accept_and_mark(home, bot_id, ids))
            else:
                await self._core(lambda: reject_proposals(home, bot_id, ids))
        except MemoryInputError as exc:
            self.notify(str(exc), title=f"Not {verb.lower()}ed", severity="error", markup=False)
            return
        if not accept:
            self.notify(f"Rejected {plural(len(ids), 'proposal')}.", timeout=3, markup=False)
        else:
            for _, reason in outcome.refused:
                self.notify(reason, title="Not accepted", severity="warning", markup=False)
            if outcome.applied:
                self.notify(
                    f"Accepted {plural(len(outcome.applied), 'proposal')}: MEMORY.md changed.", timeout=3, markup=False
                )
        self.post_message(ReviewWritten())


def accept_and_mark(home: Home, bot_id: str, ids: list[str]):
    """Accept proposals; the run their rows carry is marked reviewed at once (the person just decided them)."""
    from ...core.compact.pending import accept
    from ...core.journal.journal import HOW_SETTINGS
    from ...core.review.marks import mark_reviewed

    outcome = accept(home, bot_id, ids, how=HOW_SETTINGS)  # the app's own edits are "in Settings"
    if outcome.rows and outcome.run:
        mark_reviewed(home, bot_id, [outcome.run])
    return outcome


def reject_proposals(home: Home, bot_id: str, ids: list[str]) -> None:
    from ...core.compact.pending import reject

    reject(home, bot_id, ids)


def later_changes_question(refused) -> tuple[str, str]:
    """Undoing the run would undo later changes too (RunHasLaterChanges): the sentence that says so, and the list
    naming them (one a line, as many as details_of names), which the dialog scrolls."""
    from ..dialogs.confirm import details_of

    later, outside = refused.later, refused.outside
    heading = []
    if outside:
        heading.append(f"{', '.join(outside)} changed outside the journal since, and that would go too.")
    if later:
        heading.append(f"{plural(len(later), 'later change')} to these files would be undone too:")
    else:
        heading.append("Undo that too?")
    # each a line of its own, its day and time without the year (the run line above says it), as the tree says them
    lines = [f"- {when_text(row.at)[5:]} · {row_words(row, row.bot)} · {row.file}" for row in later]
    return "\n".join(heading), details_of(lines)
