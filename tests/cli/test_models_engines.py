"""`omb-tui models`, `models test ID`, `usage` and `chat` with engine instances (docs/models.md, "Engines"), through
the real entry point; the engine's run is scripted (support/engine_fakes.py), so no agent CLI is needed here."""

from __future__ import annotations

import json

import pytest
from support.engine_fakes import (  # noqa: F401 - engine: fixture
    claude_code_with_a_codex_helper,
    engine,
    write_engine_config,
)

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models.call import TEST_SCHEMA, complete
from omb_tui.core.models.engines import EngineFailed, EngineReply
from omb_tui.core.models.usage import month_of, read_usage, spent_this_month

pytestmark = pytest.mark.dates
HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture(autouse=True)
def _no_helper_in_environment(monkeypatch):
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    monkeypatch.delenv("OMB_HELPER_MODEL", raising=False)


@pytest.fixture
def engine_home(home, tmp_path):
    claude_code_with_a_codex_helper(home, tmp_path / "bin")
    return home


def this_month_rows(home) -> list[dict]:
    return read_usage(home, month_of(clock.now_utc()))


def test_models_says_the_helper_is_not_used_and_what_runs_each_bots_steps(run_cli, engine_home, tmp_path):
    text = run_cli("models")
    assert text.code == 0
    assert "  sub            claude-code engine  runs " in text.out
    write_engine_config(engine_home, {"plain": {"engine": "codex", "model": "gpt-5-mini"}})
    assert "  plain          codex engine · gpt-5-mini  runs codex\n" in run_cli("models").out
    claude_code_with_a_codex_helper(engine_home, tmp_path / "bin")
    assert (
        "  Not used: the helper's instance 'cx' runs on the codex engine, and the helper must be Claude "
        "(claude-code) or an API model.\n" in text.out
    )
    assert (
        "    No model can run this bot's model steps, so only the expiry and exact-duplicate steps run.\n" in text.out
    )
    update_bot_settings(engine_home, "scout", instance="sub")
    text = run_cli("models")
    assert (
        "    The bot's own instance 'sub' runs the model steps on the claude-code engine (its default model, "
        "on your plan).\n" in text.out
    )
    data = json.loads(run_cli("models", "--json").out)
    assert data["helper"]["problem"].startswith("the helper's instance 'cx' runs on the codex engine")
    [bot] = data["bots"]
    assert bot["model_steps"] == {
        "run": True,
        "through": "engine",
        "instance": "sub",
        "engine": "claude-code",
        "model": "",
        "why": None,
        "sentence": "The bot's own instance 'sub' runs the model steps on the claude-code engine (its default "
        "model, on your plan).",
    }


def test_models_test_an_engine_instance_makes_one_tiny_call_through_it(run_cli, engine_home, engine):
    engine.replies.append(EngineReply('{"ok": true}', data={"ok": True}, model="claude-haiku-4-5", cost_usd=0.0012))
    result = run_cli("models", "test", "sub")
    assert result.code == 0, result.err
    assert result.out.startswith("sub: answered in ")
    assert result.out.endswith(" s through the claude-code engine (claude-haiku-4-5).\n")
    [call] = engine.calls
    assert call.instance.id == "sub" and call.schema == TEST_SCHEMA  # Claude Code checks the JSON itself
    [row] = this_month_rows(engine_home)
    assert (row["job"], row["engine"], row["cost"], row["cost_usd"], row["plan_cost_usd"]) == (
        "models test",
        "claude-code",
        "plan",
        0.0,
        0.0012,
    )
    engine.replies.append(EngineReply('{"ok": true}', data={"ok": True}, model="claude-haiku-4-5"))
    [check] = json.loads(run_cli("models", "test", "sub", "--json").out)
    assert check["ok"] and check["engine"] == "claude-code" and check["model"] == "claude-haiku-4-5"


def test_models_test_an_engine_that_fails_is_one_sentence_and_exit_1(run_cli, engine_home, engine):
    engine.replies.append(EngineFailed("`claude` is not signed in: run `claude`, then /login"))
    result = run_cli("models", "test", "sub")
    assert (result.code, result.out) == (1, "sub: `claude` is not signed in: run `claude`, then /login.\n")
    assert "Traceback" not in result.err


def test_usage_marks_plan_calls_and_the_spend_limit_does_not_count_or_stop_them(run_cli, engine_home, engine):
    write_engine_config(
        engine_home,
        {"sub": json.loads(engine_home.config_path.read_text())["instances"]["sub"]},
        limits={"monthlySpendUsd": 0},
    )
    update_bot_settings(engine_home, "scout", instance="sub")
    engine.replies += [
        EngineReply("one", model="claude-haiku-4-5", prompt_tokens=10, completion_tokens=2, cost_usd=0.25),
        EngineReply("two", model="claude-haiku-4-5", prompt_tokens=10, completion_tokens=2, cost_usd=0.5),
    ]
    assert complete(engine_home, "scout", "capture", HELLO).text == "one"  # a limit of 0 stops no plan call
    assert complete(engine_home, "scout", "capture", HELLO).text == "two"
    assert spent_this_month(engine_home) == 0
    text = run_cli("usage")
    assert text.code == 0
    assert text.out.count("plan (claude-code, $0.") == 2
    assert (
        "scout          claude-haiku-4-5: 2 calls, 0 failed, $0.000000, 2 on your plan ($0.750000 reported" in text.out
    )
    assert "  all: $0.000000 (and $0.750000 reported by engines on your plan, not counted toward the limit)" in text.out
    data = json.loads(run_cli("usage", "--json").out)
    assert data["total_cost_usd"] == 0 and data["plan_cost_usd"] == 0.75
    assert [(r["cost"], r["engine"], r["plan_cost_usd"]) for r in data["rows"]] == [
        ("plan", "claude-code", 0.25),
        ("plan", "claude-code", 0.5),
    ]
    [total] = data["totals"]
    assert (total["plan_calls"], total["plan_cost_usd"], total["cost_usd"]) == (2, 0.75, 0)
    header = run_cli("usage", "--csv").out.splitlines()[0]
    assert header.endswith(",error,engine,plan_cost_usd,dropped")


def test_chat_on_an_engine_bot_says_chat_turns_need_an_api_instance(run_cli, engine_home, engine):
    update_bot_settings(engine_home, "scout", instance="sub")
    result = run_cli("chat", "scout", stdin=b"hello there\n")
    assert result.code == 1
    sentence = (
        "chat turns need an API instance: instance 'sub' runs on the claude-code engine, which takes only memory's "
        "background steps (capture, organize, the tidy-up, compaction), with every tool off"
    )
    assert result.err.splitlines()[-1] == f"omb-tui: {sentence}"
    assert "Traceback" not in result.err
    assert engine.calls == [] and this_month_rows(engine_home) == []  # no agent started, nothing to record
