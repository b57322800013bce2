"""Organizing: one model call proposes, code decides which MEMORY.md lines move into topic files.

Every test talks to the scripted OpenAI-compatible server in tests/support/fake_llm.py on 127.0.0.1; none reaches the
network.
"""

from __future__ import annotations

import json
import os
import stat

import pytest
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import WHO_UPKEEP
from omb_tui.core.memory.budget import read_topic_info
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.models.instances import NO_MODEL_CONNECTED
from omb_tui.core.runs.run import UpkeepRun
from omb_tui.core.upkeep import organize as organize_module
from omb_tui.core.upkeep.organize import MAX_MOVES, NOTE, judged_lines_path, organize

pytestmark = pytest.mark.dates

BOT = "scout"
CORE = '- 2026-01-05 · from chat "Plans" · The person lives in Pune'
ACME_1 = '- 2026-01-06 · from chat "Work" · Acme Corp pays invoices on the 15th'
ACME_2 = "- 2026-01-07 · Acme's contact is Priya, who prefers email"
ACME_2_OWNED = "  she answers within a day"
HEALTH = "- 2026-01-08 · The person is allergic to peanuts"
RULE = '- 2026-01-09 · from chat "Plans" · Never book flights before 9 am'
MEMORY = "\n".join(["# Memory", "", CORE, ACME_1, ACME_2, ACME_2_OWNED, HEALTH, RULE]) + "\n"


def write_memory(home, text: str) -> None:
    store = MemoryStore(home, BOT)
    store.write("MEMORY.md", text, Actor("person", "command line"))


def answer(fake, moves=(), core=()) -> None:
    fake.script({"content": json.dumps({"moves": list(moves), "core": list(core)})})


def sent_text(fake) -> str:
    return "\n".join(m["content"] or "" for m in fake.requests[-1].body["messages"])


def memory_text(home) -> str:
    return (home.workspace(BOT) / "MEMORY.md").read_text(encoding="utf-8")


def upkeep_rows(home):
    return [r for r in MemoryStore(home, BOT).journal.rows() if r.who == WHO_UPKEEP]


@pytest.fixture
def organized_home(llm_home):
    write_memory(llm_home, MEMORY)
    return llm_home


def test_moves_are_applied_exactly_with_a_header_and_rows_of_the_run_and_undo_puts_them_back(organized_home, fake_llm):
    home = organized_home
    answer(
        fake_llm,
        moves=[
            {"line": ACME_1, "topic": "acme.md", "title": "Acme Corp", "aliases": ["client", "Acme Inc: the client"]},
            {"line": ACME_2, "topic": "acme.md"},
        ],
        core=[CORE],
    )
    run = UpkeepRun(BOT)
    result = organize(home, BOT, run=run)

    assert [m.topic for m in result.moved] == ["memory/acme.md", "memory/acme.md"] and result.skipped == []
    assert result.core == 1 and result.run == run.id
    topic = (home.workspace(BOT) / "memory" / "acme.md").read_text(encoding="utf-8")
    assert topic.endswith(f"# Acme Corp\n\n{ACME_1}\n{ACME_2}\n{ACME_2_OWNED}\n")  # unchanged, owned line too
    info = read_topic_info("acme.md", topic)
    assert info.title == "Acme Corp" and info.aliases == ("client", "Acme Inc: the client")
    assert memory_text(home) == "\n".join(["# Memory", "", CORE, HEALTH, RULE]) + "\n"

    rows = upkeep_rows(home)
    assert sorted(r.file for r in rows) == ["MEMORY.md", "memory/acme.md"]
    assert all(r.run == run.id and r.note == NOTE and r.step == "organize" for r in rows)
    store = MemoryStore(home, BOT)
    for row in rows:  # newest first: MEMORY.md, then the topic it was filed into
        store.undo(row.id)
    assert memory_text(home) == MEMORY and not (home.workspace(BOT) / "memory" / "acme.md").exists()


def test_an_existing_topic_gets_the_line_appended_and_keeps_its_header(organized_home, fake_llm):
    travel = organized_home.workspace(BOT) / "memory" / "travel.md"
    before = travel.read_text(encoding="utf-8")
    answer(fake_llm, moves=[{"line": ACME_1, "topic": "travel.md", "title": "Ignored", "aliases": ["x"]}])
    organize(organized_home, BOT)
    assert travel.read_text(encoding="utf-8") == before + ACME_1 + "\n"


def test_health_lines_and_rules_are_never_offered_and_a_move_of_one_is_refused(organized_home, fake_llm):
    answer(fake_llm, moves=[{"line": HEALTH, "topic": "food.md"}, {"line": RULE, "topic": "travel.md"}])
    result = organize(organized_home, BOT)

    sent = sent_text(fake_llm)
    assert ACME_1 in sent and CORE in sent
    assert "peanuts" not in sent and "Never book flights" not in sent
    reasons = {s.text: s.reason for s in result.skipped}
    assert "diet, allergies or health" in reasons[HEALTH] and "rule the person gave" in reasons[RULE]
    assert result.moved == [] and memory_text(organized_home) == MEMORY and upkeep_rows(organized_home) == []


