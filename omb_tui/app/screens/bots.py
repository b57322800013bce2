"""Bots: every bot with its name, memory switch, gauge level and last change; Enter opens one."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ..widgets.bot_list import BotList
from .base import NotifyWorkerErrors


class BotsRead(Message, bubble=False):
    """Every bot's summary, read in `load_bots`' thread."""

    def __init__(self, summaries: list) -> None:
        super().__init__()
        self.summaries = summaries


class BotsScreen(NotifyWorkerErrors, Screen):
    # styles/bots.tcss is part of the app's CSS_PATH (the first screen: one CSS parse at start-up)
    BINDINGS = [
        Binding("enter", "open_bot", "Open", id="open-bot", tooltip="Open the selected bot's memory files"),
        Binding("ctrl+r", "reload", "Refresh", show=False, id="refresh-bots", tooltip="Read every bot again"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Reading the bots in {self.app.home.root}…", id="bots-intro")
        yield BotList(id="bots-list")  # its column header is in the very first frame
        yield Footer()

    def on_mount(self) -> None:
        self._version = self.app.memory_version
        self.watch(self.app, "memory_version", self._disk_changed, init=False)
        # After the first frame: the screen is painted before the engine is even imported.
        self.app.after_first_frame(self._first_read)

    def _first_read(self) -> None:
        if self.is_current:
            self.action_reload()
        else:  # the app opened straight on a bot: read when (if ever) this screen is shown
            self._version = -1

    def _disk_changed(self, version: int) -> None:
        # A bots screen that is not shown (the first one, once the bots mode has its own) reads on its return.
        if version != self._version and self.is_current:  # the app's own start-up also calls watchers
            self._version = version
            self.action_reload()

    def on_screen_resume(self) -> None:
        if self._version != self.app.memory_version:
            self._version = self.app.memory_version
            self.action_reload()

    def action_reload(self) -> None:
        self.load_bots()

    @work(thread=True, exclusive=True, exit_on_error=False, group="bots")
    def load_bots(self) -> None:
        from ...core.bot import all_bots  # imported here so the screen paints before the engine loads

        summaries = []
        for bot in all_bots(self.app.home):
            bot.look()
            summaries.append(bot.summary())
        self.post_message(BotsRead(summaries))

    def on_bots_read(self, message: BotsRead) -> None:
        self.query_one(BotList).show(message.summaries, start_on=self.app.bot_id)
        self._say(message.summaries)

    def _say(self, summaries: list) -> None:
        intro = self.query_one("#bots-intro", Static)
        current = self.query_one(BotList).highlighted
        if current is not None and current.error:
            intro.update(f"{current.id}: {current.error}")
        elif summaries:
            intro.update(f"{len(summaries)} bot(s) in {self.app.home.root}. Enter opens one; ? lists every key.")
        else:
            intro.update(f"No bots in {self.app.home.root}. Try: omb-tui demo --home DIR")

    def on_bot_list_highlighted(self, event: BotList.Highlighted) -> None:
        self._say(event.bot_list.summaries)

    def action_open_bot(self) -> None:
        self.query_one(BotList).action_choose()

    def on_bot_list_chosen(self, event: BotList.Chosen) -> None:
        self.app.open_bot(event.bot_id)
