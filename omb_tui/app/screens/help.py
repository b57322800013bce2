"""Help (F1 or ?): every key of the screen you came from, with what it does."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from ..styles import style_path


class HelpScreen(ModalScreen[None]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help-close", tooltip="Back")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static(f"Keys — {self.under.__class__.__name__.removesuffix('Screen')}", classes="dialog-question")
            yield DataTable(id="help-keys", cursor_type="row", zebra_stripes=True)
            yield Static("Ctrl+P opens the command palette. Escape closes this.", classes="dialog-note")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Key", "Does")
        seen = set()
        for key, active in self.under.active_bindings.items():
            binding = active.binding
            if binding.system and not binding.description:
                continue
            label = self.app.get_key_display(binding)
            what = binding.tooltip or binding.description or binding.action
            if (label, what) in seen:
                continue
            seen.add((label, what))
            table.add_row(label, what if active.enabled else f"{what} (not now)")
        table.focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
