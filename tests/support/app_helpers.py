"""Helpers shared by the app tests (`from support.app_helpers import ...`; tests/conftest.py puts tests/ on sys.path).

Homes are built through the core, as the bot and the person build them, so each file has its journal row; the app
is opened on an area the way a person opens it, with the area's letter.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore

if TYPE_CHECKING:
    from omb_tui.app.screens.journal import JournalScreen

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)

ScreenType = TypeVar("ScreenType")


class PicturedHome:
    """A home of its own for one snapshot test, drawn in the picture at a fixed path under /tmp.

    The bots, files and settings screens print the home's path, so the path is in the picture. A fixed path is shared
    by every checkout on the machine, and two runs at once would build over each other's home. So each test gets a new
    private folder beside the fixed one, whose path has exactly the fixed one's length (the layout stays the same),
    and the app's screenshots name the fixed path wherever they show the real one.
    """

    def __init__(self, pictured_root: str) -> None:
        pictured = Path(pictured_root)
        self.pictured_top = Path("/tmp", pictured.relative_to("/tmp").parts[0])
        self.top = _new_folder_beside(self.pictured_top)
        self.home = Home(self.top.joinpath(*pictured.relative_to(self.pictured_top).parts))

    def __enter__(self) -> PicturedHome:
        return self

    def __exit__(self, *exc_info) -> None:
        shutil.rmtree(self.top, ignore_errors=True)

    def app(self, **options):
        """The app on this home, as make_app builds it, whose screenshots show the pictured path."""
        from omb_tui.app.app import make_app

        app = make_app(self.home, watch=False, **options)
        real, pictured = os.path.realpath(self.top), str(self.pictured_top)
        export_screenshot = app.export_screenshot
        app.export_screenshot = lambda **kwargs: export_screenshot(**kwargs).replace(real, pictured)
        return app


def _new_folder_beside(folder: Path) -> Path:
    """A new private folder next to `folder`, named as long: its name with the last eight characters random."""
    while True:
        candidate = folder.with_name(folder.name[:-8] + secrets.token_hex(4))
        try:
            candidate.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return candidate


def add_bot(
    home: Home,
    bot_id: str = "scout",
    *,
    name: str | None = None,
    memory: bool = True,
    files: Mapping[str, str] | None = None,
    actor: Actor = PERSON,
) -> MemoryStore:
    """A bot with its settings and its files (workspace-relative path -> text), each written through the store."""
    home.workspace(bot_id).mkdir(parents=True)
    save_bot_settings(home, BotSettings(id=bot_id, name=name or bot_id.title(), memory=memory))
    store = MemoryStore(home, bot_id)
    for rel, text in (files or {}).items():
        store.write(rel, text, actor, allow_log=rel.startswith("memory/log/"))
    return store


async def settle(pilot) -> None:
    """Let every worker but the file watcher (which runs until the app ends) finish."""
    await pilot.pause()
    busy = [w for w in pilot.app.workers if w.group != "watch"]
    if busy:  # an empty list would mean "wait for every worker", the watcher included
        from textual.worker import WorkerFailed

        try:
            await pilot.app.workers.wait_for_complete(busy)
        except WorkerFailed:  # a worker that failed has finished too: the app says its failure, the test looks
            pass
    await pilot.pause()


async def wait_for(pilot, condition: Callable[[], object], timeout: float = 30.0) -> None:
    """Let the app run until condition() holds; fail the test if it never does. (It returns as soon as it holds: the
    ceiling is for a machine busy with other work, where 10 s once ran out before a toast was shown.)"""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)
    await pilot.pause()


async def listed_bots(pilot):
    """The bots screen's list, once it has read the bots (the names are in the first frame, the rest after)."""
    from omb_tui.app.widgets.bot_list import BotList

    bot_list = pilot.app.screen.query_one(BotList)
    for _ in range(100):
        await settle(pilot)
        if bot_list.row_count and not bot_list.first_look:
            break
    return bot_list


async def open_files(pilot):
    """The memory files screen an app started on a bot opens with, once it has read the files."""
    from omb_tui.app.screens.files import FilesScreen

    await settle(pilot)
    assert isinstance(pilot.app.screen, FilesScreen)
    return pilot.app.screen


async def open_area(pilot, letter: str, screen_type: type[ScreenType]) -> ScreenType:
    """From the files screen an app opens on, go to another area with its letter, as a person would."""
    await settle(pilot)
    await pilot.press("escape", letter)  # escape leaves the files screen's editor, where the letter would be typed
    await settle(pilot)
    assert isinstance(pilot.app.screen, screen_type)
    return pilot.app.screen


async def open_topics(pilot):
    from omb_tui.app.screens.topics import TopicsScreen

    return await open_area(pilot, "t", TopicsScreen)


async def open_settings(pilot):
    from omb_tui.app.screens.settings import SettingsScreen

    return await open_area(pilot, "s", SettingsScreen)


async def open_recall(pilot):
    from omb_tui.app.screens.recall import RecallScreen

    return await open_area(pilot, "r", RecallScreen)


async def put_message(pilot, screen, text: str) -> None:
    """The recall preview's message box holding `text` at once (as pasted), the cursor in it."""
    from textual.widgets import Input

    field = screen.query_one("#message", Input)
    field.focus()
    field.value = text
    await settle(pilot)


async def open_journal(pilot):
    """The journal screen, once its list has read the journal."""
    from omb_tui.app.screens.journal import JournalScreen

    screen = await open_area(pilot, "j", JournalScreen)
    listing = screen.journal_list
    await wait_for(pilot, lambda: listing.ready and not listing.reading and not listing.filtering)
    await settle(pilot)
    return screen


def static_text(screen, selector: str) -> str:
    """The plain text a Static shows, tables included (a rich Table drawn 200 columns wide)."""
    import io

    from rich.console import Console
    from rich.text import Text
    from textual.widgets import Static

    content = screen.query_one(selector, Static).content
    if isinstance(content, (str, Text)):
        return str(content)
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(content)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def screen_lines(app) -> list[str]:
    """What the terminal shows, line by line, as a person reads it (from the app's own screenshot)."""
    import html
    import re

    rows: dict[float, list[tuple[float, str]]] = {}
    for found in re.finditer(
        r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', app.export_screenshot()
    ):
        text = html.unescape(re.sub("<[^>]+>", "", found.group(3))).replace("\xa0", " ")
        rows.setdefault(float(found.group(2)), []).append((float(found.group(1)), text))
    return ["".join(text for _, text in sorted(rows[y])) for y in sorted(rows)]


def list_lines(screen: JournalScreen) -> list[str]:
    listing = screen.journal_list
    return [listing.render_line(y).text for y in range(listing.scrollable_content_region.height)]
