"""What the Review tree's cursor is on, seen whole: a change with its step or category, its reason or the
quotes it rests on, whether it can be undone and its coloured diff; a run's steps and files; a waiting
proposal's original and merged text. Colours are theme variables, so it reads the same in dark and light.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...core.base.text import plural
from ...core.journal.when import when_text
from ...core.review.runs import Change
from ...core.review.writers import KIND_UPKEEP, writer_of
from .diff_view import ADDED, MUTED, REMOVED, diff_lines
from .review_tree import BOT, CHANGE, PROPOSAL, RUN, BotGroup, RunGroup, TreeLine
from .row_list import printable

GOOD = "$text-success"
WARN = "bold $text-warning"


def _clean(text: object) -> str:
    return printable(text, keep="\t")


def line_content(line: TreeLine | None) -> Content:
    if line is None:
        return Content.styled("Nothing to review in the last nights.", MUTED)
    if line.kind == BOT:
        return bot_content(line.bot)
    if line.kind == RUN:
        return run_content(line.group)
    if line.kind == CHANGE:
        return change_content(line.change)
    if line.kind == PROPOSAL:
        return proposal_content(line.proposal)
    return Content("")


def bot_content(bot: BotGroup) -> Content:
    styles = {"new": "$text-accent", "waiting": WARN}
    counts = [(text, styles.get(role, "")) for text, role in bot.tally.parts()]  # the words of every screen
    lines = [Content.styled(_clean(bot.bot), "bold"), Content.assemble(*counts, ".")]
    lines.append(Content.styled("n / p: the next / previous bot with something new.", MUTED))
    return Content("\n").join(lines)


def run_content(group: RunGroup) -> Content:
    run = group.run
    title = f"Run {_clean(group.run_id)}" if run is None or run.who is None else _clean(run.who)
    if run is not None and run.changes and run.who is None and run.writer.kind != KIND_UPKEEP:
        title = _clean(run.writer.title)  # a session review() lists: its writer, as the groups say theirs
    lines = [Content.assemble((title, "bold"), ("  ", ""), (when_text(group.started), MUTED))]
    if run is not None and not run.changes:  # listed for what the guard said of it
        lines.append(Content("No change: the nightly guard ended this run before it changed anything."))
        if run.guard_line:
            lines.append(Content.styled(_clean(run.guard_line[:1].upper() + run.guard_line[1:]) + ".", WARN))
    elif run is not None:
        lines.append(Content(_clean(run.writer.changes(len(run.changes), run.files))))
        if run.guard_line:
            lines.append(Content.styled(_clean(run.guard_line[:1].upper() + run.guard_line[1:]) + ".", WARN))
        if run.undone:
            state = Content.styled("Every change of it was undone. ", MUTED)
        elif run.reviewed:
            state = Content.styled("Reviewed. ", MUTED)
        else:  # the state and the keys on one line: the diffs below get the room (space reads on)
            state = Content.styled("Not reviewed yet: m marks it (moving past never does). ", "$text-accent")
        lines.append(Content.assemble(state, ("U undoes it whole (asks first); space reads on.", MUTED)))
        for change in run.changes:  # every change's lines, so space reads a whole run without visiting each line
            lines.append(Content.assemble((_clean(change.file), "bold"), ("  ", ""), (change_said(change), MUTED)))
            lines += diff_lines(change.diff or "", changed_only=True) or [Content.styled("(no line changed)", MUTED)]
    if group.proposals:
        lines.append(
            Content.styled(
                f"{plural(len(group.proposals), 'compaction proposal')} waiting: a accepts, x rejects the one under "
                "the cursor; A / X all of this run's.",
                WARN,
            )
        )
    return Content("\n").join(lines)


def change_said(change: Change) -> str:
    """Who made a change (its step, for upkeep), its category, and the chat a capture read, on one line."""
    writer = writer_of([change], change.bot)
    said = [_clean(writer.title)]
    if change.category:
        said.append(f"category {_clean(change.category)}")
    if change.chat and writer.kind == KIND_UPKEEP:  # a bot's or an agent's title names its chat already
        said.append(f'from chat "{_clean(change.chat)}"')
    return " · ".join(said)


def change_content(change: Change) -> Content:
    parts: list[Content | str | tuple[str, str]] = [
        (_clean(change.file), "bold"),
        ("  ", ""),
        (when_text(change.at), MUTED),
        "\n",
    ]
    parts.append(change_said(change))
    if change.quotes:
        parts += ["\n", ("It rests on:", MUTED)]
        for quote in change.quotes:
            parts += ["\n", (f"  “{_clean(quote)}”", "italic")]
    elif change.reason:
        parts += ["\n", (_clean(change.reason), "italic")]
    parts.append("\n")
    if change.undone:
        parts.append((f"Undone (row {_clean(change.undone_by)}).", MUTED))
    elif change.undoable:
        parts.append(("u undoes this change alone (later changes kept).", GOOD))
    else:
        reason = _clean(change.not_undoable_reason or "no earlier text was kept")
        parts.append((f"Cannot be undone: {reason}.", WARN))
    parts.append(("\n" + f"row {_clean(change.id)}", MUTED))
    diff = diff_lines(change.diff or "")
    body = Content("\n").join(diff) if diff else Content.styled("(no difference in the text)", MUTED)
    return Content("\n").join([Content.assemble(*parts), Content(""), body])


def proposal_content(proposal) -> Content:
    lines = [
        Content.assemble(
            ("Proposal", "bold $text-warning"),
            ("  ", ""),
            (f"{_clean(proposal.category)} · MEMORY.md · {when_text(proposal.at)}", MUTED),
        ),
        Content.styled(_clean(proposal.reason), "italic"),
        Content.styled("a accepts it (MEMORY.md changes, journaled, undoable); x rejects it.", GOOD),
        Content(""),
    ]
    lines += [Content.styled(f"- {_clean(text)}", REMOVED) for text in proposal.original.splitlines()]
    if proposal.merged:
        lines += [Content.styled(f"+ {_clean(text)}", ADDED) for text in proposal.merged.splitlines()]
    return Content("\n").join(lines)


class ReviewDetail(VerticalScroll):
    """Shows one line of the tree; scrolls with the arrow keys when focused."""

    DEFAULT_CSS = """
    ReviewDetail {
        background: $surface;
        & > #review-detail-text { padding: 0 1; width: 1fr; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.line: TreeLine | None = None

    def compose(self) -> ComposeResult:
        yield Static(line_content(None), id="review-detail-text")

    def show(self, line: TreeLine | None) -> None:
        same = line is not None and self.line is not None and line.key == self.line.key
        self.line = line
        self.query_one("#review-detail-text", Static).update(line_content(line))
        if not same:
            self.scroll_home(animate=False)

    @property
    def text(self) -> str:
        """What is shown, as plain text (for tests)."""
        return line_content(self.line).plain
