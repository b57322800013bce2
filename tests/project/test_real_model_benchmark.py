"""`benchmarks/real_model.py` (run by hand against a real model) still runs: here against the scripted server playing
llama-cpp-python, with empty answers of each step's shape, so its figures and the demo's ground truth stay in step
with the steps."""

from __future__ import annotations

import json

import pytest
from support.fake_llm import start
from support.repo import ROOT

pytestmark = pytest.mark.dates  # usage is read from the month the clock says

BENCHMARKS = ROOT / "benchmarks"


def test_the_benchmark_runs_each_step_on_a_fresh_demo_home_and_reports_its_figures(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import real_model
    from upkeep import StepShapedAnswers

    fake = StepShapedAnswers()
    fake.delay = 0
    fake.behave_like("llama-cpp-python")
    fake, stop = start(fake)
    config = tmp_path / "config.json"
    instance = {"model": "openai/qwen2.5-coder-1.5b-instruct", "api_base": fake.api_base, "stream": True}
    config.write_text(json.dumps({"instances": {"local": instance}}), encoding="utf-8")
    try:
        argv = ["--instance", "local", "--config", str(config), "--steps", "capture,tidy,compact", "--json"]
        assert real_model.main([*argv, "--keep", str(tmp_path / "home")]) == 0
    finally:
        stop()
    report = json.loads(capsys.readouterr().out)
    capture, tidy, compact = report["steps"]
    assert capture["calls"] == 4 and capture["modes"] == ["json_object_schema"] and capture["lost_to_timeout"] == 0
    assert len(capture["missed"]) == len(real_model.CAPTURE_TRUTH)  # empty answers: every fact the chats state missed
    assert tidy["calls"] >= 1 and tidy["missed"] and "load_before" in tidy
    # The scripted answer has no "changes": the session's three attempts are each rejected, and the figures say so.
    assert compact["calls"] == 3 and compact["missed"] == ["an accepted change-set"] and compact["note"]
