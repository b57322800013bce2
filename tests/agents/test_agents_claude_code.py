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
TOOL = "mcp__omb-tui-scout__memory_update"
ALLOWED = ("--allowedTools", TOOL, "Bash")

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


def chats_of(home) -> list[str]:
    folder = conv.chats_dir(home, BOT_ID)
    return sorted(path.name for path in folder.glob("*.ndjson")) if folder.is_dir() else []


def context_of(script: Script) -> str:
    """What Claude Code gave the model besides the tools: the system prompt and the messages, as one text."""
    return "\n".join(json.dumps([r.get("system"), r.get("messages")]) for r in script.requests if r.get("tools"))


def test_claude_mcp_list_connects_every_server_and_leaves_no_chat(claude, home, user, tmp_path):
    omb(user, "hook", "install", "--bot", BOT_ID)
    before = chats_of(home)
    with ScriptedMessagesApi(Script()) as api:
        listed = run_claude(claude, user, api, tmp_path, "mcp", "list")["out"]
    assert "Connected" in listed and "omb-tui-scout" in listed
    assert chats_of(home) == before


def test_a_person_install_records_the_persons_words_in_a_chat_titled_by_the_hooks(claude, home, user, tmp_path):
    """Claude Code connects its servers before the first prompt hook runs: the chat is still the hooks' (their
    title, their person), not the server's."""
    from omb_tui.core.people.people import add_person

    add_person(home, "dana")
    project = tmp_path / "trips"
    project.mkdir()
    omb(user, "hook", "install", "--bot", BOT_ID, "--person", "dana")
    settings_file = Path(user["HOME"]) / ".claude" / "settings.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    del settings["hooks"]["UserPromptSubmit"]
    settings_file.write_text(json.dumps(settings), encoding="utf-8")
    script = Script(
        {"Note the ferry": [ToolCall(TOOL, {"action": "add", "text": "The ferry leaves at 09:10"}), "Noted."]}
    )
    with ScriptedMessagesApi(script) as api:
        done = run_claude(claude, user, api, project, "-p", "Note the ferry time", "--output-format", "json", *ALLOWED)
    assert done["result"] == "Noted."
    chat = conv.find_conversation(home, BOT_ID, chat_id_for(done["session_id"]), with_messages=True)
    assert chat.title == "Claude Code in trips" and chat.people() == ["dana"]
    assert [(m.author_kind, m.author) for m in chat.messages] == [("person", "dana"), ("bot", BOT_ID)]


def test_a_person_install_on_a_home_without_them_says_so_once_and_names_no_tool(claude, home, user, tmp_path):
    """The server, started with --person dana, refuses on a home without Dana: the block says why in one line and
    names none of its tools, and the session goes on."""
    omb(user, "hook", "install", "--bot", BOT_ID, "--person", "dana")
    script = Script({"Hello": ["Hello to you."]})
    with ScriptedMessagesApi(script) as api:
        done = run_claude(claude, user, api, tmp_path, "-p", "Hello there", "--output-format", "json")
    assert done["result"] == "Hello to you."
    context = context_of(script)
    assert BLOCK in context and "mcp__omb-tui-scout__" not in context
    said = {line for line in context.split("\\n") if "is not a person of the home" in line}
    assert len(said) == 1, said


def test_a_resumed_session_is_given_the_net_change_since_its_last_turn(claude, home, user, tmp_path):
    from omb_tui.core.journal.changes import Actor
    from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
    from omb_tui.core.memory.store import MemoryStore

    omb(user, "hook", "install", "--bot", BOT_ID)
    script = Script({"First": ["First answer."], "Second": ["Second answer."]})
    with ScriptedMessagesApi(script) as api:
        first = run_claude(claude, user, api, tmp_path, "-p", "First question", "--output-format", "json")
        store, you = MemoryStore(home, BOT_ID), Actor(WHO_PERSON, HOW_COMMAND_LINE)
        before = store.read("MEMORY.md").text
        store.write("MEMORY.md", before + "- The ferry pass is blue\n", you)
        store.write("MEMORY.md", before + "- The ferry pass is blue\n- Gate B opens at 8\n", you)
        store.write("MEMORY.md", before + "- Gate B opens at 8\n", you)  # the blue pass: added, taken out again
        day = f"memory/log/{clock.today().isoformat()}.md"
        store.write(day, store.read(day).text + "- 09:05 · a line of the day's log\n", you, allow_log=True)
        asked = len(script.requests)
        resumed = run_claude(
            claude,
            user,
            api,
            tmp_path,
            "-p",
            "Second question",
            "--resume",
            first["session_id"],
            "--output-format",
            "json",
        )
    assert resumed["result"] == "Second answer."
    context = "\n".join(json.dumps(r.get("messages")) for r in script.requests[asked:] if r.get("tools"))
    assert "+- Gate B opens at 8" in context and context.count("MEMORY.md:") >= 1
    assert "ferry pass" not in context and "a line of the day's log" not in context
    assert context.count(BLOCK) == 1  # the block once, from the first start; the resume added only the change


def test_a_service_killed_mid_session_is_reconnected_and_the_write_before_it_is_found(claude, home, user, tmp_path):
    """The service is killed between two tool calls of a turn: Claude Code starts the server again, the next call
    answers, and the write made before is in the journal under the session's chat (docs/agents.md says how to find
    it). The front's own line and exit are checked in tests/mcp/test_mcp_service.py."""
    omb(user, "hook", "install", "--bot", BOT_ID)
    killed = tmp_path / "killed"
    # this home's service alone ([.] keeps the pattern from matching this shell's own command line)
    kill = f"pgrep -f 'omb_tui[.]mcp[.]service {home.root} ' | tee '{killed}' | xargs -r kill -9"
    status = "mcp__omb-tui-scout__memory_status"
    script = Script(
        {
            "Note the ferry": [
                ToolCall(TOOL, {"action": "add", "text": "The ferry leaves at 09:10"}),
                ToolCall("Bash", {"command": kill, "description": "end the service"}),
                ToolCall(status, {}),
                ToolCall(status, {}),
                "Done.",
            ]
        }
    )
    allowed = ("--allowedTools", TOOL, "Bash", status)
    with ScriptedMessagesApi(script) as api:
        done = run_claude(claude, user, api, tmp_path, "-p", "Note the ferry time", "--output-format", "json", *allowed)
    assert done["result"] == "Done." and killed.read_text().split()  # a service was killed mid-turn
    results = [
        block
        for message in script.requests[-1]["messages"]
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert "Scout" in json.dumps(results[-1]) and not results[-1].get("is_error")  # reconnected, answered
    session = existing_session(home, BOT_ID, done["session_id"])
    assert session is not None
    (row,) = [r for r in Journal(home.journal_path(BOT_ID)).rows() if "ferry leaves" in r.diff]
    assert (row.chat, row.run) == (session.chat, session.run)
    listed = omb(user, "journal", BOT_ID).stdout
    assert f'  chat "{session.title}"' in listed  # the journal names the session's chat by its title
