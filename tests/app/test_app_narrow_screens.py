"""A person reviewing their bots' night over SSH in a small terminal (docs/app.md, "Narrow terminals"): the undo
question of a run with later changes keeps its question, its buttons and its keys in view at 80x24 and 60x20, the
later changes scrolling inside it, Tab reaching the buttons; a footer too narrow for its keys says `f1 more`."""

from __future__ import annotations

from datetime import datetime

import pytest
from support.app_helpers import open_journal, open_recall, wait_for
from support.later_changes import LATER_CHANGES, fix_times, write_night_with_later_changes
from support.review_screen import open_review
from textual.widgets import Button

from omb_tui.app.dialogs.confirm import ConfirmDialog

pytestmark = pytest.mark.dates

NOW = "2026-11-29T08:00:00+00:00"  # the morning after the night the home was written for


@pytest.fixture
def later_home(tmp_path, monkeypatch, utc_zone):
    from omb_tui.app.screens import review
    from omb_tui.core.files.paths import Home

    monkeypatch.setattr(review, "clock", lambda: datetime.fromisoformat(NOW))
    home = Home(tmp_path / "home")
    fix_times(write_night_with_later_changes(home))
    return home


def inside(inner, outer) -> bool:
    return outer.contains_region(inner)


async def asked_to_undo_the_run(pilot) -> ConfirmDialog:
    await open_review(pilot)
    await pilot.press("U")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
    dialog = pilot.app.screen
    await wait_for(pilot, lambda: inside(dialog.query_one(".dialog-keys").region, dialog_box(dialog)))
    return dialog


def dialog_box(dialog: ConfirmDialog):
    return dialog.query_one(".dialog").content_region


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
async def test_the_undo_question_keeps_its_question_buttons_and_keys_in_view(later_home, size):
    from omb_tui.app.app import make_app

    app = make_app(later_home, watch=False)
    async with app.run_test(size=size) as pilot:
        dialog = await asked_to_undo_the_run(pilot)
        assert dialog.question.startswith("Undo the whole run of scout?")
        assert f"{LATER_CHANGES} later changes to these files would be undone too" in dialog.question
        assert dialog.details.count("\n") + 1 == LATER_CHANGES  # every one named, none "and N more"
        box = dialog_box(dialog)
        for part in (".dialog-question", "#yes", "#no", ".dialog-keys"):
            assert inside(dialog.query_one(part).region, box), part
        later = dialog.query_one(".dialog-details")
        assert inside(later.region, box) and later.max_scroll_y > 0  # the list scrolls, inside the dialog
        assert later.region.height >= 2

        await pilot.press("tab")  # from Cancel, where the dialog starts, round to the list...
        assert dialog.focused is later
        await pilot.press("end")  # ...which scrolls to the last of the later changes
        await wait_for(pilot, lambda: later.scroll_y == later.max_scroll_y)
        await pilot.press("tab")
        assert dialog.focused is dialog.query_one("#yes", Button)
        await pilot.press("tab")
        assert dialog.focused is dialog.query_one("#no", Button)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmDialog))


def footer_items(app) -> list[tuple[str, object]]:
    """The footer's items as read, left to right, each with where it is drawn."""
    from textual.widgets._footer import FooterKey

    return [(f"{key.key_display} {key.description}", key.region) for key in app.screen.query(FooterKey)]


async def test_a_footer_too_narrow_for_its_keys_ends_with_f1_more(later_home):
    from omb_tui.app.app import make_app

    app = make_app(later_home, watch=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await open_review(pilot)
        await wait_for(pilot, lambda: footer_items(app))
        items = footer_items(app)
        said = [text for text, _ in items]
        assert said[-2:] == ["f1 more", "^p palette"]  # the keys that fit, then more, then the palette at the right
        assert said[:3] == ["⏎ Diff", "u Undo", "U Undo all"]  # the first keys kept, each whole
        palette = items[-1][1]
        assert all(region.right <= palette.x for _, region in items[:-1])  # none under the palette, none cut

        await pilot.resize_terminal(140, 30)  # room for every key: no "more"
        await wait_for(pilot, lambda: [text for text, _ in footer_items(app)][-2:] == ["f1 Help", "^p palette"])


async def test_the_bots_screen_footer_says_f1_more_when_its_keys_do_not_fit(later_home):
    from omb_tui.app.app import make_app

    app = make_app(later_home, watch=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for(pilot, lambda: footer_items(app))
        said = [text for text, _ in footer_items(app)]
        assert said[-2:] == ["f1 more", "^p palette"] and said[0] == "⏎ Open"


async def test_enter_on_the_list_of_later_changes_answers_no():
    """The keys line says Enter answers no: so it does with the list focused, where no button takes Enter."""
    from textual.app import App

    answers = []

    class Asking(App):
        def on_mount(self) -> None:
            later = "\n".join(
                f"- 11-29 02:{minute:02d} · You (from the command line) · MEMORY.md" for minute in range(9)
            )
            self.push_screen(ConfirmDialog("Undo the whole run of scout?", "Undo run", details=later), answers.append)

    app = Asking()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        await pilot.press("tab")
        assert app.screen.focused is app.screen.query_one(".dialog-details")
        await pilot.press("enter")
        await wait_for(pilot, lambda: answers)
        assert answers == [False]


async def test_the_journal_filter_names_the_hints_that_fit_and_says_there_are_more(later_home):
    from textual.widgets import Input

    from omb_tui.app.app import make_app

    app = make_app(later_home, watch=False, bot_id="scout")
    async with app.run_test(size=(60, 20)) as pilot:
        await open_journal(pilot)
        box = app.screen.query_one("#journal-filter-box", Input)
        await wait_for(pilot, lambda: box.placeholder.endswith("…"))
        assert len(box.placeholder) <= box.content_region.width and "how:undo" in box.placeholder  # whole hints
        await pilot.resize_terminal(120, 30)
        await wait_for(pilot, lambda: box.placeholder.endswith("day:YYYY-MM-DD"))


async def test_the_recall_preview_cuts_a_chosen_chat_with_an_ellipsis(later_home):
    from omb_tui.app.app import make_app

    app = make_app(later_home, watch=False, bot_id="scout")
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_recall(pilot)
        label = screen.query_one("#chat").query_one("#label")
        await wait_for(pilot, lambda: label.region.width > 0)
        shown = label.render_line(0).text.rstrip()
        assert shown.endswith("…") and label.render_line(1).text.strip() == ""  # one line, cut where it is cut
