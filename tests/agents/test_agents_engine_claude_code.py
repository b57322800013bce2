"""The claude-code engine with the real Claude Code (docs/models.md, "Engines"): Claude Code 2.1.332 from npm (pinned),
signed in with a subscription's OAuth token (not an API key: the engine runs on the person's plan), its model the
scripted Messages API on 127.0.0.1 (tests/support/scripted_messages_api.py).

- `omb-tui models test` answers with a latency; `complete()` with a schema returns checked data;
- a capture run through the engine writes the journal rows an API instance writes for the same answer;
- a tool the model asks for drops the call and nothing runs;
- the person's hooks, MCP servers and CLAUDE.md/AGENTS.md, in their HOME and in the folder omb-tui runs from, never
  start and never reach a request; no session is left in HOME; no process outlives a call.

The `agents` tier (docs/testing.md, "Tiers"): skipped when npm is not on PATH or the package cannot be fetched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from support.capture import VEG, answer, fact, make_chat
from support.fake_llm import fake_llm, write_llm_config  # noqa: F401 - fixtures
from support.home import make_bot, omb_tui_command
from support.npm_tools import CLAUDE_CODE, install, needs_npm
from support.scripted_messages_api import Script, ScriptedMessagesApi, ToolCall

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import Journal
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models import instances
from omb_tui.core.models.call import TEST_PROMPT, ModelUnavailable, complete
from omb_tui.core.models.usage import read_usage
from omb_tui.core.upkeep.capture import capture

TIMEOUT = 300  # seconds: a first fetch, or a loaded machine
OAUTH_TOKEN = "sk-ant-oat01-" + "0" * 40  # what `claude setup-token` gives a subscriber; the scripted API takes any
PLANTED = ("HOOK_MARKER", "MCP_MARKER", "USER_CLAUDE_MD_MARKER", "PROJECT_CLAUDE_MD_MARKER", "AGENTS_MD_MARKER")
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

pytestmark = needs_npm


@pytest.fixture(scope="module")
def claude(tmp_path_factory) -> Path:
    """Claude Code, installed once for the module; skips when it cannot be fetched."""
    return install(tmp_path_factory, CLAUDE_CODE, "claude")


class Person:
    """The person's machine as the engine finds it: their HOME and the folder omb-tui runs from, each with a hook,
    an MCP server and memory files planted, and the markers those would leave if they ever started."""

    def __init__(self, root: Path) -> None:
        self.home, self.folder, self.markers = root / "user", root / "work", root / "markers"
        for path in (self.home / ".claude", self.folder / ".claude", self.markers):
            path.mkdir(parents=True)
        server = root / "mcp_server.py"
        server.write_text(
            f"import pathlib, sys\npathlib.Path({str(self.markers)!r}, 'mcp-started').write_text('MCP_MARKER')\n"
            "sys.stdin.read()\n",
            encoding="utf-8",
        )
        mcp = {"mcpServers": {"planted": {"command": sys.executable, "args": [str(server)]}}}
        hook = {"type": "command", "command": f"touch {self.markers}/hook-ran; echo HOOK_MARKER"}
        settings = {
            "hooks": {event: [{"hooks": [hook]}] for event in ("SessionStart", "UserPromptSubmit", "PreToolUse")},
            "enableAllProjectMcpServers": True,
            "permissions": {"allow": ["Bash"]},
        }
        write(self.home / ".claude.json", {**mcp, "hasCompletedOnboarding": True})
        write(self.home / ".claude" / "settings.json", settings)
        write(self.folder / ".mcp.json", mcp)
        write(self.folder / ".claude" / "settings.json", settings)
        write(self.folder / ".claude" / "settings.local.json", settings)
        (self.home / ".claude" / "CLAUDE.md").write_text("USER_CLAUDE_MD_MARKER\n", encoding="utf-8")
        (self.folder / "CLAUDE.md").write_text("PROJECT_CLAUDE_MD_MARKER\n", encoding="utf-8")
        (self.folder / "AGENTS.md").write_text("AGENTS_MD_MARKER\n", encoding="utf-8")
        self.tag = uuid.uuid4().hex  # in every process the calls start, so a survivor can be found

    def environment(self, api: ScriptedMessagesApi) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "ANTHROPIC_", "CLAUDE"))}
        env.update(
            HOME=str(self.home),
            ANTHROPIC_BASE_URL=api.url,
            CLAUDE_CODE_OAUTH_TOKEN=OAUTH_TOKEN,
            ANTHROPIC_API_KEY="sk-ant-api03-NOTTHESIGNIN",  # an API instance's key: the engine must not bill it
            OMB_ENGINE_TEST_TAG=self.tag,
            PYTHONUTF8="1",
        )
        env.update(clock.carried_env())
        return env

    def survivors(self) -> list[int]:
        """Processes (other than this one) still carrying the tag: what a call left running."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if f"OMB_ENGINE_TEST_TAG={self.tag}".encode() in environ.split(b"\0"):
                found.append(int(entry.name))
        return found

    def assert_untouched(self, script: Script) -> None:
        """Nothing planted started or reached a request; no session was saved; nothing is left running."""
        assert sorted(p.name for p in self.markers.iterdir()) == []
        sent = json.dumps(script.requests)
        assert [marker for marker in PLANTED if marker in sent] == []
        projects = self.home / ".claude" / "projects"
        assert not projects.exists() or list(projects.rglob("*")) == []
        assert list(self.home.rglob("*.jsonl")) == []  # no transcript, no prompt history
        assert self.survivors() == []
        signed = script.headers
        assert signed and all(h.get("authorization") == f"Bearer {OAUTH_TOKEN}" for h in signed)
        assert all("x-api-key" not in h for h in signed)  # the sign-in, never the API key in the environment


