"""A yes/no question as a modal dialog; dismisses with True or False."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..styles import style_path


class ConfirmDialog(ModalScreen[bool]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="confirm-cancel", tooltip="Close without doing anything"),
        Binding("y", "confirm", "Yes", id="confirm-yes", tooltip="Go ahead"),
        Binding("n", "cancel", "No", id="confirm-no", tooltip="Close without doing anything"),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self.question = question
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-question")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.yes_label, id="yes", variant="warning")
                yield Button(self.no_label, id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_key(self, event: events.Key) -> None:
        """The first letter of a button presses it (y and n stay yes and no: bindings come first)."""
        letter = (event.character or "").lower()
        if not letter.isalpha():
            return
        for button in self.query(Button):
            if str(button.label)[:1].lower() == letter:
                event.stop()
                button.press()
                return

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
