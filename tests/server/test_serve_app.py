"""The app and the server on one home at once: a save through the API while the app has the file open."""

from __future__ import annotations

import asyncio

from support.app_helpers import open_files, settle, wait_for
from support.serve_helpers import LiveServer
from textual.widgets import Static

from omb_tui.app.app import make_app
from omb_tui.app.dialogs.conflict import ConflictDialog
from omb_tui.core.journal.journal import HOW_API
from omb_tui.core.memory.store import MemoryStore

FILE = "/api/bots/scout/memory/file"


async def save_through_the_api(server: LiveServer, text: str) -> None:
    read = await asyncio.to_thread(server.get, f"{FILE}?path=MEMORY.md")
    saved = await asyncio.to_thread(
        server.request, "PUT", FILE, {"path": "MEMORY.md", "text": text, "expectedHash": read.data["hash"]}
    )
    assert saved.status == 200


async def test_a_save_from_the_api_meets_the_apps_conflict_dialog(home):
    with LiveServer(home) as server:
        app = make_app(home, watch=False, bot_id="scout")
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_files(pilot)
            screen.editor.focus()
            screen.editor.move_cursor(screen.editor.document.end)
            await pilot.press(*"- my draft")
            await save_through_the_api(server, "- saved from the API\n")
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, ConflictDialog)
            assert "saved through the HTTP routes (omb-tui serve) while you were editing." in str(
                app.screen.query_one(".dialog-question", Static).render()
            )
            await pilot.press("r")  # Reload: the API's version in the editor, the draft kept beside it
            await settle(pilot)
            assert screen.editor.text == "- saved from the API\n"
            assert (home.workspace("scout") / "MEMORY.md").read_text() == "- saved from the API\n"
    assert MemoryStore(home, "scout").journal.rows(limit=1)[0].how == HOW_API


async def test_the_app_follows_what_the_server_writes(home):
    with LiveServer(home) as server:
        app = make_app(home, watch=True, bot_id="scout")
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_files(pilot)
            await pilot.pause(0.3)  # the watcher starts after the first frame
            await save_through_the_api(server, "- saved from the API\n")
            await wait_for(pilot, lambda: screen.editor.text == "- saved from the API\n")
            assert screen.editor.text == "- saved from the API\n"
