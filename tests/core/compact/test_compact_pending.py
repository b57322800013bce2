"""Propose-only compaction's pending changes (omb_tui/core/compact/pending.py, `omb-tui proposals`): listed,
accepted one by one (checked again against MEMORY.md as it is now, one row each) or rejected; a change that no
longer fits is refused with its reason. docs/compact-nightly.md."""

from __future__ import annotations

import json

import pytest
from support.compact_helpers import (
    ADA,
    ADA_MERGED,
    BOT,
    DEPLOY,
    LAUNCH_OLD,
    MEMORY,
    VALID,
    compact_rows,
    read_memory,
    write_memory,
)
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures

from omb_tui.core.compact.nightly import compact_nightly
from omb_tui.core.compact.pending import accept, pending_changes, reject
from omb_tui.core.compact.records import compact_files
from omb_tui.core.files.paths import NotFound

pytestmark = pytest.mark.dates


@pytest.fixture
def proposed(llm_home, fake_llm):
    write_memory(llm_home)
    fake_llm.script(VALID)
    compact_nightly(llm_home, BOT, propose_only=True)
    return llm_home


def test_accepting_one_applies_it_as_its_own_row_and_it_no_longer_waits(proposed):
    outcome = accept(proposed, BOT, ["3"])

    assert outcome.applied == ["3"] and outcome.refused == []
    assert read_memory(proposed) == MEMORY.replace(ADA, ADA_MERGED)
    rows = compact_rows(proposed)
    assert [row.id for row in rows] == outcome.rows and rows[0].note == "merge: Two lines say the same of Ada."
    assert rows[0].who == "person" and rows[0].run == outcome.run
    assert [item.id for item in pending_changes(proposed, BOT)] == ["1", "2"]


def test_rejecting_marks_it_and_nothing_is_written(proposed):
    reject(proposed, BOT, ["1"])
    assert [item.id for item in pending_changes(proposed, BOT)] == ["2", "3"]
    assert read_memory(proposed) == MEMORY
    stored = json.loads(compact_files(proposed, BOT).pending.read_text(encoding="utf-8"))
    assert [item["status"] for item in stored["changes"]] == ["rejected", "pending", "pending"]
    with pytest.raises(NotFound, match="Change 1 was already rejected"):
        reject(proposed, BOT, ["1"])


def test_a_change_whose_original_is_no_longer_exactly_once_is_refused_with_its_reason(proposed):
    write_memory(proposed, MEMORY + LAUNCH_OLD)  # the person pasted the line again
    write_memory(proposed, read_memory(proposed).replace(DEPLOY, ""))  # and removed the deploy line by hand

    outcome = accept(proposed, BOT, ["1", "2", "3"])

    assert outcome.applied == ["3"]
    assert outcome.refused == [
        ("1", "Its original now occurs 2 times in MEMORY.md, not exactly once, so it cannot be applied."),
        ("2", "Its original is no longer in MEMORY.md, so it cannot be applied."),
    ]
    assert [item.id for item in pending_changes(proposed, BOT)] == ["1", "2"]


def test_a_line_put_on_the_keep_list_since_is_refused(proposed):
    write_memory(proposed, "- the launch moved to March\n", rel="memory/keep.md")
    outcome = accept(proposed, BOT, ["1"])
    assert outcome.applied == [] and "is on the keep list" in outcome.refused[0][1]
    assert read_memory(proposed) == MEMORY


def test_the_command_lists_accepts_and_rejects(proposed, run_cli):
    listed = run_cli("proposals", BOT)
    assert listed.code == 0 and "1. superseded: The launch date is now set." in listed.out
    assert "3. merge: Two lines say the same of Ada." in listed.out and "   with   : " in listed.out
    assert [item["id"] for item in json.loads(run_cli("proposals", BOT, "--json").out)] == ["1", "2", "3"]

    assert run_cli("proposals", BOT, "reject", "2").code == 0
    result = run_cli("proposals", BOT, "accept", "--all")
    assert result.code == 0 and result.out.startswith("Applied 1, 3 to MEMORY.md")
    assert read_memory(proposed) == MEMORY.replace(LAUNCH_OLD, "").replace(ADA, ADA_MERGED)
    assert run_cli("proposals", BOT).out == f"No proposed change of {BOT} is waiting.\n"


@pytest.mark.parametrize("argv", [["reject", "2", "3", "--json"], ["--json", "reject", "2", "3"]])
def test_reject_with_json_prints_json(proposed, run_cli, argv):
    result = run_cli("proposals", BOT, *argv)  # --json after the subcommand or before it
    assert result.code == 0 and json.loads(result.out) == {"rejected": ["2", "3"]}
    assert [item.id for item in pending_changes(proposed, BOT)] == ["1"]


def test_the_command_says_why_a_change_was_not_applied_and_exits_1(proposed, run_cli):
    result = run_cli("proposals", BOT, "accept", "9")
    assert result.code == 1 and result.out == "Not applied 9: There is no proposed change '9'.\n"
    assert run_cli("proposals", BOT, "accept").code == 2  # neither ids nor --all
    assert run_cli("proposals", BOT, "reject", "9").code == 2


def test_pending_texts_are_redacted(llm_home, fake_llm):
    secret_line = "- 2026-02-12 · from chat · the build token is ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
    write_memory(llm_home, MEMORY.replace("### Debugging\n", "### Debugging\n" + secret_line))
    fake_llm.script(
        json.dumps(
            {
                "changes": [
                    {"category": "detail", "original": secret_line, "reason": "A token does not belong in memory."}
                ]
            }
        )
    )
    compact_nightly(llm_home, BOT, propose_only=True)
    stored = compact_files(llm_home, BOT).pending.read_text(encoding="utf-8")
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in stored and "redacted" in stored
