"""The "still true?" queue (omb_tui/core/guard/still_true.py, `omb-tui still-true`): which entries it picks (old
with no until, an until within a week, contradicted but not struck by a tidy-up at its limit), at most a handful
a day, and every answer as one journal row by the person, undoable, the file byte for byte as the rules say."""

from __future__ import annotations

import json
from datetime import date

import pytest

from omb_tui.core.files.paths import MemoryInputError, NotFound
from omb_tui.core.guard.still_true import (
    QUEUE_PER_DAY,
    WHY_CONTRADICTED,
    answer_still_true,
    candidates,
    note_contradicted,
    still_true_queue,
)
from omb_tui.core.journal.journal import WHO_PERSON
from omb_tui.core.memory.store import MemoryStore

pytestmark = pytest.mark.dates

BOT = "scout"
TODAY = date(2026, 12, 2)
OLD = "- 2026-03-01 · from chat · works at Acme"  # 276 days before TODAY
RECENT = "- 2026-11-01 · from chat · likes green tea"
UNTIL_SOON = "- 2026-11-20 · from chat · in Oslo for the week · until 2026-12-05"
UNTIL_LATER = "- 2026-03-01 · from chat · the lease runs · until 2027-06-30"
CONFIRMED = "- 2026-01-01 · from chat · lives in Brno · confirmed 2026-10-01"
HAND = "- prefers short replies"
STRUCK = "- ~~2026-01-01 · from chat · lives in Pune~~ · superseded 2026-02-01"
MEMORY = "# Memory\n" + "\n".join([OLD, RECENT, UNTIL_SOON, UNTIL_LATER, CONFIRMED, HAND, STRUCK]) + "\n"


