"""Memory upkeep end to end, run as cron would: the installed `omb-tui upkeep --due` on a demo home, with a model
(the scripted server of tests/support/fake_llm.py on 127.0.0.1, answering each step with an empty answer of its shape)
and without one."""

from __future__ import annotations

import json

import pytest
from support.end_to_end import demo_home, lines, step_shaped
from support.fake_llm import fake_llm  # noqa: F401 (the fixture)

pytestmark = pytest.mark.dates


def test_upkeep_due_on_the_demo_home_with_a_model(tmp_path, run_exe, fake_llm):  # noqa: F811
    home, env = demo_home(tmp_path, run_exe)
    config = json.loads(home.config_path.read_text()) if home.config_path.exists() else {}
    config["instances"] = {"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "timeout": 10}}
    config["helper"] = {"instanceId": "local"}
    home.config_path.write_text(json.dumps(config))
    env.pop("OMB_HELPER_INSTANCE")  # the helper of config.json is the model here
    step_shaped(fake_llm)
    demo_rows = len(home.journal_path("scout").read_text().splitlines())  # the demo's own, last night's run too
    bots = lines(run_exe("upkeep", "--due", "--json", env=env))
    scout = bots["scout"]
    assert scout["capture"]["turns_read"] > 0 and "reason" not in scout["capture"]
    assert scout["organize"] is not None and scout["tidy"]["model"] == "used"
    jobs = {json.dumps(r.body) for r in fake_llm.requests}
    assert any("facts" in job for job in jobs) and any("pairs" in job for job in jobs)
    rows = [json.loads(r) for r in home.journal_path("scout").read_text().splitlines()]
    this_run = [r for r in rows[demo_rows:] if r.get("run")]
    assert {r["run"] for r in this_run} <= {scout["run"]}
    assert all(r["who"] == "Memory upkeep" for r in this_run)
    again = lines(run_exe("upkeep", "--due", "--json", env=env))
    assert again["scout"]["tidy"] is None and again["scout"]["capture"] is None  # read once, tidied once a day


def test_upkeep_due_on_the_demo_home_with_no_model_runs_the_rule_steps(tmp_path, run_exe):
    home, env = demo_home(tmp_path, run_exe)
    bots = lines(run_exe("upkeep", "--due", "--json", env=env))
    kept_off = {bot for bot, row in bots.items() if row["left_alone"]}
    for bot, row in bots.items():
        if bot in kept_off:
            continue
        assert row["tidy"] is not None and row["tidy"]["model"] != "used"  # expiry and duplicates only, said why
        if row["capture"] is not None:  # a chat was due
            assert row["capture"]["turns_read"] == 0 and row["capture"].get("reason")  # nothing read, says why