@pytest.mark.parametrize("opening", ["Always", "don't", "Don’t", "From now on", "Every time", "whenever", "NEVER"])
def test_each_opening_of_a_rule_keeps_the_line_out_of_the_request(llm_home, fake_llm, opening):
    rule = f'- 2026-02-01 · from chat "Plans" · {opening} reply in English'
    write_memory(llm_home, f"{ACME_1}\n{rule}\n- Neverland trip is in May\n")
    answer(fake_llm)
    organize(llm_home, BOT)
    assert "reply in English" not in sent_text(fake_llm) and "Neverland" in sent_text(fake_llm)


def test_a_line_not_exactly_in_the_file_is_refused(organized_home, fake_llm):
    reworded = ACME_1.replace("15th", "15th.")
    answer(fake_llm, moves=[{"line": reworded, "topic": "acme.md"}])
    result = organize(organized_home, BOT)
    assert [(s.text, s.reason) for s in result.skipped] == [(reworded, "This line is not exactly in MEMORY.md.")]
    assert memory_text(organized_home) == MEMORY and not (organized_home.workspace(BOT) / "memory/acme.md").exists()


def test_an_invalid_topic_name_is_refused(organized_home, fake_llm):
    answer(fake_llm, moves=[{"line": ACME_1, "topic": "../outside.md"}, {"line": ACME_2, "topic": "archive.md"}])
    result = organize(organized_home, BOT)
    assert result.moved == [] and len(result.skipped) == 2
    assert "not a valid topic name" in result.skipped[0].reason and "archive" in result.skipped[1].reason
    assert memory_text(organized_home) == MEMORY


def test_at_most_twenty_lines_move_in_one_pass_the_rest_wait(llm_home, fake_llm):
    lines = [f"- 2026-03-{day:02d} · Project Falcon milestone {day} is done" for day in range(1, 26)]
    write_memory(llm_home, "\n".join(lines) + "\n")
    answer(fake_llm, moves=[{"line": line, "topic": "falcon.md"} for line in lines])
    result = organize(llm_home, BOT)

    assert len(result.moved) == MAX_MOVES == 20
    assert [s.text for s in result.skipped] == lines[20:]
    assert all("At most 20 lines move in one pass" in s.reason for s in result.skipped)
    assert memory_text(llm_home) == "\n".join(lines[20:]) + "\n"
    # the ones that waited are offered again at the next pass
    answer(fake_llm)
    organize(llm_home, BOT)
    assert all(line in sent_text(fake_llm) for line in lines[20:])


def test_a_line_judged_core_is_never_offered_again_and_cannot_be_moved(organized_home, fake_llm):
    answer(fake_llm, core=[CORE])
    assert organize(organized_home, BOT).core == 1
    state = judged_lines_path(organized_home, BOT)
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o600
    assert "Pune" not in state.read_text(encoding="utf-8")  # hashes only, never the text

    answer(fake_llm, moves=[{"line": CORE, "topic": "places.md"}])
    result = organize(organized_home, BOT)
    assert CORE not in sent_text(fake_llm) and ACME_1 in sent_text(fake_llm)
    assert [(s.text, s.reason) for s in result.skipped] == [
        (CORE, "This line was judged core before; it stays in MEMORY.md.")
    ]
    assert CORE in memory_text(organized_home)


def test_a_moved_line_put_back_by_hand_is_not_moved_again(organized_home, fake_llm):
    answer(fake_llm, moves=[{"line": ACME_1, "topic": "acme.md"}])
    organize(organized_home, BOT)
    store = MemoryStore(organized_home, BOT)
    store.undo(upkeep_rows(organized_home)[0].id)  # the person puts it back in MEMORY.md
    answer(fake_llm)
    organize(organized_home, BOT)
    assert ACME_1 in memory_text(organized_home) and ACME_1 not in sent_text(fake_llm)


def test_broken_json_moves_nothing_and_says_why(organized_home, fake_llm):
    fake_llm.script({"content": '{"moves": [{"line": "- 2026'})
    result = organize(organized_home, BOT)
    assert result.moved == [] and "nothing moved" in result.reason and "JSON" in result.reason
    assert memory_text(organized_home) == MEMORY and upkeep_rows(organized_home) == []


