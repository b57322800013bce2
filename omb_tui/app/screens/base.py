"""The base of every per-bot screen: follows the open bot and refreshes when files change on disk."""

from __future__ import annotations

from textual.screen import Screen

from ...core.bot import Bot


class BotScreen(Screen):
    """A screen about the app's open bot. Subclasses implement `reload()` (cheap, or start a worker)."""

    _shown_bot: str | None = None
    _stale = True

    @property
    def bot(self) -> Bot:
        return Bot(self.app.home, self.app.bot_id)

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
