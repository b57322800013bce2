"""The Review tree: bot → run → change (and the compaction proposals waiting under the run that made them),
one line each, drawn with the line API (RowList), so a long week of runs costs nothing per line.

Runs not yet reviewed are open; reviewed runs (and runs whose every change was undone) are folded to one
line, so the morning starts at what is new. Enter on a run folds or opens it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from ...core.base.text import plural
from ...core.journal.journal import HOW_API, HOW_COMMAND_LINE, HOW_OUTSIDE, HOW_SETTINGS, HOW_TASK, HOW_UNDO
from ...core.journal.when import when_text
from ...core.review.runs import Change, Review, Run
from ...core.review.tally import Tally
from .row_list import RowHighlighted, RowList, cut_to_width, fit, fit_path, printable

BOT, RUN, CHANGE, PROPOSAL = "bot", "run", "change", "proposal"
STEP_WIDTH = 9  # "organize", "tidy-up", "capture", "compact"
FILE_WIDTH = 24  # a daily log's path whole: memory/log/2026-12-03.md
STATE_WIDTH = 11  # "✓ reviewed" and a space


@dataclass
class RunGroup:
    """A run in the tree: its changes (None for a run that only proposed) and the proposals it left waiting."""

    bot: str
    run_id: str
    run: Run | None
    proposals: list = field(default_factory=list)  # PendingChange, oldest first

    @property
    def key(self) -> tuple[str, str]:
        """The group across readings: its workspace (the bot's, or a person's layer of it) and its id, so a layer's
        group never shares a fold or a place with the bot's group of the same id (a day's edits, one chat)."""
        return (self.run.bot if self.run is not None else self.bot, self.run_id)

    @property
    def started(self) -> str:
        if self.run is not None and self.run.started:
            return self.run.started
        return min((proposal.at for proposal in self.proposals), default="")

    @property
    def changes(self) -> list[Change]:
        return self.run.changes if self.run is not None else []

    @property
    def is_new(self) -> bool:
        """Something here still waits for the person: changes not reviewed, or proposals."""
        return bool(self.proposals) or (self.run is not None and not self.run.reviewed and not self.run.undone)


@dataclass
class BotGroup:
    bot: str
    runs: list[RunGroup] = field(default_factory=list)

    @property
    def is_new(self) -> bool:
        return any(group.is_new for group in self.runs)

    @property
    def changes(self) -> int:
        return sum(len(group.changes) for group in self.runs)

    @property
    def proposals(self) -> int:
        return sum(len(group.proposals) for group in self.runs)

    @property
    def new_changes(self) -> int:
        return self.tally.new

    @property
    def tally(self) -> Tally:
        """The bot's counts, as every screen counts them (core/review/tally.py)."""
        return Tally.of((group.run for group in self.runs if group.run is not None), self.proposals)


@dataclass(frozen=True)
class TreeLine:
    """One line of the tree: a bot, a run, one change of a run, or one waiting proposal."""

    kind: str
    bot: BotGroup
    group: RunGroup | None = None
    change: Change | None = None
    proposal: object | None = None

    @property
    def key(self) -> tuple[str, ...]:
        """What the line is, across readings (the cursor stays on it when the tree is read again)."""
        item = self.change.id if self.change else self.proposal.id if self.proposal is not None else ""
        return (self.kind, self.bot.bot, *(self.group.key if self.group else ("", "")), item)


def build_groups(review: Review) -> list[BotGroup]:
    """The tree's bots and runs: each bot's runs oldest first, a proposal under the run that made it (a run of
    its own when that run changed nothing), bots with nothing in the window left out."""
    bots = []
    for bot_review in review.bots:
        bot_id = bot_review.bot
        groups = {(run.bot, run.id): RunGroup(bot_id, run.id, run) for run in bot_review.runs}
        for proposal in bot_review.proposals:  # (proposals are the bot's own: a layer's compaction proposes none)
            group = groups.get((bot_id, proposal.run))
            if group is None:
                group = groups[(bot_id, proposal.run)] = RunGroup(bot_id, proposal.run, None)
            group.proposals.append(proposal)
        if groups:
            ordered = sorted(
                groups.values(), key=lambda group: (not _flagged(group), not group.is_new, group.started, group.run_id)
            )
            bots.append(BotGroup(bot_id, ordered))  # a run the guard flagged first, then what is new
    return bots


def _flagged(group: RunGroup) -> bool:
    return group.run is not None and group.run.flagged


