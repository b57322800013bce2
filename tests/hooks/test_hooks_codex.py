"""Codex CLI as a writer of a bot's memory (docs/agents.md): its hooks send Claude Code's fields, its rollout is
read as the turn's transcript, each session is one chat `codex-<session_id>`; `hook install --agent codex` writes
its hooks.json and its config.toml's MCP entry with the same merge, atomicity and --remove guarantees."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from support.home import BOT_ID
from support.repo import ROOT

from omb_tui.core.memory import conversations as conv
from omb_tui.hooks.transcript import read_exchange

pytestmark = pytest.mark.dates  # a transcript's UTC times, read into local ones

SESSION = "0199c3e2-7a41-7d10-9b6e-3f5a2c8d1e04"
PROMPT = "Add the Lisbon ferry time to my travel notes"
ANSWER = "Added: the ferry leaves Cais do Sodré at 09:10."


def rollout_line(at: str, kind: str, payload: dict) -> dict:
    return {"timestamp": at, "type": kind, "payload": payload}


def a_rollout(prompt: str = PROMPT, answer: str = ANSWER) -> list[dict]:
    """One Codex turn as a rollout holds it (codex-rs's persisted items, abridged)."""
    return [
        rollout_line(
            "2026-12-02T09:00:00.000Z",
            "session_meta",
            {
                "id": SESSION,
                "timestamp": "2026-12-02T09:00:00.000Z",
                "cwd": "/home/nadia/trips",
                "cli_version": "0.171.0",
            },
        ),
        rollout_line(
            "2026-12-02T09:00:00.010Z",
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>\n  <cwd>/home/nadia/trips</cwd>\n</environment_context>",
                    }
                ],
            },
        ),
        rollout_line(
            "2026-12-02T09:00:01.000Z",
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]},
        ),
        rollout_line(
            "2026-12-02T09:00:01.000Z", "event_msg", {"type": "user_message", "message": prompt, "images": []}
        ),
        rollout_line("2026-12-02T09:00:01.100Z", "turn_context", {"cwd": "/home/nadia/trips", "model": "gpt-5-codex"}),
        rollout_line("2026-12-02T09:00:02.000Z", "event_msg", {"type": "agent_reasoning", "text": "**Reading notes**"}),
        rollout_line(
            "2026-12-02T09:00:02.100Z", "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "x"}
        ),
        rollout_line(
            "2026-12-02T09:00:03.000Z",
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"command":["cat","travel.md"]}',
                "call_id": "call_1",
            },
        ),
        rollout_line(
            "2026-12-02T09:00:03.500Z",
            "response_item",
            {"type": "function_call_output", "call_id": "call_1", "output": '{"output":"# Travel\\n"}'},
        ),
        rollout_line(
            "2026-12-02T09:00:04.000Z",
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch", "call_id": "call_2"},
        ),
        rollout_line(
            "2026-12-02T09:00:04.500Z",
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "call_2", "output": "Success."},
        ),
        rollout_line(
            "2026-12-02T09:00:05.000Z",
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]},
        ),
        rollout_line("2026-12-02T09:00:05.000Z", "event_msg", {"type": "agent_message", "message": answer}),
        rollout_line("2026-12-02T09:00:05.100Z", "event_msg", {"type": "token_count", "info": None}),
        rollout_line("2026-12-02T09:00:05.200Z", "event_msg", {"type": "task_complete", "last_agent_message": answer}),
    ]


