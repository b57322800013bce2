"""The helper must be Claude (claude-code) or an API model, and what runs each bot's model steps, in one sentence
(docs/models.md, "Engines"); with no model, the words match what upkeep does: only expiry and exact duplicates."""

from __future__ import annotations

import logging
import re
from datetime import date

import pytest
from support.engine_fakes import engine, stand_in_program, write_engine_config  # noqa: F401 - engine: fixture

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models.call import complete
from omb_tui.core.models.engines import EngineReply
from omb_tui.core.models.instances import ModelUnavailable, choose_route, forget_said
from omb_tui.core.models.usage import month_of, read_usage
from omb_tui.core.models.what_runs import describe_models, model_steps

HELLO = [{"role": "user", "content": "hello"}]
HELPER_RULE = "and the helper must be Claude (claude-code) or an API model"


@pytest.fixture(autouse=True)
def _no_helper_in_environment(monkeypatch):
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    monkeypatch.delenv("OMB_HELPER_MODEL", raising=False)
    forget_said()


def engines(tmp_path) -> dict:
    program = stand_in_program(tmp_path / "bin")
    return {
        "sub": {"engine": "claude-code", "command": [program]},
        "cx": {"engine": "codex", "command": [program], "model": "gpt-5-mini"},
        "gem": {"engine": "acp", "command": [program, "--experimental-acp"]},
        "local": {"model": "openai/qwen3-8b", "api_base": "http://127.0.0.1:9/v1"},
    }


@pytest.mark.parametrize("helper", ["cx", "gem"])
def test_a_codex_or_acp_helper_in_config_json_is_not_used_and_the_log_says_why_once(
    home, tmp_path, engine, caplog, helper
):
    write_engine_config(home, engines(tmp_path), helper={"instanceId": helper})
    with pytest.raises(ModelUnavailable) as caught:
        choose_route(home, "scout")
    assert caught.value.via_helper and HELPER_RULE in caught.value.reason and f"'{helper}'" in caught.value.reason
    with caplog.at_level(logging.WARNING, logger="omb_tui.models"):
        for _ in range(2):
            with pytest.raises(ModelUnavailable):
                complete(home, "scout", "capture", HELLO)
    said = [r.getMessage() for r in caplog.records if r.name == "omb_tui.models"]
    assert said == [f"the helper model is not used: {caught.value.reason}."]
    assert engine.calls == [] and read_usage(home, month_of(clock.now_utc())) == []


def test_a_codex_helper_named_in_omb_helper_instance_is_not_used_either(home, tmp_path, monkeypatch, engine):
    write_engine_config(home, engines(tmp_path), helper={"instanceId": "local"})
    monkeypatch.setenv("OMB_HELPER_INSTANCE", "cx")
    with pytest.raises(ModelUnavailable, match=re.escape(HELPER_RULE)):
        choose_route(home, "scout")
    described = describe_models(home)
    assert described["helper"]["source"] == "env" and HELPER_RULE in described["helper"]["problem"]
    [bot] = described["bots"]
    assert bot["uses"] == "helper" and HELPER_RULE in bot["problem"]
    assert bot["model_steps"]["run"] is False and HELPER_RULE in bot["model_steps"]["why"]


def test_claude_code_may_be_the_helper_and_answers_the_bots_jobs(home, tmp_path, engine):
    write_engine_config(home, engines(tmp_path), helper={"instanceId": "sub", "model": "claude-haiku-4-5"})
    route = choose_route(home, "scout")
    assert route.via_helper and route.instance.id == "sub" and route.model == "claude-haiku-4-5"
    engine.replies.append(EngineReply("hi", model="claude-haiku-4-5", cost_usd=0.002))
    assert complete(home, "scout", "capture", HELLO).text == "hi"
    assert "problem" not in describe_models(home)["helper"]


