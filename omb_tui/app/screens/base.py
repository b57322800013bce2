"""The base of every per-bot screen: follows the open bot and refreshes when files change on disk."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable, TypeVar

from textual.screen import Screen
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from ...core.bot import Bot

T = TypeVar("T")


class NotifyWorkerErrors:
    """Worker.StateChanged does not bubble to the app, so each screen turns its workers' failures into
    one notification here; a screen that wants to say more overrides `worker_failed`."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR or event.worker.error is None:
            return
        error = str(event.worker.error) or event.worker.error.__class__.__name__
        self.notify(error if len(error) < 300 else error[:297] + "…", title="Something went wrong",
                    severity="error")
        self.worker_failed(event.worker, error)

    def worker_failed(self, worker: Worker, error: str) -> None:
        """Hook: show the failure where it happened (the notification is already sent)."""


class BotScreen(NotifyWorkerErrors, Screen):
    """A screen about the app's open bot. Subclasses implement `reload()` (cheap, or start a worker)."""

    _shown_bot: str | None = None
    _stale = True
    _open_bot = None  # the Bot built for the open bot, until another bot opens or files change on disk

    @property
    def bot(self) -> Bot:
        """The open bot, built once: again when another bot opens, or after files change (it may be gone)."""
        bot = self._open_bot
        if bot is None or bot.id != self.app.bot_id:
            from ...core.bot import Bot  # the bots screen shares this module and paints before the engine loads

            bot = self._open_bot = Bot(self.app.home, self.app.bot_id)
        return bot

    async def in_thread(self, call: Callable[[Bot], T]) -> T:
        """Blocking work in a flow that asks the person (an async worker awaiting a dialog): call(bot) runs in a
        thread, so the screen keeps drawing while the store reads, writes or waits for the bot's lock."""
        return await asyncio.to_thread(lambda: call(self.bot))

    def on_mount(self) -> None:
        self.watch(self.app, "memory_version", self._disk_changed, init=False)
        self.watch(self.app, "bot_id", self._bot_changed, init=False)

    def on_screen_resume(self) -> None:
        if self._stale or self._shown_bot != self.app.bot_id:
            self._refresh_now()

    def _bot_changed(self) -> None:
        self._stale = True
        if self.is_current:
            self._refresh_now()

    def _disk_changed(self) -> None:
        self._stale = True
        self._open_bot = None  # built again on next use, which checks the bot still exists
        if self.is_current:
            self._refresh_now()

    def _refresh_now(self) -> None:
        if not self.app.bot_id:
            return
        bot_changed = self._shown_bot != self.app.bot_id
        self._shown_bot = self.app.bot_id
        self._stale = False
        self.reload(bot_changed=bot_changed)

    def reload(self, *, bot_changed: bool) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
