"""Snapshots of the bots and memory files screens at 80x24 (pytest-textual-snapshot).

Each test's home is drawn at one fixed path (see PicturedHome) and journal times are fixed, so the pictures only
change when the app does. Update after a deliberate change with: pytest tests/app/snapshots/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import re
from datetime import date

import pytest
from support.app_helpers import PicturedHome, add_bot, listed_bots, open_files, settle

from omb_tui.core.memory.store import Actor

pytestmark = pytest.mark.dates  # pictures with times and ages in them

BOT = Actor("bot", "during a task", chat="Plans")


@pytest.fixture
def snapshot_home():
    with PicturedHome("/tmp/omb-tui-snapshots/home") as pictured:
        lines = [f'- 2026-10-{day:02d} · from chat "Plans" · note number {day}\n' for day in range(1, 29)]
        store = add_bot(
            pictured.home,
            actor=BOT,
            files={
                "MEMORY.md": "# Scout's notes\n\n" + "".join(lines),
                "memory/travel.md": "---\ntitle: Travel\n---\n# Travel\n",
                "memory/log/2026-11-29.md": "- said hello\n",
            },
        )
        add_bot(pictured.home, "quill", memory=False)
        journal = store.journal.path
        journal.write_text(re.sub(r'"at":"[^"]+"', '"at":"2026-11-29T09:00:00.000+00:00"', journal.read_text()))
        yield pictured


def test_bots_screen(snap_compare, snapshot_home):
    assert snap_compare(snapshot_home.app(), terminal_size=(80, 24), run_before=listed_bots)


async def files_screen_with_a_still_cursor(pilot):
    (await open_files(pilot)).editor.cursor_blink = False  # a blinking cursor would differ between pictures
    await pilot.pause()


def test_memory_files_screen(snap_compare, snapshot_home):
    app = snapshot_home.app(bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=files_screen_with_a_still_cursor)


def test_memory_files_screen_light_theme(snap_compare, snapshot_home):
    async def open_scout_light(pilot):
        pilot.app.theme = "textual-light"
        await files_screen_with_a_still_cursor(pilot)

    app = snapshot_home.app(bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_scout_light)


def test_help_screen(snap_compare, snapshot_home):
    async def open_help(pilot):
        await files_screen_with_a_still_cursor(pilot)
        await pilot.press("f1")
        await pilot.pause()

    app = snapshot_home.app(bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_help)


def test_upkeep_screen(snap_compare, snapshot_home):
    from omb_tui.app.screens.upkeep import UpkeepScreen
    from omb_tui.core.upkeep.about_me import add_learned

    add_learned(
        snapshot_home.home, "scout", "The person is vegetarian", BOT, owners_words=True, today=date(2026, 11, 29)
    )

    async def open_upkeep(pilot):
        await files_screen_with_a_still_cursor(pilot)
        await pilot.press("escape", "e")
        screen = pilot.app.screen
        assert isinstance(screen, UpkeepScreen)
        while screen.view is None:
            await pilot.pause(0.02)
        screen.query_one("#upkeep-body").focus()  # no focused switch: the picture is the same each time
        await pilot.pause()

    app = snapshot_home.app(bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_upkeep)


# ----- Review: the overnight runs of every bot -----

REVIEW_NOW = "2026-11-29T08:00:00+00:00"


def _fix_rows(store, first_minute: int) -> None:
    """Journal times and row ids as they would be on a fixed night: one minute apart from 03:<first_minute>."""
    journal = store.journal.path
    counter = iter(range(first_minute, 60))

    def fixed(match: re.Match) -> str:
        minute = next(counter)
        return f'"id":"row-{store.bot_id}-{minute:02d}","at":"2026-11-29T03:{minute:02d}:00.000+00:00"'

    journal.write_text(re.sub(r'"id":"[^"]+","at":"[^"]+"', fixed, journal.read_text()))


@pytest.fixture
def review_snapshot_home(monkeypatch, utc_zone):
    """scout: a compaction run of two changes; quill: a capture run resting on the person's words. Written through
    the core as upkeep writes them, then fixed in time (ids and times) so the picture stays the same."""
    from datetime import datetime

    from omb_tui.app.screens import review
    from omb_tui.core.runs.run import UpkeepRun

    monkeypatch.setattr(review, "clock", lambda: datetime.fromisoformat(REVIEW_NOW))
    with PicturedHome("/tmp/omb-tui-snapshots/review") as pictured:
        home = pictured.home
        scout = add_bot(
            home,
            actor=BOT,
            files={
                "MEMORY.md": "# Memory\n\n- flies to Lisbon on 2026-12-03\n"
                "- flight to Lisbon booked, seat 12A\n- likes tea\n- old note\n"
            },
        )
        compact = UpkeepRun("scout", "20261129T031000-aaaaaa").actor("compact")
        text = scout.read("MEMORY.md").text
        text = text.replace("2026-12-03\n- flight to Lisbon booked,", "2026-12-03,")
        scout.write("MEMORY.md", text, compact, note="merge: two lines on the same trip")
        scout.write(
            "MEMORY.md", text.replace("- old note\n", ""), compact, note="ephemeral: a note for a day that is over"
        )
        _fix_rows(scout, 0)
        quill = add_bot(home, "quill", actor=BOT, files={"MEMORY.md": "# Memory\n"})
        capture = UpkeepRun("quill", "20261129T032000-bbbbbb").actor("capture")
        quill.write(
            "MEMORY.md",
            "# Memory\n\n- lives in Porto\n",
            capture,
            note='quotes: "I moved to Porto last spring" · "Porto is home now"',
        )
        quill.write("memory/people.md", "# People\n\n- Rui, a neighbour\n", capture, note='quotes: "my neighbour Rui"')
        _fix_rows(quill, 20)
        yield pictured


async def open_review_area(pilot):
    from omb_tui.app.screens.review import ReviewScreen

    await listed_bots(pilot)
    await pilot.press("v")
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    while not screen.tree.row_count:
        await settle(pilot)
    await settle(pilot)


def test_review_screen(snap_compare, review_snapshot_home):
    assert snap_compare(review_snapshot_home.app(), terminal_size=(80, 24), run_before=open_review_area)


def test_review_screen_light_theme(snap_compare, review_snapshot_home):
    async def open_light(pilot):
        pilot.app.theme = "textual-light"
        await open_review_area(pilot)
        await pilot.press("n")  # scout's merge: its diff
        await settle(pilot)

    assert snap_compare(review_snapshot_home.app(), terminal_size=(80, 24), run_before=open_light)


@pytest.fixture
def team_home(snapshot_home, monkeypatch, utc_zone):
    """A team of scout and quill: a pinned note, notes past the 6,000 bytes, and a card made stale by an edit.
    Its key and times are fixed, so the pictures only change when the screen does."""
    from omb_tui.core.team import api, notes, storage

    monkeypatch.setattr(storage, "new_team_key", lambda: "team-0a1b2c3d")
    for module in (notes, storage):
        monkeypatch.setattr(module, "now_iso", lambda: "2026-11-29T09:00:00+00:00")
    home, team = snapshot_home.home, "Tapa crew"
    storage.create_team(home, team, ["scout", "quill"])
    texts = [
        ("tapa/colour", "Sequence 02 colour", "Warm amber, never teal."),
        ("tapa/fps", "Frame rate", "24 frames a second."),
        *(
            (f"tapa/shot-list-{n}", f"Shot list {n}", f"Shot list {n}: " + "wide, close, insert; " * 45)
            for n in range(1, 7)
        ),
    ]
    for key, title, text in texts:
        api.accept(home, team, key, api.propose(home, team, key, title, text).revision)
    fps = api.show(home, team).team.notes["tapa/fps"]
    api.set_pinned(home, team, "tapa/fps", fps.revision, True)
    api.propose(
        home,
        team,
        "tapa/colour",
        "Sequence 02 colour",
        "Amber, a little warmer.",
        by="bot:scout",
        quotes=["sequence 02 should be a little warmer"],
    )
    colour = api.show(home, team).team.notes["tapa/colour"]
    api.edit(home, team, "tapa/colour", colour.revision, "Warm amber; teal only at night.")
    return snapshot_home


async def open_team_screen(pilot):
    from omb_tui.app.screens.team import TeamScreen

    await listed_bots(pilot)
    await pilot.press("w")
    screen = pilot.app.screen
    assert isinstance(screen, TeamScreen)
    while screen.state.team is None:
        await pilot.pause(0.02)
    await pilot.pause()
    return screen


def test_team_memory_screen(snap_compare, team_home):
    assert snap_compare(team_home.app(), terminal_size=(80, 24), run_before=open_team_screen)


def test_team_memory_stale_card_light_theme(snap_compare, team_home):
    async def stale_card_light(pilot):
        pilot.app.theme = "textual-light"
        await open_team_screen(pilot)
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(team_home.app(), terminal_size=(80, 24), run_before=stale_card_light)
