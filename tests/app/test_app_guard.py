"""The guard in the app: the Review area's Still true? (omb_tui/app/screens/still_true.py, `t`), the queue of every
bot answered with k, s and u, each one journal row by the person; and a run the guard undid, shown with why."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from support.app_helpers import add_bot, listed_bots, settle, wait_for
from textual.widgets import Input, Static

from omb_tui.core.base import clock
from omb_tui.core.journal.journal import WHO_PERSON
from omb_tui.core.memory.store import MemoryStore

pytestmark = pytest.mark.dates

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


async def answer_in_a_dialog(pilot, screen, text: str, key: str, value: str) -> None:
    """On the entry `text`, `key` opens its dialog (whose worker waits for the answer: wait for the dialog, not for
    workers); `value` is typed in and Enter given."""
    screen.listing.highlighted = next(i for i, line in enumerate(screen.lines) if line.text == text)
    await pilot.press(key)
    await wait_for(pilot, lambda: pilot.app.screen.query(Input))
    pilot.app.screen.query_one(Input).value = value
    await pilot.press("enter")


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
        assert f"{OLDER} · confirmed {clock.today().isoformat()}" in memory.read_text()
        await wait_for(pilot, lambda: OLDER not in [line.text for line in screen.lines])

        later = (clock.today() + timedelta(days=30)).isoformat()
        await answer_in_a_dialog(pilot, screen, OLD, "u", later)
        await wait_for(pilot, lambda: f"· until {later}" in memory.read_text())
        rows = MemoryStore(home, "quill").journal.rows()
        assert [row.who for row in rows[:2]] == [WHO_PERSON, WHO_PERSON]
        assert {row.note for row in rows[:2]} == {"still true? keep", f"still true? until {later}"}


async def test_the_review_area_shows_a_run_the_guard_undid_and_why(home):
    from omb_tui.app.app import make_app
    from omb_tui.app.widgets.review_tree import run_words
    from omb_tui.core.guard.night import GUARD_ACTOR
    from omb_tui.core.review.revert import undo_run
    from omb_tui.core.runs.guard_record import write_guard_record
    from omb_tui.core.runs.run import UpkeepRun

    add_bot(home, "quill", files={"MEMORY.md": f"# Memory\n{OLD}\n"})
    run = UpkeepRun("quill")
    MemoryStore(home, "quill").write("MEMORY.md", "# Memory\n", run.actor("compact"))
    undo_run(home, "quill", run.id, agreed=[], actor=GUARD_ACTOR)
    why = 'the probe "where do I work" no longer finds "works at Acme"'
    write_guard_record(home, "quill", run.id, {"failed": why, "undone": True}, "2026-12-02", {})
    app = make_app(home, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await listed_bots(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = pilot.app.screen
        runs = [line.group for line in screen.tree.lines if line.kind == "run" and line.bot.bot == "quill"]
        (group,) = [group for group in runs if group.run.who is None]  # the upkeep run; the guard's undo beside it
        assert any(other.run.who == "The nightly guard (an undo)" for other in runs)
        assert "undone by the guard" in "".join(text for text, _ in run_words(group))
        screen.tree.move_cursor(next(i for i, line in enumerate(screen.tree.lines) if line.group is group))
        await settle(pilot)
        assert f"Guard: run undone by the guard: {why}." in screen.detail.text


async def test_e_edits_the_entry_under_the_cursor(home):
    from omb_tui.app.app import make_app

    add_bot(home, "quill", files={"MEMORY.md": f"# Memory\n{OLD}\n"})
    memory = home.workspace("quill") / "MEMORY.md"
    app = make_app(home, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_still_true(pilot)
        await answer_in_a_dialog(pilot, screen, OLD, "e", "- 2026-12-02 · works at Acme, in Delft")
        await wait_for(pilot, lambda: "in Delft" in memory.read_text())
        assert memory.read_text() == "# Memory\n- 2026-12-02 · works at Acme, in Delft\n"


async def test_a_run_the_guard_stopped_before_any_change_is_shown_with_why(home):
    from omb_tui.app.app import make_app
    from omb_tui.core.runs.guard_record import write_guard_record

    add_bot(home, "quill", files={"MEMORY.md": "# Memory\n"})
    stopped = {"stopped": "the night's limit of 40 model calls is reached", "steps_left_out": ["tidy-up"]}
    from datetime import datetime

    at = clock.now().isoformat(timespec="seconds")
    write_guard_record(home, "quill", "20261202T031500-aaaaaa", stopped | {"at": at}, "2026-12-02", {})
    app = make_app(home, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await listed_bots(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = pilot.app.screen
        index = next(i for i, line in enumerate(screen.tree.lines) if line.kind == "run" and line.bot.bot == "quill")
        screen.tree.move_cursor(index)
        await settle(pilot)
        assert "No change: the nightly guard ended this run before it changed anything." in screen.detail.text
        assert "Guard: stopped: the night's limit of 40 model calls is reached (tidy-up not run)." in screen.detail.text
