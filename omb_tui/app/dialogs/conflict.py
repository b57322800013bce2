"""The save conflict: the file changed while you were editing (spec: "Editing"), naming who changed it."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ...core.journal.journal import (
    HOW_API,
    HOW_COMMAND_LINE,
    HOW_OUTSIDE,
    HOW_UNDO,
    WHO_BOT,
    WHO_IMPORT,
    WHO_PERSON,
    WHO_UPKEEP,
    JournalRow,
)
from ..styles import style_path

Choice = Literal["reload", "overwrite", "cancel"]
WHILE = "while you were editing."


def row_that_made(journal, rel: str, file_hash: str | None) -> JournalRow | None:
    """The journal row that made the file `rel` as it is now (its newest row, when that row left `file_hash`);
    None when no row says (an edit the journal has not seen yet)."""
    newest = journal.newest_for_file(rel)
    return newest if newest is not None and newest.after_hash == file_hash else None


def who_changed(row: JournalRow | None, bot_name: str) -> str:
    """The conflict's question, from the journal row that made the file as it is now (None: no row says)."""
    if row is None or row.how == HOW_OUTSIDE:
        return f"The file was changed outside the app {WHILE}"
    if row.how == HOW_UNDO:
        return f"An undo in the journal changed this file {WHILE}"
    if row.who == WHO_BOT:
        return f"{bot_name} changed this file {WHILE}"
    if row.who == WHO_PERSON and row.how == HOW_COMMAND_LINE:
        return f"You changed this file from the command line {WHILE[:-1]} it here."
    if row.who == WHO_PERSON and row.how == HOW_API and row.person:
        return f"{row.person} saved this file through the HTTP routes {WHILE}"
    if row.who == WHO_PERSON and row.how == HOW_API:
        return f"This file was saved through the HTTP routes (omb-tui serve) {WHILE}"
    if row.who == WHO_PERSON:
        return f"This file was saved from another omb-tui window {WHILE}"
    if row.who == WHO_UPKEEP:
        return f"Memory upkeep changed this file {WHILE}"
    if row.who == WHO_IMPORT:
        return f"An import changed this file {WHILE}"
    return f"{row.who} ({row.how}) changed this file {WHILE}"


class ConflictDialog(ModalScreen[str]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [
        Binding(
            "escape,c,n", "choose('cancel')", "Cancel", id="conflict-cancel", tooltip="Keep editing; nothing saved"
        ),
        Binding(
            "r",
            "choose('reload')",
            "Reload",
            id="conflict-reload",
            tooltip="Show the file as it is now; your draft stays beside it",
        ),
        Binding(
            "o",
            "choose('overwrite')",
            "Overwrite with mine",
            id="conflict-overwrite",
            tooltip="Save your draft over the file as it is now (undoable in the journal)",
        ),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question  # who changed the file: who_changed()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-question")
            yield Static(
                "Reload shows their version and keeps your draft beside it. Overwrite saves yours; "
                "theirs stays in the journal, so undo brings it back.",
                classes="dialog-note",
            )
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
