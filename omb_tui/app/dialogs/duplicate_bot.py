"""Ask for the id (and, if wanted, the name) of a bot's copy, the id checked against the rules as you type."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...core.files.paths import MemoryInputError, validate_bot_id
from ..styles import style_path


class DuplicateBotDialog(ModalScreen[tuple[str, str | None] | None]):
    """Answers (new id, name or None for "<name> (copy)"), or None when closed."""

    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="duplicate-cancel", tooltip="Close; nothing is copied")]

    def __init__(self, bot_id: str, bot_name: str, taken: frozenset[str]) -> None:
        super().__init__()
        self.bot_id, self.bot_name, self.taken = bot_id, bot_name, taken

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Duplicate {self.bot_name} ({self.bot_id}) as", classes="dialog-question")
            yield Input(f"{self.bot_id}-copy", placeholder="new id", id="duplicate-id")
            yield Input("", placeholder=f"name (default: {self.bot_name} (copy))", id="duplicate-name")
            yield Static(
                "The copy keeps the settings (the helper switch too) and the memory files; not the "
                "conversations, and its journal starts with one import row.",
                id="duplicate-hint",
                classes="dialog-note",
            )

    def problem(self, new_id: str) -> str | None:
        """Why this id cannot be the copy's, or None."""
        try:
            validate_bot_id(new_id)
        except MemoryInputError as exc:
            return str(exc)
        if new_id in self.taken:
            return f"There is already a bot {new_id!r}: choose another id."
        return None

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "duplicate-id":
            return
        hint = self.query_one("#duplicate-hint", Static)
        problem = self.problem(event.value.strip())
        hint.update(problem or f"Will be the bot {event.value.strip()}, a copy of {self.bot_id}.")
        hint.set_class(problem is not None, "-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        new_id = self.query_one("#duplicate-id", Input).value.strip()
        problem = self.problem(new_id)
        if problem:  # the dialog stays open with the id as typed, the reason beside it
            self.notify(problem, severity="error", markup=False)
            return
        name = self.query_one("#duplicate-name", Input).value.strip()
        self.dismiss((new_id, name or None))

    def action_cancel(self) -> None:
        self.dismiss(None)
