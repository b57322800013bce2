"""Ask for an until date ("still true?" → until): YYYY-MM-DD, today or later, checked as you type."""

from __future__ import annotations

from datetime import date

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...core.journal.when import parse_day
from ..styles import style_path


class UntilDateDialog(ModalScreen[date | None]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="until-cancel", tooltip="Close; nothing changes")]

    def __init__(self, text: str, today: date) -> None:
        super().__init__()
        self.text = text
        self.today = today

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("True until which day?", classes="dialog-question")
            yield Static(self.text, classes="dialog-note", markup=False)
            yield Input(placeholder=self.today.isoformat(), id="until-date")
            yield Static("YYYY-MM-DD, today or later; it stops loading the day after.", classes="dialog-note")

    def problem(self, value: str) -> str | None:
        try:
            day = parse_day(value.strip(), today=self.today)
        except ValueError as exc:
            return str(exc)
        return None if day >= self.today else f"The until date must be today ({self.today.isoformat()}) or later."

    def on_input_submitted(self, event: Input.Submitted) -> None:
        problem = self.problem(event.value)
        if problem:  # the dialog stays open with the date as typed
            self.notify(problem, severity="error", markup=False)
            return
        self.dismiss(parse_day(event.value.strip(), today=self.today))

    def action_cancel(self) -> None:
        self.dismiss(None)
