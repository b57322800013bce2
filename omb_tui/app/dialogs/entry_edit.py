"""Edit one entry's line ("still true?" → edit): the line as written, changed in place; Enter saves it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..styles import style_path


class EntryEditDialog(ModalScreen[str | None]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="entry-edit-cancel", tooltip="Close; nothing changes")]

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Edit the entry", classes="dialog-question")
            yield Input(self.line, id="entry-edit")
            yield Static("Enter saves it as one change of yours, undone from the journal.", classes="dialog-note")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value if event.value.strip() != self.line.strip() else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
