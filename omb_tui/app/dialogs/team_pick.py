"""Pick one of the home's teams (the Team memory screen's `c`); dismisses with the team's key, or None."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..styles import style_path


class TeamPickDialog(ModalScreen[str | None]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="team-pick-cancel", tooltip="Keep the team shown now"),
    ]

    def __init__(self, teams: list[tuple[str, str]], current: str | None) -> None:
        """`teams`: (key, what to show), in the order to list them."""
        super().__init__()
        self.teams = teams
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Which team?", classes="dialog-question")
            yield OptionList(*(Option(label, id=key) for key, label in self.teams), id="team-pick-list")
            yield Static("Enter shows it; Escape keeps this one.", classes="dialog-note")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        keys = [key for key, _ in self.teams]
        options.highlighted = keys.index(self.current) if self.current in keys else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
