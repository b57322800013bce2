"""End to end: the installed `omb-tui` in a 60x20 tmux pane, as a person reviewing their bots' night over SSH from
a small terminal. `U` on a run with eight later changes after it asks a question whose buttons and keys line are
on screen (the later changes scroll inside it); `n` answers no and nothing is undone.
"""

from __future__ import annotations

import shutil

import pytest
from support.later_changes import write_night_with_later_changes
from test_e2e_tmux import Pane

from omb_tui.core.files.paths import Home

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"), pytest.mark.dates]


@pytest.fixture
def pane(tmp_path):
    session = "omb-e2e-narrow"
    home = Home(tmp_path / "home")
    write_night_with_later_changes(home)  # written now: last night's, in the Review window whatever the day
    # COLUMNS and LINES emptied: set (as under pytest), they fix the app's size and it never hears a resize
    pane = Pane.start(tmp_path, session, home, "OMB_TUI_NO_WATCH=", "COLUMNS=", "LINES=")
    yield pane, home
    pane.stop()


def test_the_undo_question_shows_its_buttons_at_60x20(pane):
    pane, home = pane
    memory = home.workspace("scout") / "MEMORY.md"
    before = memory.read_text()
    pane.wait_for("v Review")  # drawn
    pane.tmux("resize-window", "-t", pane.session, "-x", "120", "-y", "24")  # the bots screen's line on one row
    pane.wait_for("reviews them")
    pane.tmux("resize-window", "-t", pane.session, "-x", "60", "-y", "20")  # the terminal an SSH reviewer has
    pane.keys("v")
    pane.wait_for("capture")
    pane.keys("U")
    screen = pane.wait_for("y Undo run · n, Esc or Enter Cancel")  # the keys line, whole
    lines = screen.splitlines()
    assert len(lines) <= 20 and all(len(line) <= 60 for line in lines)
    assert "Undo the whole run of scout?" in screen
    assert "8 later changes to these files would be undone too" in screen
    buttons = [line for line in lines if "Undo run" in line and "Cancel" in line and "Esc" not in line]
    assert buttons, f"the buttons are not on screen:\n{screen}"
    pane.keys("n")
    pane.wait_for("⏎ Diff")  # back on the Review area
    assert memory.read_text() == before  # no was no
    pane.keys("q")
    assert pane.exited(), "omb-tui did not quit on q"
