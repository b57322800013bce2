"""End to end: the installed `omb-tui` in tmux, on a home where a real tidy-up ran (no model: the expiry and
duplicate steps). Review opens from the bots screen with `v`; taking the expired note out of MEMORY.md is undone
alone with `j`, `u`, `y`, and the archive keeps its copy.
"""

from __future__ import annotations

import shutil

import pytest
from support.app_helpers import add_bot
from test_e2e_tmux import OMB, Pane

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.upkeep.tidy import tidy

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"), pytest.mark.dates]

MEMORY = "# Memory\n\n- 2026-11-01 · Dentist · until 2026-11-02\n- 2026-10-06 · Has a cat called Miso\n"


@pytest.fixture
def pane(tmp_path):
    session = "omb-e2e-review"
    home = Home(tmp_path / "home")
    add_bot(home, files={"MEMORY.md": MEMORY}, actor=Actor("person", "in Settings"))  # yours: seen, listed last
    report = tidy(home, "scout")  # no model configured: the expired note goes to the archive, a real run
    assert report.expired
    pane = Pane.start(tmp_path, session, home, "OMB_TUI_NO_WATCH=")
    yield pane, home
    pane.stop()


def test_review_an_overnight_tidy_up_and_undo_one_change(pane):
    pane, home = pane
    memory = home.workspace("scout") / "MEMORY.md"
    assert "Dentist" not in memory.read_text()
    pane.wait_for("v reviews them")  # the bots screen names last night's changes
    pane.keys("v")
    pane.wait_for("tidy-up")
    pane.wait_for("u undoes this change alone")  # the cursor starts on the run's first change: the archive's
    pane.keys("j", "u")  # the next: MEMORY.md without the expired note
    pane.wait_for("Undo this change to MEMORY.md of scout alone?")
    pane.keys("y")
    pane.wait_for("Undone")
    assert "- 2026-11-01 · Dentist · until 2026-11-02\n" in memory.read_text()
    assert "Dentist" in (home.workspace("scout") / "memory" / "archive.md").read_text()
    newest = MemoryStore(home, "scout").journal.rows(limit=1)[0]
    assert (newest.file, newest.how) == ("MEMORY.md", "revert")
    pane.keys("q")
    assert pane.exited(), "omb-tui did not quit on q"
