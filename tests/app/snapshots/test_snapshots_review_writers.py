"""Pictures of the Review area's "since I last looked" with every kind of writer (docs/review.md): an upkeep run the
guard undid, an agent's session, a bot's turn in a chat, an edit outside the app and the person's own, at 80x24
and 60x20, and its F1. Written through the core as each writer writes, then fixed in time and ids (the undo rows'
references with them) so the pictures only change when the screen does."""

from __future__ import annotations

import json
import re

import pytest
from support.app_helpers import PicturedHome, add_bot, settle
from test_snapshots import REVIEW_NOW, open_review_area

from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore

pytestmark = pytest.mark.dates  # pictures with times and ages in them

SESSION_CHAT = "claude-code-0b7e5d0c-3f43-4c7e-9a52-6d1f2e8a9b10"
SESSION_RUN = "20261129T021500-c0ffee"
TIDY_RUN = "20261129T030000-aaaaaa"


def fix_journal(store: MemoryStore, first_minute: int) -> None:
    """Each row's id and time as on a fixed night, one minute apart from 02:<first_minute>; an undo's reference to
    the row it undid follows its row."""
    path = store.journal.path
    lines = path.read_text(encoding="utf-8").splitlines()
    ids = {}
    for n, line in enumerate(lines):
        ids[json.loads(line)["id"]] = f"row-{store.bot_id}-{first_minute + n:02d}"
    fixed = []
    for n, line in enumerate(lines):
        row = json.loads(line)
        row["id"], row["at"] = ids[row["id"]], f"2026-11-29T02:{first_minute + n:02d}:00.000+00:00"
        if row.get("undo_of"):
            row["undo_of"] = ids.get(row["undo_of"], row["undo_of"])
        fixed.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    path.write_text("\n".join(fixed) + "\n", encoding="utf-8")


@pytest.fixture
def writers_home(monkeypatch, utc_zone):
    from datetime import datetime

    from omb_tui.app.screens import review
    from omb_tui.core.guard.night import GUARD_ACTOR
    from omb_tui.core.review.revert import undo_run
    from omb_tui.core.runs.guard_record import write_guard_record
    from omb_tui.core.runs.run import UpkeepRun

    monkeypatch.setattr(review, "clock", lambda: datetime.fromisoformat(REVIEW_NOW))
    monkeypatch.setattr("omb_tui.core.base.clock.timestamp", datetime.fromisoformat(REVIEW_NOW).timestamp)
    with PicturedHome("/tmp/omb-tui-snapshots/writers") as pictured:
        home = pictured.home
        scout = add_bot(
            home, files={"MEMORY.md": "# Memory\n\n- likes tea\n- 2026-11-01 · Dentist · until 2026-11-02\n"}
        )
        agent = Actor(WHO_BOT, HOW_TASK, chat=SESSION_CHAT, run=SESSION_RUN)
        for line in ("- the repo uses uv\n", "- tests run with pytest\n"):
            scout.write("MEMORY.md", scout.read("MEMORY.md").text + line, agent)
        turn = Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip", run="20261129T022000-dddddd")
        scout.write("MEMORY.md", scout.read("MEMORY.md").text + "- hotel in Alfama\n", turn)
        scout.write("memory/books.md", "# Books\n\n- Pessoa, The Book of Disquiet\n", Actor(WHO_PERSON, HOW_OUTSIDE))
        tidy = UpkeepRun("scout", TIDY_RUN).actor("tidy-up")
        dentist = "- 2026-11-01 · Dentist · until 2026-11-02\n"
        scout.write("memory/archive.md", "# Archive\n\n" + dentist, tidy, note="1 expired entry from MEMORY.md")
        scout.write("MEMORY.md", scout.read("MEMORY.md").text.replace(dentist, ""), tidy, note="1 expired entry out")
        undo_run(home, "scout", TIDY_RUN, actor=GUARD_ACTOR, yes=True)
        why = 'the probe "when is the dentist" no longer finds "Dentist"'
        write_guard_record(home, "scout", TIDY_RUN, {"failed": why, "undone": True, "at": REVIEW_NOW}, "2026-11-28", {})
        fix_journal(scout, 0)
        yield pictured


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_review_since_i_last_looked_with_every_writer(snap_compare, writers_home, size):
    assert snap_compare(writers_home.app(), terminal_size=size, run_before=open_review_area)


def test_review_f1_explains_the_marks(snap_compare, writers_home):
    async def help_open(pilot):
        await open_review_area(pilot)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(writers_home.app(), terminal_size=(80, 24), run_before=help_open)


def test_every_writer_is_in_the_picture(writers_home):
    """What the pictures above must hold, said in words (a picture accepted blind would not say it)."""
    from omb_tui.core.review.changes import everyone

    (bot,) = everyone(writers_home.home, now=None).bots
    kinds = sorted(run.kind for run in bot.runs)
    assert kinds == ["agent", "chat", "guard", "outside", "person", "upkeep"]
    assert re.match(r"Claude Code, session 0b7e5d0c", next(run.who for run in bot.runs if run.kind == "agent"))
    assert next(run for run in bot.runs if run.kind == "upkeep").undone
