"""Loops and no-ops (omb_tui/core/guard/loops.py through the store's write gate): a change that puts back what an
upkeep change of the last 7 days took out, or takes out what one put in, is not applied and is counted; a write
leaving a file byte for byte as it was is counted; a step with two in a row is skipped for the night. A move, a
strike or a write outside a guarded run is never touched. Decisions: docs/guard.md."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from support.compact_helpers import FLAKY, MEMORY, TEA, answer, change, compact_rows, read_memory, write_memory
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures
from support.guard_helpers import BOT, answer_by_step, nightly_due

from omb_tui.core.base import clock
from omb_tui.core.guard.night import NightGuard
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.runs.run import UpkeepRun
from omb_tui.core.schedule import upkeep_due

pytestmark = pytest.mark.dates

NEW_FACT = "- 2026-02-20 · from chat · the person moved to Brno\n"


def upkeep_wrote(home, text: str, step: str) -> str:
    """An earlier upkeep run (a day ago) wrote MEMORY.md: its run id."""
    run = UpkeepRun(BOT)
    MemoryStore(home, BOT).write("MEMORY.md", text, run.actor(step))
    return run.id


def test_taking_out_again_what_an_upkeep_run_put_back_this_week_is_a_loop_and_not_applied(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm)
    upkeep_wrote(llm_home, MEMORY + NEW_FACT, "capture")  # capture noticed it,
    upkeep_wrote(llm_home, MEMORY, "compact")  # a compaction took it out,
    upkeep_wrote(llm_home, MEMORY + NEW_FACT, "capture")  # and capture put it back: tonight's removal would loop
    answer_by_step(
        fake_llm,
        changes=answer(change("ephemeral", NEW_FACT, "A passing remark."), change("ephemeral", FLAKY, "Resolved.")),
    )

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == (MEMORY + NEW_FACT).replace(FLAKY, "")  # the loop kept out, the other applied
    assert len([row for row in compact_rows(llm_home) if row.run == bot.run]) == 1
    assert "compaction 1 applied" in bot.line()
    assert bot.guard["loops"] == 1 and "guard: 1 loop not applied" in bot.line()
    (refused,) = bot.guard["refused"]
    assert refused["step"] == "compact" and "the person moved to brno" in refused["why"]


def test_putting_back_what_an_upkeep_run_took_out_is_a_loop_and_a_move_or_strike_is_not(llm_home):
    write_memory(llm_home)
    upkeep_wrote(llm_home, MEMORY.replace(TEA, ""), "compact")  # last night's compaction took the tea out
    store = MemoryStore(llm_home, BOT)
    run = UpkeepRun(BOT)
    with NightGuard(llm_home, BOT, run, clock.now()) as guard:
        back = store.write("MEMORY.md", read_memory(llm_home) + TEA, run.actor("capture"))
        topic = store.write("memory/debugging.md", "# Debugging\n" + FLAKY, run.actor("organize"))
        moved = store.write("MEMORY.md", read_memory(llm_home).replace(FLAKY, ""), run.actor("organize"))
        struck = read_memory(llm_home).replace(
            "- 2026-01-04 · from chat · prefers short replies", "- ~~2026-01-04 · from chat · prefers short replies~~"
        )
        strike = store.write("MEMORY.md", struck, run.actor("tidy-up"))
    assert not back.changed and TEA not in read_memory(llm_home)
    assert topic.changed and moved.changed and strike.changed  # a move and a strike are not loops
    assert guard.outcome.loops == 1 and guard.outcome.refused[0]["step"] == "capture"


def test_an_upkeep_change_older_than_a_week_or_the_persons_own_is_no_loop(llm_home):
    write_memory(llm_home)
    store = MemoryStore(llm_home, BOT)
    store.write("MEMORY.md", MEMORY.replace(TEA, ""), Actor(WHO_PERSON, HOW_SETTINGS))  # the person took it out
    run = UpkeepRun(BOT)
    with NightGuard(llm_home, BOT, run, clock.now() + timedelta(days=8)) as guard:
        back = store.write("MEMORY.md", read_memory(llm_home) + TEA, run.actor("capture"))
    assert back.changed and guard.outcome.loops == 0


def test_two_no_ops_in_a_row_skip_the_step_for_the_rest_of_the_night(llm_home):
    write_memory(llm_home)
    store = MemoryStore(llm_home, BOT)
    now = clock.now()
    run = UpkeepRun(BOT)
    with NightGuard(llm_home, BOT, run, now) as guard:
        for _ in range(2):
            assert not store.write("MEMORY.md", MEMORY, run.actor("organize")).changed
        assert not guard.allows("organize")
        later = store.write("MEMORY.md", MEMORY + NEW_FACT, run.actor("organize"))  # skipped: not written
        assert guard.allows("capture")
    assert not later.changed and read_memory(llm_home) == MEMORY
    assert guard.outcome.no_ops == 2 and guard.outcome.skipped_for_night == ["organize"]
    assert guard.outcome.line() == "guard: 2 no-ops not applied; organize skipped for the night"

    next_run = UpkeepRun(BOT)
    with NightGuard(llm_home, BOT, next_run, now + timedelta(minutes=5)) as again:  # the same night
        assert not again.allows("organize")
    with NightGuard(llm_home, BOT, UpkeepRun(BOT), now + timedelta(days=1)) as tomorrow:
        assert tomorrow.allows("organize")


def test_one_applied_change_between_two_no_ops_keeps_the_step(llm_home):
    write_memory(llm_home)
    store = MemoryStore(llm_home, BOT)
    run = UpkeepRun(BOT)
    with NightGuard(llm_home, BOT, run, clock.now()) as guard:
        store.write("MEMORY.md", MEMORY, run.actor("organize"))
        store.write("MEMORY.md", MEMORY + NEW_FACT, run.actor("organize"))
        store.write("MEMORY.md", MEMORY + NEW_FACT, run.actor("organize"))
        assert guard.allows("organize")


def test_writes_outside_a_guarded_run_are_never_touched(llm_home):
    write_memory(llm_home)
    upkeep_wrote(llm_home, MEMORY.replace(TEA, ""), "compact")
    assert upkeep_wrote(llm_home, MEMORY, "capture")  # `omb-tui capture BOT` by hand: no guard holds it
    assert read_memory(llm_home) == MEMORY


def test_taking_out_what_upkeep_put_in_once_is_no_loop(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm)
    upkeep_wrote(llm_home, MEMORY + NEW_FACT, "capture")  # capture noticed it yesterday: compaction may judge it
    answer_by_step(fake_llm, changes=answer(change("ephemeral", NEW_FACT, "A passing remark.")))
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert read_memory(llm_home) == MEMORY and bot.guard["loops"] == 0


def test_capture_putting_back_what_compaction_took_out_is_a_loop(llm_home, fake_llm):
    from support.guard_helpers import captured, person_said

    now = nightly_due(llm_home, fake_llm)
    upkeep_wrote(llm_home, MEMORY.replace(TEA, ""), "compact")  # last night's compaction took the tea out
    person_said(llm_home, "I like green tea in the morning.")
    answer_by_step(fake_llm, facts=captured("likes green tea in the morning | I like green tea in the morning"))

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert bot.capture["saved"] == [] and "the nightly guard did not let it" in bot.capture["skipped"][0]["reason"]
    assert "green tea" not in read_memory(llm_home) and read_memory(llm_home) == MEMORY.replace(TEA, "")
    assert bot.guard["loops"] == 1 and bot.guard["refused"][0]["step"] == "capture"
    assert "guard: 1 loop not applied" in bot.line()


def test_the_person_putting_a_fact_back_ends_its_see_saw(llm_home):
    write_memory(llm_home)
    upkeep_wrote(llm_home, MEMORY.replace(TEA, ""), "compact")
    MemoryStore(llm_home, BOT).write("MEMORY.md", MEMORY, Actor(WHO_PERSON, HOW_SETTINGS))  # the person wants it
    run = UpkeepRun(BOT)
    with NightGuard(llm_home, BOT, run, clock.now()) as guard:
        filed = MemoryStore(llm_home, BOT).write("memory/drinks.md", "# Drinks\n" + TEA, run.actor("organize"))
    assert filed.changed and guard.outcome.loops == 0


def test_a_tidy_up_keeping_a_part_compaction_took_out_is_refused_and_says_so(llm_home, fake_llm):
    pune = "- 2026-01-05 · from chat · lives in Pune and likes green tea in the morning\n"
    delhi = "- 2026-02-20 · from chat · moved to Delhi\n"
    now = nightly_due(llm_home, fake_llm, memory=MEMORY + delhi)
    upkeep_wrote(llm_home, MEMORY.replace(TEA, "") + delhi, "compact")  # the tea went last night
    MemoryStore(llm_home, BOT).write(  # the person wrote the Pune line back, without the tea
        "MEMORY.md", MEMORY.replace(TEA, pune) + delhi, Actor(WHO_PERSON, HOW_SETTINGS)
    )
    pair = {"older": pune.rstrip("\n"), "newer": delhi.rstrip("\n"), "still_true": "likes green tea in the morning"}
    answer_by_step(fake_llm, pairs={"pairs": [pair]})

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == MEMORY.replace(TEA, pune) + delhi
    assert bot.tidy["superseded"] == 0 and bot.guard["loops"] == 1
    assert any("the nightly guard did not let it be written" in item["reason"] for item in bot.tidy["skipped"])
