"""Pictures of the screens a person reads over SSH in a small terminal (docs/app.md, "Narrow terminals"), at 80x24
and 60x20: the Review area with the undo question of a run that has later changes after it (the question, its
buttons and its keys whole, the later changes scrolling inside it), and the Journal of the same night, its file
paths cut in the middle so each keeps its name."""

from __future__ import annotations

import pytest
from support.app_helpers import PicturedHome, open_journal, wait_for
from support.later_changes import fix_times, write_night_with_later_changes
from test_snapshots import REVIEW_NOW, open_review_area

pytestmark = pytest.mark.dates  # pictures with times in them

SIZES = [(80, 24), (60, 20)]


@pytest.fixture
def later_home(monkeypatch, utc_zone):
    from datetime import datetime

    from omb_tui.app.screens import review

    monkeypatch.setattr(review, "clock", lambda: datetime.fromisoformat(REVIEW_NOW))
    with PicturedHome("/tmp/omb-tui-snapshots/later") as pictured:
        fix_times(write_night_with_later_changes(pictured.home))
        yield pictured


async def undo_question_open(pilot):
    from omb_tui.app.dialogs.confirm import ConfirmDialog

    await open_review_area(pilot)
    await pilot.press("U")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
    await wait_for(pilot, lambda: whole_in_view(pilot.app.screen))  # (the question waits in a worker: no settle)


def whole_in_view(dialog) -> bool:
    """The dialog's keys line is inside it: nothing below the list was cut off."""
    return dialog.query_one(".dialog-keys").region.bottom <= dialog.query_one(".dialog").content_region.bottom


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "60x20"])
def test_review_undo_question_with_later_changes(snap_compare, later_home, size):
    assert snap_compare(later_home.app(), terminal_size=size, run_before=undo_question_open)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "60x20"])
def test_journal_of_the_night(snap_compare, later_home, size):
    async def opened(pilot):
        await open_journal(pilot)

    assert snap_compare(later_home.app(bot_id="scout"), terminal_size=size, run_before=opened)
