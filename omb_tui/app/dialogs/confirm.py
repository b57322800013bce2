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
            yield Static(self.keys_line(), classes="dialog-keys", markup=False)

    def keys_line(self) -> str:
        """Every key the dialog takes, said once: a person over a slow link sees what a letter will do."""
        return f"y {self.yes_label} · n, Esc or Enter {self.no_label}"

    def letters(self) -> dict[str, Button]:
        """The buttons a first letter presses: only a letter no other button starts with, and never y or n,
        which are yes and no ("Close draft" and "Cancel" share c: neither takes it)."""
        firsts: dict[str, list[Button]] = {}
        for button in self.query(Button):
            firsts.setdefault(str(button.label)[:1].lower(), []).append(button)
        return {letter: found[0] for letter, found in firsts.items() if len(found) == 1 and letter not in "yn"}

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_key(self, event: events.Key) -> None:
        """A button's first letter presses it when no other button shares it (letters())."""
        letter = (event.character or "").lower()
        button = self.letters().get(letter) if letter.isalpha() else None
        if button is not None:
            event.stop()
            button.press()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
