"""Connected instances, the helper and where each bot's jobs go (docs/models.md), and `omb-tui models`."""

from __future__ import annotations

import json

import pytest

from omb_tui.core.files.paths import Home
from omb_tui.core.memory.settings import BrokenFile, ModelInstance, load_config, update_bot_settings
from omb_tui.core.models.instances import (
    HELPER_TRIGGER,
    ModelUnavailable,
    choose_route,
    helper_model_name,
)
from omb_tui.core.models.what_runs import describe_models

INSTANCES = {
    "claude": {"model": "anthropic/claude-haiku-4-5", "api_key_env": "OMB_TEST_CLAUDE_KEY"},
    "local": {"model": "openai/qwen3-8b", "api_base": "http://127.0.0.1:8080/v1", "timeout": 5},
}


def write_config(home: Home, **fields) -> None:
    home.config_path.write_text(json.dumps(fields), encoding="utf-8")


@pytest.fixture(autouse=True)
def _no_helper_in_environment(monkeypatch):
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    monkeypatch.delenv("OMB_HELPER_MODEL", raising=False)
    monkeypatch.delenv("OMB_TEST_CLAUDE_KEY", raising=False)


def test_config_instances_and_the_spend_limit_are_read(home):
    write_config(home, instances=INSTANCES, limits={"monthlySpendUsd": 20})
    config = load_config(home)
    assert config.instances["claude"] == ModelInstance("claude", "anthropic/claude-haiku-4-5", "OMB_TEST_CLAUDE_KEY")
    assert config.instances["claude"].timeout == 60  # the default for background jobs
    assert config.instances["local"].api_base == "http://127.0.0.1:8080/v1" and config.instances["local"].timeout == 5
    assert config.monthly_spend_usd == 20


@pytest.mark.parametrize(
    "instance, words",
    [
        ({"api_key_env": "X"}, "needs a 'model'"),
        ({"model": "openai/x", "timeout": 0}, "'timeout' must be a number of seconds"),
        ({"model": "openai/x", "api_base": "127.0.0.1:8080"}, "http:// or https://"),
        ({"model": "openai/x", "api_key_env": "sk-ant-abc123secretvalue"}, "not the key itself"),
        ({"model": "openai/x", "api_key": "sk-ant-abc123secretvalue"}, "keys are read only from the environment"),
    ],
)
def test_a_wrong_instance_is_one_sentence_that_never_repeats_a_key(home, instance, words):
    write_config(home, instances={"bad": instance})
    with pytest.raises(BrokenFile) as caught:
        load_config(home)
    assert words in str(caught.value) and "abc123secretvalue" not in str(caught.value)


def test_a_negative_spend_limit_is_refused(home):
    write_config(home, limits={"monthlySpendUsd": -1})
    with pytest.raises(BrokenFile, match="monthlySpendUsd"):
        load_config(home)


def test_a_bot_with_an_instance_uses_it_and_never_the_helper(home):
    write_config(home, instances=INSTANCES, helper={"instanceId": "claude"})
    update_bot_settings(home, "scout", instance="local")
    route = choose_route(home, "scout")
    assert (route.instance.id, route.model, route.via_helper, route.triggered_by) == (
        "local",
        "openai/qwen3-8b",
        False,
        "scout",
    )


def test_a_bot_without_an_instance_uses_the_helper_from_the_file(home):
    write_config(home, instances=INSTANCES, helper={"instanceId": "claude", "model": "claude-sonnet-4-5"})
    route = choose_route(home, "scout")
    assert route.instance.id == "claude" and route.via_helper and route.triggered_by == HELPER_TRIGGER
    assert route.model == "anthropic/claude-sonnet-4-5"  # the helper's model, on its instance's provider


def test_the_environment_wins_over_the_file(home, monkeypatch):
    write_config(home, instances=INSTANCES, helper={"instanceId": "claude"})
    monkeypatch.setenv("OMB_HELPER_INSTANCE", "local")
    monkeypatch.setenv("OMB_HELPER_MODEL", "openai/llama-3")
    route = choose_route(home, "scout")
    assert (route.instance.id, route.model) == ("local", "openai/llama-3")


def test_an_empty_environment_variable_switches_a_saved_helper_off(home, monkeypatch):
    write_config(home, instances=INSTANCES, helper={"instanceId": "claude"})
    monkeypatch.setenv("OMB_HELPER_INSTANCE", "")
    with pytest.raises(ModelUnavailable, match="switched off"):
        choose_route(home, "scout")


