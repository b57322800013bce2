"""Renaming a topic updates the pointers to it in MEMORY.md and the other topics, in the same step."""

from __future__ import annotations

import pytest

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.memory.topic_links import LinkUpdate, pointers_to, rename_topic_with_links

PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)
MEMORY = (
    "- 2026-11-01 · flights: see memory/travel.md\n"
    "- 2026-11-02 · trips in [[travel]] and [[travel.md|the travel notes]], seats in [[travel#Seats]]\n"
    "- 2026-11-03 · not a pointer: memory/travel.md.bak, [[travelling]], memory/old-travel.md\n"
)
PLANS = "---\ntitle: Plans\n---\n- Lisbon in May, booked as in [[travel]]\n"


@pytest.fixture
def home(tmp_path):
    home = Home(tmp_path / "home")
    home.workspace("scout").mkdir(parents=True)
    save_bot_settings(home, BotSettings(id="scout", name="Scout"))
    store = MemoryStore(home, "scout")
    for rel, text in {
        "MEMORY.md": MEMORY,
        "memory/travel.md": "# Travel\n",
        "memory/plans.md": PLANS,
        "memory/archive.md": "- 2025-01-01 · see memory/travel.md · moved 2026-01-01\n",
    }.items():
        store.write(rel, text, PERSON)
    return home


def read(home, rel):
    return (home.workspace("scout") / rel).read_text()


def test_the_pointers_are_found_and_renamed_with_the_topic_each_file_one_row(home):
    store = MemoryStore(home, "scout")
    assert pointers_to(store, "travel.md") == [LinkUpdate("MEMORY.md", 4), LinkUpdate("memory/plans.md", 1)]
    created, updated = rename_topic_with_links(store, "travel.md", "trips.md", PERSON)
    assert created.rel == "memory/trips.md" and len(updated) == 2
    assert read(home, "MEMORY.md") == MEMORY.replace("see memory/travel.md", "see memory/trips.md").replace(
        "[[travel]]", "[[trips]]"
    ).replace("[[travel.md|", "[[trips.md|").replace("[[travel#", "[[trips#")
    assert "memory/travel.md.bak, [[travelling]], memory/old-travel.md" in read(home, "MEMORY.md")
    assert "[[trips]]" in read(home, "memory/plans.md")
    assert "see memory/travel.md" in read(home, "memory/archive.md")  # the archive is a record: left alone
    rows = store.journal.rows(limit=4)
    assert {row.file for row in rows} == {"MEMORY.md", "memory/plans.md", "memory/trips.md", "memory/travel.md"}
    assert all(row.undoable for row in rows)


def test_mv_with_update_links_renames_and_updates_and_without_it_leaves_them(run_cli, home):
    plain = run_cli("mv", "scout", "plans.md", "later.md")
    assert plain.code == 0 and "pointer" not in plain.out
    result = run_cli("mv", "scout", "travel.md", "trips.md", "--update-links")
    assert result.code == 0
    assert "updated 5 pointers in MEMORY.md, memory/later.md" in result.out
    assert "see memory/trips.md" in read(home, "MEMORY.md")
