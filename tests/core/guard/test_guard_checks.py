"""The checks after a guarded run (omb_tui/core/guard/checks.py, night.py): a run that loses a line that loaded,
moved by no rule, or a health, allergy or rule line, is undone whole as its own rows (`Memory upkeep · guard`), or
with `rollback: false` left in place and flagged first in the Review area; the report names it. A step gone
wrong is a stand-in that writes through the store as the step would. Decisions: docs/guard.md."""

from __future__ import annotations

import pytest
from support.compact_helpers import FLAKY, MEMORY, PEANUTS, TEA, read_memory, write_memory
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures
from support.guard_helpers import BOT, answer_by_step, nightly_due

from omb_tui.core import schedule
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_UNDO, WHO_PERSON, WHO_UPKEEP
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.review.runs import review
from omb_tui.core.schedule import upkeep_due

pytestmark = pytest.mark.dates


class Done:
    def to_dict(self):
        return {}


def organize_that(monkeypatch, change, *, person_after: str | None = None):
    """Organizing that rewrites MEMORY.md with `change(text)` as Memory upkeep, in the run (and, with
    `person_after`, the person saving over it right after, as an editor open during the run would)."""

    def organize(home, bot_id, *, run, today):
        store = MemoryStore(home, bot_id)
        store.write("MEMORY.md", change(store.read("MEMORY.md").text), run.actor("organize"))
        if person_after is not None:
            store.write("MEMORY.md", person_after, Actor(WHO_PERSON, HOW_SETTINGS))
        return Done()

    monkeypatch.setattr(schedule, "organize", organize)


def test_a_run_losing_a_line_that_loaded_is_undone_whole_by_the_guard(llm_home, fake_llm, monkeypatch):
    now = nightly_due(llm_home, fake_llm)
    answer_by_step(fake_llm)
    organize_that(monkeypatch, lambda text: text.replace(TEA, ""))

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == MEMORY  # byte for byte as before the run
    assert bot.guard["undone"] and bot.guard["failed"] == (
        '"likes green tea in the morning" loaded before the run and is gone, moved by no rule'
    )
    assert f"guard: run undone by the guard: {bot.guard['failed']}" in bot.line()
    rows = MemoryStore(llm_home, BOT).journal.rows()
    undo = rows[0]
    assert (undo.who, undo.how, undo.step, undo.run) == (WHO_UPKEEP, HOW_UNDO, "guard", None)
    assert bot.guard["undo_rows"] == [undo.id]
    (run,) = [run for run in review(llm_home).bots[0].runs if run.id == bot.run]
    assert run.undone and run.guard_line.startswith("guard: run undone by the guard: ")


def test_a_move_to_a_topic_or_the_archive_passes(llm_home, fake_llm, monkeypatch):
    now = nightly_due(llm_home, fake_llm)
    answer_by_step(fake_llm)
    write_memory(llm_home, "# Debugging\n" + FLAKY, "memory/debugging.md")
    organize_that(monkeypatch, lambda text: text.replace(FLAKY, ""))
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert bot.guard["failed"] is None and FLAKY not in read_memory(llm_home)


def test_a_lost_allergy_line_fails_the_run_even_when_nothing_else_did(llm_home, fake_llm, monkeypatch):
    now = nightly_due(llm_home, fake_llm)
    answer_by_step(fake_llm)
    organize_that(monkeypatch, lambda text: text.replace(PEANUTS, ""))
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert bot.guard["failed"] == 'a health, allergy or rule line was lost ("allergic to peanuts")'
    assert read_memory(llm_home) == MEMORY


def test_with_rollback_off_the_run_stays_and_is_flagged_first_in_the_review_area(llm_home, fake_llm, monkeypatch):
    now = nightly_due(llm_home, fake_llm, rollback=False)
    answer_by_step(fake_llm)
    organize_that(monkeypatch, lambda text: text.replace(TEA, ""))

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == MEMORY.replace(TEA, "")  # left in place
    assert bot.guard["flagged"] and not bot.guard["undone"]
    assert "guard: run flagged by the guard, left in place: " in bot.line()
    runs = review(llm_home).bots[0].runs
    assert runs[0].id == bot.run and runs[0].flagged
    assert any(line.endswith("(flagged)") for line in review(llm_home).lines())


def test_an_undo_that_would_take_the_persons_change_with_it_is_not_made_and_the_run_is_flagged(
    llm_home, fake_llm, monkeypatch
):
    now = nightly_due(llm_home, fake_llm)
    answer_by_step(fake_llm)
    theirs = MEMORY.replace(TEA, "") + "- typed by the person during the run\n"
    organize_that(monkeypatch, lambda text: text.replace(TEA, ""), person_after=theirs)

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == theirs
    assert bot.guard["flagged"] and "it could not be undone (Undoing run" in bot.guard["failed"]


@pytest.mark.parametrize("rollback", [True, False])
def test_a_run_that_passes_is_neither_undone_nor_flagged(llm_home, fake_llm, rollback):
    now = nightly_due(llm_home, fake_llm, rollback=rollback)
    answer_by_step(fake_llm)
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert not bot.guard["failed"] and not bot.guard["undone"] and not bot.guard["flagged"]
    assert "guard:" not in bot.line()


def test_the_compaction_report_goes_out_after_the_guard_and_names_the_undo(llm_home, fake_llm, monkeypatch, tmp_path):
    import sys

    from support.compact_helpers import VALID
    from support.fake_llm import write_llm_config

    now = nightly_due(llm_home, fake_llm)
    sent = tmp_path / "sent.txt"
    keep = f"import sys; open({str(sent)!r}, 'w').write(sys.stdin.read())"
    write_llm_config(
        llm_home,
        fake_llm,
        upkeep={"guard": {"maxChangedShare": 0.5}},
        compact={"report": {"command": [sys.executable, "-c", keep]}},
    )
    answer_by_step(fake_llm, changes=VALID)
    organize_that(monkeypatch, lambda text: text.replace(TEA, ""))

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == MEMORY and bot.guard["undone"]
    text = sent.read_text()
    assert text.startswith("Memory compact: scout — 3 changes")
    assert text.rstrip().endswith(f"Guard: run undone by the guard: {bot.guard['failed']}.")
    assert bot.compact["sink"]["sent"] is True


def test_a_line_the_person_took_out_during_the_run_is_not_the_runs_loss(llm_home, fake_llm, monkeypatch):
    now = nightly_due(llm_home, fake_llm)
    answer_by_step(fake_llm)
    write_memory(llm_home, "# Debugging\n" + FLAKY, "memory/debugging.md")
    organize_that(
        monkeypatch, lambda text: text.replace(FLAKY, ""), person_after=MEMORY.replace(FLAKY, "").replace(TEA, "")
    )
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert bot.guard["failed"] is None and read_memory(llm_home) == MEMORY.replace(FLAKY, "").replace(TEA, "")
