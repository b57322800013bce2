"""The nightly tidy-up (docs/upkeep-tidy.md; spec "Memory upkeep"): expiry, exact duplicates, contradictions.

The model is the scripted OpenAI-compatible server of tests/support/fake_llm.py on 127.0.0.1; nothing reaches the network.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import date

import pytest
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.memory.entries import parse_entries
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.models.instances import NO_MODEL_CONNECTED
from omb_tui.core.runs.run import UpkeepRun
from omb_tui.core.upkeep import tidy as tidy_module
from omb_tui.core.upkeep.tidy import UpkeepOff, last_tidy, tidy

pytestmark = pytest.mark.dates

BOT = "scout"
TODAY = date(2026, 11, 30)
STRUCK_DAY = "2026-11-30"


def path(home, rel: str):
    return home.workspace(BOT).joinpath(*rel.split("/"))


def write(home, rel: str, text: str) -> None:
    target = path(home, rel)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def read(home, rel: str) -> str:
    target = path(home, rel)
    return target.read_text(encoding="utf-8") if target.exists() else ""


def rows_of(home, run_id: str):
    return [row for row in reversed(MemoryStore(home, BOT).journal.rows()) if row.run == run_id]


def pairs(*items: tuple[str, str, str | None]) -> dict:
    return {"content": json.dumps({"pairs": [{"older": o, "newer": n, "still_true": s} for o, n, s in items]})}


CORE = (
    "# Memory\n\n"
    '- 2026-03-01 · from chat "Plans" · The person lives in Pune and prefers short replies\n'
    '- 2026-04-02 · from chat "Plans" · Works at Acme as a designer\n'
    '- 2026-05-03 · from chat "Plans" · Has a cat called Miso\n'
    '- 2026-06-04 · from chat "Plans" · Drinks tea, not coffee\n'
    '- 2026-10-05 · from chat "Move" · The person moved to Delhi\n'
)
PUNE = '- 2026-03-01 · from chat "Plans" · The person lives in Pune and prefers short replies'
DELHI = '- 2026-10-05 · from chat "Move" · The person moved to Delhi'
EXPIRED_AND_DUPLICATE = "- 2026-11-01 · Dentist · until 2026-11-02\n- 2026-10-06 · Has a cat called Miso\n"


# ----- step 1: expiry -----
def test_expired_entries_move_to_the_archive_from_memory_and_topics(home):
    write(
        home,
        "MEMORY.md",
        "# Memory\n\n"
        "- 2026-11-01 · Dentist on Friday · until 2026-11-20\n"
        "- 2026-11-01 · Guests stay over · until 2026-11-30\n"
        "- short replies, always\n",
    )
    write(
        home,
        "memory/travel.md",
        "---\ntitle: Travel\n---\n# Travel\n\n"
        "- 2026-10-01 · Flight to Lisbon, seat 14A · until 2026-10-12\n"
        "- 2026-01-06 · likes window seats\n",
    )

    report = tidy(home, BOT, today=TODAY)

    assert report.expired == 2
    assert read(home, "MEMORY.md") == (
        "# Memory\n\n- 2026-11-01 · Guests stay over · until 2026-11-30\n- short replies, always\n"
    )  # until today still holds today
    assert read(home, "memory/travel.md") == (
        "---\ntitle: Travel\n---\n# Travel\n\n- 2026-01-06 · likes window seats\n"
    )
    archive = read(home, "memory/archive.md")
    assert "- 2026-11-01 · Dentist on Friday · until 2026-11-20 · moved 2026-11-30\n" in archive
    assert "- 2026-10-01 · Flight to Lisbon, seat 14A · until 2026-10-12 · moved 2026-11-30\n" in archive
    files = [row.file for row in rows_of(home, report.run)]
    # the archive is written before each file an entry leaves
    assert files == ["memory/archive.md", "MEMORY.md", "memory/archive.md", "memory/travel.md"]


def test_an_entry_already_in_the_archive_is_not_appended_again(home):
    expired = "- 2026-11-01 · Dentist on Friday · until 2026-11-20\n"
    write(home, "MEMORY.md", "# Memory\n\n" + expired)
    write(
        home,
        "memory/archive.md",
        "# Archive\n\n- 2026-11-01 · Dentist on Friday · until 2026-11-20 · moved 2026-11-29\n",
    )  # a move interrupted after the archive was written

    report = tidy(home, BOT, today=TODAY)

    assert report.expired == 1 and read(home, "MEMORY.md") == "# Memory\n\n"
    assert read(home, "memory/archive.md").count("Dentist on Friday") == 1


# ----- step 2: exact duplicates -----
def test_of_two_entries_with_the_same_fact_the_newer_stays(home):
    write(
        home,
        "MEMORY.md",
        "# Memory\n\n"
        '- 2026-05-01 · from chat "A" · Likes green tea.\n'
        "- 2026-02-01 · Likes   green tea\n"
        "- 2026-03-01 · Balance is -10\n"
        "- 2026-03-01 · Balance is 10\n"
        "- 2026-04-01 · Uses C++\n"
        "- 2026-04-01 · Uses C\n"
        "- walks at 7\n"
        "- walks at 7.\n",
    )
    report = tidy(home, BOT, today=TODAY)

    assert report.duplicates == 2
    assert read(home, "MEMORY.md") == (
        "# Memory\n\n"
        '- 2026-05-01 · from chat "A" · Likes green tea.\n'
        "- 2026-03-01 · Balance is -10\n"
        "- 2026-03-01 · Balance is 10\n"
        "- 2026-04-01 · Uses C++\n"
        "- 2026-04-01 · Uses C\n"
        "- walks at 7.\n"
    )  # no dates: the later line is the newer


def test_equal_dates_keep_the_later_line_and_topics_are_tidied_too(home):
    write(
        home,
        "memory/travel.md",
        "# Travel\n\n"
        '- 2026-01-06 · from chat "A" · likes window seats\n'
        '- 2026-01-06 · from chat "B" · likes window seats\n',
    )
    report = tidy(home, BOT, today=TODAY)
    assert report.duplicates == 1
    assert read(home, "memory/travel.md") == '# Travel\n\n- 2026-01-06 · from chat "B" · likes window seats\n'


# ----- with no model -----
def test_with_no_model_only_expiry_and_duplicates_run_and_the_report_says_so(home, run_cli):
    write(home, "MEMORY.md", CORE + "- 2026-10-06 · The person moved to Delhi\n")
    result = run_cli("tidy", BOT, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["duplicates"] == 1 and data["superseded"] == 0 and data["still_true_added"] == 0
    assert data["model"] == NO_MODEL_CONNECTED  # config.json names no instance at all
    assert data["run"] and set(data) >= {"expired", "duplicates", "superseded", "still_true_added", "skipped"}
    plain = run_cli("tidy", BOT)
    assert f"Contradictions were not checked. {NO_MODEL_CONNECTED}" in plain.out.splitlines()


def test_with_an_instance_but_none_for_the_bot_the_report_says_why(home, fake_llm, run_cli):
    write(home, "MEMORY.md", CORE)
    write_llm_config(home, fake_llm, helper=None)
    plain = run_cli("tidy", BOT)
    assert plain.code == 0, plain.err
    assert "Contradictions were not checked: no helper model is set" in plain.out
    assert NO_MODEL_CONNECTED not in plain.out and fake_llm.requests == []


# ----- step 3: contradictions -----
def test_a_contradiction_is_struck_through_and_the_part_still_true_kept(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE)
    fake_llm.script(pairs((PUNE, DELHI, "prefers short replies")))

    report = tidy(llm_home, BOT, today=TODAY)

    assert report.model == "used" and report.superseded == 1 and report.still_true_added == 1
    text = read(llm_home, "MEMORY.md")
    assert (
        '- ~~2026-03-01 · from chat "Plans" · The person lives in Pune and prefers short replies~~'
        f" · superseded {STRUCK_DAY}\n- {STRUCK_DAY} · from tidy-up · prefers short replies\n"
    ) in text
    assert DELHI + "\n" in text
    struck = [e for e in parse_entries(text) if e.struck]
    assert len(struck) == 1 and struck[0].superseded == TODAY and struck[0].day == date(2026, 3, 1)
    added = [e for e in parse_entries(text) if e.source == "tidy-up"]
    assert added[0].fact == "prefers short replies" and added[0].day == TODAY
    sent = fake_llm.requests[-1].body
    assert sent["response_format"]["json_schema"]["schema"] == tidy_module.PAIRS_SCHEMA  # the schema is asked for
    assert DELHI in sent["messages"][-1]["content"]


def test_the_model_only_finds_what_code_accepts_a_still_true_part_with_new_words_is_refused(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE)
    fake_llm.script(pairs((PUNE, DELHI, "prefers very short replies in English")))
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.superseded == 0 and read(llm_home, "MEMORY.md") == CORE
    assert "words the older entry does not" in report.skipped[0].reason


def test_pairs_over_a_fifth_of_a_core_file_are_skipped(llm_home, fake_llm):
    lines = [f"- 2026-0{month}-01 · Fact number {month}" for month in range(1, 10)]
    write(llm_home, "MEMORY.md", "# Memory\n\n" + "\n".join(lines) + "\n- 2026-10-01 · Fact number 10\n")
    fake_llm.script(
        pairs(
            (lines[0], "- 2026-10-01 · Fact number 10", None),
            (lines[1], lines[8], None),
            (lines[2], lines[7], None),
        )
    )
    report = tidy(llm_home, BOT, today=TODAY)

    assert report.superseded == 2  # ten entries: at most two struck in one pass
    assert [s.text for s in report.skipped] == [lines[2]]
    assert "at most 2 of the 10 entries" in report.skipped[0].reason
    text = read(llm_home, "MEMORY.md")
    assert text.count("~~") == 4 and "- ~~2026-03-01 · Fact number 3~~" not in text


def test_a_core_file_of_four_entries_is_never_struck_and_not_even_sent(llm_home, fake_llm):
    four = "# Memory\n\n" + "".join(CORE.splitlines(keepends=True)[3:])
    write(llm_home, "MEMORY.md", four)
    fake_llm.script(pairs(('- 2026-04-02 · from chat "Plans" · Works at Acme as a designer', DELHI, None)))
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.superseded == 0 and read(llm_home, "MEMORY.md") == four
    assert fake_llm.requests == []


def test_a_topic_of_two_entries_may_reconcile_one_pair(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", "# Memory\n")
    write(
        llm_home,
        "memory/travel.md",
        "---\ntitle: Travel\n---\n- 2026-01-06 · prefers window seats\n- 2026-09-01 · prefers aisle seats now\n",
    )
    fake_llm.script(pairs(("- 2026-01-06 · prefers window seats", "- 2026-09-01 · prefers aisle seats now", None)))
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.superseded == 1 and len(fake_llm.requests) == 1
    struck = f"- ~~2026-01-06 · prefers window seats~~ · superseded {STRUCK_DAY}\n"
    assert read(llm_home, "memory/travel.md") == (
        "---\ntitle: Travel\n---\n" + struck + "- 2026-09-01 · prefers aisle seats now\n"
    )


def test_pairs_not_exactly_in_the_file_or_wrong_way_round_are_skipped_with_reasons(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE + "- ~~2026-02-01 · Lives in Mumbai~~ · superseded 2026-03-01\n")
    fake_llm.script(
        pairs(
            ("- 2026-03-01 · The person lives in Pune", DELHI, None),  # not the whole entry
            (PUNE, "- 2026-10-05 · The person moved to delhi", None),  # case changed
            (DELHI, DELHI, None),
            ("- ~~2026-02-01 · Lives in Mumbai~~ · superseded 2026-03-01", DELHI, None),
            (DELHI, PUNE, None),  # the older is the newer by date
        )
    )
    before = read(llm_home, "MEMORY.md")
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.superseded == 0 and read(llm_home, "MEMORY.md") == before
    reasons = [s.reason for s in report.skipped]
    assert reasons == [
        "the older entry is not exactly an entry of the file",
        "the newer entry is not exactly an entry of the file",
        "the older and the newer entry are the same entry",
        "the older entry is already struck through",
        "the entry given as older is the newer one (by its date, else its place in the file)",
    ]


def test_a_fact_that_two_entries_share_names_neither(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE + "- ~~2026-02-01 · Has a cat called Miso~~ · superseded 2026-03-01\n")
    fake_llm.script(pairs(("Has a cat called Miso", DELHI, None), (PUNE, "Has a cat called Miso", None)))
    before = read(llm_home, "MEMORY.md")
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.superseded == 0 and read(llm_home, "MEMORY.md") == before
    assert [s.reason for s in report.skipped] == [
        "the older entry matches more than one entry of the file",
        "the newer entry matches more than one entry of the file",
    ]


def test_the_fact_alone_names_an_entry_too(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE)
    fake_llm.script(pairs(("The person lives in Pune and prefers short replies", "The person moved to Delhi", None)))
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.superseded == 1 and report.still_true_added == 0


def test_broken_json_skips_contradictions_but_expiry_and_duplicates_are_done(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE + EXPIRED_AND_DUPLICATE)
    fake_llm.script('{"pairs": [{"older": ')
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.expired == 1 and report.duplicates == 1 and report.superseded == 0
    assert report.skipped[0].text == "MEMORY.md" and "could not be used" in report.skipped[0].reason
    assert "~~" not in read(llm_home, "MEMORY.md")


@pytest.mark.parametrize("reply", [{"status": 500}, {"delay": 3, "content": '{"pairs": []}'}])
def test_a_failing_or_slow_model_leaves_expiry_and_duplicates_done(llm_home, fake_llm, reply):
    write_llm_config(
        llm_home,
        fake_llm,
        instances={"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "timeout": 0.5}},
    )
    write(llm_home, "MEMORY.md", CORE + EXPIRED_AND_DUPLICATE)
    write(llm_home, "memory/travel.md", "- 2026-01-06 · window seats\n- 2026-09-01 · aisle seats\n")
    fake_llm.script(*[reply] * 6)  # a 500 is each output mode's once, then the prompt alone's three tries
    report = tidy(llm_home, BOT, today=TODAY)
    assert report.expired == 1 and report.duplicates == 1 and report.superseded == 0
    assert report.model != "used" and ("500" in report.model or "did not answer" in report.model)
    # no answer at all: the topic is not asked too, and both are asked again at the next tidy-up
    calls = len(fake_llm.requests)
    fake_llm.replies.clear()
    fake_llm.script(pairs(), pairs())
    tidy(llm_home, BOT, today=TODAY)
    assert len(fake_llm.requests) == calls + 2


def test_the_tidy_ups_deadline_bounds_every_files_call_together(llm_home, fake_llm, monkeypatch):
    monkeypatch.setattr(tidy_module, "STEP_DEADLINE_S", 0.4)
    write(llm_home, "MEMORY.md", CORE + EXPIRED_AND_DUPLICATE)
    write(llm_home, "memory/travel.md", "- 2026-01-06 · window seats\n- 2026-09-01 · aisle seats\n")
    fake_llm.script({"delay": 3, "content": '{"pairs": []}'}, pairs())
    report = tidy(llm_home, BOT, today=TODAY)  # the instance's timeout is 5 s: the run's 0.4 s cut the call
    assert report.expired == 1 and report.duplicates == 1 and "did not answer within 0.4 s" in report.model
    assert len(fake_llm.requests) == 1  # the topic waits for the next tidy-up


def test_a_file_edited_while_the_call_was_out_keeps_the_edit_and_its_pairs_are_skipped(llm_home, fake_llm, monkeypatch):
    write(llm_home, "MEMORY.md", CORE)
    write(llm_home, "memory/travel.md", "- 2026-01-06 · prefers window seats\n- 2026-09-01 · prefers aisle seats\n")
    fake_llm.script(
        pairs((PUNE, DELHI, None)),
        pairs(("- 2026-01-06 · prefers window seats", "- 2026-09-01 · prefers aisle seats", None)),
    )
    real_complete = tidy_module.complete
    edited = CORE + "- 2026-11-30 · typed by the person while the model was thinking\n"

    def complete_while_someone_edits(home, bot_id, job, messages, **kwargs):
        answer = real_complete(home, bot_id, job, messages, **kwargs)
        if "MEMORY.md" in messages[-1]["content"]:
            write(llm_home, "MEMORY.md", edited)
        return answer

    monkeypatch.setattr(tidy_module, "complete", complete_while_someone_edits)
    report = tidy(llm_home, BOT, today=TODAY)

    assert read(llm_home, "MEMORY.md") == edited
    assert report.superseded == 1 and "~~" in read(llm_home, "memory/travel.md")
    said = [s for s in report.skipped if s.text == "MEMORY.md"]
    assert said and "changed while the model was reading it" in said[0].reason


def test_every_row_carries_the_run_id_and_undo_puts_the_file_back(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE + "- 2026-11-01 · Dentist · until 2026-11-02\n")
    run = UpkeepRun(BOT)
    fake_llm.script(pairs((PUNE, DELHI, "prefers short replies")))
    report = tidy(llm_home, BOT, today=TODAY, run=run)

    assert report.run == run.id
    rows = rows_of(llm_home, run.id)
    assert [r.id for r in rows] == report.rows and len(rows) == 3  # archive, expiry, strike
    assert all(r.who == "Memory upkeep" and r.step == "tidy-up" for r in rows)
    store = MemoryStore(llm_home, BOT)
    store.undo(rows[-1].id)
    assert read(llm_home, "MEMORY.md") == CORE
    store.undo(rows[1].id, force=True)  # the strike and its undo came later: the person confirms them
    assert read(llm_home, "MEMORY.md") == CORE + "- 2026-11-01 · Dentist · until 2026-11-02\n"


def test_the_last_tidy_is_recorded_outside_the_workspace_and_an_unchanged_file_is_not_asked_again(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", CORE)
    fake_llm.script(pairs((PUNE, DELHI, None)))
    report = tidy(llm_home, BOT, today=TODAY)

    last = last_tidy(llm_home, BOT)
    assert last["run"] == report.run and last["superseded"] == 1 and last["model"] == "used"
    record = llm_home.journal_dir / f"{BOT}.upkeep.json"
    assert stat.S_IMODE(os.stat(record).st_mode) == 0o600
    calls = len(fake_llm.requests)
    again = tidy(llm_home, BOT, today=TODAY)
    assert len(fake_llm.requests) == calls and again.model == tidy_module.MODEL_NOT_NEEDED


def test_no_tidy_up_when_upkeep_is_off(home, run_cli):
    save_bot_settings(home, BotSettings(id=BOT, name="Scout", upkeep=False))
    with pytest.raises(UpkeepOff):
        tidy(home, BOT, today=TODAY)
    result = run_cli("tidy", BOT)
    assert result.code != 0 and "switched off" in result.err and last_tidy(home, BOT) is None


def test_the_command_leaves_a_bot_in_a_turn_alone(home, run_cli):
    from omb_tui.core.turn.turn import bot_turn

    write(home, "MEMORY.md", "- 2026-11-01 · Dentist · until 2026-11-02\n")
    with bot_turn(home, BOT, chat="plans"):
        result = run_cli("tidy", BOT)
    assert result.code == 1 and "is in a turn now" in result.err
    assert "Dentist" in read(home, "MEMORY.md") and last_tidy(home, BOT) is None


def test_a_key_the_model_quotes_is_never_printed_or_recorded(llm_home, fake_llm, run_cli):
    key = "sk-" + "proj-" + "Qw3rTy7uI0pAsD4fGh8jKl2zXc6vBn1m" + "-" + "Lk5jHg9fDs3aPo7iUy1t"
    write(llm_home, "MEMORY.md", CORE)
    fake_llm.script(pairs((f"- 2026-03-01 · The API key is {key}", DELHI, None)))
    result = run_cli("tidy", BOT, "--json")
    assert result.code == 0 and key not in result.out
    assert json.loads(result.out)["skipped"][0]["reason"] == "the older entry is not exactly an entry of the file"
    assert key not in (llm_home.journal_dir / f"{BOT}.upkeep.json").read_text(encoding="utf-8")