def test_a_bot_kept_off_the_helper_never_reaches_it(home):
    write_config(home, instances=INSTANCES, helper={"instanceId": "claude"})
    update_bot_settings(home, "scout", helper_model=False)
    with pytest.raises(ModelUnavailable, match="helperModel: false"):
        choose_route(home, "scout")


def test_no_helper_and_no_instance_tells_the_caller(home):
    write_config(home, instances=INSTANCES)
    with pytest.raises(ModelUnavailable, match="no helper model is set") as caught:
        choose_route(home, "scout")
    assert caught.value.via_helper


def test_a_changed_config_file_applies_without_a_restart(home):
    write_config(home, instances=INSTANCES)
    with pytest.raises(ModelUnavailable):
        choose_route(home, "scout")
    write_config(home, instances=INSTANCES, helper={"instanceId": "local"})
    assert choose_route(home, "scout").instance.id == "local"
    write_config(home, instances=INSTANCES)  # taken out again
    with pytest.raises(ModelUnavailable):
        choose_route(home, "scout")


def test_a_helper_naming_an_unknown_instance_is_unavailable(home):
    write_config(home, instances=INSTANCES, helper={"instanceId": "openrouter"})
    with pytest.raises(ModelUnavailable, match="'openrouter' is not among"):
        choose_route(home, "scout")


def test_a_broken_config_file_is_unavailable_not_a_crash(home):
    home.config_path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelUnavailable, match="not valid JSON"):
        choose_route(home, "scout")


def test_helper_model_names():
    claude = ModelInstance("claude", "anthropic/claude-haiku-4-5")
    assert helper_model_name(claude, None) == "anthropic/claude-haiku-4-5"
    assert helper_model_name(claude, "claude-opus-4") == "anthropic/claude-opus-4"
    assert helper_model_name(claude, "openrouter/x/y") == "openrouter/x/y"


def test_describe_models_lists_instances_helper_and_each_bot(home, monkeypatch):
    from support.home import make_bot

    make_bot(home, "atlas", "Atlas")
    make_bot(home, "ledger", "Ledger")
    write_config(home, instances=INSTANCES, helper={"instanceId": "claude", "model": "claude-haiku-4-5"})
    update_bot_settings(home, "atlas", helper_model=False)
    update_bot_settings(home, "ledger", instance="local")
    monkeypatch.setenv("OMB_TEST_CLAUDE_KEY", "sk-ant-not-a-real-key-0123456789")
    described = describe_models(home)
    keys = {i["id"]: i["key"] for i in described["instances"]}
    assert keys == {"claude": "set", "local": "none needed"}
    assert described["helper"] == {"instanceId": "claude", "model": "claude-haiku-4-5", "source": "file"}
    bots = {b["id"]: (b["uses"], b["instance"]) for b in described["bots"]}
    assert bots == {"atlas": ("none", None), "ledger": ("instance", "local"), "scout": ("helper", "claude")}
    assert "sk-ant-not-a-real-key" not in json.dumps(described)


def test_models_command_json_and_text(run_cli, home, monkeypatch):
    write_config(home, instances=INSTANCES)
    monkeypatch.setenv("OMB_HELPER_INSTANCE", "local")
    result = run_cli("models", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert {i["id"]: i["key"] for i in data["instances"]} == {"claude": "missing", "local": "none needed"}
    assert data["helper"]["source"] == "env"
    [bot] = data["bots"]
    assert {key: bot[key] for key in ("id", "uses", "instance")} == {
        "id": "scout",
        "uses": "helper",
        "instance": "local",
    }
    assert "problem" not in bot and bot["model_steps"]["through"] == "helper"
    text = run_cli("models")
    assert text.code == 0
    assert (
        "key missing (OMB_TEST_CLAUDE_KEY)" in text.out and "Helper model: local (from OMB_HELPER_INSTANCE)" in text.out
    )
    assert "scout" in text.out and "helper → local" in text.out


def test_models_command_with_the_helper_off(run_cli, home):
    result = run_cli("models", "--json")
    assert json.loads(result.out)["helper"] == {"instanceId": None, "model": None, "source": "off"}
    assert "Helper model: off" in run_cli("models").out
