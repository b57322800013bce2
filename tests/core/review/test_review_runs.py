"""Review (docs/review.md): the upkeep runs of the last nights across every bot, grouped bot → run → change, what is
already undone, what the person marked reviewed, and the bots screen's counts of last night."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timedelta

import pytest
from support.home import MEMORY_TEXT, make_bot

from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.review import marks
from omb_tui.core.review.changes import overnight
from omb_tui.core.review.runs import bot_runs, find_run, last_night_start, parse_quotes, review
from omb_tui.core.runs.run import UpkeepRun

pytestmark = pytest.mark.dates

PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)
NOW = datetime(2026, 3, 10, 7, 30).astimezone()  # a Tuesday morning, local time


def at(hours_ago: float):
    """A store clock stopped `hours_ago` before NOW."""
    return lambda: NOW - timedelta(hours=hours_ago)


def write(home, bot, rel, text, actor, hours_ago, note=None):
    store = MemoryStore(home, bot, clock=at(hours_ago))
    return store.write(rel, text, actor, note=note).row_id


def add_line(home, bot, rel, line, actor, hours_ago, note=None):
    current = MemoryStore(home, bot).read(rel).text
    return write(home, bot, rel, current + line, actor, hours_ago, note)


def night(home):
    """Scout: a capture+tidy run last night (3 rows), a person's edit, and a run five nights ago; Nova: one run."""
    make_bot(home, "nova", "Nova")
    old = UpkeepRun("scout", "20260305T020000-aaaaaa")
    add_line(home, "scout", "MEMORY.md", "- old fact\n", old.actor("capture"), 24 * 5)
    run = UpkeepRun("scout", "20260310T020000-bbbbbb")
    ids = [
        add_line(
            home,
            "scout",
            "MEMORY.md",
            "- vegetarian\n",
            run.actor("capture"),
            5.5,
            note='quotes: "I\'m vegetarian" · "no meat, please"',
        ),
        add_line(
            home,
            "scout",
            "memory/travel.md",
            "- Goa in March\n",
            run.actor("capture"),
            5.4,
            note='quotes: "we go to Goa every March"',
        ),
        write(
            home,
            "scout",
            "MEMORY.md",
            MEMORY_TEXT + "- vegetarian\n",
            run.actor("tidy-up"),
            5.3,
            note="tidy-up: 1 from MEMORY.md",
        ),
    ]
    add_line(home, "scout", "MEMORY.md", "- by hand\n", PERSON, 2)
    nova = UpkeepRun("nova", "20260310T030000-cccccc")
    add_line(
        home,
        "nova",
        "MEMORY.md",
        "- tea, not coffee\n",
        nova.actor("compact"),
        4,
        note="merge: two lines on the same drink",
    )
    return run, nova, ids


def test_runs_are_grouped_bot_run_change_oldest_first_with_their_notes(home):
    run, nova, ids = night(home)
    found = review(home, now=NOW)
    assert [b.bot for b in found.bots] == ["nova", "scout"]
    scout = found.bots[1]
    assert [r.id for r in scout.runs] == [run.id]  # the run of five nights ago is outside the default window
    changes = scout.runs[0].changes
    assert [c.id for c in changes] == ids
    assert [(c.step, c.file) for c in changes] == [
        ("capture", "MEMORY.md"),
        ("capture", "memory/travel.md"),
        ("tidy-up", "MEMORY.md"),
    ]
    assert changes[0].quotes == ["I'm vegetarian", "no meat, please"] and changes[0].reason is None
    assert changes[2].reason == "tidy-up: 1 from MEMORY.md" and changes[2].quotes == []
    assert "+- vegetarian" in changes[0].diff and changes[0].undoable and not changes[0].undone
    assert scout.runs[0].steps == ["capture", "tidy-up"]
    compacted = found.bots[0].runs[0].changes[0]
    assert (compacted.category, compacted.reason) == ("merge", "two lines on the same drink")
    data = json.loads(json.dumps(found.to_dict()))
    assert data["bots"][1]["runs"][0]["changes"][0]["quotes"] == ["I'm vegetarian", "no meat, please"]


def test_since_widens_the_window_and_a_person_s_own_rows_are_never_listed(home):
    run, _, _ = night(home)
    found = review(home, since=NOW - timedelta(days=7), bot_ids=["scout"], now=NOW)
    assert [r.id for r in found.bots[0].runs] == ["20260305T020000-aaaaaa", run.id]
    assert all(c.who == "Memory upkeep" for r in found.bots[0].runs for c in r.changes)


def test_marked_runs_leave_the_default_listing_and_show_as_reviewed_with_since(home):
    run, nova, _ = night(home)
    marks.mark_reviewed(home, "scout", [run.id])
    assert [b.bot for b in review(home, now=NOW).bots] == ["nova"]  # the next morning starts at what is new
    wide = review(home, since=NOW - timedelta(days=1), now=NOW)
    assert [(b.bot, [r.reviewed for r in b.runs]) for b in wide.bots] == [("nova", [False]), ("scout", [True])]
    path = home.journal_dir / "scout.reviewed.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert list(json.loads(path.read_text())["runs"]) == [run.id]


