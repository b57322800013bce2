"""The nightly guard's budgets and stop (omb_tui/core/guard/night.py, with the call path's night budget and the
store's write gate): a run reaching a limit stops cleanly, keeps what it did and says why; the night's share of
MEMORY.md. Scripted models on 127.0.0.1 (tests/support/fake_llm.py). Decisions: docs/guard.md."""

from __future__ import annotations

import pytest
from support.compact_helpers import ADA, DEPLOY, LAUNCH_OLD, MEMORY, VALID, compact_rows, read_memory
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures
from support.guard_helpers import BOT, answer_by_step, nightly_due

from omb_tui.core.guard.settings import GuardSettings, load_guard_settings
from omb_tui.core.memory.settings import BrokenFile
from omb_tui.core.runs.guard_record import guard_of_run
from omb_tui.core.schedule import upkeep_due

pytestmark = pytest.mark.dates


def test_the_defaults_and_a_wrong_value_in_one_sentence(llm_home, fake_llm):
    import json

    import pytest

    assert load_guard_settings(llm_home) == GuardSettings()
    assert GuardSettings().to_dict()["max_changed_share"] == 0.25 and GuardSettings().rollback is True
    nightly_due(llm_home, fake_llm, maxCallsPerNight="many")
    with pytest.raises(BrokenFile, match="upkeep.guard.maxCallsPerNight must be a whole number"):
        load_guard_settings(llm_home)
    config = json.loads(llm_home.config_path.read_text())
    config["upkeep"]["guard"] = {"maxChangedShare": 2}
    llm_home.config_path.write_text(json.dumps(config))
    with pytest.raises(BrokenFile, match="maxChangedShare must be a share from 0 to 1"):
        load_guard_settings(llm_home)


def test_the_call_limit_stops_the_run_after_the_call_that_reached_it(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm, maxCallsPerNight=1)
    answer_by_step(fake_llm, changes=VALID)

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert len(fake_llm.requests) == 1  # organizing's call; the tidy-up and compaction never started
    assert bot.tidy is None and bot.compact is None
    assert read_memory(llm_home) == MEMORY and compact_rows(llm_home) == []
    said = "guard: stopped: the night's limit of 1 model call is reached (tidy-up, compact not run)"
    assert said in bot.line()
    assert guard_of_run(llm_home, BOT, bot.run)["stopped"] == "the night's limit of 1 model call is reached"

    later = upkeep_due(llm_home, now=now).bots[0]  # the same night: the budget is spent
    assert len(fake_llm.requests) == 1 and "model call is reached" in later.line()
    assert guard_of_run(llm_home, BOT, later.run) is None  # said once, by the run that spent it, in Review


def test_the_token_limit_stops_the_run(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm, maxTokensPerNight=10)
    answer_by_step(fake_llm)  # every answer says it took 12 + 3 tokens
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert len(fake_llm.requests) == 1
    assert "guard: stopped: the night's limit of 10 tokens is reached" in bot.line()


def test_a_limit_reached_inside_a_step_keeps_what_was_done(llm_home, fake_llm):
    """Compaction's first answer is refused by its validator, and the second attempt is over the night's calls:
    nothing applied, the report's ERROR says why, the guard says it stopped."""
    now = nightly_due(llm_home, fake_llm, maxCallsPerNight=4)
    answer_by_step(fake_llm, changes='{"changes": [{"category": "nonsense"}]}')
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert bot.compact is not None and bot.compact["error"]
    assert read_memory(llm_home) == MEMORY
    assert "guard: stopped: the night's limit of 4 model calls is reached" in bot.line()


def test_the_nights_share_of_memory_stops_compaction_midway_keeping_the_changes_before(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm)  # the default share: 25% of 11 entries is 2
    answer_by_step(fake_llm, changes=VALID)

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == MEMORY.replace(LAUNCH_OLD, "").replace(DEPLOY, "")  # the merge never written
    assert ADA in read_memory(llm_home) and len(compact_rows(llm_home)) == 2
    assert "compaction 2 applied" in bot.line()
    assert (
        "guard: stopped: the night may take out at most 2 entries of MEMORY.md (25% of 11), and 2 are out already"
        in bot.line()
    )


def test_the_dollar_limit_stops_the_run(llm_home, fake_llm):
    from support.fake_llm import write_llm_config

    now = nightly_due(llm_home, fake_llm)
    write_llm_config(  # the helper on a model litellm has a price for, a budget of a hundredth of a cent
        llm_home,
        fake_llm,
        helper={"instanceId": "mini"},
        instances={"mini": {"model": "openai/gpt-4o-mini", "api_base": fake_llm.api_base}},
        upkeep={"guard": {"maxUsdPerNight": 0.0001}},
    )
    answer_by_step(fake_llm)
    fake_llm.script({"content": '{"moves": [], "core": []}', "usage": (1000, 1000)})  # about $0.00075
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert len(fake_llm.requests) == 1 and bot.guard["usd"] > 0.0001
    assert "guard: stopped: the night's limit of $0.00 is reached" not in bot.line()
    assert "guard: stopped: the night's limit of $0.0001 is reached" in bot.line()


def test_the_review_area_says_why_a_run_stopped_even_when_it_changed_nothing(llm_home, fake_llm):
    from omb_tui.core.review.runs import review

    now = nightly_due(llm_home, fake_llm, maxCallsPerNight=1)
    answer_by_step(fake_llm)
    bot = upkeep_due(llm_home, now=now).bots[0]

    found = review(llm_home)
    (run,) = [run for run in found.bots[0].runs if run.id == bot.run]
    assert run.changes == [] and run.to_dict()["guard"] == (
        "guard: stopped: the night's limit of 1 model call is reached (tidy-up, compact not run)"
    )
    assert f"    {run.guard_line}" in found.lines()


def test_a_run_with_nothing_due_is_not_guarded_and_leaves_no_record(llm_home, fake_llm):
    from omb_tui.core.runs.guard_record import read_guard_record

    now = nightly_due(llm_home, fake_llm)
    answer_by_step(fake_llm)
    first = upkeep_due(llm_home, now=now).bots[0]
    records = read_guard_record(llm_home, BOT)["runs"]
    again = upkeep_due(llm_home, now=now).bots[0]  # five minutes later, as cron: nothing due
    assert first.guard is not None and again.guard is None and "nothing due" in again.line()
    assert read_guard_record(llm_home, BOT)["runs"] == records
