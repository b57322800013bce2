"""Make room: MEMORY.md's entries move to the archive by the overflow rule until everything loads (spec: "What
loads, and the budget"), shown before they move; the core, then `omb-tui make-room`."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor, StaleHash
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.budget import gauge
from omb_tui.core.memory.make_room import make_room, plan_room
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore

pytestmark = pytest.mark.dates

TODAY = date(2026, 11, 30)
PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)
HEADER = "# Scout's notes\n- call me Sam (no date: never moves)\n- 2026-01-02 · allergic to peanuts\n"


@pytest.fixture
def home(tmp_path):
    home = Home(tmp_path / "home")
    home.workspace("scout").mkdir(parents=True)
    save_bot_settings(home, BotSettings(id="scout", name="Scout"))
    return home


def memory_path(home):
    return home.workspace("scout") / "MEMORY.md"


def archive(home) -> str:
    path = home.workspace("scout") / "memory" / "archive.md"
    return path.read_text() if path.exists() else ""


def overfull(live: int = 200) -> str:
    """A heading, an undated line and a health fact, a struck and an expired entry, then `live` dated ones."""
    lines = [f"- {(date(2026, 2, 1) + timedelta(days=i)).isoformat()} · fact number {i}\n" for i in range(live)]
    lines.insert(120, "- ~~the office is in Pune~~ · superseded 2026-09-10\n")
    lines.insert(60, "- 2026-10-01 · trip ends · until 2026-10-05\n")
    return HEADER + "".join(lines)


def test_the_plan_moves_struck_then_expired_then_oldest_until_everything_loads_and_writes_nothing(home):
    memory_path(home).write_text(overfull())  # 205 lines: 5 past the cut
    store = MemoryStore(home, "scout")
    plan = plan_room(store.read("MEMORY.md"), TODAY)
    assert [entry.text for entry in plan.moving] == [
        "- 2026-02-01 · fact number 0",
        "- 2026-02-02 · fact number 1",
        "- 2026-02-03 · fact number 2",
        "- 2026-10-01 · trip ends · until 2026-10-05",
        "- ~~the office is in Pune~~ · superseded 2026-09-10",
    ]
    assert plan.moving[0].line == 4 and (plan.lines_before, plan.lines_after) == (205, 200)
    assert "Would move 5 entries to memory/archive.md" in plan.message()
    assert memory_path(home).read_text() == overfull() and archive(home) == ""


def test_making_room_moves_them_marked_journaled_and_everything_then_loads(home):
    memory_path(home).write_text(overfull())
    plan = make_room(home, "scout", PERSON, today=TODAY)
    assert plan.done and len(plan.moving) == 5 and "Moved 5 entries" in plan.message()
    text = memory_path(home).read_text()
    assert gauge(text).lines_not_loaded == 0 and text.startswith(HEADER)  # the lines that never move stay
    assert "fact number 0 · moved 2026-11-30" in archive(home) and "fact number 0" not in text
    assert "trip ends" in archive(home) and "office is in Pune" in archive(home)
    rows = MemoryStore(home, "scout").journal.rows(limit=2)
    assert {row.file for row in rows} == {"MEMORY.md", "memory/archive.md"}
    assert all(row.who == WHO_PERSON and row.note.startswith("make room: 5 entries") for row in rows)
    assert rows[0].file == "MEMORY.md" and rows[0].undoable


def test_making_room_refuses_a_file_changed_since_the_plan_was_shown(home):
    memory_path(home).write_text(overfull())
    plan = plan_room(MemoryStore(home, "scout").read("MEMORY.md"), TODAY)
    memory_path(home).write_text(overfull() + "- 2026-11-29 · one more\n")
    with pytest.raises(StaleHash, match="changed since what would move was shown"):
        make_room(home, "scout", PERSON, expected_hash=plan.based_on, today=TODAY)
    assert archive(home) == ""


def test_nothing_moves_when_everything_loads_and_lines_that_never_move_are_named(home):
    memory_path(home).write_text(overfull(live=10))
    plan = make_room(home, "scout", PERSON, today=TODAY)
    assert not plan.done and plan.moving == () and "nothing needs to move" in plan.message()
    assert archive(home) == ""
    memory_path(home).write_text("".join(f"- hand line {i}\n" for i in range(210)))
    stuck = plan_room(MemoryStore(home, "scout").read("MEMORY.md"), TODAY)
    assert stuck.moving == () and stuck.must_trim and "trim it by hand" in stuck.message()


# ----- the command line -----
def test_make_room_shows_what_would_move_and_asks_for_yes(run_cli, home):
    memory_path(home).write_text(overfull())
    shown = run_cli("make-room", "scout")
    assert shown.code == 4 and "Would move 5 entries" in shown.out and "--yes" in shown.err
    assert "fact number 0" in shown.out and memory_path(home).read_text() == overfull()
    as_json = run_cli("make-room", "scout", "--json")
    assert as_json.code == 4 and json.loads(as_json.out)["moving_count"] == 5
    done = run_cli("make-room", "scout", "--yes", "--json")
    assert done.code == 0 and json.loads(done.out)["done"] is True
    assert gauge(memory_path(home).read_text()).lines_not_loaded == 0
    again = run_cli("make-room", "scout")
    assert again.code == 0 and "nothing needs to move" in again.out
