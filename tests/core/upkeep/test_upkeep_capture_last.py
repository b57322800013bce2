"""The record of the last capture the Upkeep screen shows (memory-journal/<bot>.upkeep.json, beside the tidy-up's)."""

from __future__ import annotations

import json

import pytest
from support.capture import VEG, answer, fact, make_chat
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures

from omb_tui.core.upkeep.capture import capture, last_capture
from omb_tui.core.upkeep.tidy import last_tidy, tidy

pytestmark = pytest.mark.dates


def test_the_last_capture_is_recorded_with_its_counts_and_no_fact_text(llm_home, fake_llm):
    assert last_capture(llm_home, "scout") is None
    make_chat(llm_home, [VEG, ("What should I cook tonight?", "Try a dal.")])
    fake_llm.script(
        answer(fact("The person is vegetarian", ["I'm vegetarian"]), fact("The person likes dal", ["I love dal"]))
    )
    result = capture(llm_home, "scout")
    last = last_capture(llm_home, "scout")
    assert last["run"] == result.run and last["turns_read"] == 2
    assert (last["saved"], last["skipped"], last["reason"]) == (1, 1, None)
    record = llm_home.journal_dir / "scout.upkeep.json"
    assert "vegetarian" not in record.read_text(encoding="utf-8")
    assert record.stat().st_mode & 0o777 == 0o600


def test_a_capture_with_no_model_records_why_and_keeps_the_tidy_ups_part(llm_home, fake_llm):
    tidy(llm_home, "scout")
    make_chat(llm_home, [VEG])
    fake_llm.script({"status": 401})
    capture(llm_home, "scout")
    last = last_capture(llm_home, "scout")
    assert last["turns_read"] == 0 and last["reason"]
    assert last_tidy(llm_home, "scout") is not None  # the tidy-up's part of the record is still there
    tidy(llm_home, "scout")
    assert last_capture(llm_home, "scout") == last  # and the tidy-up keeps capture's


def test_a_damaged_record_reads_as_no_capture(llm_home):
    (llm_home.journal_dir / "scout.upkeep.json").write_text(json.dumps({"capture": []}), encoding="utf-8")
    assert last_capture(llm_home, "scout") is None