def write_rollout(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def codex_payload(event: str, rollout: Path, **extra: object) -> bytes:
    data = {
        "session_id": SESSION,
        "transcript_path": str(rollout),
        "cwd": "/home/nadia/trips",
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
        **extra,
    }
    return json.dumps(data).encode()


def test_a_rollout_is_read_as_the_turn_the_person_typed_and_the_agent_said(tmp_path):
    exchange = read_exchange(write_rollout(tmp_path / "rollout.jsonl", a_rollout()))
    assert exchange.prompt == PROMPT  # not the environment text Codex adds as a user message
    assert exchange.answer == ANSWER  # once, though the model's copy and the event both hold it
    assert exchange.tools == ("shell", "apply_patch")
    assert exchange.prompt_at is not None and exchange.prompt_at.isoformat().startswith("2026-12-02T09:00:01")


def test_a_codex_session_is_one_chat_of_the_bot(run_cli, home, tmp_path):
    rollout = write_rollout(tmp_path / "rollout.jsonl", a_rollout())
    assert (
        run_cli(
            "hook",
            "prompt",
            "--bot",
            BOT_ID,
            "--agent",
            "codex",
            stdin=codex_payload("UserPromptSubmit", rollout, prompt=PROMPT),
        ).code
        == 0
    )
    stop = run_cli("hook", "stop", "--bot", BOT_ID, "--agent", "codex", stdin=codex_payload("Stop", rollout))
    assert stop.code == 0 and stop.err == "", stop
    conversation = conv.find_conversation(home, BOT_ID, f"codex-{SESSION}", with_messages=True)
    assert conversation.title == "Codex in trips"
    assert [m.text for m in conversation.messages] == [PROMPT, ANSWER]


# ----- hook install --agent codex -----
THEIR_CONFIG = """# my Codex settings
model = "gpt-5-codex"   # the default one
approval_policy = "on-request"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[mcp_servers.github.env]
GITHUB_TOKEN_FILE = "~/.gh"

[features]
web_search = true
"""


def codex_dir(tmp_path: Path) -> Path:
    return tmp_path / "user" / ".codex"  # $HOME in every test (conftest)


def test_install_for_codex_merges_its_hooks_and_config_and_remove_gives_the_text_back(run_cli, tmp_path):
    folder = codex_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(THEIR_CONFIG, encoding="utf-8")
    result = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex")
    assert result.code == 0, result.err
    config = (folder / "config.toml").read_text(encoding="utf-8")
    assert config.startswith(THEIR_CONFIG.split("[features]")[0])  # their text, comments and order kept
    data = tomllib.loads(config)
    entry = data["mcp_servers"]["omb-tui-scout"]
    assert entry["args"][-3:] == ["mcp", "--bot", BOT_ID]
    assert data["mcp_servers"]["github"]["env"] == {"GITHUB_TOKEN_FILE": "~/.gh"}
    assert data["features"] == {"web_search": True, "codex_hooks": True}
    hooks = json.loads((folder / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    commands = [
        h["command"] for event in ("SessionStart", "UserPromptSubmit", "Stop") for g in hooks[event] for h in g["hooks"]
    ]
    assert len(commands) == 3 and all(c.endswith("--agent codex") for c in commands)
    assert oct((folder / "config.toml").stat().st_mode & 0o777) == "0o600"

    again = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex")
    assert again.code == 0 and "nothing written" in again.out and (folder / "config.toml").read_text() == config

    assert run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check").code == 0
    removed = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--remove")
    assert removed.code == 0
    left = (folder / "config.toml").read_text(encoding="utf-8")
    assert "omb-tui" not in left and tomllib.loads(left)["mcp_servers"].keys() == {"github"}
    assert left.replace("codex_hooks = true\n", "") == THEIR_CONFIG  # only the flag stays: it may be theirs now


def test_a_codex_config_install_cannot_edit_is_one_sentence_and_untouched(run_cli, tmp_path):
    folder = codex_dir(tmp_path)
    folder.mkdir(parents=True)
    odd = 'mcp_servers.omb-tui-scout.command = "/somewhere/else"\n'
    for text, says in ((odd, "in a form install does not edit"), ("model = [\n", "is not valid TOML")):
        (folder / "config.toml").write_text(text, encoding="utf-8")
        result = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex")
        assert result.code == 2 and says in result.err and len(result.err.strip().splitlines()) == 1
        assert (folder / "config.toml").read_text(encoding="utf-8") == text
        assert not (folder / "hooks.json").exists()


def test_the_codex_snippet_in_the_docs_is_what_install_writes():
    from omb_tui.hooks import codex_config
    from omb_tui.hooks.install import mcp_server, server_name

    docs = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    (block,) = [b.split("```", 1)[0] for b in docs.split("```toml\n")[1:]]
    entry = mcp_server(["/path/to/omb-tui"], "scout")
    assert codex_config.server_table(server_name("scout"), entry["command"], entry["args"]) in block
