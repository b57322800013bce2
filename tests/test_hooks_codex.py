"""Codex CLI as a writer of a bot's memory (issue 36 point 7): its hooks send Claude Code's fields, its rollout is
read as the turn's transcript, each session is one chat `codex-<session_id>`; `hook install --agent codex` writes
its hooks.json and its config.toml's MCP entry with the same merge, atomicity and --remove guarantees."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from omb_tui.core.memory import conversations as conv
from omb_tui.hooks.transcript import read_exchange
from tests.conftest import BOT_ID

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