def test_a_file_edited_while_the_call_was_out_moves_nothing_and_says_so(organized_home, fake_llm, monkeypatch):
    real_complete = organize_module.complete

    def complete_while_the_person_edits(*args, **kwargs):
        answer_ = real_complete(*args, **kwargs)
        with open(organized_home.workspace(BOT) / "MEMORY.md", "a", encoding="utf-8") as file:
            file.write("- a line the person typed meanwhile\n")
        return answer_

    monkeypatch.setattr(organize_module, "complete", complete_while_the_person_edits)
    answer(fake_llm, moves=[{"line": ACME_1, "topic": "acme.md"}])
    result = organize(organized_home, BOT)

    assert result.moved == [] and [s.text for s in result.skipped] == [ACME_1]
    assert "MEMORY.md changed while the model was answering" in result.skipped[0].reason
    assert memory_text(organized_home) == MEMORY + "- a line the person typed meanwhile\n"
    assert not (organized_home.workspace(BOT) / "memory" / "acme.md").exists()


def test_a_topic_edited_before_its_write_keeps_the_line_in_memory(organized_home, fake_llm, monkeypatch):
    travel = organized_home.workspace(BOT) / "memory" / "travel.md"
    real_write = MemoryStore.write

    def write_after_an_editor(self, rel, text, actor, expected_hash=None, **kwargs):
        if rel == "memory/travel.md":
            travel.write_text(travel.read_text(encoding="utf-8") + "- typed in vim\n", encoding="utf-8")
        return real_write(self, rel, text, actor, expected_hash, **kwargs)

    monkeypatch.setattr(MemoryStore, "write", write_after_an_editor)
    answer(fake_llm, moves=[{"line": ACME_1, "topic": "travel.md"}])
    result = organize(organized_home, BOT)
    assert result.moved == [] and "memory/travel.md changed" in result.skipped[0].reason
    assert memory_text(organized_home) == MEMORY and ACME_1 not in travel.read_text(encoding="utf-8")


def test_no_model_moves_nothing_and_says_how_to_connect_one(home, fake_llm):
    write_memory(home, MEMORY)
    result = organize(home, BOT)
    assert result.moved == [] and result.reason == NO_MODEL_CONNECTED
    assert fake_llm.requests == [] and memory_text(home) == MEMORY


def test_a_model_that_cannot_serve_the_bot_moves_nothing_and_says_why(home, fake_llm):
    write_memory(home, MEMORY)
    write_llm_config(home, fake_llm, helper=None)  # an instance, but none for this bot
    result = organize(home, BOT)
    assert result.moved == [] and result.reason.startswith("No model could organize: no helper model is set")
    assert fake_llm.requests == [] and memory_text(home) == MEMORY


def test_upkeep_switched_off_asks_nothing(organized_home, fake_llm):
    update_bot_settings(organized_home, BOT, upkeep=False)
    result = organize(organized_home, BOT)
    assert "switched off" in result.reason and fake_llm.requests == []


def test_the_command_prints_json_with_the_run(organized_home, fake_llm, run_cli):
    answer(
        fake_llm,
        moves=[{"line": ACME_1, "topic": "acme.md", "title": "Acme"}, {"line": "- invented", "topic": "x.md"}],
        core=[CORE],
    )
    out = run_cli("organize", BOT, "--json")
    assert out.code == 0, out.err
    data = json.loads(out.out)
    assert data["moved"] == [{"line": ACME_1, "topic": "memory/acme.md"}] and data["core"] == 1
    assert data["skipped"] == [{"text": "- invented", "reason": "This line is not exactly in MEMORY.md."}]
    assert [r.run for r in upkeep_rows(organized_home)] == [data["run"], data["run"]]


def test_the_plain_output_counts_the_lines_in_words(organized_home, fake_llm, run_cli):
    answer(fake_llm, moves=[{"line": ACME_1, "topic": "acme.md", "title": "Acme"}], core=[CORE])
    out = run_cli("organize", BOT)
    assert out.code == 0, out.err
    assert "Filed 1 line into topics:" in out.out
    assert "1 line judged core: it stays in MEMORY.md and is not asked about again." in out.out


def test_the_command_says_how_to_connect_a_model_with_none(home, run_cli):
    write_memory(home, MEMORY)
    out = run_cli("organize", BOT)
    assert out.code == 0 and out.out.splitlines()[0] == NO_MODEL_CONNECTED


def test_a_topic_shaped_like_a_credential_is_refused_and_reaches_no_file(organized_home, fake_llm):
    key = "AK" + "IA" + "FAKEEXAMPLE01234"
    answer(fake_llm, moves=[{"line": ACME_1, "topic": f"{key}.md"}])
    result = organize(organized_home, BOT)
    assert result.moved == [] and [s.reason for s in result.skipped] == [
        "That topic name looks like it holds a credential; choose a name without one."
    ]
    assert memory_text(organized_home) == MEMORY
    found = [
        p for p in organized_home.root.rglob("*") if p.is_file() and key.encode() in p.read_bytes() + p.name.encode()
    ]
    assert found == []
