"""The recall preview's recall pane: what recall puts in front of the message, and why each part is there.

Spec: memory.md, "Recall before each turn". A summary (the block's size and the words that matched, or why recall
did not run), the block exactly as the core returned it, drawn with the core's marks (RecallBlock), and why each
note and passage was recalled, with the line the server logs. A turn sent from the preview shows its answer above
the block (TurnAnswer). The sentences are `recall_sentences`'; the screen (`screens/recall.py`) runs recall.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ...core.recall.recall import NO_MARKS, BlockMarks, RecallResult
from ..recall_sentences import KIND_LABELS, size_line, skip_sentence, why_lines, words_line
from .recall_block import RecallBlock
from .turn_answer import TurnAnswer


class RecallPane(Vertical):
    """The summary, the block and why; the screen tells it what recall returned (or that it could not run)."""

    def compose(self) -> ComposeResult:
        yield Static("Recall block · in front of the message", classes="pane-title")
        yield Static("", id="recall-summary")
        with VerticalScroll(id="recall-view"):
            yield TurnAnswer(id="turn-answer")
            yield RecallBlock(id="recall-block")
            yield Static("", id="recall-why")

    def show_hint(self, kind: str) -> None:
        """No message yet: what recall would look through for this kind of turn."""
        what = "notes and passages from other conversations" if kind == "person" else "notes only"
        self.query_one("#recall-summary", Static).update(
            Text(f"Type a message above: recall runs as you type.\n{KIND_LABELS[kind]}: {what}.")
        )
        self.query_one(RecallBlock).show("", NO_MARKS)
        self.query_one("#recall-why", Static).update("")

    def show_result(self, result: RecallResult, marks: BlockMarks) -> None:
        summary = self.query_one("#recall-summary", Static)
        why = self.query_one("#recall-why", Static)
        block = self.query_one(RecallBlock)
        if result.skipped:
            summary.update(Text(skip_sentence(result)))
            block.show("", NO_MARKS)
            why.update(Text("Nothing goes in front of this message.", style="italic"))
            summary.set_class(True, "-skipped")
            return
        summary.set_class(False, "-skipped")
        summary.update(Text(f"{size_line(result)}\n{words_line(result)}"))
        block.show(result.block, marks)
        if not result.block:
            why.update(
                Text("Nothing matches: there is no block, and nothing goes in front of this message.", style="italic")
            )
            return
        why.update(
            Text(
                "\n".join(
                    ["", "Why each was recalled:", *why_lines(result), "", f"The server log says: {result.log_line}"]
                )
            )
        )

    def show_failure(self, error: str) -> None:
        """The preview is not current: recall raised (the notification is sent by NotifyWorkerErrors)."""
        self.query_one("#recall-summary", Static).update(Text(f"Recall could not run: {error}"))
