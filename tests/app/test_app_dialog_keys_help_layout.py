"""Keys that only do what they show, and screens a person can read at any size (docs/app.md): the yes/no dialog every
action that writes asks with (y and n, Escape and Enter, a button's first letter only when no other button shares
it, each said in the dialog), F1's explanations, and the header and gauge whole at 60x20."""

from __future__ import annotations

import pytest
from textual.app import App

from omb_tui.app.dialogs.confirm import ConfirmDialog


class Asking(App):
    """One question, its answer kept."""

    def __init__(self, yes: str, no: str = "Cancel") -> None:
        super().__init__()
        self.labels = (yes, no)
        self.answer: bool | None = None

    def on_mount(self) -> None:
        self.push_screen(ConfirmDialog("Close your kept draft?", *self.labels), self._answered)

    def _answered(self, answer: bool | None) -> None:
        self.answer = answer


@pytest.mark.parametrize(("keys", "answer"), [("y", True), ("n", False), ("escape", False), ("enter", False)])
async def test_y_n_escape_and_enter_each_answer_as_the_dialog_says(keys, answer):
    app = Asking("Close draft")
    async with app.run_test() as pilot:
        await pilot.pause()
        said = str(app.screen.query_one(".dialog-keys").render())
        assert said == "y Close draft · n, Esc or Enter Cancel"
        await pilot.press(keys)
        await pilot.pause()
        assert app.answer is answer


async def test_a_letter_two_buttons_share_presses_neither():
    """ "Close draft" and "Cancel" both start with c: c meant as Cancel closed the draft, which is kept nowhere else."""
    app = Asking("Close draft")
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert app.answer is None and isinstance(app.screen, ConfirmDialog)  # still asking


async def test_a_letter_one_button_alone_starts_with_presses_it():
    app = Asking("Undo run")
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("u")
        await pilot.pause()
        assert app.answer is True


async def test_f1_explains_what_the_bots_screen_and_review_show_before_their_keys(home):
    """F1 once listed keys and explained nothing: the gauge, the Night column, the marks."""
    from support.app_helpers import listed_bots, settle

    from omb_tui.app.app import make_app

    app = make_app(home, watch=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await listed_bots(pilot)
        await pilot.press("f1")
        await settle(pilot)
        said = str(app.screen.query_one("#help-explains").render())
        assert "Gauge: how much of MEMORY.md loads into every prompt" in said and "Night: what last night's" in said
        await pilot.press("escape", "v")
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        said = str(app.screen.query_one("#help-explains").render())
        assert "✓ reviewed: you marked it with m" in said and "moving the cursor past never marks" in said


async def test_at_60x20_the_header_names_the_areas_and_the_load_sentence_is_whole(home):
    """At 60x20 the header's list of areas and the gauge's load sentence were once cut off."""
    from support.app_helpers import listed_bots, screen_lines, settle

    from omb_tui.app.app import make_app

    app = make_app(home, watch=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await listed_bots(pilot)
        await pilot.press("enter")
        await settle(pilot)
        lines = screen_lines(app)
        assert "f t j r s e b: areas" in lines[0] and "…" not in lines[0]
        assert any("MEMORY.md: only the first 200 lines load each turn." in line for line in lines)
        await pilot.resize_terminal(120, 36)
        await pilot.pause()
        assert "files topics journal recall settings upkeep(e) bots" in screen_lines(app)[0]
