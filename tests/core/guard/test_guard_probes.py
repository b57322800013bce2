"""Recall checks on what the person confirmed (omb_tui/core/guard/probes.py): a probe made once by the model,
kept only when it recalls its fact, run before and after every guarded run; a run that makes one stop finding
its fact (compaction deleting it as `ephemeral`, the tidy-up striking it) is undone. `omb-tui check BOT`.
Scripted models on 127.0.0.1 (tests/support/fake_llm.py). Decisions: docs/guard.md."""

from __future__ import annotations

import json

import pytest
from support.compact_helpers import MEMORY, answer, change, compact_rows, read_memory, write_memory
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures
from support.guard_helpers import BOT, answer_by_step, nightly_due

from omb_tui.core.guard.probes import check_probes, read_probes
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.review.runs import review
from omb_tui.core.schedule import upkeep_due

pytestmark = pytest.mark.dates

AIRLINE = "- 2026-01-20 · the person's favourite airline is KLM\n"
AIRLINE_NEWER = "- 2026-02-05 · from chat · the person's favourite airline is SAS now\n"
PROBE = {"probes": [{"n": 1, "probe": "which airline do I like"}]}


def person_writes(home, text: str, rel: str = "MEMORY.md") -> None:
    MemoryStore(home, BOT).write(rel, text, Actor(WHO_PERSON, HOW_COMMAND_LINE))


def test_a_fact_the_person_wrote_gets_a_probe_that_finds_it_and_a_run_that_keeps_it_passes(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm)
    person_writes(llm_home, "# Travel\n" + AIRLINE, "memory/travel.md")
    answer_by_step(fake_llm, probes=PROBE)

    bot = upkeep_due(llm_home, now=now).bots[0]

    (probe,) = read_probes(llm_home, BOT).probes
    assert (probe.fact, probe.probe, probe.why) == (
        "the person's favourite airline is KLM",
        "which airline do I like",
        "written by the person",
    )
    assert bot.guard["probes"] is None  # no change of the run to check it against
    assert check_probes(llm_home, BOT).to_dict() == {
        "bot": BOT,
        "probes": [{"fact": probe.fact, "probe": probe.probe, "finds": True}],
        "finding": 1,
        "total": 1,
    }
    asked = [r for r in fake_llm.requests if "probes" in json.dumps(r.body)]
    assert len(asked) == 1 and "favourite airline is KLM" in json.dumps(asked[0].body)

    upkeep_due(llm_home, now=now)  # made once: never asked again
    assert len([r for r in fake_llm.requests if "probes" in json.dumps(r.body)]) == 1


def test_a_probe_that_does_not_recall_its_fact_today_is_dropped(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm)
    person_writes(llm_home, "# Travel\n" + AIRLINE, "memory/travel.md")
    answer_by_step(fake_llm, probes={"probes": [{"n": 1, "probe": "what colour is my bicycle"}]})
    upkeep_due(llm_home, now=now)
    found = read_probes(llm_home, BOT)
    assert found.probes == []
    assert found.dropped == {
        "the person's favourite airline is klm": "its probe 'what colour is my bicycle' did not recall it"
    }


def test_compaction_deleting_a_confirmed_fact_as_ephemeral_is_undone_by_the_guard(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm)
    person_writes(llm_home, MEMORY + AIRLINE)
    answer_by_step(fake_llm, probes=PROBE, changes=answer(change("ephemeral", AIRLINE, "A passing remark.")))

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert read_memory(llm_home) == MEMORY + AIRLINE  # byte for byte as before the run
    assert len(compact_rows(llm_home)) == 1 and bot.guard["undone"]
    assert bot.guard["failed"] == (
        'the probe "which airline do I like" no longer finds "the person\'s favourite airline is KLM"'
    )
    assert bot.guard["probes"] == {"before": 1, "after": 0, "total": 1}
    (run,) = [run for run in review(llm_home).bots[0].runs if run.id == bot.run]
    assert run.undone and "undone by the guard: the probe" in run.guard_line
    assert check_probes(llm_home, BOT).finding == 1  # found again after the undo


