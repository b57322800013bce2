"""End to end, in a real terminal (tmux): a bracketed paste then undo keeps the app and the draft, and Ctrl+O
hands the terminal to $EDITOR on a private copy, then saves what comes back like Ctrl+S; Ctrl+F, F3 and ↑
find in the file with the keys a terminal sends.
"""

from __future__ import annotations

import shlex
import sys
import time

import pytest
from support.app_helpers import add_bot
from test_e2e_tmux import OMB, Pane, pytestmark  # noqa: F401 (pytestmark: skipped without tmux)

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor
from omb_tui.core.memory.store import MemoryStore

ORIGINAL = "- 2026-11-01 · likes short replies\n"
PASSWORD = "hunter2-Quokka-77"
EDITOR_SCRIPT = f"""\
import sys
with open(sys.argv[1], "a", encoding="utf-8") as handle:
    handle.write("- wifi password: {PASSWORD}\\n")
"""


@pytest.fixture
def app_in_tmux(tmp_path):
    session = "omb-e2e-editor"
    home = Home(tmp_path / "home")
    add_bot(home, files={"MEMORY.md": ORIGINAL}, actor=Actor("bot", "during a task"))
    script = tmp_path / "editor.py"
    script.write_text(EDITOR_SCRIPT)
    editor = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    pane = Pane.start(tmp_path, session, home, "OMB_TUI_NO_WATCH=1", "VISUAL=", f"EDITOR={editor}")
    pane.wait_for("reviews them")
    pane.keys("Enter")  # open scout
    pane.wait_for("only the first 200 lines load each turn")
    pane.keys("Enter")  # into MEMORY.md's editor: it has the keys at once, so the test's first keys need no pause
    pane.wait_for("Folder:")
    yield pane, home
    pane.stop()


def test_a_bracketed_paste_then_undo_keeps_the_app_running(app_in_tmux):
    pane, home = app_in_tmux
    pane.keys("C-End")
    pasted = "".join(f"- pasted line {n}\n" for n in range(30))
    pane.tmux("set-buffer", "--", pasted)
    pane.tmux("paste-buffer", "-p", "-t", pane.session)  # -p: bracketed, as the terminal pastes
    pane.wait_for("- pasted line 29")
    pane.wait_for("modified")
    pane.keys("C-z", "C-z", "C-z")
    screen = pane.wait_for("MEMORY.md · saved")  # undone back to the file: nothing left unsaved
    assert "Traceback" not in screen and "pasted line" not in screen
    pane.keys("C-y")  # redo: the paste is back, unsaved
    pane.wait_for("- pasted line 29")
    pane.keys("C-q")
    pane.wait_for("Quit and lose them?")
    pane.keys("C-q")
    assert pane.exited()
    assert (home.workspace("scout") / "MEMORY.md").read_text() == ORIGINAL


def test_ctrl_o_saves_what_the_editor_wrote_redacted_as_the_persons_edit(app_in_tmux):
    pane, home = app_in_tmux
    pane.keys("C-o")
    pane.wait_for("Saved MEMORY.md")
    text = (home.workspace("scout") / "MEMORY.md").read_text()
    assert text.startswith(ORIGINAL + "- wifi password: «redacted") and PASSWORD not in text
    newest = MemoryStore(home, "scout").journal.rows(limit=1)[0]
    assert (newest.who, newest.how) == ("person", "in Settings")
    pane.keys("C-q")
    assert pane.exited()


def test_coming_back_to_files_gives_the_keys_to_the_list(app_in_tmux):
    pane, home = app_in_tmux
    pane.keys("M-j")  # the terminal sends ESC j: the journal, from inside the editor
    pane.wait_for("newest first")
    pane.keys("f")
    pane.wait_for("MEMORY.md · saved")
    pane.type("x")  # the list has the keys: nothing is typed
    pane.keys("Enter")  # into the editor, as the person chooses; the key typed right after goes into it
    pane.type("y")
    pane.wait_for("modified")
    pane.keys("C-s")
    pane.wait_for("Saved MEMORY.md")
    assert (home.workspace("scout") / "MEMORY.md").read_text() == "y" + ORIGINAL
    pane.keys("C-q")
    assert pane.exited()


def test_ctrl_f_finds_and_f3_and_up_step_in_a_real_terminal(app_in_tmux):
    pane, home = app_in_tmux
    MemoryStore(home, "scout").write("MEMORY.md", ORIGINAL + "- 2026-11-02 · SHORT walks\n", Actor("bot", "task"))
    pane.keys("C-r")  # read again (nothing unsaved, so no question)
    pane.wait_for("SHORT walks")
    pane.keys("C-f")
    pane.type("short")
    pane.wait_for("1 of 2")
    pane.keys("F3")  # xterm's F3 through tmux; case does not matter
    pane.wait_for("2 of 2")
    pane.keys("Up")
    pane.wait_for("1 of 2")
    pane.keys("Down")
    pane.wait_for("2 of 2")
    pane.type("zzz")
    pane.wait_for("not found")
    pane.keys("BSpace", "BSpace", "BSpace")
    pane.wait_for("2 of 2")
    pane.keys("Escape")  # back in the editor, the match selected
    time.sleep(0.3)  # ESC then b at once is the terminal's Alt+B: a person pauses after Escape
    pane.type("brisk")
    pane.wait_for("modified")
    pane.keys("C-s")
    pane.wait_for("Saved MEMORY.md")
    assert (home.workspace("scout") / "MEMORY.md").read_text() == ORIGINAL + "- 2026-11-02 · brisk walks\n"
    pane.keys("C-q")
    assert pane.exited()


def test_the_draft_kept_after_reload_is_reached_with_f5_and_compared_with_d(app_in_tmux):
    pane, home = app_in_tmux
    pane.keys("C-End")
    pane.type("- my own line")
    pane.wait_for("modified")
    MemoryStore(home, "scout").write("MEMORY.md", "- the bot's new version\n", Actor("bot", "during a task"))
    pane.keys("C-s")
    pane.wait_for("changed this file while you were editing")
    pane.type("r")
    pane.wait_for("Your draft, kept at Reload")
    pane.keys("F5")
    pane.type("d")  # at once: a key of the draft's pane, never typed into the note
    pane.wait_for("Editor (-) vs your draft (+)")
    screen = pane.wait_for("+- my own line")  # the comparison's lines may be drawn a frame after its title
    assert "1  - the bot's new version\n" in screen  # no "d" typed in the note
    pane.keys("C-q")
    assert pane.exited()
    assert (home.workspace("scout") / "MEMORY.md").read_text() == "- the bot's new version\n"
