"""End to end: the installed `omb-tui` in a real pseudo-terminal (tmux), driven with keys as a person would.

Opens a bot, types into MEMORY.md, saves, quits; then checks the file on disk and the journal. And: quitting
with unsaved changes asks first and writes nothing; one change is reverted from the journal; make room moves
the lines past the cut to the archive.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.app_helpers import add_bot

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor
from omb_tui.core.memory.store import MemoryStore

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

OMB = Path(sys.executable).with_name("omb-tui")


class Pane:
    def __init__(self, session: str, socket: Path) -> None:
        self.session = session
        self.socket = socket

    @classmethod
    def start(cls, tmp_path: Path, session: str, home: Home, *env: str) -> Pane:
        """The installed omb-tui on `home` in an 80x24 pane of a private tmux server (never one the person runs),
        with TERM set and each of `env` (NAME=value) in its environment."""
        socket = tmp_path / "tmux.sock"
        size = ["-x", "80", "-y", "24"]
        command = ["env", "TERM=xterm-256color", *env, str(OMB), "--home", str(home.root)]
        subprocess.run(["tmux", "-S", str(socket), "new-session", "-d", "-s", session, *size, *command], check=True)
        return cls(session, socket)

    def stop(self) -> None:
        subprocess.run(["tmux", "-S", str(self.socket), "kill-server"], capture_output=True)

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, check=True)
        return out.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.session, "-l", "--", text)

    def exited(self, timeout: float = 10.0) -> bool:
        """The app quit: its session (and with it the private tmux server) is gone."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alive = subprocess.run(
                ["tmux", "-S", str(self.socket), "has-session", "-t", self.session], capture_output=True
            )
            if alive.returncode != 0:
                return True
            time.sleep(0.1)
        return False

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen shows:\n{self.screen()}")


@pytest.fixture
def pane(tmp_path):
    session = "omb-e2e"
    home = Home(tmp_path / "home")
    add_bot(
        home,
        files={"MEMORY.md": '- 2026-11-01 · from chat "Plans" · likes short replies\n'},
        actor=Actor("bot", "during a task"),
    )
    pane = Pane.start(tmp_path, session, home, "OMB_TUI_NO_WATCH=")
    yield pane, home
    pane.stop()


def test_open_a_bot_edit_save_and_quit(pane):
    pane, home = pane
    pane.wait_for("reviews them")
    pane.keys("Enter")  # open scout
    pane.wait_for("only the first 200 lines load each turn")
    pane.keys("Enter")  # the file list has the keys; Enter goes into MEMORY.md's editor
    # No pause: Enter and the words after it may reach the app in one read, as over a slow link.
    pane.type("- typed in a real terminal")
    pane.keys("Enter")
    pane.wait_for("modified")
    pane.keys("C-s")
    pane.wait_for("Saved MEMORY.md")
    pane.keys("M-r")  # Alt+R: the recall preview, from inside the editor
    pane.wait_for("Message")
    pane.type("what about short replies")
    screen = pane.wait_for("/ 6,000 characters")
    assert "auto-recall:" not in screen  # log lines never tear the screen
    pane.keys("Escape")  # out of the text box, so q is a key, not a letter
    time.sleep(0.6)  # a moment, as a person takes: Escape then q at once would read as Alt+Q
    pane.keys("q")
    assert pane.exited(), "omb-tui did not quit on q"
    text = (home.workspace("scout") / "MEMORY.md").read_text()
    assert text.startswith("- typed in a real terminal\n- 2026-11-01")
    newest = MemoryStore(home, "scout").journal.rows(limit=1)[0]
    assert (newest.who, newest.how, newest.file) == ("person", "in Settings", "MEMORY.md")


def test_quitting_with_unsaved_changes_asks_and_keeps_the_file_as_it_was(pane):
    pane, home = pane
    memory = home.workspace("scout") / "MEMORY.md"
    before = memory.read_bytes()
    pane.wait_for("reviews them")
    pane.keys("Enter")
    pane.wait_for("only the first 200 lines load each turn")
    pane.keys("Enter")  # into the editor; the words typed at once go into it
    pane.type("- never saved")
    pane.wait_for("modified")
    pane.keys("C-q")
    pane.wait_for("has unsaved changes. Quit and lose them?")
    pane.keys("Escape")  # no: back to the draft
    time.sleep(0.6)
    screen = pane.wait_for("- never saved")
    assert "Quit and lose them?" not in screen
    pane.keys("C-q")
    pane.wait_for("Quit and lose them?")
    pane.keys("C-q")  # asked, and asked again: quit
    assert pane.exited(), "omb-tui did not quit on the second Ctrl+Q"
    assert memory.read_bytes() == before  # nothing typed was written


def test_revert_one_change_in_the_journal_keeps_the_later_one(pane):
    pane, home = pane
    store = MemoryStore(home, "scout")
    memory = home.workspace("scout") / "MEMORY.md"
    first = memory.read_text()
    store.write("MEMORY.md", "- likes tea\n" + first, Actor("person", "in Settings"))
    store.write("MEMORY.md", memory.read_text() + "- likes jazz\n", Actor("bot", "during a task"))
    pane.wait_for("reviews them")
    pane.keys("Enter")
    pane.wait_for("only the first 200 lines load each turn")
    pane.keys("j")
    pane.wait_for("R Revert")
    pane.keys("Down")  # the person's "likes tea"; the bot's "likes jazz" came after it
    pane.wait_for("u puts MEMORY.md back")
    pane.keys("R")
    pane.wait_for("Revert this change to MEMORY.md alone?")
    pane.keys("y")
    pane.wait_for("is taken back")
    assert memory.read_text() == first + "- likes jazz\n"
    newest = store.journal.rows(limit=1)[0]
    assert (newest.how, newest.file) == ("revert", "MEMORY.md")


def test_make_room_from_the_files_list_moves_the_oldest_lines_to_the_archive(pane):
    pane, home = pane
    memory = home.workspace("scout") / "MEMORY.md"
    full = (
        "# Notes\n"
        + "".join(f"- 2026-01-{day:02d} · fact number {day}\n" for day in range(1, 29))
        + "".join(f"- 2026-03-01 · later fact {n}\n" for n in range(176))
    )  # 205 lines: 5 past the cut
    MemoryStore(home, "scout").write("MEMORY.md", full, Actor("bot", "during a task"))
    pane.wait_for("reviews them")
    pane.keys("Enter")
    pane.wait_for("5 lines not loaded")
    pane.type("m")  # the list has the keys: m is make room, never typed into the note
    pane.wait_for("Would move 5 entries")
    assert "fact number 1" in pane.screen()
    pane.type("y")
    pane.wait_for("Moved 5 entries")
    pane.wait_for("0 lines not loaded")
    archive = (home.workspace("scout") / "memory/archive.md").read_text()
    assert "fact number 5" in archive and "fact number 6" not in archive
    assert "fact number 1\n" not in memory.read_text() and "fact number 6" in memory.read_text()
    newest = MemoryStore(home, "scout").journal.rows(limit=1)[0]
    assert (newest.who, newest.file) == ("person", "MEMORY.md") and newest.note.startswith("make room")
