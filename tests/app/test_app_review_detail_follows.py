"""The Review area's detail follows the key (docs/app.md, "Review"): after m, M, u, U, a and x the detail shows the
new state with the cursor where it was, never the state before the key until the cursor moves."""

from __future__ import annotations

import pytest
from support.app_helpers import wait_for
from support.review_screen import answer, open_review, question

from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore
from omb_tui.core.runs.run import UpkeepRun

pytestmark = pytest.mark.dates

PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)
MEMORY = "# Memory\n\n- likes tea\n- old note\n- flies on Friday\n"
PROPOSED_RUN = "20261129T031500-abcdef"


@pytest.fixture
def night_home(home):
    """scout: a tidy-up run of two changes, and two compaction proposals waiting."""
    from omb_tui.core.compact.pending import add_pending
    from omb_tui.core.compact.validator import Change as Proposed

    store = MemoryStore(home, "scout")
    store.write("MEMORY.md", MEMORY, PERSON)
    tidy = UpkeepRun("scout").actor("tidy-up")
    text = store.read("MEMORY.md").text
    store.write("MEMORY.md", text.replace("- old note\n", ""), tidy, note="tidy-up: 1 expired entry")
    text = store.read("MEMORY.md").text
    store.write("MEMORY.md", text.replace("- likes tea\n", "- likes green tea\n"), tidy, note="tidy-up: merged")
    add_pending(
        home,
        "scout",
        PROPOSED_RUN,
        [
            Proposed("ephemeral", "- flies on Friday\n", "a trip that is over"),
            Proposed("merge", "- likes green tea\n", "said twice", "- likes tea (green)\n"),
        ],
    )
    return home


async def on_line(pilot, screen, kind: str, words: str = "") -> None:
    """The cursor on the first line of that kind whose tree text holds `words`, and the detail showing it."""
    for n, line in enumerate(screen.tree.lines):
        text = "".join(part for part, _ in screen.tree._parts(line))
        if line.kind == kind and words in text:
            screen.tree.move_cursor(n)
            await wait_for(pilot, lambda key=line.key: screen.detail.line is not None and screen.detail.line.key == key)
            return
    raise AssertionError(f"no {kind} line with {words!r}")


async def shows(pilot, screen, words: str) -> None:
    """The detail says `words` with the cursor left where it was."""
    at = screen.tree.cursor
    await wait_for(pilot, lambda: words in screen.detail.text)
    assert screen.tree.cursor == at


async def test_m_and_m_again_show_reviewed_then_not_reviewed_at_once(night_home):
    from omb_tui.app.app import make_app

    async with make_app(night_home, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await on_line(pilot, screen, "run", "tidy-up")
        assert "Not reviewed yet" in screen.detail.text
        await pilot.press("m")
        await shows(pilot, screen, "Reviewed.")
        await pilot.press("m")  # takes the mark back
        await shows(pilot, screen, "Not reviewed yet")


async def test_M_shows_the_run_under_the_cursor_reviewed(night_home):
    from omb_tui.app.app import make_app

    async with make_app(night_home, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await on_line(pilot, screen, "run", "tidy-up")
        await pilot.press("M")
        await question(pilot)
        await answer(pilot, "y", screen)
        await shows(pilot, screen, "Reviewed.")
        await on_line(pilot, screen, "bot")
        assert "(2 new)" not in screen.detail.text


async def test_u_shows_the_change_undone(night_home):
    from omb_tui.app.app import make_app

    async with make_app(night_home, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await on_line(pilot, screen, "change", "merged")
        assert "u undoes this change alone" in screen.detail.text
        await pilot.press("u")
        await question(pilot)
        await answer(pilot, "y", screen)
        await shows(pilot, screen, "Undone (row ")
        assert "u undoes this change alone" not in screen.detail.text


async def test_U_shows_the_run_undone(night_home):
    from omb_tui.app.app import make_app

    async with make_app(night_home, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await on_line(pilot, screen, "run", "tidy-up")
        await pilot.press("U")
        await question(pilot)
        await answer(pilot, "y", screen)
        await shows(pilot, screen, "Every change of it was undone.")


@pytest.mark.parametrize("key, left", [("a", "merge"), ("x", "merge")])
async def test_a_and_x_show_the_proposal_that_is_left(night_home, key, left):
    from omb_tui.app.app import make_app

    async with make_app(night_home, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await on_line(pilot, screen, "proposal", "ephemeral")
        assert "a trip that is over" in screen.detail.text
        await pilot.press(key)
        await question(pilot)
        await answer(pilot, "y", screen)
        await wait_for(pilot, lambda: "said twice" in screen.detail.text)  # the next proposal, shown whole
        assert screen.tree.line_at_cursor().proposal.category == left
        assert "a trip that is over" not in screen.detail.text
        await on_line(pilot, screen, "bot")
        assert "1 proposal waiting" in screen.detail.text
