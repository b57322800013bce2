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


def a_rollout_as_codex_0171_writes_it(prompt: str = PROMPT, answer: str = ANSWER) -> list[dict]:
    """One turn as Codex 0.171.0 writes it (read from a real `codex exec` rollout, abridged): what was said is in
    `item_completed` events (`UserMessage`, `AgentMessage`), no `user_message`/`agent_message` events, each
    message's copy for the model a `response_item` marked with its provenance."""
    turn = {"turn_id": "t1"}
    harness = {**turn, "content_item_metadata": [{"provenance": {"type": "harness", "hook": False}}]}
    typed = {**turn, "content_item_metadata": [{"provenance": {"type": "user"}}]}
    return [
        rollout_line("2026-12-02T09:00:00.000Z", "session_meta", {"id": SESSION, "cwd": "/home/nadia/trips"}),
        rollout_line("2026-12-02T09:00:00.001Z", "event_msg", {"type": "task_started", "turn_id": "t1"}),
        rollout_line(
            "2026-12-02T09:00:00.010Z",
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "<environment_context>\n</environment_context>"}],
                "internal_chat_message_metadata_passthrough": harness,
            },
        ),
        rollout_line(
            "2026-12-02T09:00:00.020Z",
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Your long-term memory as Scout (the hook's context)"}],
                "internal_chat_message_metadata_passthrough": {
                    **turn,
                    "content_item_metadata": [{"provenance": {"type": "hook"}}],
                },
            },
        ),
        rollout_line(
            "2026-12-02T09:00:01.000Z",
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
                "internal_chat_message_metadata_passthrough": typed,
            },
        ),
        rollout_line(
            "2026-12-02T09:00:01.001Z",
            "event_msg",
            {
                "type": "item_completed",
                "turn_id": "t1",
                "item": {"type": "UserMessage", "id": "u1", "content": [{"type": "text", "text": prompt}]},
            },
        ),
        rollout_line(
            "2026-12-02T09:00:02.000Z",
            "response_item",
            {"type": "tool_search_call", "call_id": "c0", "execution": "client", "arguments": {"query": "memory"}},
        ),
        rollout_line(
            "2026-12-02T09:00:02.100Z",
            "response_item",
            {"type": "tool_search_output", "call_id": "c0", "execution": "client", "tools": []},
        ),
        rollout_line(
            "2026-12-02T09:00:03.000Z",
            "response_item",
            {
                "type": "function_call",
                "name": "memory_update",
                "namespace": "mcp__omb_tui_scout",
                "arguments": "{}",
                "call_id": "c1",
            },
        ),
        rollout_line(
            "2026-12-02T09:00:03.500Z",
            "response_item",
            {"type": "function_call_output", "call_id": "c1", "output": "Saved to MEMORY.md."},
        ),
        rollout_line(
            "2026-12-02T09:00:04.000Z",
            "event_msg",
            {
                "type": "item_completed",
                "turn_id": "t1",
                "item": {"type": "AgentMessage", "id": "m1", "content": [{"type": "Text", "text": answer}]},
            },
        ),
        rollout_line(
            "2026-12-02T09:00:04.001Z",
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": answer, "annotations": []}],
                "internal_chat_message_metadata_passthrough": turn,
            },
        ),
        rollout_line("2026-12-02T09:00:04.100Z", "event_msg", {"type": "task_complete", "last_agent_message": answer}),
    ]


def test_a_rollout_as_codex_0171_writes_it_is_read_as_the_turn(tmp_path):
    exchange = read_exchange(write_rollout(tmp_path / "rollout.jsonl", a_rollout_as_codex_0171_writes_it()))
    assert exchange.prompt == PROMPT  # not the environment text, not the hook's context
    assert exchange.answer == ANSWER  # once, though the event and the model's copy both hold it
    assert exchange.tools == ("tool_search", "mcp__omb_tui_scout__memory_update")


