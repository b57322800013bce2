"""The Review area's keys, each with what it does (F1 lists them; docs/app.md, "Review"). Keys follow `git add -p`,
lazygit, less and mutt: a letter acts on the line under the cursor, an upper-case one on more, space reads on."""

from __future__ import annotations

from textual.binding import Binding

BINDINGS = [
    Binding("j", "move(1)", "Down", show=False, id="review-down", tooltip="The line below"),
    Binding("k", "move(-1)", "Up", show=False, id="review-up", tooltip="The line above"),
    Binding(
        "enter",
        "open",
        "Diff",
        id="review-open",
        tooltip="On a change or a proposal: into its diff, to scroll it; on a run: fold or open it",
    ),
    Binding(
        "u",
        "undo_change",
        "Undo",
        id="review-undo",
        tooltip="Undo the change under the cursor alone (later changes kept); asks first",
    ),
    Binding(
        "U",
        "undo_run",
        "Undo all",  # a run's or a group's (a chat's turns, a day's edits): the question names which
        id="review-undo-run",
        tooltip="Undo every change of the run or group under the cursor; asks first, naming later changes that go too",
    ),
    Binding("a", "accept", "Accept", id="review-accept", tooltip="Accept the proposal under the cursor; asks first"),
    Binding("x", "reject", "Reject", id="review-reject", tooltip="Reject the proposal under the cursor; asks first"),
    Binding(
        "A",
        "accept_all",
        "Accept all",
        show=False,
        id="review-accept-all",
        tooltip="Accept every proposal of the run under the cursor; asks first",
    ),
    Binding(
        "X",
        "reject_all",
        "Reject all",
        show=False,
        id="review-reject-all",
        tooltip="Reject every proposal of the run under the cursor; asks first",
    ),
    Binding(
        "n", "next_bot(1)", "Next bot", id="review-next-bot", tooltip="The next bot with something not yet reviewed"
    ),
    Binding(
        "p",
        "next_bot(-1)",
        "Previous bot",
        show=False,
        id="review-previous-bot",
        tooltip="The previous bot with something not yet reviewed",
    ),
    Binding(
        "m",
        "mark",
        "Mark read",
        id="review-mark",
        tooltip="Mark the run under the cursor reviewed, or take its mark back (on a bot's line: all its runs); "
        "moving the cursor marks nothing",
    ),
    Binding(
        "space",
        "page",
        "Page",
        show=False,
        id="review-page",
        tooltip="Read on: the diffs below down a page, and at their end the next run or group (as less and mutt)",
    ),
    Binding("J", "next_group(1)", "Next run", show=False, id="review-next-group", tooltip="The next run or group"),
    Binding(
        "K",
        "next_group(-1)",
        "Previous run",
        show=False,
        id="review-previous-group",
        tooltip="The run or group above",
    ),
    Binding(
        "M",
        "mark_all",
        "Mark all read",
        show=False,
        id="review-mark-all",
        tooltip="Mark everything listed and not yet reviewed reviewed, every bot; asks first",
    ),
    Binding(
        "t",
        "still_true",
        "Still true?",
        show=False,  # the footer is full at 80 columns: F1 lists it, and docs/guard.md
        id="review-still-true",
        tooltip="The entries to ask about: old with no until date, ending this week, or contradicted",
    ),
    Binding("escape", "back", "Back", show=False, id="review-back", tooltip="Back to the tree"),
    Binding("ctrl+r", "reread", "Re-read", show=False, id="review-reread", tooltip="Read every journal again"),
]
