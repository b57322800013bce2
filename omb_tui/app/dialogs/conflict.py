"""The save conflict: the bot changed the file while you were editing (spec: "Editing")."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..styles import style_path

Choice = Literal["reload", "overwrite", "cancel"]


class ConflictDialog(ModalScreen[str]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [
        Binding("escape", "choose('cancel')", "Cancel", id="conflict-cancel", tooltip="Keep editing; nothing saved"),
        Binding("r", "choose('reload')", "Reload", id="conflict-reload",
                tooltip="Show the bot's version; your draft stays beside it"),
        Binding("o", "choose('overwrite')", "Overwrite with mine", id="conflict-overwrite",
                tooltip="Save your draft over the bot's version (undoable in the journal)"),
    ]

    def __init__(self, bot_name: str) -> None:
        super().__init__()
        self.bot_name = bot_name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"{self.bot_name} changed this file while you were editing.", classes="dialog-question")
            yield Static("Reload shows their version and keeps your draft beside it. Overwrite saves yours; "
                         "theirs stays in the journal, so undo brings it back.", classes="dialog-note")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Reload", id="reload", variant="primary")
                yield Button("Overwrite with mine", id="overwrite", variant="warning")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#reload", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "cancel")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
