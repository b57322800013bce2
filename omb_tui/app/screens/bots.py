"""Bots: every bot with its name, memory switch, gauge level and last change; Enter opens one."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ..styles import style_path
from .base import NotifyWorkerErrors

LEVEL_STYLE = {"ok": "green", "amber": "bold yellow", "red": "bold red"}


class BotsScreen(NotifyWorkerErrors, Screen):
    CSS_PATH = style_path("bots.tcss")
    BINDINGS = [
        Binding("enter", "open_bot", "Open", id="open-bot", tooltip="Open the selected bot's memory files"),
        Binding("ctrl+r", "reload", "Refresh", show=False, id="refresh-bots", tooltip="Read every bot again"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Reading the bots in {self.app.home.root}…", id="bots-intro")
        table = DataTable(id="bots-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("Bot", "Name", "Memory", "Gauge", "Lines", "Last change")  # in the very first frame
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self._version = self.app.memory_version
        self.watch(self.app, "memory_version", self._disk_changed, init=False)
        # After the first frame: the screen is painted before the engine is even imported.
        self.call_after_refresh(self.action_reload)

    def _disk_changed(self, version: int) -> None:
        if version != self._version:  # the app's own start-up also calls watchers: ignore those
            self._version = version
            self.action_reload()

    def action_reload(self) -> None:
        self.load_bots()

    @work(thread=True, exclusive=True, exit_on_error=False, group="bots")
    def load_bots(self) -> list:
        from ...core.bot import all_bots  # imported here so the screen paints before the engine loads

        summaries = []
        for bot in all_bots(self.app.home):
            bot.look()
            summaries.append(bot.summary())
        self.app.call_from_thread(self._show, summaries)
        return summaries

    def _show(self, summaries: list) -> None:
        table = self.query_one(DataTable)
        selected = table.cursor_row
        table.clear()
        for s in summaries:
            last = s.last_change[:16].replace("T", " ") if s.last_change else "never"
            gauge = Text(s.level, style=LEVEL_STYLE.get(s.level, ""))
            table.add_row(s.id, s.name, "on" if s.memory else "off", gauge, str(s.lines), last, key=s.id)
        if summaries:
            table.move_cursor(row=min(selected, len(summaries) - 1))
        intro = self.query_one("#bots-intro", Static)
        if summaries:
            intro.update(f"{len(summaries)} bot(s) in {self.app.home.root}. Enter opens one; ? lists every key.")
        else:
            intro.update(f"No bots in {self.app.home.root}. Try: omb-tui demo --home DIR")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.app.open_bot(str(event.row_key.value))

    def action_open_bot(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
            self.app.open_bot(str(row_key.value))