class ReviewTree(RowList):
    """The tree; `lines` is what is drawn, `line_at_cursor()` the line under the cursor."""

    COMPONENT_CLASSES = {
        "review-tree--bot",
        "review-tree--run",
        "review-tree--new",
        "review-tree--muted",
        "review-tree--undone",
        "review-tree--proposal",
        "review-tree--warning",
    }

    DEFAULT_CSS = """
    ReviewTree {
        & > .review-tree--bot { color: $text-primary; text-style: bold; }
        & > .review-tree--run { text-style: bold; }
        & > .review-tree--new { color: $text-accent; text-style: bold; }
        & > .review-tree--muted { color: $text-muted; }
        & > .review-tree--undone { color: $text-muted; text-style: strike; }
        & > .review-tree--proposal { color: $text-warning; }
        & > .review-tree--warning { color: $text-warning; text-style: bold; }
    }
    """

    class Highlighted(RowHighlighted):
        """The cursor is on another line (None when the tree is empty)."""

        tree = property(attrgetter("row_list"))
        line = property(attrgetter("current"))

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.bots: list[BotGroup] = []
        self.lines: list[TreeLine] = []
        self._folded: dict[tuple[str, str], bool] = {}  # group key -> folded, where the person folded or opened it
        self._place: dict[tuple[str, str], int] = {}  # group key (workspace, run id) -> its place as first shown
        self._announced: object = object()
        self._shown_once = False

    @property
    def row_count(self) -> int:
        return len(self.lines)

    def line_at_cursor(self) -> TreeLine | None:
        return self.lines[self.cursor] if 0 <= self.cursor < len(self.lines) else None

    # ----- what is shown -----
    def show(self, bots: Sequence[BotGroup]) -> None:
        """Show these bots; the cursor stays on the line it was on (or the nearest still there). The first time,
        it starts at the first thing not yet reviewed."""
        current = self.line_at_cursor()
        for bot in self.bots:  # a run stays as it was shown (one marked reviewed under your eyes stays open)
            for group in bot.runs:
                self._folded.setdefault(group.key, self.folded(group))
        # ...and where it was shown: a group marked, undone or reverted under your eyes keeps its place (the new
        # first is the order of the first reading), so reading on with space never skips one that moved
        for bot in bots:
            for group in bot.runs:
                self._place.setdefault(group.key, len(self._place))
            bot.runs.sort(key=lambda group: self._place[group.key])
        self.bots = list(bots)
        self._lay_out()
        if not self._shown_once:
            self._shown_once = True
            first_new = next(
                (
                    i
                    for i, line in enumerate(self.lines)
                    if line.kind in (CHANGE, PROPOSAL) and line.group is not None and line.group.is_new
                ),
                0,
            )
            self.cursor = first_new
        else:
            self.cursor = self._nearest(current)
        self._redraw()

    def folded(self, group: RunGroup) -> bool:
        return self._folded.get(group.key, not group.is_new)

    def toggle_fold(self) -> None:
        """Fold or open the run under the cursor (the cursor goes to its run line)."""
        line = self.line_at_cursor()
        if line is None or line.group is None:
            return
        self._folded[line.group.key] = not self.folded(line.group)
        self._lay_out()
        self.cursor = next(
            i for i, other in enumerate(self.lines) if other.kind == RUN and other.group.key == line.group.key
        )
        self._redraw()

    def _lay_out(self) -> None:
        lines = []
        for bot in self.bots:
            lines.append(TreeLine(BOT, bot))
            for group in bot.runs:
                lines.append(TreeLine(RUN, bot, group))
                if self.folded(group):
                    continue
                lines += [TreeLine(CHANGE, bot, group, change=change) for change in group.changes]
                lines += [TreeLine(PROPOSAL, bot, group, proposal=proposal) for proposal in group.proposals]
        self.lines = lines

    def _nearest(self, before: TreeLine | None) -> int:
        if before is None or not self.lines:
            return min(self.cursor, max(0, len(self.lines) - 1))
        keys = [line.key for line in self.lines]
        if before.key in keys:
            return keys.index(before.key)
        # Gone (a proposal decided, say): the next line of the same run, else the run, else the bot.
        for depth in (3, 2):
            prefix = before.key[:depth]
            same = [i for i, key in enumerate(keys) if key[:depth] == prefix and key[0] != BOT]
            if same:
                later = [i for i in same if i >= self.cursor]
                return later[0] if later else same[-1]
        return min(self.cursor, len(self.lines) - 1)

    def _redraw(self) -> None:
        self.forget_drawn()
        self.resize_virtual()
        self.scroll_to_cursor()
        self.refresh()
        self.cursor_moved()

    def cursor_moved(self) -> None:
        line = self.line_at_cursor()
        key = line.key if line is not None else None
        if key != self._announced:
            self._announced = key
            self.post_message(self.Highlighted(self, line))

    # ----- moving by bot -----
    def next_group(self, step: int, *, new_only: bool = False) -> int | None:
        """The line of the next (step 1) or previous (-1) run or group from the cursor (`new_only`: one with
        something not reviewed); None past the last."""
        at = self.cursor + step
        while 0 <= at < len(self.lines):
            line = self.lines[at]
            if line.kind == RUN and (not new_only or (line.group is not None and line.group.is_new)):
                return at
            at += step
        return None

    def bot_with_news(self, step: int) -> int | None:
        """The index of the next (step 1) or previous (-1) bot line with something not yet reviewed."""
        here = self.cursor
        current_bot = self.lines[here].bot.bot if self.lines else None
        indexes = range(here + 1, len(self.lines)) if step > 0 else range(here - 1, -1, -1)
        for i in indexes:
            line = self.lines[i]
            if line.kind == BOT and line.bot.is_new and (step > 0 or line.bot.bot != current_bot):
                return i
        return None

    # ----- drawing -----
    def _style(self, *names: str) -> Style:
        return self.get_visual_style(
            *(f"{'row-list' if name == 'cursor' else 'review-tree'}--{name}" for name in names if name)
        ).rich_style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = self.row_at_line(y)
        if index is None or index < 0:
            return Strip.blank(width, self.rich_style)
        selected = index == self.cursor
        key = (index, width, selected)
        strip = self._strips.get(key)
        if strip is None:
            cursor = "cursor" if selected else ""
            line_style = self._style(cursor)
            segments = [
                Segment(text, self._style(cursor, *style.split()) if style else line_style)
                for text, style in self._parts(self.lines[index])
            ]
            strip = cut_to_width(segments, width, line_style)
            self._strips[key] = strip
        return strip

    def _parts(self, line: TreeLine) -> list[tuple[str, str]]:
        """The line's text in pieces, each with its style names ('' for the line's own)."""
        if line.kind == BOT:
            return [(" ", ""), *bot_words(line.bot)]
        group = line.group
        if line.kind == RUN:
            mark = "▸" if self.folded(group) else "▾"
            return [(f"  {mark} ", "run"), *run_words(group)]
        if line.kind == CHANGE:
            return [("     ", ""), *change_words(line.change)]
        return [("     ", ""), *proposal_words(line.proposal)]


