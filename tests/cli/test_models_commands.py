"""`omb-tui models test` (docs/models.md), and that litellm stays out of start-up and of commands that make no call."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC

import pytest
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.base import clock
from omb_tui.core.models.usage import read_usage

pytestmark = pytest.mark.dates


def test_models_test_prints_the_latency_and_records_the_call(run_cli, llm_home, fake_llm):
    result = run_cli("models", "test")
    assert result.code == 0
    assert result.out.startswith("local: answered in ")
    assert result.out.rstrip().endswith("s (openai/qwen3-8b); it takes JSON as json_schema.")
    assert len(fake_llm.requests) == 1 and fake_llm.requests[0].body["max_tokens"] == 20  # one tiny call
    from datetime import datetime, timezone

    row = read_usage(llm_home, clock.now_utc().strftime("%Y-%m"))[-1]
    assert (row["job"], row["bot"], row["triggered_by"], row["ok"]) == ("models test", None, "models test", True)


@pytest.mark.parametrize("argv", [["test", "local", "--json"], ["--json", "test", "local"]])
def test_models_test_json(run_cli, llm_home, fake_llm, argv):
    result = run_cli("models", *argv)  # --json after the subcommand or before it
    assert result.code == 0
    [check] = json.loads(result.out)
    assert check["id"] == "local" and check["ok"] is True and isinstance(check["latency_ms"], int)
    assert check["error"] is None


def test_models_test_failures_are_one_sentence_and_exit_non_zero(run_cli, llm_home, fake_llm, monkeypatch):
    monkeypatch.delenv("OMB_TEST_KEY", raising=False)
    write_llm_config(
        llm_home,
        fake_llm,
        instances={
            "keyed": {"model": "openai/x", "api_base": fake_llm.api_base, "api_key_env": "OMB_TEST_KEY"},
            "slow": {"model": "openai/x", "api_base": fake_llm.api_base, "timeout": 0.3},
        },
    )
    missing = run_cli("models", "test", "keyed")
    assert missing.code == 1
    assert missing.out == "keyed: the variable OMB_TEST_KEY is not set, and instance 'keyed' reads its key from it.\n"
    assert fake_llm.requests == []
    fake_llm.script({"status": 401})
    monkeypatch.setenv("OMB_TEST_KEY", "sk-test-wrong-key-0123456789")
    refused = run_cli("models", "test", "keyed")
    assert refused.code == 1 and "refused the key (401): check the key in OMB_TEST_KEY" in refused.out
    fake_llm.script({"status": 404})
    assert "does not know the model 'openai/x'" in run_cli("models", "test", "keyed").out
    fake_llm.script({"delay": 10})
    slow = run_cli("models", "test", "slow")
    assert slow.code == 1 and slow.out == "slow: instance 'slow' did not answer within 0.3 s.\n"
    assert "sk-test-wrong-key" not in refused.out + refused.err


def test_models_test_with_an_unknown_id(run_cli, llm_home):
    result = run_cli("models", "test", "nope")
    assert result.code == 2 and "No instance 'nope' in config.json (instances: local)." in result.err


NO_CALL_COMMANDS = """
import sys

import pytest
from omb_tui.cli import main
home = sys.argv[1]
codes = [main(["--home", home, *argv]) for argv in (["models"], ["models", "--json"], ["usage", "--json"],
                                                    ["usage", "--csv"], ["models", "test", "keyed"], ["bots"])]
print("CODES", codes, "litellm" in sys.modules)
"""


def test_commands_that_make_no_call_never_import_litellm(llm_home, fake_llm, tmp_path):
    write_llm_config(
        llm_home,
        fake_llm,
        instances={"keyed": {"model": "openai/x", "api_base": fake_llm.api_base, "api_key_env": "OMB_TEST_UNSET_KEY"}},
    )
    out = subprocess.run(
        [sys.executable, "-c", NO_CALL_COMMANDS, str(llm_home.root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert out.strip().splitlines()[-1] == "CODES [0, 0, 0, 0, 1, 0] False"


def test_the_model_layer_modules_import_without_litellm():
    code = (
        "import sys, omb_tui.core.models.call, omb_tui.core.models.usage, omb_tui.core.models.instances, "
        "omb_tui.core.models.structured; print('litellm' in sys.modules, 'textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "False"]
