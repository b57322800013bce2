"""An undated note (a hand-written line of MEMORY.md, a topic's paragraph) is shown undated in recall and search,
never dated by its file's last change (docs/recall.md, "Undated notes"): an edit of any other line, a copy or a
restore moved every undated line of the file to that day, and a years-old fact read as written yesterday."""

from __future__ import annotations

import json
import os
from datetime import timedelta

import pytest
from support.app_helpers import open_recall, settle

from omb_tui.app.app import make_app
from omb_tui.app.screens.recall import TYPING_PAUSE_SECONDS
from omb_tui.app.widgets.recall_block import RecallBlock
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.recall.recall import recall

pytestmark = pytest.mark.dates

MESSAGE = "which pier does the harbour ferry leave from"
TOPIC = "---\ntitle: Harbour\n---\n# Harbour\n\nThe harbour ferry leaves from pier nine on weekdays.\n"
MEMORY_LINE = "- the harbour storage gate code is 4471, pier side\n"


@pytest.fixture
def undated_home(home: Home) -> tuple[Home, str]:
    """scout with an undated topic paragraph and an undated MEMORY.md line, both files last changed 40 days ago."""
    workspace = home.workspace("scout")
    (workspace / "memory" / "harbour.md").write_text(TOPIC, encoding="utf-8")
    with open(workspace / "MEMORY.md", "a", encoding="utf-8") as memory:
        memory.write(MEMORY_LINE)
    changed = clock.now() - timedelta(days=40)
    stamp = clock.file_stamp(changed)
    for name in ("memory/harbour.md", "MEMORY.md"):
        os.utime(workspace / name, (stamp, stamp))
    return home, changed.date().isoformat()


def test_recall_and_search_show_an_undated_note_undated_not_its_files_day(undated_home, run_exe):
    home, mtime_day = undated_home
    found = run_exe("recall", "scout", MESSAGE, "--json")
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    notes = {note["file"]: note for note in result["notes"]}
    assert notes["memory/harbour.md"]["date"] is None  # (MEMORY.md loads whole every turn: recall leaves it out)
    assert "] undated · note in memory/harbour.md" in result["block"]
    assert mtime_day not in found.stdout.decode()

    searched = run_exe("search", "scout", "harbour", "pier", "--json")
    hits = [hit for hit in json.loads(searched.stdout)["hits"] if hit["source"] != "conversation"]
    assert {hit["file"] for hit in hits} >= {"memory/harbour.md", "MEMORY.md"}, hits
    assert all(hit["date"] is None for hit in hits) and mtime_day not in searched.stdout.decode()
    printed = run_exe("search", "scout", "harbour", "pier").stdout.decode()
    assert "undated" in printed and mtime_day not in printed

    # a window is about when a note was written: an undated one is in none, whatever its file's mtime
    window = json.loads(run_exe("search", "scout", "harbour", "--since", "60d", "--json").stdout)
    assert [hit for hit in window["hits"] if hit.get("file") == "memory/harbour.md"] == []


async def test_the_recall_preview_shows_an_undated_note_undated(undated_home):
    home, mtime_day = undated_home
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_recall(pilot)
        field = screen.query_one("#message")
        field.focus()
        field.value = MESSAGE
        await pilot.pause(TYPING_PAUSE_SECONDS + 0.1)
        await settle(pilot)
        shown = screen.query_one(RecallBlock).text.plain
    assert shown == recall(home, "scout", MESSAGE, kind="person").block
    assert "] undated · note in memory/harbour.md" in shown and mtime_day not in shown