def test_a_rollout_of_the_models_copies_alone_is_read_too(tmp_path):
    """A rollout whose events say nothing of the messages (the copies the model was given are all there is)."""
    lines = [line for line in a_rollout_as_codex_0171_writes_it() if line["payload"].get("type") != "item_completed"]
    exchange = read_exchange(write_rollout(tmp_path / "rollout.jsonl", lines))
    assert (exchange.prompt, exchange.answer) == (PROMPT, ANSWER)
    older = [line for line in a_rollout() if line["type"] != "event_msg"]  # no provenance: Codex's text told apart
    exchange = read_exchange(write_rollout(tmp_path / "older.jsonl", older))
    assert (exchange.prompt, exchange.answer) == (PROMPT, ANSWER)


def test_a_session_of_codex_0171_is_recorded(run_cli, home, tmp_path):
    rollout = write_rollout(tmp_path / "rollout.jsonl", a_rollout_as_codex_0171_writes_it())
    stop = run_cli("hook", "stop", "--bot", BOT_ID, "--agent", "codex", stdin=codex_payload("Stop", rollout))
    assert stop.code == 0 and stop.err == "", stop
    conversation = conv.find_conversation(home, BOT_ID, f"codex-{SESSION}", with_messages=True)
    assert [m.text for m in conversation.messages] == [PROMPT, ANSWER]


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
    assert data["features"] == {"hooks": True, "web_search": True}  # not the deprecated codex_hooks
    assert entry["env_vars"] == ["OMB_HOME"] and entry["default_tools_approval_mode"] == "approve"
    assert "Claude Code" not in result.out and "restart Codex" in result.out and "Trust all and continue" in result.out
    hooks = json.loads((folder / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    commands = [
        h["command"] for event in ("SessionStart", "UserPromptSubmit", "Stop") for g in hooks[event] for h in g["hooks"]
    ]
    assert len(commands) == 3 and all(c.endswith("--agent codex") for c in commands)
    assert oct((folder / "config.toml").stat().st_mode & 0o777) == "0o600"

    again = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex")
    assert again.code == 0 and "nothing written" in again.out and (folder / "config.toml").read_text() == config

    checked = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check")
    assert checked.code == 1 and checked.out.count("NOT") == 1 and "Trust all and continue" in checked.out  # only trust
    removed = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--remove")
    assert removed.code == 0
    left = (folder / "config.toml").read_text(encoding="utf-8")
    assert "omb-tui" not in left and tomllib.loads(left)["mcp_servers"].keys() == {"github"}
    assert left.replace("hooks = true\n", "") == THEIR_CONFIG  # only the flag stays: it may be theirs now


def test_install_for_codex_writes_where_codex_home_points(run_cli, tmp_path, monkeypatch):
    """Codex reads $CODEX_HOME in place of ~/.codex: install, check and remove follow it, ~/.codex stays unmade."""
    elsewhere = tmp_path / "codex-home"
    elsewhere.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(elsewhere))
    assert run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex").code == 0
    config = tomllib.loads((elsewhere / "config.toml").read_text(encoding="utf-8"))
    assert "omb-tui-scout" in config["mcp_servers"] and (elsewhere / "hooks.json").is_file()
    assert not codex_dir(tmp_path).exists()
    checked = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check")
    assert checked.out.count("NOT") == 1 and "Trust all and continue" in checked.out  # found there, only trust left
    assert run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--remove").code == 0
    assert "omb-tui" not in (elsewhere / "config.toml").read_text(encoding="utf-8")


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
    from omb_tui.hooks.install import mcp_server
    from omb_tui.hooks.names import server_name

    docs = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    (block,) = [b.split("```", 1)[0] for b in docs.split("```toml\n")[1:]]
    entry = mcp_server(["/path/to/omb-tui"], "scout")
    assert codex_config.server_table(server_name("scout"), entry["command"], entry["args"]) in block


# ----- hook trust and --check -----
def test_the_trust_hash_is_the_one_codex_computes():
    """The key and hash Codex 0.171.0's `hooks/list` gave for a hook install wrote (`codex app-server`)."""
    from omb_tui.hooks import codex_config

    command = (
        "/work/wt-agents-codex/.venv/bin/omb-tui --home /tmp/acx/run/home hook session-start --bot scout --agent codex"
    )
    handler = {"type": "command", "command": command, "timeout": 30}
    assert (
        codex_config.hook_hash("SessionStart", None, handler)
        == "sha256:18f1bb18f5593fb40a8dd3fd81fe01ba870207f35a62f79735ec1be248bf5fb0"
    )
    assert codex_config.hook_key("/u/.codex/hooks.json", "UserPromptSubmit", 0, 1) == (
        "/u/.codex/hooks.json:user_prompt_submit:0:1"
    )


def test_check_says_codex_skips_untrusted_or_changed_hooks_and_names_the_step(run_cli, tmp_path):
    from omb_tui.hooks import codex_config

    assert run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex").code == 0
    folder = codex_dir(tmp_path)
    untrusted = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check")
    assert untrusted.code == 1
    assert "NOT   Codex skips scout's SessionStart, UserPromptSubmit, Stop hooks without a word" in untrusted.out
    assert 'answer "Trust all and continue"' in untrusted.out
    hooks_file = folder / "hooks.json"
    hooks = json.loads(hooks_file.read_text(encoding="utf-8"))["hooks"]
    trust = "".join(
        f'[hooks.state."{codex_config.hook_key(str(hooks_file), event, 0, 0)}"]\n'
        f'trusted_hash = "{codex_config.hook_hash(event, None, hooks[event][0]["hooks"][0])}"\n'
        for event in ("SessionStart", "UserPromptSubmit", "Stop")
    )
    with (folder / "config.toml").open("a", encoding="utf-8") as handle:
        handle.write(trust)
    trusted = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check")
    assert "ok    You trusted scout's three hooks in Codex, as they are now." in trusted.out, trusted.out
    hooks["Stop"][0]["hooks"][0]["timeout"] = 31  # the person edited it: Codex wants it trusted again
    hooks_file.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    changed = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check")
    assert changed.code == 1 and "Stop hooks without a word: they changed since you trusted them" in changed.out


def test_check_says_when_codex_exec_would_refuse_the_tools_and_hooks_are_off(run_cli, tmp_path):
    folder = codex_dir(tmp_path)
    assert run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex").code == 0
    config = (folder / "config.toml").read_text(encoding="utf-8")
    old = config.replace('default_tools_approval_mode = "approve"\n', "").replace("hooks = true", "hooks = false")
    (folder / "config.toml").write_text(old, encoding="utf-8")  # as an earlier install left it, hooks turned off
    result = run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex", "--check")
    assert result.code == 1
    assert "NOT   Codex asks before each of scout's tools, and codex exec, which cannot ask, refuses them" in result.out
    assert "NOT   Codex runs no hooks: [features] hooks is false" in result.out


def test_install_moves_the_deprecated_flag_to_hooks(run_cli, tmp_path):
    folder = codex_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("[features]\ncodex_hooks = true\nweb_search = true\n", encoding="utf-8")
    assert run_cli("hook", "install", "--bot", BOT_ID, "--agent", "codex").code == 0
    text = (folder / "config.toml").read_text(encoding="utf-8")
    assert text.startswith("[features]\nhooks = true\nweb_search = true\n") and "codex_hooks" not in text


def test_the_block_names_the_tools_as_codex_offers_them(run_cli, home, tmp_path):
    payload = json.dumps({"session_id": SESSION, "cwd": "/home/nadia/trips", "hook_event_name": "SessionStart"})
    codex = run_cli("hook", "session-start", "--bot", BOT_ID, "--agent", "codex", stdin=payload.encode())
    assert "the memory_update tool" in codex.out and "tool namespace mcp__omb_tui_scout" in codex.out
    assert "mcp__omb-tui-scout__" not in codex.out
    claude = run_cli("hook", "session-start", "--bot", BOT_ID, stdin=payload.encode())
    assert "mcp__omb-tui-scout__memory_update" in claude.out