def write(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def person(tmp_path) -> Person:
    return Person(tmp_path / "person")


@pytest.fixture
def on_claude(home, claude, person, monkeypatch):
    """Scout's jobs on instance "cc" (the real Claude Code); this process as the person runs omb-tui."""
    home.config_path.write_text(
        json.dumps({"instances": {"cc": {"engine": "claude-code", "command": [str(claude)], "timeout": 120}}}),
        encoding="utf-8",
    )
    update_bot_settings(home, "scout", instance="cc")
    monkeypatch.chdir(person.folder)
    instances.forget_said()
    yield home
    instances.forget_said()


def in_this_process(person: Person, api: ScriptedMessagesApi, monkeypatch) -> None:
    for name in [k for k in os.environ if k.startswith(("OMB_", "ANTHROPIC_", "CLAUDE"))]:
        monkeypatch.delenv(name)
    for name, value in person.environment(api).items():
        monkeypatch.setenv(name, value)


def test_models_test_answers_through_claude_code_with_its_latency(on_claude, person):
    script = Script({TEST_PROMPT: [ToolCall("StructuredOutput", {"ok": True}), "Done."]})
    with ScriptedMessagesApi(script) as api:
        env = {**person.environment(api), "OMB_HOME": str(on_claude.root)}
        done = subprocess.run(
            [*omb_tui_command(), "models", "test", "cc"],
            env=env,
            cwd=person.folder,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("cc: answered in ") and " s through the claude-code engine (" in done.stdout, (
        done.stdout
    )
    row = read_usage(on_claude, clock.now_utc().strftime("%Y-%m"))[-1]
    assert row["engine"] == "claude-code" and row["cost"] == "plan" and row["ok"] is True
    assert row["prompt_tokens"] and row["model"].startswith("claude")
    person.assert_untouched(script)


def test_a_schema_answer_comes_back_checked(on_claude, person, monkeypatch):
    script = Script({"Where is the ferry": [ToolCall("StructuredOutput", {"city": "Lisbon"}), "Done."]})
    with ScriptedMessagesApi(script) as api:
        in_this_process(person, api, monkeypatch)
        messages = [
            {"role": "system", "content": "You answer with JSON."},
            {"role": "user", "content": "Where is the ferry? Answer with the city."},
        ]
        got = complete(on_claude, "scout", "capture", messages, schema=SCHEMA)
    assert got.data == {"city": "Lisbon"} and got.usage_row["output_mode"] == "engine schema"
    system = json.dumps([request.get("system") for request in script.requests])
    assert "You answer with JSON." in system
    assert "software engineering" not in system  # our instructions, not the coding agent's
    assert all(request.get("tools", []) == [] or _only_schema_tool(request) for request in script.requests)
    person.assert_untouched(script)


def _only_schema_tool(request: dict) -> bool:
    return {tool.get("name") for tool in request["tools"]} <= {"StructuredOutput", "DeferredToolPlaceholder"}


def test_a_tool_the_model_asks_for_drops_the_call_and_runs_nothing(on_claude, person, monkeypatch, tmp_path):
    ran = tmp_path / "bash-ran"
    script = Script({"Tidy the notes": [ToolCall("Bash", {"command": f"touch {ran}"}), "Tidied."]})
    with ScriptedMessagesApi(script) as api:
        in_this_process(person, api, monkeypatch)
        with pytest.raises(ModelUnavailable) as caught:
            complete(on_claude, "scout", "capture", [{"role": "user", "content": "Tidy the notes, please."}])
    assert caught.value.reason == "`claude` asked for a tool (Bash); the call was dropped"
    assert not ran.exists()
    row = read_usage(on_claude, clock.now_utc().strftime("%Y-%m"))[-1]
    assert row["dropped"] is True and row["ok"] is False and row["cost"] == "plan"
    person.assert_untouched(script)


def journal_of(home: Home) -> list[tuple]:
    """The capture run's rows, without what differs from one run to another (ids, times, the run's id)."""
    rows = Journal(home.journal_path("scout")).rows()
    return sorted((r.who, r.how, r.file, r.diff, r.step, r.chat, r.undoable) for r in rows if r.run)


def test_a_capture_run_writes_the_rows_an_api_instance_writes(on_claude, person, fake_llm, monkeypatch, tmp_path):  # noqa: F811
    facts = answer(
        fact("The person is vegetarian", ["I'm vegetarian"]),
        fact("The ferry leaves at 09:10", ["The ferry leaves at 09:10"], target="memory/travel.md"),
    )
    turns = [VEG, ("The ferry leaves at 09:10 from Cais do Sodré.", "Noted.")]
    api_home = Home(tmp_path / "api-home")
    make_bot(api_home)
    write_llm_config(api_home, fake_llm)
    make_chat(api_home, turns)
    fake_llm.script(facts)
    through_api = capture(api_home, "scout")

    make_chat(on_claude, turns)
    script = Script({"I'm vegetarian": [ToolCall("StructuredOutput", json.loads(facts["content"])), "Done."]})
    with ScriptedMessagesApi(script) as api:
        in_this_process(person, api, monkeypatch)
        through_claude = capture(on_claude, "scout")

    assert [s.text for s in through_claude.saved] == [s.text for s in through_api.saved] != []
    assert journal_of(on_claude) == journal_of(api_home) != []
    for name in ("MEMORY.md", "memory/travel.md"):
        mine = (on_claude.workspace("scout") / name).read_text(encoding="utf-8")
        assert mine == (api_home.workspace("scout") / name).read_text(encoding="utf-8")
    row = read_usage(on_claude, clock.now_utc().strftime("%Y-%m"))[-1]
    assert row["job"] == "capture" and row["engine"] == "claude-code" and row["cost"] == "plan"
    person.assert_untouched(script)