def test_a_run_whose_every_row_was_marked_is_reviewed(home):
    run, _, ids = night(home)
    marks.mark_reviewed(home, "scout", row_ids=ids[:2])
    assert not bot_runs(home, "scout", NOW - timedelta(hours=12))[0].reviewed
    marks.mark_reviewed(home, "scout", row_ids=ids[2:])
    assert bot_runs(home, "scout", NOW - timedelta(hours=12))[0].reviewed


def test_a_damaged_marks_file_reads_as_nothing_reviewed(home):
    run, _, _ = night(home)
    (home.journal_dir / "scout.reviewed.json").write_text("{not json", encoding="utf-8")
    assert [r.id for r in review(home, bot_ids=["scout"], now=NOW).bots[0].runs] == [run.id]


def test_an_undone_change_shows_as_undone_by_its_undo_row(home):
    run, _, ids = night(home)
    travel_undo = MemoryStore(home, "scout").undo(ids[1]).write.row_id
    changes = review(home, bot_ids=["scout"], now=NOW).bots[0].runs[0].changes
    assert [c.undone_by for c in changes] == [None, travel_undo, None]


def test_a_whole_file_undo_takes_back_every_later_change_to_that_file(home):
    run, _, ids = night(home)
    store = MemoryStore(home, "scout")
    later = [r.id for r in store.journal.later_rows_for_file(store.journal.find(ids[0]))]
    undo_row = store.undo(ids[0], confirmed_later=later).write.row_id
    changes = review(home, bot_ids=["scout"], now=NOW).bots[0].runs[0].changes
    assert [c.undone_by for c in changes] == [undo_row, None, undo_row]


def test_an_undo_that_was_itself_undone_takes_nothing_back(home):
    run, _, ids = night(home)
    store = MemoryStore(home, "scout")
    undo_row = store.undo(ids[1]).write.row_id
    store.undo(undo_row)
    changes = review(home, bot_ids=["scout"], now=NOW).bots[0].runs[0].changes
    assert [c.undone for c in changes] == [False, False, False]


def test_a_run_that_began_just_before_the_since_time_is_listed_whole(home):
    run = UpkeepRun("scout", "20260310T020000-dddddd")
    first = add_line(home, "scout", "MEMORY.md", "- one\n", run.actor("capture"), 5.2)
    second = add_line(home, "scout", "MEMORY.md", "- two\n", run.actor("tidy-up"), 4.9)
    runs = bot_runs(home, "scout", NOW - timedelta(hours=5))
    assert [c.id for c in runs[0].changes] == [first, second]
    assert [r.id for r in find_run(home, "scout", run.id)] == [first, second]


def test_last_night_counts_per_bot_for_the_bots_screen(home):
    """Every writer counts, as the Review area counts it: scout's run and the person's own edit (a group of its own,
    seen already, so not new)."""
    run, nova, _ = night(home)
    assert last_night_start(NOW) == datetime(2026, 3, 9, 18, 0).astimezone()
    counts = overnight(home, NOW)
    assert {bot: (c.changes, c.runs, c.others, c.pending, c.unreviewed) for bot, c in counts.items()} == {
        "scout": (4, 1, 1, 0, 3),
        "nova": (1, 1, 0, 0, 1),
    }
    assert counts["scout"].line() == "4 changes in 1 run + 1 other group (3 new)"
    marks.mark_reviewed(home, "scout", [run.id])
    assert overnight(home, NOW)["scout"].unreviewed == 0


def test_quotes_read_back_from_a_capture_note():
    assert parse_quotes('quotes: "a" · "b · c"') == ["a", "b · c"]
    assert parse_quotes("tidy-up: 1 from MEMORY.md") == [] and parse_quotes(None) == []


def test_an_unknown_bot_is_one_sentence(home):
    import pytest

    from omb_tui.core.files.paths import MemoryInputError

    with pytest.raises(MemoryInputError, match="There is no bot 'ghost'"):
        review(home, bot_ids=["ghost"], now=NOW)


def test_waiting_compaction_proposals_are_listed_and_counted_until_decided(home):
    from omb_tui.core.compact import pending
    from omb_tui.core.compact.validator import Change

    night(home)
    proposed = pending.add_pending(
        home,
        "nova",
        "20260310T030000-dddddd",
        [Change("duplicate", "- tea, not coffee\n", "About me says it already.")],
    )
    bot = next(b for b in review(home, now=NOW).bots if b.bot == "nova")
    assert bot.pending == 1 and bot.to_dict()["proposals"][0]["original"] == "- tea, not coffee\n"
    assert "1 proposal waiting" in "\n".join(review(home, now=NOW).lines())
    assert overnight(home, NOW)["nova"].pending == 1
    pending.reject(home, "nova", [proposed[0].id])
    assert overnight(home, NOW)["nova"].pending == 0
    assert next(b for b in review(home, now=NOW).bots if b.bot == "nova").proposals == []


def test_a_damaged_pending_file_is_named_and_the_runs_are_still_listed(home):
    from omb_tui.core.compact.records import compact_files

    night(home)
    broken = compact_files(home, "nova").pending
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("{broken", encoding="utf-8")
    found = review(home, now=NOW)
    assert found.unread == [f"{broken} is not valid JSON; fix or remove it."]
    assert found.lines()[0] == f"Not read: {broken} is not valid JSON; fix or remove it."
    assert [b.bot for b in found.bots] == ["nova", "scout"]
