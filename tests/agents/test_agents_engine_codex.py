"""The real Codex CLI as an engine (docs/models.md, "Engines" -> "Codex"): Codex 0.171.0 from npm (pinned), its model
a scripted OpenAI Responses API on 127.0.0.1 (tests/support/scripted_responses_api.py), each call one `codex exec`.

- `omb-tui models test` answers, and `complete()` with a schema returns checked data;
- a scripted function call or tool search drops the call and runs nothing;
- the person's config.toml (an MCP server, a hook, notify), hooks.json, skills and AGENTS.md, planted in the scratch
  HOME's Codex home and in the folder omb-tui runs from, never start and never reach a request;
- no session or rollout file is left, no temporary folder, and no process outlives a call.

The `agents` tier (docs/testing.md, "Tiers"): skipped when npm is not on PATH or the package cannot be fetched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from support.home import omb_tui_command
from support.npm_tools import CODEX, install, needs_npm, processes_running_from
from support.scripted_responses_api import FunctionCall, Script, ScriptedResponsesApi, ToolSearch, config_overrides

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models.call import ModelUnavailable, complete
from omb_tui.core.models.engines import codex as codex_engine
from omb_tui.core.models.usage import read_usage

pytestmark = [needs_npm, pytest.mark.dates]

TIMEOUT = 300  # seconds: a first start, or a loaded machine
PLANTED = "PLANTED-BY-THE-PERSON"  # in every file of theirs a call must not read
TEST_ANSWER = '{"ok": true}'
SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "topic": {"type": "string"}},
    "required": ["summary"],
}
MARKER_SCRIPT = "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text('started')"


@pytest.fixture(scope="module")
def codex(tmp_path_factory) -> Path:
    """Codex, installed once for the module; skips when it cannot be fetched."""
    return install(tmp_path_factory, CODEX, "codex")


@pytest.fixture
def person(tmp_path, monkeypatch) -> dict:
    """The person's scratch HOME: signed in to Codex, with their MCP server, hooks, notify, a skill and AGENTS.md
    in ~/.codex, and AGENTS.md plus a project config in the folder omb-tui runs from. Each program they name writes
    a marker file when it starts."""
    home_dir, markers, here = tmp_path / "user", tmp_path / "markers", tmp_path / "here"
    codex_home = home_dir / ".codex"
    for folder in (codex_home / "skills" / "planted", markers, here / ".codex"):
        folder.mkdir(parents=True)

    def starts(name: str) -> str:
        return f"command = {json.dumps(sys.executable)}\nargs = ['-c', {json.dumps(MARKER_SCRIPT)}, {json.dumps(str(markers / name))}]\n"

    (codex_home / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-test-" + "0" * 20}), encoding="utf-8")
    hook = {"type": "command", "command": f'{sys.executable} -c "{MARKER_SCRIPT}" {markers / "hook"}'}
    (codex_home / "config.toml").write_text(
        f"notify = [{json.dumps(sys.executable)}, '-c', {json.dumps(MARKER_SCRIPT)}, {json.dumps(str(markers / 'notify'))}]\n"
        f"developer_instructions = '{PLANTED} instructions'\n"
        f"[features]\nhooks = true\n\n[mcp_servers.planted]\n{starts('mcp')}",
        encoding="utf-8",
    )
    (codex_home / "hooks.json").write_text(
        json.dumps({"hooks": {event: [{"hooks": [hook]}] for event in ("SessionStart", "UserPromptSubmit", "Stop")}}),
        encoding="utf-8",
    )
    (codex_home / "AGENTS.md").write_text(f"{PLANTED}: answer in French.", encoding="utf-8")
    (codex_home / "skills" / "planted" / "SKILL.md").write_text(
        f"---\nname: planted\ndescription: {PLANTED} skill\n---\nDo it.\n", encoding="utf-8"
    )
    (here / "AGENTS.md").write_text(f"{PLANTED}: the project's rules.", encoding="utf-8")
    (here / ".codex" / "config.toml").write_text(f"[mcp_servers.project]\n{starts('project-mcp')}", encoding="utf-8")
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "CODEX", "OPENAI"))}
    env.update({"HOME": str(home_dir), "TMPDIR": str(private_tmp), "PYTHONUTF8": "1", **clock.carried_env()})
    for name in ("CODEX_HOME", "CODEX_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home_dir))
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    monkeypatch.chdir(here)
    before = sorted(str(p.relative_to(home_dir)) for p in home_dir.rglob("*"))
    return {"home": home_dir, "markers": markers, "here": here, "env": env, "tmp": private_tmp, "files": before}


def engine_home(home, codex: Path, api: ScriptedResponsesApi) -> None:
    """config.json with instance "cx" on the Codex engine, pointed at the scripted API; Scout uses it."""
    config = {
        "instances": {"cx": {"engine": "codex", "command": [str(codex), *config_overrides(api.url)], "timeout": 120}}
    }
    home.config_path.write_text(json.dumps(config), encoding="utf-8")
    update_bot_settings(home, "scout", instance="cx")


def codex_processes(codex: Path) -> list[int]:
    """The processes of this Codex install still running (a zombie has ended)."""
    return processes_running_from(codex.parent.parent)


def nothing_of_theirs_ran_or_was_read(person: dict, script: Script, codex: Path) -> None:
    assert sorted(p.name for p in person["markers"].iterdir()) == []  # no MCP server, hook or notify started
    sent = json.dumps(script.requests)
    assert script.requests and PLANTED not in sent
    for request in script.requests:
        assert not request.get("tools"), request.get("tools")  # every tool off
        assert not [item for item in request["input"] if item.get("type") == "additional_tools"]
    after = sorted(str(p.relative_to(person["home"])) for p in person["home"].rglob("*"))
    assert after == person["files"]  # no session, rollout, history or log left in their home
    assert list(person["tmp"].iterdir()) == []  # the call's folder and its Codex home are gone
    deadline = time.monotonic() + 10  # a killed process takes the kernel a moment to end
    while codex_processes(codex) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert codex_processes(codex) == []


def test_models_test_answers_on_the_smallest_model_with_nothing_of_theirs(codex, home, person):
    script = Script({"Answer with": [TEST_ANSWER]})
    with ScriptedResponsesApi(script) as api:
        engine_home(home, codex, api)
        done = subprocess.run(
            [*omb_tui_command(), "--home", str(home.root), "models", "test", "cx"],
            env=person["env"],
            cwd=person["here"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0 and "cx: answered in" in done.stdout, done.stdout + done.stderr
    assert {request["model"] for request in script.requests} == {codex_engine.DEFAULT_MODEL}
    assert {request["reasoning"]["effort"] for request in script.requests} == {"low"}
    nothing_of_theirs_ran_or_was_read(person, script, codex)


def test_complete_with_a_schema_returns_checked_data(codex, home, person):
    answer = json.dumps({"summary": "The ferry leaves at 09:10", "topic": None})
    script = Script({"Summarise the ferry": [answer]})
    with ScriptedResponsesApi(script) as api:
        engine_home(home, codex, api)
        reply = complete(
            home,
            "scout",
            "capture",
            [{"role": "system", "content": "You summarise."}, {"role": "user", "content": "Summarise the ferry note"}],
            schema=SCHEMA,
        )
    assert reply.data == {"summary": "The ferry leaves at 09:10"}
    (request,) = script.requests
    assert request["text"]["format"]["type"] == "json_schema" and request["text"]["format"]["strict"] is True
    (row,) = read_usage(home, clock.now_utc().strftime("%Y-%m"))
    assert (row["engine"], row["cost"], row["ok"], row["prompt_tokens"]) == ("codex", "plan", True, 120)
    nothing_of_theirs_ran_or_was_read(person, script, codex)


@pytest.mark.parametrize("kind", ["function call", "tool search"])
def test_a_scripted_tool_call_drops_the_call_and_runs_nothing(codex, home, person, kind):
    ran = person["markers"] / "ran"
    step = (
        FunctionCall("exec_command", {"cmd": f"touch {ran}"})
        if kind == "function call"
        else ToolSearch("memory_update")
    )
    script = Script({"Tidy the notes": [step, "Done."]})
    with ScriptedResponsesApi(script) as api:
        engine_home(home, codex, api)
        with pytest.raises(ModelUnavailable, match=r"Codex asked for a tool \(.+\); the call was dropped"):
            complete(home, "scout", "capture", [{"role": "user", "content": "Tidy the notes"}])
    assert not ran.exists()
    (row,) = read_usage(home, clock.now_utc().strftime("%Y-%m"))
    assert row["dropped"] is True and row["ok"] is False
    nothing_of_theirs_ran_or_was_read(person, script, codex)
