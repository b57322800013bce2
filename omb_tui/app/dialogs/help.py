"""Help (F1 or ?): every key of the screen you came from, with what it does."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ..styles import style_path


class HelpDialog(ModalScreen[None]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help-close", tooltip="Back")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static(f"Keys — {self.under.__class__.__name__.removesuffix('Screen')}", classes="dialog-question")
            with VerticalScroll(id="help-scroll"):
                yield Static(id="help-keys")
            yield Static("Ctrl+P opens the command palette. Escape closes this.", classes="dialog-note")

    def on_mount(self) -> None:
        # A Rich table wraps long descriptions (the journal's filter syntax) instead of cutting them.
        table = Table(show_header=True, header_style="bold", box=None, expand=True, pad_edge=False)
        table.add_column("Key", no_wrap=True)
        table.add_column("Does", ratio=1)
        self.rows: list[tuple[str, str]] = []
        # The screen's own keys first, then the app's, then the focused widget's (cursor movement and such).
        rank = {self.under: 0, self.app: 1}
        ordered = sorted(self.under.active_bindings.values(), key=lambda active: rank.get(active.node, 2))
        for active in ordered:
            binding = active.binding
            if binding.system and not binding.description:
                continue
            label = self.app.get_key_display(binding)
            what = binding.tooltip or binding.description or binding.action
            row = (label, what if active.enabled else f"{what} (not now)")
            if row in self.rows:
                continue
            self.rows.append(row)
            table.add_row(*row)
        self.query_one("#help-keys", Static).update(table)
        self.query_one("#help-scroll").focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
