"""The `acp` engine (docs/models.md, "Engines" → "ACP agents") against a fake agent that speaks the protocol
(tests/support/fake_acp_agent.py), scripted per test: what the client offers and sends, the answer it gathers, and
the call dropped, with nothing run, the moment the agent asks for anything; one sentence for each way it can fail;
no process left after a call.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from support.fake_acp_agent import agent_command, live_in_group, read_log, received, running

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import ModelInstance, load_config, update_bot_settings
from omb_tui.core.models import usage
from omb_tui.core.models.call import ModelUnavailable, check_instance, complete
from omb_tui.core.models.engines import EngineCall, EngineFailed, acp, process


def call_for(command: list[str], *, model: str = "", seconds: float = 60.0) -> EngineCall:
    instance = ModelInstance("agent", model, engine="acp", command=tuple(command))
    return EngineCall(instance, model, "Answer briefly.", "Say hello.", None, seconds)


def run_scenario(tmp_path: Path, scenario: str, *extra: str, **given) -> tuple[object, Path]:
    command, log = agent_command(tmp_path, scenario, *extra)
    try:
        return acp.run(call_for(command, **given)), log
    finally:
        started = next(note for note in read_log(log) if note["kind"] == "started")
        assert live_in_group(started["pgid"]) == []  # no process of the agent's outlives the call


def failure(tmp_path: Path, scenario: str, *extra: str, **given) -> tuple[EngineFailed, Path]:
    with pytest.raises(EngineFailed) as failed:
        run_scenario(tmp_path, scenario, *extra, **given)
    return failed.value, tmp_path / f"agent-{scenario}.log"


# ----- what the client offers and sends -----
def test_an_answer_is_the_agents_message_chunks_with_the_usage_it_reports(tmp_path):
    reply, log = run_scenario(tmp_path, "answers")
    assert reply.text == "Hello, world."  # thoughts, plans and another session's words are not the answer
    assert (reply.model, reply.prompt_tokens, reply.completion_tokens) == ("small", 120, 7)
    assert reply.cost_usd == 0.0042 and reply.details == {"cached_tokens": 100}
    prompt = received(log, "session/prompt")[0]
    assert prompt == {
        "sessionId": "sess-1",
        "prompt": [{"type": "text", "text": "Answer briefly."}, {"type": "text", "text": "Say hello."}],
    }


def test_the_client_offers_no_file_system_and_no_terminal(tmp_path):
    _, log = run_scenario(tmp_path, "answers")
    capabilities = received(log, "initialize")[0]["clientCapabilities"]
    assert capabilities == {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}


def test_the_session_is_new_in_an_empty_folder_removed_after_with_no_mcp_server(tmp_path):
    _, log = run_scenario(tmp_path, "answers")
    started = next(note for note in read_log(log) if note["kind"] == "started")
    session = received(log, "session/new")[0]
    assert session["mcpServers"] == []
    assert os.path.realpath(session["cwd"]) == os.path.realpath(started["cwd"])  # the agent runs there too
    assert started["listing"] == [] and not Path(started["cwd"]).exists()
    assert Path(session["cwd"]).resolve() != Path.cwd().resolve()
    # the Claude Agent SDK's agents read their isolation from _meta: no settings file, no MCP config, nothing saved
    options = session["_meta"]["claudeCode"]["options"]
    assert session["_meta"]["disableBuiltInTools"] is True
    assert options["settingSources"] == [] and options["strictMcpConfig"] is True
    assert options["persistSession"] is False
    assert [m for m in ("session/load", "session/resume", "session/fork") if received(log, m)] == []


def test_the_mode_that_asks_first_is_kept_and_chosen_never_a_bypass(tmp_path):
    _, kept = run_scenario(tmp_path, "answers")
    assert received(kept, "session/set_mode") == []  # it starts in "default" already
    _, chosen = run_scenario(tmp_path, "starts_bypassing")
    assert received(chosen, "session/set_mode") == [{"sessionId": "sess-1", "modeId": "default"}]
    refused, log = failure(tmp_path, "only_bypass")
    assert "acts without asking" in refused.sentence and "offers no mode that asks first" in refused.sentence
    assert received(log, "session/prompt") == []


def test_the_instances_model_is_chosen_when_the_agent_offers_it(tmp_path):
    reply, log = run_scenario(tmp_path, "answers", model="big")
    assert reply.model == "big" and received(log, "session/set_model") == [{"sessionId": "sess-1", "modelId": "big"}]
    (tmp_path / "again").mkdir()
    missing, log = failure(tmp_path / "again", "answers", model="huge")
    assert missing.sentence == f"`{Path(sys.executable).name}` has no model 'huge': it offers small, big"
    assert received(log, "session/prompt") == []


def test_a_request_the_client_does_not_offer_is_answered_method_not_found(tmp_path):
    reply, log = run_scenario(tmp_path, "other_request")
    custom = next(note for note in read_log(log) if note["kind"] == "custom answer")["message"]
    assert custom["id"] == "x-1" and custom["error"]["code"] == -32601 and reply.text == "Hello, world."


# ----- dropped the moment the agent asks for anything -----
@pytest.mark.parametrize(
    ("scenario", "what"),
    [
        ("permission", "Bash"),
        ("fs_read", "fs/read_text_file"),
        ("fs_write", "fs/write_text_file"),
        ("terminal", "terminal/create"),
    ],
)
def test_an_ask_drops_the_call_answers_nothing_and_runs_nothing(tmp_path, scenario, what):
    target = tmp_path / "the-persons-file.txt"
    target.write_text("private", encoding="utf-8")
    dropped, log = failure(tmp_path, scenario, str(target))
    assert dropped.dropped and dropped.sentence.endswith(f"asked for a tool ({what}); the call was dropped")
    notes = [note["kind"] for note in read_log(log)]
    assert "answered" not in notes and "ran" not in notes  # the agent (it ignores SIGTERM) was never answered
    assert target.read_text(encoding="utf-8") == "private"


@pytest.mark.parametrize("scenario", ["tool_call", "tool_call_elsewhere"])
def test_a_tool_call_update_drops_the_call_with_the_tools_title(tmp_path, scenario):
    dropped, _ = failure(tmp_path, scenario)  # in this session or any other the agent names
    assert dropped.dropped and dropped.sentence.endswith("asked for a tool (Read MEMORY.md); the call was dropped")


def test_a_dropped_call_is_a_model_unavailable_and_its_usage_row_says_dropped(home, tmp_path):
    command, _ = agent_command(tmp_path, "permission", str(tmp_path / "x"))
    home.config_path.write_text(json.dumps({"instances": {"agent": {"engine": "acp", "command": command}}}))
    update_bot_settings(home, "scout", instance="agent")
    with pytest.raises(ModelUnavailable) as unavailable:
        complete(home, "scout", "capture", [{"role": "user", "content": "Note the ferry time."}])
    assert "asked for a tool (Bash); the call was dropped" in unavailable.value.reason
    row = usage.read_usage(home, clock.now_utc().strftime("%Y-%m"))[-1]
    assert row["dropped"] is True and row["ok"] is False and row["engine"] == "acp"


# ----- through the one call path: models test, a schema in the prompt -----
def test_models_test_and_a_checked_schema_answer_through_the_engine(home, tmp_path, monkeypatch):
    command, log = agent_command(tmp_path, "answers")
    home.config_path.write_text(json.dumps({"instances": {"agent": {"engine": "acp", "command": command}}}))
    monkeypatch.setenv("FAKE_ACP_ANSWER", '{"ok": true}')
    check = check_instance(home, load_config(home).instances["agent"])
    assert check.ok and check.problem is None
    schema = {"type": "object", "properties": {"notes": {"type": "array", "items": {"type": "string"}}}}
    monkeypatch.setenv("FAKE_ACP_ANSWER", '{"notes": ["ferry at 09:10"]}')
    update_bot_settings(home, "scout", instance="agent")
    answer = complete(home, "scout", "capture", [{"role": "user", "content": "Note it."}], schema=schema)
    assert answer.data == {"notes": ["ferry at 09:10"]}
    blocks = received(log, "session/prompt")[-1]["prompt"]
    assert any('"notes"' in block["text"] for block in blocks)  # the schema, asked for in the prompt
    row = answer.usage_row
    assert (row["cost"], row["cost_usd"], row["plan_cost_usd"], row["prompt_tokens"]) == ("plan", 0.0, 0.0042, 120)


# ----- one sentence for each way it can fail -----
def test_unreadable_output_is_one_sentence(tmp_path):
    garbage, _ = failure(tmp_path, "garbage")
    assert "printed something that is not the Agent Client Protocol (Welcome to the agent!" in garbage.sentence
    not_rpc, _ = failure(tmp_path, "not_jsonrpc")
    assert "is not the Agent Client Protocol" in not_rpc.sentence and not not_rpc.dropped


def test_an_exit_before_the_answer_says_its_status_and_stderr(tmp_path):
    exited, _ = failure(tmp_path, "exit_1")
    assert "exited with status 1 before it answered initialize: boom: the agent could not start" in exited.sentence


def test_a_hang_is_ended_at_the_calls_time(tmp_path):
    hung, _ = failure(tmp_path, "hang", seconds=1.5)
    assert hung.sentence.endswith("did not finish within 1.5 s; the call was ended")


def test_a_flood_of_messages_is_ended(tmp_path, monkeypatch):
    monkeypatch.setattr(acp, "MAX_MESSAGES", 500)
    flooded, _ = failure(tmp_path, "flood")
    assert flooded.sentence.endswith("sent more than 500 messages; the call was ended")


def test_a_line_past_the_bound_is_ended(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "MAX_LINE_BYTES", 1024)
    flooded, _ = failure(tmp_path, "huge_line")
    assert "MB; the call was ended" in flooded.sentence


def test_an_agent_that_needs_a_sign_in_says_to_sign_in_with_its_own_cli(tmp_path):
    needs, _ = failure(tmp_path, "needs_sign_in")
    assert needs.sentence.endswith(
        "needs a sign-in: sign in with the agent's own CLI first (Run `fake-agent login` in the terminal)"
    )


def test_a_refusal_is_not_an_answer(tmp_path):
    refused, _ = failure(tmp_path, "refusal")
    assert refused.sentence.endswith("stopped before its answer was complete (refusal)")


def test_an_agent_not_on_path_names_it(tmp_path):
    with pytest.raises(EngineFailed) as missing:
        acp.run(call_for(["no-such-acp-agent-here"]))
    assert missing.value.sentence.startswith("`no-such-acp-agent-here` is not on PATH: install the agent")


# ----- no process outlives the call -----
def test_a_child_the_agent_started_is_ended_with_it(tmp_path):
    _, log = run_scenario(tmp_path, "child")
    child = next(note for note in read_log(log) if note["kind"] == "child")["pid"]
    assert not running(child)