def test_what_runs_the_model_steps_of_each_kind_of_bot(home, tmp_path):
    write_engine_config(home, engines(tmp_path))
    update_bot_settings(home, "scout", instance="sub")
    steps = model_steps(home, "scout")
    assert (steps.runs, steps.through, steps.instance, steps.engine) == (True, "engine", "sub", "claude-code")
    assert steps.sentence == (
        "The bot's own instance 'sub' runs the model steps on the claude-code engine (its default model, on your plan)."
    )
    update_bot_settings(home, "scout", instance="cx")
    assert "on the codex engine (gpt-5-mini, on your plan)" in model_steps(home, "scout").sentence
    update_bot_settings(home, "scout", instance="local")
    steps = model_steps(home, "scout")
    assert (steps.through, steps.sentence) == (
        "instance",
        "The bot's own instance 'local' · openai/qwen3-8b runs the model steps.",
    )
    update_bot_settings(home, "scout", instance=None)
    write_engine_config(home, engines(tmp_path), helper={"instanceId": "sub"})
    steps = model_steps(home, "scout")
    assert (steps.runs, steps.through, steps.engine) == (True, "helper", "claude-code")
    assert steps.sentence.startswith("The helper model runs the model steps (instance 'sub' on the claude-code")


def test_an_engine_whose_program_is_not_on_path_runs_no_model_step(home, tmp_path):
    write_engine_config(home, {"sub": {"engine": "claude-code", "command": ["omb-test-no-such-claude"]}})
    update_bot_settings(home, "scout", instance="sub")
    steps = model_steps(home, "scout")
    assert not steps.runs and steps.through is None
    assert (
        steps.why == "`omb-test-no-such-claude` is not on PATH: install Claude Code or set `command` in instance 'sub'"
    )
    # its own instance is what it uses: setting a helper would change nothing, so the sentence does not offer one
    assert steps.sentence == (
        "No model can run this bot's model steps, so only the expiry and exact-duplicate steps run."
    )


def test_with_no_model_the_sentence_offers_a_helper_only_where_one_would_serve(home, tmp_path):
    write_engine_config(home, engines(tmp_path))
    steps = model_steps(home, "scout")
    assert steps.sentence.endswith("exact-duplicate steps run, unless a helper model is set.")
    update_bot_settings(home, "scout", helper_model=False)
    assert model_steps(home, "scout").sentence.endswith("exact-duplicate steps run.")
    update_bot_settings(home, "scout", helper_model=True)
    write_engine_config(home, engines(tmp_path), helper={"instanceId": "cx"})
    steps = model_steps(home, "scout")
    assert steps.sentence.endswith("exact-duplicate steps run.") and HELPER_RULE in (steps.why or "")


@pytest.mark.dates
def test_with_no_model_upkeep_runs_exactly_the_expiry_and_exact_duplicate_steps(home, tmp_path, engine):
    """The sentence's words are what tidy, capture and organize do on a bot with no model and no helper."""
    from support.capture import VEG, make_chat

    from omb_tui.core.journal.changes import Actor
    from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
    from omb_tui.core.memory.store import MemoryStore
    from omb_tui.core.upkeep.capture import capture
    from omb_tui.core.upkeep.organize import organize
    from omb_tui.core.upkeep.tidy import tidy

    write_engine_config(home, engines(tmp_path), helper={"instanceId": "gem"})  # named, but an ACP agent
    assert not model_steps(home, "scout").runs
    memory = (
        "- 2026-01-01 · Conference pass · until 2026-01-03\n"
        "- 2026-01-02 · The person likes tea\n"
        "- 2026-01-05 · The person likes tea\n"
        "- 2026-01-06 · The person lives in Pune\n"
        "- 2026-01-07 · The person lives in Lisbon\n"
    )
    MemoryStore(home, "scout").write("MEMORY.md", memory, Actor(WHO_PERSON, HOW_SETTINGS))
    report = tidy(home, "scout", today=date(2026, 2, 1))
    assert (report.expired, report.duplicates, report.superseded) == (1, 1, 0)
    make_chat(home, [VEG])
    captured = capture(home, "scout")
    assert captured.saved == [] and HELPER_RULE in (captured.reason or "")
    organized = organize(home, "scout")
    assert organized.moved == [] and HELPER_RULE in (organized.reason or "")
    assert engine.calls == []  # no engine process was asked for anything
