"""The real Claude Code CLI, driven offline, as a writer of a bot's memory (docs/agents.md): Claude Code
2.1.332 from npm (pinned), its model a scripted Messages API on 127.0.0.1 (tests/support/scripted_messages_api.py), whole
turns run with real hook payloads, real transcripts and real MCP calls.

- two bots wired at once (Scout for the user, Atlas for a project) both connect;
- one session's MCP write, Bash edit of MEMORY.md and recorded turn are one chat and one run, and `undo-run`
  brings MEMORY.md back byte for byte;
- every request holds the memory block once, a resumed session's too.

The `agents` tier (docs/testing.md, "Tiers"): skipped when npm is not on PATH, or when the package cannot be fetched
(no network); it is installed once into a folder of this module's own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support.home import BOT_ID, make_bot, omb_tui_command
from support.npm_tools import CLAUDE_CODE, install, needs_npm
from support.scripted_messages_api import Script, ScriptedMessagesApi, ToolCall

from omb_tui.core.base import clock
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT, Journal
from omb_tui.core.memory import conversations as conv
from omb_tui.core.turn.agent_session import chat_id_for, existing_session
from omb_tui.mcp.front import ENV_IDLE

TIMEOUT = 300  # seconds: a first fetch, or a loaded machine
BLOCK = "Your long-term memory as Scout"  # the memory block's opening line, as session-start prints it

pytestmark = needs_npm


@pytest.fixture(scope="module")
def claude(tmp_path_factory) -> Path:
    """Claude Code, installed once for the module; skips when it cannot be fetched."""
    return install(tmp_path_factory, CLAUDE_CODE, "claude")


@pytest.fixture
def user(home, tmp_path) -> dict:
    """The person's environment: their own $HOME (Claude Code's settings) and the omb-tui home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "ANTHROPIC_", "CLAUDE"))}
    env.update({"HOME": str(tmp_path / "user"), "OMB_HOME": str(home.root), "PYTHONUTF8": "1"})
    env.update(clock.carried_env())
    env[ENV_IDLE] = "2"  # the MCP service Claude Code's sessions start ends soon after the test
    (tmp_path / "user").mkdir()
    return env


def omb(env: dict, *argv: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(omb_tui_command() + list(argv), env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return done


def run_claude(claude: Path, env: dict, api: ScriptedMessagesApi, cwd: Path, *argv: str) -> dict:
    """`claude -p …` against the scripted API; its JSON result."""
    model_env = {
        **env,
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-api03-" + "0" * 40,  # the scripted API takes any
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    done = subprocess.run([str(claude), *argv], env=model_env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout) if done.stdout.strip().startswith("{") else {"out": done.stdout}


def test_two_bots_wired_at_once_both_connect(claude, home, user, tmp_path):
    make_bot(home, "atlas", "Atlas")
    project = tmp_path / "site"
    project.mkdir()
    omb(user, "hook", "install", "--bot", BOT_ID)
    omb(user, "hook", "install", "--bot", "atlas", "--project", str(project))
    # the step install names: the person trusts the folder and approves the server (what Claude Code records)
    claude_json = Path(user["HOME"]) / ".claude.json"
    settings = json.loads(claude_json.read_text(encoding="utf-8"))
    settings["projects"] = {str(project.resolve()): {"hasTrustDialogAccepted": True}}
    claude_json.write_text(json.dumps(settings), encoding="utf-8")
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"enabledMcpjsonServers": ["omb-tui-atlas"]}), encoding="utf-8")
    assert omb(user, "hook", "install", "--bot", "atlas", "--project", str(project), "--check").returncode == 0
    with ScriptedMessagesApi(Script()) as api:
        listed = run_claude(claude, user, api, project, "mcp", "list")["out"]
    lines = {line.split(":", 1)[0]: line for line in listed.splitlines() if ":" in line}
    assert "Connected" in lines["omb-tui-scout"] and "Connected" in lines["omb-tui-atlas"], listed
    assert "Conflicting" not in listed


def test_one_session_is_one_chat_and_one_run_and_undo_run_takes_it_back(claude, home, user, tmp_path):
    project = tmp_path / "trips"
    project.mkdir()
    omb(user, "hook", "install", "--bot", BOT_ID)
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    before = memory.read_bytes()
    rows_before = len(Journal(home.journal_path(BOT_ID)).rows())
    script = Script(
        {
            "Note the ferry time": [
                ToolCall(
                    "mcp__omb-tui-scout__memory_update", {"action": "add", "text": "The Lisbon ferry leaves at 09:10"}
                ),
                ToolCall(
                    "Bash",
                    {"command": f"echo '- Bring the ferry tickets printed' >> '{memory}'", "description": "note"},
                ),
                "Done: the ferry time is noted.",
            ],
            "And the hotel": ["The hotel is Baixa Rio."],
        }
    )
    allowed = ("--allowedTools", "mcp__omb-tui-scout__memory_update", "Bash")
    with ScriptedMessagesApi(script) as api:
        first = run_claude(
            claude, user, api, project, "-p", "Note the ferry time for Lisbon", "--output-format", "json", *allowed
        )
        turn_requests = len(script.requests)
        resumed = run_claude(
            claude,
            user,
            api,
            project,
            "-p",
            "And the hotel?",
            "--resume",
            first["session_id"],
            "--output-format",
            "json",
        )
    assert first["result"] == "Done: the ferry time is noted." and resumed["result"] == "The hotel is Baixa Rio."
    # every request of both turns carried the memory block once: the resumed session was not given it again
    counts = [json.dumps(request).count(BLOCK) for request in script.requests if request.get("tools")]
    assert counts and all(count == 1 for count in counts), counts
    assert len(script.requests) > turn_requests

    session = existing_session(home, BOT_ID, first["session_id"])
    assert session is not None and session.chat == chat_id_for(first["session_id"])
    rows = Journal(home.journal_path(BOT_ID)).rows()[: len(Journal(home.journal_path(BOT_ID)).rows()) - rows_before]
    mine = [row for row in rows if row.file == "MEMORY.md"]
    assert len(mine) == 2  # the MCP write and the Bash edit, found at the turn's end
    assert {(row.who, row.how, row.chat, row.run) for row in rows} == {(WHO_BOT, HOW_TASK, session.chat, session.run)}
    chat = conv.find_conversation(home, BOT_ID, session.chat, with_messages=True)
    assert [m.text for m in chat.messages] == [
        "Note the ferry time for Lisbon",
        "Done: the ferry time is noted.",
        "And the hotel?",
        "The hotel is Baixa Rio.",
    ]  # both turns, the resumed one too, in the session's one chat

    omb(user, "undo-run", BOT_ID, session.run, "--yes")
    assert memory.read_bytes() == before
