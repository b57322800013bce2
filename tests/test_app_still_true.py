"""The Review area's Still true? (omb_tui/app/screens/still_true.py, `t` from Review): the queue of every bot,
and k, s and u answering the entry under the cursor, each one journal row by the person."""

from __future__ import annotations

from datetime import date, timedelta

from app_helpers import add_bot, listed_bots, settle, wait_for
from textual.widgets import Input, Static

from omb_tui.core.memory.journal import WHO_PERSON
from omb_tui.core.memory.store import MemoryStore

OLD = "- 2025-01-05 · from chat · works at Acme"
OLDER = "- 2025-01-01 · from chat · drives a blue car"


async def open_still_true(pilot):
    from omb_tui.app.screens.still_true import StillTrueScreen

    await listed_bots(pilot)
    await pilot.press("v")
    await settle(pilot)
    await pilot.press("t")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, StillTrueScreen)
    return screen


async def test_the_queue_is_listed_and_each_key_answers_the_entry_under_the_cursor(home):
    from omb_tui.app.app import make_app

    add_bot(home, "quill", files={"MEMORY.md": f"# Memory\n{OLDER}\n{OLD}\n"})
    memory = home.workspace("quill") / "MEMORY.md"
    app = make_app(home, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_still_true(pilot)
        texts = [line.text for line in screen.lines if line.bot == "quill"]
        assert texts == [OLDER, OLD]  # the oldest first
        assert "to ask about today" in str(screen.query_one("#still-true-status", Static).render())
        screen.listing.highlighted = next(i for i, line in enumerate(screen.lines) if line.text == OLDER)
        await pilot.press("k")
        await wait_for(pilot, lambda: "confirmed" in memory.read_text())
        assert f"{OLDER} · confirmed {date.today().isoformat()}" in memory.read_text()
        await wait_for(pilot, lambda: OLDER not in [line.text for line in screen.lines])

        screen.listing.highlighted = next(i for i, line in enumerate(screen.lines) if line.text == OLD)
        await pilot.press("u")  # the dialog's worker waits for the date: wait for the dialog, not for workers
        await wait_for(pilot, lambda: pilot.app.screen.query(Input))
        later = (date.today() + timedelta(days=30)).isoformat()
        pilot.app.screen.query_one(Input).value = later
        await pilot.press("enter")
        await wait_for(pilot, lambda: f"· until {later}" in memory.read_text())
        rows = MemoryStore(home, "quill").journal.rows()
        assert [row.who for row in rows[:2]] == [WHO_PERSON, WHO_PERSON]
        assert {row.note for row in rows[:2]} == {"still true? keep", f"still true? until {later}"}