@pytest.fixture
def queue_home(home):
    (home.workspace(BOT) / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (home.workspace(BOT) / "memory").mkdir(exist_ok=True)
    (home.workspace(BOT) / "memory" / "archive.md").write_text("- 2025-01-01 · an archived line\n", encoding="utf-8")
    return home


def memory(home) -> str:
    return (home.workspace(BOT) / "MEMORY.md").read_text(encoding="utf-8")


def test_the_queue_picks_old_entries_with_no_until_and_untils_within_a_week(queue_home):
    picked = {item.text: (item.file, item.why) for item in candidates(queue_home, BOT, TODAY)}
    assert picked == {
        UNTIL_SOON: ("MEMORY.md", "it holds until 2026-12-05, within a week"),
        "- 2026-01-06 · likes window seats": ("memory/travel.md", "written 330 days ago, with no until date"),
        OLD: ("MEMORY.md", "written 276 days ago, with no until date"),
    }  # a topic's entries too; never the archive's, a struck one, a hand-written one or one confirmed lately
    assert [item.text for item in candidates(queue_home, BOT, TODAY)][0] == UNTIL_SOON  # the sooner first


def test_review_after_days_comes_from_config_json(queue_home):
    queue_home.config_path.write_text(json.dumps({"memory": {"reviewAfterDays": 30}}))
    picked = {item.text for item in candidates(queue_home, BOT, TODAY)}
    assert RECENT in picked and CONFIRMED in picked  # confirmed 62 days ago
    queue_home.config_path.write_text(json.dumps({"memory": {"reviewAfterDays": "soon"}}))
    with pytest.raises(MemoryInputError, match="reviewAfterDays must be a whole number of days"):
        candidates(queue_home, BOT, TODAY)


def test_a_contradiction_the_tidy_up_could_not_strike_joins_the_queue_first(queue_home):
    reason = "over the limit: at most 1 of the 7 entries of MEMORY.md can be struck in one tidy-up"
    note_contradicted(queue_home, BOT, {"skipped": [{"text": RECENT, "reason": reason}]}, TODAY)
    first = candidates(queue_home, BOT, TODAY)[0]
    assert (first.text, first.why) == (RECENT, WHY_CONTRADICTED)


def test_at_most_a_handful_a_day(home):
    lines = [f"- 2026-01-{day:02d} · from chat · fact number {day}" for day in range(1, 10)]
    (home.workspace(BOT) / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    queue = still_true_queue(home, BOT, TODAY)
    assert len(queue) == QUEUE_PER_DAY == 5
    answer_still_true(home, BOT, "keep", [queue[0].id, queue[1].id], today=TODAY)
    assert len(still_true_queue(home, BOT, TODAY)) == 3  # answers count toward the day's handful
    assert len(still_true_queue(home, BOT, date(2026, 12, 3))) == 5


def test_keep_marks_the_line_confirmed_and_it_leaves_the_queue_for_another_period(queue_home):
    (old,) = [item for item in candidates(queue_home, BOT, TODAY) if item.text == OLD]
    (done,) = answer_still_true(queue_home, BOT, "keep", [old.id], today=TODAY)
    assert memory(queue_home) == MEMORY.replace(OLD, OLD + " · confirmed 2026-12-02")
    assert OLD not in {item.text for item in candidates(queue_home, BOT, TODAY)}
    row = MemoryStore(queue_home, BOT).journal.find(done.row_id)
    assert (row.who, row.note, row.step) == (WHO_PERSON, "still true? keep", "still true?")
    MemoryStore(queue_home, BOT).undo(done.row_id)
    assert memory(queue_home) == MEMORY


def test_keep_puts_confirmed_before_an_until_so_the_until_still_reads(queue_home):
    (soon,) = [item for item in candidates(queue_home, BOT, TODAY) if item.text == UNTIL_SOON]
    answer_still_true(queue_home, BOT, "keep", [soon.id], today=TODAY)
    kept = "- 2026-11-20 · from chat · in Oslo for the week · confirmed 2026-12-02 · until 2026-12-05"
    assert memory(queue_home) == MEMORY.replace(UNTIL_SOON, kept)
    assert UNTIL_SOON not in {item.text for item in candidates(queue_home, BOT, TODAY)}


def test_strike_strikes_the_line_through_as_superseded(queue_home):
    (old,) = [item for item in candidates(queue_home, BOT, TODAY) if item.text == OLD]
    answer_still_true(queue_home, BOT, "strike", [old.id], today=TODAY)
    assert memory(queue_home) == MEMORY.replace(
        OLD, "- ~~2026-03-01 · from chat · works at Acme~~ · superseded 2026-12-02"
    )


def test_until_sets_or_replaces_the_until_date(queue_home):
    items = {item.text: item for item in candidates(queue_home, BOT, TODAY)}
    answer_still_true(queue_home, BOT, "until", [items[OLD].id], until=date(2027, 3, 1), today=TODAY)
    answer_still_true(queue_home, BOT, "until", [items[UNTIL_SOON].id], until=date(2026, 12, 20), today=TODAY)
    assert memory(queue_home) == MEMORY.replace(OLD, OLD + " · until 2027-03-01").replace(
        UNTIL_SOON, UNTIL_SOON.replace("2026-12-05", "2026-12-20")
    )
    with pytest.raises(MemoryInputError, match="must be today"):
        answer_still_true(queue_home, BOT, "until", ["whatever"], until=date(2026, 1, 1), today=TODAY)


def test_an_unknown_id_writes_nothing_even_beside_a_good_one(queue_home):
    (old,) = [item for item in candidates(queue_home, BOT, TODAY) if item.text == OLD]
    with pytest.raises(NotFound, match="1 id not in the still-true queue of scout: nope"):
        answer_still_true(queue_home, BOT, "keep", [old.id, "nope"], today=TODAY)
    assert memory(queue_home) == MEMORY


def test_the_command_line_lists_and_answers(queue_home, run_cli):
    listed = run_cli("still-true", BOT, "--json")
    assert listed.code == 0
    items = json.loads(listed.out)
    assert all(set(item) == {"id", "file", "text", "why"} for item in items)
    old = next(item for item in items if item["text"].endswith("works at Acme"))
    kept = run_cli("still-true", BOT, "keep", old["id"])
    assert kept.code == 0 and "keep: " in kept.out and "· confirmed " in memory(queue_home)
    bad = run_cli("still-true", BOT, "until", "abc", "someday")
    assert bad.code == 2 and "not a date" in bad.err
    missing = run_cli("still-true", BOT, "strike", "nope")
    assert missing.code == 2 and "not in the still-true queue" in missing.err
    assert run_cli("still-true", BOT, "until", old["id"]).code == 2


def test_edit_replaces_the_line_with_the_persons_words(queue_home):
    (old,) = [item for item in candidates(queue_home, BOT, TODAY) if item.text == OLD]
    (done,) = answer_still_true(
        queue_home, BOT, "edit", [old.id], text="- 2026-12-02 · works at Acme, in Delft", today=TODAY
    )
    assert memory(queue_home) == MEMORY.replace(OLD, "- 2026-12-02 · works at Acme, in Delft")
    assert MemoryStore(queue_home, BOT).journal.find(done.row_id).note == "still true? edit"
    with pytest.raises(MemoryInputError, match="one line of at most 1,000 characters"):
        answer_still_true(queue_home, BOT, "edit", [old.id], text="two\nlines", today=TODAY)
