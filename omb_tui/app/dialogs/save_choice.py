"""Unsaved changes before leaving a file, a bot or the app: Save, Discard changes, or Cancel."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from .confirm import ConfirmDialog

Choice = Literal["save", "discard", "cancel"]


class SaveChoiceDialog(ConfirmDialog):
    """A ConfirmDialog (styles, y / n / Escape, first letters) with three answers. The question asks whether to
    leave and lose the changes, so `y` discards; `s` saves first; `n` and Escape stay."""

    ANSWERS = {"save": "save", "yes": "discard", "no": "cancel"}

    def __init__(self, question: str, discard: str = "Discard changes") -> None:
        super().__init__(question, yes=discard)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-question")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button(self.yes_label, id="yes", variant="warning")
                yield Button("Cancel", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.prevent_default()  # ConfirmDialog's handler would answer True or False
        self.dismiss(self.ANSWERS.get(event.button.id or "no", "cancel"))

    def action_confirm(self) -> None:  # y: leave and lose them, as the question asks
        self.dismiss("discard")

    def action_cancel(self) -> None:
        self.dismiss("cancel")