def test_the_tidy_up_striking_a_confirmed_fact_is_undone_by_the_guard(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm)
    person_writes(llm_home, MEMORY + AIRLINE + AIRLINE_NEWER)
    pair = {"older": AIRLINE.rstrip("\n"), "newer": AIRLINE_NEWER.rstrip("\n"), "still_true": None}
    answer_by_step(fake_llm, probes=PROBE, pairs={"pairs": [pair]})

    bot = upkeep_due(llm_home, now=now).bots[0]

    assert bot.tidy["superseded"] == 1 and bot.guard["undone"]
    assert read_memory(llm_home) == MEMORY + AIRLINE + AIRLINE_NEWER


def test_a_fact_accepted_in_the_review_area_is_confirmed(llm_home, fake_llm):
    """A capture run the person marked reviewed: its facts are confirmed, and get a probe at the next run."""
    from omb_tui.core.review.marks import mark_reviewed
    from omb_tui.core.runs.run import UpkeepRun

    now = nightly_due(llm_home, fake_llm)
    captured = UpkeepRun(BOT)
    MemoryStore(llm_home, BOT).write("MEMORY.md", MEMORY + AIRLINE, captured.actor("capture"))
    mark_reviewed(llm_home, BOT, run_ids=[captured.id])
    answer_by_step(fake_llm, probes=PROBE)
    upkeep_due(llm_home, now=now)
    (probe,) = read_probes(llm_home, BOT).probes
    assert probe.why == "accepted in the Review area" and probe.file == "MEMORY.md"


def test_omb_tui_check_prints_every_probe(llm_home, fake_llm, run_cli):
    now = nightly_due(llm_home, fake_llm)
    person_writes(llm_home, "# Travel\n" + AIRLINE, "memory/travel.md")
    answer_by_step(fake_llm, probes=PROBE)
    upkeep_due(llm_home, now=now)

    out = run_cli("check", BOT, "--json")
    assert out.code == 0 and json.loads(out.out)["finding"] == 1 and json.loads(out.out)["total"] == 1
    plain = run_cli("check", BOT)
    assert plain.out.splitlines()[0] == "Probes still finding their fact: 1 of 1."
    assert "  finds    which airline do I like → the person's favourite airline is KLM" in plain.out

    write_memory(llm_home, "# Travel\n", "memory/travel.md")  # gone, by hand
    missing = run_cli("check", BOT)
    assert missing.code == 0 and "  MISSING  which airline do I like" in missing.out
    assert missing.out.splitlines()[0] == "Probes still finding their fact: 0 of 1."


def test_a_fact_kept_after_still_true_gets_a_probe(llm_home, fake_llm):
    from omb_tui.core.guard.still_true import answer_still_true, candidates

    now = nightly_due(llm_home, fake_llm)
    (tea,) = [item for item in candidates(llm_home, BOT) if "green tea" in item.text]
    answer_still_true(llm_home, BOT, "keep", [tea.id])
    answer_by_step(fake_llm, probes={"probes": [{"n": 1, "probe": "what do I drink in the morning, green tea?"}]})
    upkeep_due(llm_home, now=now)
    (probe,) = read_probes(llm_home, BOT).probes
    assert (probe.fact, probe.why) == ("likes green tea in the morning", "kept after still true?")


def test_making_probes_counts_in_the_nights_budget(llm_home, fake_llm):
    now = nightly_due(llm_home, fake_llm, maxCallsPerNight=1)
    person_writes(llm_home, "# Travel\n" + AIRLINE, "memory/travel.md")
    answer_by_step(fake_llm, probes=PROBE)
    bot = upkeep_due(llm_home, now=now).bots[0]
    assert len(fake_llm.requests) == 1 and bot.guard["calls"] == 1
    assert "the night's limit of 1 model call is reached (organize, tidy-up, compact not run)" in bot.line()
