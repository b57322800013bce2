"""A recovery draft was found for the file being opened: restore it, discard it, or decide later."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from .confirm import ConfirmDialog

Choice = Literal["restore", "discard", "later"]


class DraftFoundDialog(ConfirmDialog):
    """A ConfirmDialog (so dialogs.tcss styles it) with three answers: "restore", "discard" or "later".

    Its buttons keep ConfirmDialog's ids where the meaning matches (yes: restore, no: later, which has the
    focus), and Escape is *later*: the draft stays on disk and is asked about again, so no key pressed by
    reflex loses it.
    """

    BINDINGS = [
        Binding(
            "r", "choose('restore')", "Restore", id="draft-restore", tooltip="Put the draft in the editor, unsaved"
        ),
        Binding("d", "choose('discard')", "Discard", id="draft-discard", tooltip="Delete the draft"),
    ]
    ANSWERS = {"yes": "restore", "discard": "discard", "no": "later"}

    def __init__(self, question: str, note: str) -> None:
        super().__init__(question)
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-question")
            yield Static(self.note, classes="dialog-note")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Restore draft", id="yes", variant="primary")
                yield Button("Discard draft", id="discard", variant="warning")
                yield Button("Later", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.prevent_default()  # ConfirmDialog's handler would answer True or False
        self.dismiss(self.ANSWERS.get(event.button.id or "no", "later"))

    def action_choose(self, choice: Choice) -> None:
        self.dismiss(choice)

    def action_confirm(self) -> None:  # y
        self.dismiss("restore")

    def action_cancel(self) -> None:  # escape
        self.dismiss("later")
