"""The `acp` engine with a real ACP agent, offline (docs/models.md, "Engines" → "ACP agents"):
`@zed-industries/claude-code-acp` 0.16.2 from npm (pinned), its model the scripted Messages API on 127.0.0.1
(tests/support/scripted_messages_api.py), a scratch HOME for the person.

- `omb-tui models test ID` answers through it;
- `complete()` with a schema returns checked data;
- a scripted tool call drops the call and runs nothing (its Bash command never runs);
- the person's hooks, MCP servers and CLAUDE.md planted in HOME and in the folder omb-tui runs from never start and
  never reach a request; no session file is left in HOME; no process of the agent outlives a call.

The `agents` tier (docs/testing.md, "Tiers"): skipped when npm is not on PATH or the package cannot be fetched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.home import omb_tui_command
from support.npm_tools import CLAUDE_CODE_ACP, install, needs_npm, processes_running_from
from support.scripted_messages_api import Script, ScriptedMessagesApi, ToolCall

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models import instances
from omb_tui.core.models.call import TEST_PROMPT, ModelUnavailable, complete
from omb_tui.core.models.usage import read_usage

TIMEOUT = 300  # seconds: a loaded machine
PLANTED = ("PLANTED-USER-MEMORY", "PLANTED-PROJECT-MEMORY", "PLANTED-AGENTS-MEMORY")
SCHEMA = {
    "type": "object",
    "properties": {"notes": {"type": "array", "items": {"type": "string"}}},
    "required": ["notes"],
    "additionalProperties": False,
}

pytestmark = needs_npm


@pytest.fixture(scope="module")
def agent(tmp_path_factory) -> Path:
    """claude-code-acp, installed once for the module; skips when it cannot be fetched."""
    return install(tmp_path_factory, CLAUDE_CODE_ACP, "claude-code-acp")


@pytest.fixture
def person(home, agent, tmp_path, monkeypatch) -> dict:
    """The person's HOME and the folder omb-tui runs from, each with a hook, an MCP server and memory files that
    leave a marker (a file in `markers`, a word in a request) if anything loads them; config.json's "agent"."""
    user, project, markers = tmp_path / "user", tmp_path / "project", tmp_path / "markers"
    for folder in (user / ".claude", project / ".claude", markers):
        folder.mkdir(parents=True)

    def touch(name: str) -> str:
        return f"{sys.executable} -c \"open('{markers / name}', 'w')\""

    def hooks(where: str) -> dict:
        events = ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop")
        return {"hooks": {e: [{"hooks": [{"type": "command", "command": touch(f"{where}-{e}")}]}] for e in events}}

    def server(where: str) -> dict:
        started = f"open('{markers / where}-mcp', 'w')"
        return {"mcpServers": {"planted": {"type": "stdio", "command": sys.executable, "args": ["-c", started]}}}

    (user / ".claude" / "settings.json").write_text(json.dumps(hooks("user-hook")), encoding="utf-8")
    (user / ".claude" / "CLAUDE.md").write_text(PLANTED[0] + "\n", encoding="utf-8")
    (user / ".claude.json").write_text(json.dumps(server("user")), encoding="utf-8")
    (project / ".claude" / "settings.json").write_text(json.dumps(hooks("project-hook")), encoding="utf-8")
    (project / "CLAUDE.md").write_text(PLANTED[1] + "\n", encoding="utf-8")
    (project / "AGENTS.md").write_text(PLANTED[2] + "\n", encoding="utf-8")
    (project / ".mcp.json").write_text(json.dumps(server("project")), encoding="utf-8")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "ANTHROPIC_", "CLAUDE"))}
    env.update(
        {
            "HOME": str(user),
            "OMB_HOME": str(home.root),
            "PYTHONUTF8": "1",
            "ANTHROPIC_API_KEY": "sk-ant-api03-" + "0" * 40,  # the scripted API takes any
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    )
    if os.geteuid() == 0:  # Claude Code refuses to start under claude-code-acp as root outside a sandbox
        env["IS_SANDBOX"] = "1"
    env.update(clock.carried_env())
    home.config_path.write_text(
        json.dumps({"instances": {"agent": {"engine": "acp", "command": [str(agent)], "timeout": 240}}}),
        encoding="utf-8",
    )
    for name in list(os.environ):
        if name.startswith(("OMB_HELPER", "ANTHROPIC_", "CLAUDE")):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(project)
    instances.forget_said()
    return {"env": env, "user": user, "project": project, "markers": markers}


def assert_isolated(person: dict, agent: Path, script: Script) -> None:
    assert sorted(p.name for p in person["markers"].iterdir()) == []  # no hook ran, no MCP server started
    sent = json.dumps(script.requests)
    assert script.requests and not [word for word in PLANTED if word in sent]  # no memory file reached a request
    assert list((person["user"] / ".claude").rglob("*.jsonl")) == []  # no session saved
    assert processes_running_from(agent.parent.parent.parent) == []  # claude-code-acp and its Claude Code


def test_models_test_answers_through_the_agent(person, agent):
    script = Script({TEST_PROMPT[:26]: ['{"ok": true}']})
    with ScriptedMessagesApi(script) as api:
        env = {**person["env"], "ANTHROPIC_BASE_URL": api.url}
        done = subprocess.run(
            [*omb_tui_command(), "models", "test", "agent"],
            env=env,
            cwd=person["project"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("agent: answered in ") and done.stderr == ""
    assert_isolated(person, agent, script)


def test_a_schema_answer_comes_back_checked(home, person, agent, monkeypatch):
    update_bot_settings(home, "scout", instance="agent")
    script = Script({"Note the ferry time": ['{"notes": ["The Lisbon ferry leaves at 09:10"]}']})
    with ScriptedMessagesApi(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        answer = complete(
            home, "scout", "capture", [{"role": "user", "content": "Note the ferry time for Lisbon."}], schema=SCHEMA
        )
    assert answer.data == {"notes": ["The Lisbon ferry leaves at 09:10"]}
    row = answer.usage_row
    assert (row["engine"], row["cost"], row["ok"]) == ("acp", "plan", True)
    assert_isolated(person, agent, script)


def test_a_tool_call_drops_the_call_and_runs_nothing(home, person, agent, monkeypatch):
    update_bot_settings(home, "scout", instance="agent")
    ran = person["markers"] / "bash-ran"
    tool = ToolCall("Bash", {"command": f"touch '{ran}'", "description": "mark"})
    script = Script({"Tidy the notes": [tool, '{"notes": []}']})
    with ScriptedMessagesApi(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        with pytest.raises(ModelUnavailable) as dropped:
            complete(home, "scout", "capture", [{"role": "user", "content": "Tidy the notes."}], schema=SCHEMA)
    assert "asked for a tool (" in dropped.value.reason and dropped.value.reason.endswith("the call was dropped")
    assert not ran.exists()
    row = read_usage(home, clock.now_utc().strftime("%Y-%m"))[-1]
    assert row["dropped"] is True and row["ok"] is False
    results = [
        block
        for request in script.requests
        for message in request.get("messages", [])
        for block in (message["content"] if isinstance(message["content"], list) else [])
        if block.get("type") == "tool_result"
    ]  # the agent may refuse the tool itself (no built-in tool) before its group is ended, never run it
    assert all(block["is_error"] and "No such tool available" in json.dumps(block) for block in results)
    assert_isolated(person, agent, script)
