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
                explains = getattr(self.under, "EXPLAINS", "")  # a dialog's Help has none
                if explains:  # what the screen shows, in words, before its keys
                    yield Static(explains, id="help-explains", classes="help-explains", markup=False)
                yield Static(id="help-keys")
            yield Static("Ctrl+P opens the command palette. Escape closes this.", classes="dialog-note")

    def on_mount(self) -> None:
        # A Rich table wraps long descriptions (the journal's filter syntax) instead of cutting them.
        table = Table(show_header=True, header_style="bold", box=None, expand=True, pad_edge=False)
        table.add_column("Key", no_wrap=True)
        table.add_column("Does", ratio=1)
        self.rows: list[tuple[str, str]] = []
        # The screen's own keys first, then the app's, then Textual's generic ones (Tab, copy) and the focused
        # widget's (cursor movement and such).
        own = _declared_here(type(self.under))
        rank = {self.app: 1}

        def order(active) -> int:
            if active.node is self.under:
                return 0 if (active.binding.key, active.binding.action) in own else 2
            return rank.get(active.node, 3)

        ordered = sorted(self.under.active_bindings.values(), key=order)
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


def _declared_here(screen_class: type) -> set[tuple[str, str]]:
    """(key, action) of the bindings this project's screen classes declare, not Textual's own Screen's."""
    declared = set()
    for cls in screen_class.__mro__:
        if cls.__module__.startswith("omb_tui."):
            for binding in cls.__dict__.get("BINDINGS", []):
                if isinstance(binding, Binding):
                    for key in binding.key.split(","):
                        declared.add((key.strip(), binding.action))
    return declared
