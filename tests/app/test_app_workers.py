"""Background work in the app: blocking I/O never freezes the screen, and a failed worker says so once.

Pilot at 80x24, used as a person would.
"""

from __future__ import annotations

import threading

import pytest
from support.app_helpers import settle

from omb_tui.app.app import make_app
from omb_tui.app.screens.files import FilesScreen
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import Actor, MemoryStore

BOT = Actor(WHO_BOT, HOW_TASK)
ORIGINAL = "- 2026-11-01 · likes short replies\n"


@pytest.fixture
def home(tmp_path):
    home = Home(tmp_path / "home")
    home.workspace("scout").mkdir(parents=True)
    save_bot_settings(home, BotSettings(id="scout", name="Scout"))
    MemoryStore(home, "scout").write("MEMORY.md", ORIGINAL, BOT)
    return home


class BotBusy:
    """Another writer holding the bot's lock (the bot, mid-task) until the test lets it go."""

    def __init__(self, home: Home) -> None:
        self.holding, self.release, self.let_go = threading.Event(), threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold, args=(home,))

    def _hold(self, home: Home) -> None:
        with MemoryStore(home, "scout").locked():
            self.holding.set()
            self.release.wait(timeout=10)  # never for ever: an app that froze on the lock gets it back
        self.let_go.set()

    def __enter__(self) -> BotBusy:
        self.thread.start()
        self.holding.wait()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self.thread.join()


async def test_a_save_waiting_for_the_bots_lock_leaves_the_editor_live_and_keeps_what_is_typed(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FilesScreen)
        screen.editor.focus()
        screen.editor.move_cursor(screen.editor.document.end)
        await pilot.press(*"- saved")
        with BotBusy(home) as busy:
            await pilot.press("ctrl+s")
            await pilot.press(*" and typed while it waits")
            typed_while_waiting = screen.editor.text.endswith("typed while it waits") and not busy.let_go.is_set()
        await settle(pilot)
        assert typed_while_waiting  # the screen took the keys while the save waited for the lock
        assert (home.workspace("scout") / "MEMORY.md").read_text() == ORIGINAL + "- saved"
        assert screen.editor.text == ORIGINAL + "- saved and typed while it waits"  # nothing typed is lost
        assert screen.modified  # ... and what came after the save is not saved


async def test_a_failed_worker_is_one_notification_and_a_log_line_with_its_traceback(home, monkeypatch, caplog):
    from omb_tui.core.turn.bot import Bot

    def broken_disk(self):
        raise OSError("the topics folder cannot be read")

    monkeypatch.setattr(Bot, "topics", broken_disk)
    app = make_app(home, watch=False, bot_id="scout")
    said: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "notify", lambda message, **kwargs: said.append(str(message)))
        await pilot.press("t")  # the topics screen reads its topics in a worker, which fails
        await settle(pilot)
    assert said == ["the topics folder cannot be read"]  # once, in words, never a traceback
    failures = [record for record in caplog.records if record.name == "omb_tui.app"]
    assert len(failures) == 1 and "the topics folder cannot be read" in failures[0].getMessage()
    assert failures[0].exc_info is not None  # the traceback is in the log, for whoever debugs it


async def test_a_failed_journal_scan_is_said_not_dropped(home, monkeypatch):
    """The journal list's own workers (index, filter, tail) use the same handler: a failure is one notification."""
    import omb_tui.app.widgets.journal_list as journal_list

    def unreadable(*args, **kwargs):
        raise OSError("the journal cannot be read")

    monkeypatch.setattr(journal_list, "lines_backward", unreadable)
    app = make_app(home, watch=False, bot_id="scout")
    said: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "notify", lambda message, **kwargs: said.append(str(message)))
        await pilot.press("j")
        await settle(pilot)
    assert "the journal cannot be read" in said


async def test_a_failure_that_echoes_a_key_is_notified_redacted(home, monkeypatch):
    from omb_tui.core.turn.bot import Bot

    key = "AK" + "IA" + "FAKEEXAMPLE01234"

    def provider_echo(self):
        raise OSError(f'the provider answered 400: {{"input": "\\u0041KIA{key[4:]}", "key": "{key}"}}')

    monkeypatch.setattr(Bot, "topics", provider_echo)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("t")  # the topics screen reads its topics in a worker, which fails
        await settle(pilot)
        shown = [(n.title, n.message) for n in app._notifications]
    assert len(shown) == 1 and shown[0][1].startswith("the provider answered 400: ")
    assert not any(key[4:] in title + message for title, message in shown)
