"""Make room: the entries that would move from MEMORY.md to the archive, shown before anything moves."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from ...core.memory.make_room import RoomPlan
from .confirm import ConfirmDialog


class MakeRoomDialog(ConfirmDialog):
    """A ConfirmDialog (so dialogs.tcss styles it, and y / Escape answer) listing what would move."""

    def __init__(self, plan: RoomPlan) -> None:
        super().__init__(plan.message(), yes="Move them")
        self.plan = plan

    def compose(self) -> ComposeResult:
        listed = "\n".join(f"line {entry.line}: {entry.text}" for entry in self.plan.moving)
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-question")
            with VerticalScroll(id="moving-scroll"):
                yield Static(listed, id="moving-list", markup=False)
            yield Static(
                "Struck first, then expired, then the oldest; undated lines and health facts never move. "
                "Undo is in the journal.",
                classes="dialog-note",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.yes_label, id="yes", variant="warning")
                yield Button(self.no_label, id="no")
