"""`omb-tui compact BOT`: the numbered proposal, one answer line (apply, keep, delete, cancel) read from stdin,
`--json`, and the sentences for a bad answer, an empty set and a model that cannot be reached. docs/compact.md."""

from __future__ import annotations

import json

import pytest
from support.compact_helpers import (
    ADA,
    ADA_MERGED,
    AFTER_VALID,
    BOT,
    DEPLOY,
    LAUNCH_OLD,
    MEMORY,
    VALID,
    answer,
    compact_rows,
    read_memory,
    write_memory,
)
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures

from omb_tui.core.compact import session as session_module
from omb_tui.core.journal.journal import HOW_COMMAND_LINE
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.models.instances import NO_MODEL_CONNECTED


@pytest.fixture
def compacting(llm_home, fake_llm, run_cli):
    write_memory(llm_home)
    fake_llm.script(VALID)
    return run_cli


def test_the_proposal_is_numbered_with_category_original_merged_text_and_reason(compacting):
    result = compacting("compact", BOT, stdin=b"cancel\n")
    assert result.code == 0
    assert (
        "1. superseded: The launch date is now set.\n   remove:  - 2026-01-05 · from chat · the launch moved to March\n"
    ) in result.out
    assert (
        "3. merge: Two lines say the same of Ada.\n"
        "   replace: - 2026-02-03 · from chat · Ada leads the launch\n"
        "            - 2026-02-04 · from chat · Ada leads the launch team too\n"
        "   with:    - 2026-02-04 · from chat · Ada leads the launch team\n"
    ) in result.out


def test_apply_writes_every_change_as_its_own_row_of_one_run(llm_home, compacting):
    result = compacting("compact", BOT, stdin=b"apply\n")
    assert result.code == 0, result.err
    assert read_memory(llm_home) == AFTER_VALID
    rows = compact_rows(llm_home)
    assert len(rows) == 3 and {(row.who, row.how) for row in rows} == {("person", HOW_COMMAND_LINE)}
    assert len({row.run for row in rows}) == 1 and rows[0].run
    assert "Applied 3 of 3 changes" in result.out and rows[-1].id in result.out
    clean = (llm_home.root / "compact" / BOT / "memory-clean.log").read_text(encoding="utf-8").splitlines()
    assert len(clean) == 3 and all(rows[0].run in line for line in clean)  # no backup: the log traces it
    assert not (llm_home.root / "compact" / BOT / "backup").exists()


def test_keep_applies_all_but_those(llm_home, compacting):
    assert compacting("compact", BOT, stdin=b"keep 2\n").code == 0
    assert read_memory(llm_home) == MEMORY.replace(LAUNCH_OLD, "").replace(ADA, ADA_MERGED)
    assert [row.note.split(":")[0] for row in compact_rows(llm_home)] == ["superseded", "merge"]


def test_delete_applies_only_those(llm_home, compacting):
    assert compacting("compact", BOT, stdin=b"delete 1\n").code == 0
    assert read_memory(llm_home) == MEMORY.replace(LAUNCH_OLD, "")
    assert len(compact_rows(llm_home)) == 1


def test_cancel_applies_nothing(llm_home, compacting):
    result = compacting("compact", BOT, stdin=b"cancel\n")
    assert result.code == 0 and "Cancelled; nothing was applied." in result.out
    assert read_memory(llm_home) == MEMORY and compact_rows(llm_home) == []


@pytest.mark.parametrize(
    "line, sentence",
    [
        (b"yes please\n", "'yes' is not an answer; nothing was applied"),
        (b"keep 7\n", "There is no change 7 (the proposal has 3); nothing was applied."),
        (b"delete two\n", "'delete' takes the numbers of changes, such as delete 2 3; nothing was applied."),
        (b"", "No answer was given; nothing was applied"),
    ],
)
def test_a_bad_answer_is_one_sentence_exit_2_and_nothing_applied(llm_home, compacting, line, sentence):
    result = compacting("compact", BOT, stdin=line)
    assert result.code == 2 and sentence in result.err and len(result.err.strip().splitlines()) == 1
    assert read_memory(llm_home) == MEMORY and compact_rows(llm_home) == []


def test_json_prints_the_validated_proposal_without_applying_it(llm_home, compacting):
    result = compacting("compact", BOT, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert [c["category"] for c in data["changes"]] == ["superseded", "detail", "merge"]
    assert data["changes"][1]["original"] == DEPLOY and data["attempts"] == 1 and data["errors"] == [[]]
    assert data["error"] is None
    assert read_memory(llm_home) == MEMORY


def test_an_empty_change_set_says_there_is_nothing_to_change(llm_home, fake_llm, run_cli):
    write_memory(llm_home)
    fake_llm.script(answer())
    result = run_cli("compact", BOT)
    assert result.code == 0 and result.out == f"Nothing to change in MEMORY.md of {BOT}.\n"


def test_a_model_that_cannot_be_reached_is_one_sentence_and_exit_1(home, run_cli):
    write_memory(home)
    result = run_cli("compact", BOT, stdin=b"apply\n")
    assert result.code == 1 and result.err == f"omb-tui: {NO_MODEL_CONNECTED}\n"
    assert read_memory(home) == MEMORY


def test_a_file_changed_before_the_answer_exits_3_and_applies_nothing(llm_home, compacting, monkeypatch):
    real_propose = session_module.propose
    edited = MEMORY + "- 2026-03-01 · from chat · written while the person read the proposal\n"

    def propose_then_edit(*args, **kwargs):
        proposal = real_propose(*args, **kwargs)
        write_memory(llm_home, edited)
        return proposal

    monkeypatch.setattr(session_module, "propose", propose_then_edit)
    result = compacting("compact", BOT, stdin=b"apply\n")
    assert result.code == 3 and "changed since the model read it; nothing was applied" in result.err
    assert read_memory(llm_home) == edited and compact_rows(llm_home) == []
    assert MemoryStore(llm_home, BOT).journal.rows()[0].how == "changed outside the app"
