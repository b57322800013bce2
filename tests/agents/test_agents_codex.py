"""The real Codex CLI, driven offline, as a person's agent with a bot's memory (docs/agents.md, "Codex CLI"): Codex
0.171.0 from npm (pinned), its model a scripted OpenAI Responses API on 127.0.0.1
(tests/support/scripted_responses_api.py), whole `codex exec` sessions run with omb-tui's hooks and MCP server as
`omb-tui hook install --agent codex` writes them.

- `--check` says Codex skips the hooks until they are trusted, and is ok once they are (as Codex's "Trust all and
  continue" records it); the hooks then run: the memory block reaches every request, naming the tools as Codex does;
- the memory tool saves under `codex exec` (its table approves omb-tui's tools), its note naming the session's chat;
- one session (its MCP write, its shell edit of MEMORY.md, its turns, a resumed turn too) is one chat and one run,
  and `undo-run` brings MEMORY.md back byte for byte;
- two bots at once: a project install reaches its bot through $OMB_HOME, which Codex's cleared environment passes
  on only as the table says; `--check` starts the server as Codex does.

The `agents` tier (docs/testing.md, "Tiers"): skipped when npm is not on PATH or the package cannot be fetched.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from support.home import BOT_ID, make_bot, omb_tui_command
from support.npm_tools import CODEX, install, needs_npm
from support.scripted_responses_api import FunctionCall, Script, ScriptedResponsesApi, ToolSearch, config_overrides

from omb_tui.core.base import clock
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT, Journal
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.agents import CODEX as CODEX_AGENT
from omb_tui.core.models.engines import codex as codex_engine
from omb_tui.core.turn.agent_session import existing_session
from omb_tui.mcp.front import ENV_IDLE

pytestmark = needs_npm

TIMEOUT = 300  # seconds: a first start, or a loaded machine
BLOCK = "Your long-term memory as Scout"  # the memory block's opening line, as session-start prints it
NAMESPACE = "mcp__omb_tui_scout"  # where Codex offers the server omb-tui-scout's tools
EVENT_KEYS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop"}


@pytest.fixture(scope="module")
def codex(tmp_path_factory) -> Path:
    """Codex, installed once for the module; skips when it cannot be fetched."""
    return install(tmp_path_factory, CODEX, "codex")


@pytest.fixture
def user(home, tmp_path) -> dict:
    """The person's environment: their own $HOME (Codex's config) and the omb-tui home in $OMB_HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "CODEX", "OPENAI"))}
    env.update({"HOME": str(tmp_path / "user"), "OMB_HOME": str(home.root), "PYTHONUTF8": "1"})
    env.update(clock.carried_env())
    env[ENV_IDLE] = "2"  # the MCP service Codex's sessions start ends soon after the test
    (tmp_path / "user" / ".codex").mkdir(parents=True)
    return env


def omb(env: dict, *argv: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(omb_tui_command() + list(argv), env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == code, done.stdout + done.stderr
    return done


def trust_hooks(env: dict, folder: Path) -> None:
    """What Codex's "Trust all and continue" records: each hook of `folder`'s hooks.json trusted as it is, in the
    person's config.toml, keyed and hashed as Codex 0.171.0 does (its `hooks/list` shows both)."""
    config = Path(env["HOME"]) / ".codex" / "config.toml"
    hooks_file = folder / "hooks.json"
    hooks = json.loads(hooks_file.read_text(encoding="utf-8"))["hooks"]
    lines = []
    for event, label in EVENT_KEYS.items():
        for g, group in enumerate(hooks.get(event, [])):
            for h, handler in enumerate(group["hooks"]):
                normal = {
                    "type": "command",
                    "command": handler["command"],
                    "timeout": handler["timeout"],
                    "async": False,
                }
                identity = json.dumps({"event_name": label, "hooks": [normal]}, sort_keys=True, separators=(",", ":"))
                digest = hashlib.sha256(identity.encode()).hexdigest()
                lines.append(f'\n[hooks.state."{hooks_file}:{label}:{g}:{h}"]\ntrusted_hash = "sha256:{digest}"\n')
    with config.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines))


