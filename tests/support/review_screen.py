"""The Review area driven by keyboard as a person drives it: opened from the bots screen, its confirmations
answered, a line of its tree read as shown. Shared by the review, layers and Team Cloud tests."""

from __future__ import annotations

from support.app_helpers import listed_bots, settle, wait_for


async def question(pilot) -> str:
    """The confirmation on screen, once it is there."""
    from omb_tui.app.dialogs.confirm import ConfirmDialog

    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
    return str(pilot.app.screen.said)  # the question and the list under it


async def answer(pilot, key: str, screen) -> None:
    """Answer the confirmation with `key`, then let the flow finish and the screen read again."""
    await pilot.press(key)
    await wait_for(pilot, lambda: pilot.app.screen is screen)
    await settle(pilot)


async def open_review(pilot):
    """From the bots screen, with `v`, once the journals are read."""
    from omb_tui.app.screens.review import ReviewScreen

    await listed_bots(pilot)
    await pilot.press("v")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    await wait_for(pilot, lambda: screen.tree.row_count)
    return screen


def line_text(screen, line) -> str:
    return "".join(text for text, _ in screen.tree._parts(line))
