"""The base of every area's screen: reads again when files change on disk; a per-bot screen follows the open bot."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen

from ...core.files.paths import NotFound  # (light: the app imports paths before its first frame)
from ..worker_errors import NotifyWorkerErrors

if TYPE_CHECKING:
    from ...core.turn.bot import Bot

T = TypeVar("T")


class BotGone(NotFound):
    """The open bot's workspace, or the bot itself, was removed while the app showed it (a NotFound, so every
    flow that says a refusal in one sentence says this one too)."""

    title = "The bot is gone"  # the notification's title, instead of "Something went wrong"

    def __init__(self, bot_id: str, workspace: object) -> None:
        super().__init__(f"{bot_id}'s workspace is gone: {workspace}. b goes back to the bots.")


class AreaScreen(NotifyWorkerErrors, Screen):
    """A main area's screen: it reads what it shows in workers, and reads again when files change on disk.

    One rule decides when, a version counter rather than a stale flag: the screen remembers the app's
    `memory_version` as of its last read, and is out of date while the two differ. The screen on show reads
    again as soon as the version moves; a hidden one when it is next shown. Nothing has to mark a hidden
    screen stale, and a screen never read (no version yet) reads when first shown.
    """

    EXPLAINS = ""  # what the screen shows, in words: Help (F1) says it above the keys
    _read_at_version: int | None = None

    def on_mount(self) -> None:
        self.watch(self.app, "memory_version", self._follow_app, init=False)

    def on_screen_resume(self) -> None:
        if self.out_of_date():
            self.read_again()

    def _follow_app(self) -> None:
        if self.is_current and self.out_of_date():
            self.read_again()

    def out_of_date(self) -> bool:
        return self._read_at_version != self.app.memory_version

    def read_again(self) -> None:
        self._read_at_version = self.app.memory_version
        self.read_from_disk()

    def read_from_disk(self) -> None:  # pragma: no cover - abstract
        """Start reading what the screen shows (cheap, or in a worker)."""
        raise NotImplementedError


class BotScreen(AreaScreen):
    """A screen about the app's open bot: out of date also while it shows another bot than the open one.
    Subclasses implement `reload(bot_changed=...)` (cheap, or start a worker)."""

    _shown_bot: str | None = None
    _open_bot: Bot | None = None
    _open_bot_version: int | None = None  # the app's memory_version when _open_bot was built

    @property
    def bot(self) -> Bot:
        """The open bot, built once: again when another bot opens, or after files change (it may be gone)."""
        bot, version = self._open_bot, self.app.memory_version
        if bot is None or bot.id != self.app.bot_id or self._open_bot_version != version:
            from ...core.turn.bot import Bot  # the bots screen shares this module and paints before the engine loads

            try:
                bot = self._open_bot = Bot(self.app.home, self.app.bot_id)
            except NotFound:  # it was there when opened: deleted since, say so rather than "no bot 'x'"
                raise BotGone(self.app.bot_id, self.app.home.workspace(self.app.bot_id)) from None
            self._open_bot_version = version
        return bot

    async def in_thread(self, call: Callable[[Bot], T]) -> T:
        """Blocking work in a flow that asks the person (an async worker awaiting a dialog): call(bot) runs in a
        thread, so the screen keeps drawing while the store reads, writes or waits for the bot's lock."""
        return await asyncio.to_thread(lambda: call(self.bot))

    def on_mount(self) -> None:  # (AreaScreen's on_mount runs as well: Textual calls each class's handler)
        self.watch(self.app, "bot_id", self._follow_app, init=False)

    def out_of_date(self) -> bool:
        return bool(self.app.bot_id) and (super().out_of_date() or self._shown_bot != self.app.bot_id)

    def read_from_disk(self) -> None:
        bot_changed = self._shown_bot != self.app.bot_id
        self._shown_bot = self.app.bot_id
        self.reload(bot_changed=bot_changed)

    def reload(self, *, bot_changed: bool) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