def run_codex(codex: Path, env: dict, api: ScriptedResponsesApi, cwd: Path, *argv: str, servers=()) -> list[dict]:
    """`codex exec --json …` against the scripted API (its sandbox lets a shell write the bot's folder, as a
    person's `--add-dir` does; `required` makes exec wait for the bot's server before its first request); its
    events."""
    wait = [word for name in servers for word in ("-c", f"mcp_servers.{name}.required=true")]
    done = subprocess.run(
        [
            str(codex),
            "exec",
            "--json",
            "--skip-git-repo-check",
            *config_overrides(api.url, codex_engine.DEFAULT_MODEL),
            *wait,
            *argv,
        ],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def said(events: list[dict]) -> list[str]:
    return [
        e["item"]["text"] for e in events if e.get("type") == "item.completed" and e["item"]["type"] == "agent_message"
    ]


def test_a_codex_session_is_recorded_as_one_chat_and_one_run_and_undo_run_takes_it_back(codex, home, user, tmp_path):
    project = tmp_path / "trips"
    project.mkdir()
    omb(user, "hook", "install", "--bot", BOT_ID, "--agent", "codex")
    unchecked = omb(user, "hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check", code=1).stdout
    assert "Codex skips scout's SessionStart, UserPromptSubmit, Stop hooks" in unchecked
    assert "Trust all and continue" in unchecked
    trust_hooks(user, Path(user["HOME"]) / ".codex")
    checked = omb(user, "hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check").stdout
    assert "starts as Codex starts it" in checked and "NOT" not in checked

    workspace = home.workspace(BOT_ID)
    memory = workspace / "MEMORY.md"
    before = memory.read_bytes()
    rows_before = len(Journal(home.journal_path(BOT_ID)).rows())
    namespace = NAMESPACE
    script = Script(
        {
            "Note the ferry time": [
                ToolSearch("memory_update"),
                FunctionCall("memory_update", {"action": "add", "text": "The Lisbon ferry leaves at 09:10"}, namespace),
                FunctionCall("exec_command", {"cmd": f"echo '- Bring the ferry tickets printed' >> '{memory}'"}),
                "Done: the ferry time is noted.",
            ],
            "And the hotel": ["The hotel is Baixa Rio."],
        }
    )
    sandbox = ("-s", "workspace-write", "--add-dir", str(workspace))
    with ScriptedResponsesApi(script) as api:
        first = run_codex(
            codex, user, api, project, *sandbox, "Note the ferry time for Lisbon", servers=["omb-tui-scout"]
        )
        thread = next(e["thread_id"] for e in first if e.get("type") == "thread.started")
        resumed = run_codex(codex, user, api, project, "resume", thread, "And the hotel?")
    assert said(first) == ["Done: the ferry time is noted."] and said(resumed) == ["The hotel is Baixa Rio."]
    saved = [e["item"] for e in first if e.get("type") == "item.completed" and e["item"]["type"] == "mcp_tool_call"]
    assert [(i["tool"], i["status"]) for i in saved] == [("memory_update", "completed")]
    # the hooks ran: every request carried the block once, naming the tools as Codex offers them
    turns = [json.dumps(request) for request in script.requests if "Note the ferry" in json.dumps(request)]
    assert turns and all(text.count(BLOCK) == 1 and namespace in text for text in turns)

    session = existing_session(home, BOT_ID, thread, CODEX_AGENT)
    assert session is not None and session.chat == f"codex-{thread}"
    chat = conv.find_conversation(home, BOT_ID, session.chat, with_messages=True)
    assert chat.title == "Codex in trips"
    assert '· from chat "Codex in trips" · The Lisbon ferry leaves at 09:10' in memory.read_text(encoding="utf-8")
    assert [m.text for m in chat.messages] == [
        "Note the ferry time for Lisbon",
        "Done: the ferry time is noted.",
        "And the hotel?",
        "The hotel is Baixa Rio.",
    ]
    rows = Journal(home.journal_path(BOT_ID)).rows()
    rows = rows[: len(rows) - rows_before]
    assert len([row for row in rows if row.file == "MEMORY.md"]) == 2  # the MCP write and the shell's edit
    assert {(row.who, row.how, row.chat, row.run) for row in rows} == {(WHO_BOT, HOW_TASK, session.chat, session.run)}

    omb(user, "undo-run", BOT_ID, session.run, "--yes")
    assert memory.read_bytes() == before


def test_a_project_install_reaches_its_bot_beside_a_user_install(codex, home, user, tmp_path):
    make_bot(home, "atlas", "Atlas")
    project = tmp_path / "site"
    project.mkdir()
    omb(user, "hook", "install", "--bot", BOT_ID, "--agent", "codex")
    said_at_install = omb(user, "hook", "install", "--bot", "atlas", "--agent", "codex", "--project", str(project))
    assert "Claude Code" not in said_at_install.stdout and "codex exec --trust" in said_at_install.stdout
    check = ("hook", "install", "--bot", "atlas", "--agent", "codex", "--project", str(project), "--check")
    assert f"Codex loads nothing of {project.resolve()}/.codex" in omb(user, *check, code=1).stdout
    # the steps install names: the folder trusted (as codex exec --trust records it), every hook trusted
    with (Path(user["HOME"]) / ".codex" / "config.toml").open("a", encoding="utf-8") as handle:
        handle.write(f'\n[projects."{project.resolve()}"]\ntrust_level = "trusted"\n')
    trust_hooks(user, Path(user["HOME"]) / ".codex")
    trust_hooks(user, project / ".codex")
    assert "NOT" not in omb(user, *check).stdout
    # the project's files name no home: without $OMB_HOME the server Codex starts finds no atlas, and --check says so
    elsewhere = {k: v for k, v in user.items() if k != "OMB_HOME"}
    assert (
        "NOT   The server does not start as Codex starts it"
        in omb(elsewhere, "--home", str(home.root), *check, code=1).stdout
    )

    script = Script(
        {
            "Remember both": [
                ToolSearch("memory_update"),
                FunctionCall(
                    "memory_update", {"action": "add", "text": "Deploys go out on Tuesdays"}, "mcp__omb_tui_atlas"
                ),
                FunctionCall("memory_update", {"action": "add", "text": "Prefers trains to planes"}, NAMESPACE),
                "Both noted.",
            ]
        }
    )
    with ScriptedResponsesApi(script) as api:
        events = run_codex(
            codex, user, api, project, "Remember both, please", servers=["omb-tui-atlas", "omb-tui-scout"]
        )
    calls = [e["item"] for e in events if e.get("type") == "item.completed" and e["item"]["type"] == "mcp_tool_call"]
    assert [(i["server"], i["status"]) for i in calls] == [
        ("omb-tui-atlas", "completed"),
        ("omb-tui-scout", "completed"),
    ]
    assert "Deploys go out on Tuesdays" in (home.workspace("atlas") / "MEMORY.md").read_text(encoding="utf-8")
    assert "Prefers trains to planes" in (home.workspace(BOT_ID) / "MEMORY.md").read_text(encoding="utf-8")
    thread = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
    for bot in ("atlas", BOT_ID):  # both bots' hooks ran and recorded the turn, each in its own chat of the session
        chat = conv.find_conversation(home, bot, f"codex-{thread}", with_messages=True)
        assert [m.text for m in chat.messages] == ["Remember both, please", "Both noted."]