TALLY_STYLES = {"new": "new", "waiting": "warning"}


def bot_words(bot: BotGroup) -> list[tuple[str, str]]:
    """The bot and its counts, in the words of every screen (Tally.parts), the new and the waiting coloured."""
    counts = [(text, TALLY_STYLES.get(role, "muted")) for text, role in bot.tally.parts()]
    return [(printable(bot.bot), "bot"), ("  ", "muted"), *counts]


def run_words(group: RunGroup) -> list[tuple[str, str]]:
    """A run's (or a group's) line: when, its state first (so a narrow tree never cuts it), then who or
    its steps, its counts, and what the guard did."""
    run = group.run
    steps = ", ".join(run.steps) if run is not None else "compact (proposed only)"
    if run is not None and run.who is not None:  # another writer than upkeep: who, as the journal names them
        steps = run.who
    state, style = "", ""
    if run is not None and run.undone:
        state, style = "undone", "muted"
    elif run is not None and run.reviewed:
        state, style = "✓ reviewed", "muted"
    elif run is not None:
        state, style = "new", "new"
    # month, day and time: the status line above says the year, and a narrow terminal keeps more of who it was
    parts = [(when_text(group.started)[5:], "run"), (f"  {state:<{STATE_WIDTH}}", style), (printable(steps), "")]
    if run is not None:
        parts.append((f" · {plural(len(run.changes), 'change')}", "muted"))
    if group.proposals:
        parts.append((f" · {len(group.proposals)} waiting", "warning"))
    if run is not None and run.flagged:
        parts.append(("  flagged by the guard", "warning"))
    elif run is not None and run.guard and run.guard.get("undone"):
        parts.append(("  undone by the guard", "warning"))
    elif run is not None and run.guard and run.guard.get("stopped"):
        parts.append(("  stopped by the guard", "warning"))
    return parts


# A change of another writer than upkeep names no step: its how, in the step column's nine characters
SHORT_HOW = {
    HOW_TASK: "bot",
    HOW_OUTSIDE: "outside",
    HOW_COMMAND_LINE: "you (cli)",
    HOW_SETTINGS: "you",
    HOW_API: "API",
    HOW_UNDO: "undo",
}


def change_words(change: Change) -> list[tuple[str, str]]:
    said = change.category or change.step or SHORT_HOW.get(change.how, change.how)
    why = ("“" + "” “".join(change.quotes) + "”") if change.quotes else change.reason or ""
    state = "undone" if change.undone else ""
    parts = [
        (fit(printable(said or ""), STEP_WIDTH) + " ", state or "muted"),
        (fit_path(printable(change.file), FILE_WIDTH) + " ", state),
        (printable(why), state or ""),
    ]
    if change.undone:
        parts.insert(0, ("↶ ", "muted"))
    elif not change.undoable:
        parts.insert(0, ("⊘ ", "warning"))
    else:
        parts.insert(0, ("  ", ""))
    return parts


def proposal_words(proposal) -> list[tuple[str, str]]:
    return [
        ("? ", "warning"),
        (fit(printable(proposal.category), STEP_WIDTH) + " ", "proposal"),
        (fit_path("MEMORY.md", FILE_WIDTH) + " ", "proposal"),
        (printable(proposal.reason), "proposal"),
    ]
