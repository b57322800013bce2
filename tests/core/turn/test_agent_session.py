"""One Claude Code session, one chat and one run (docs/agents.md): the MCP server's writes (Claude Code gives the
stdio server its session id in CLAUDE_CODE_SESSION_ID), an edit of MEMORY.md by the agent's own file tools caught
at the turn's end, and the recorded prompt and answer all name the session's chat and carry its run; review shows
it as one group and undo-run takes the whole session back, MEMORY.md byte for byte."""

from __future__ import annotations

import json
import sys

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from support.home import BOT_ID
from support.mcp_helpers import ROOT, SHORT_LIVED, command, command_json
from support.transcripts import SESSION, a_turn, payload, write_transcript

from omb_tui.core.base import clock
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT, Journal
from omb_tui.core.turn.agent_session import chat_id_for, existing_session
from omb_tui.core.turn.tools import MEMORY_UPDATE
from omb_tui.mcp.front import ENV_SESSION_ID


def claude_codes_server(home, session_id: str | None) -> StdioServerParameters:
    env = {"PYTHONPATH": str(ROOT), "PYTHONUTF8": "1", **clock.carried_env(), **SHORT_LIVED}
    if session_id:
        env[ENV_SESSION_ID] = session_id
    return StdioServerParameters(
        command=sys.executable, args=["-m", "omb_tui.cli", "mcp", "--bot", BOT_ID, "--home", str(home.root)], env=env
    )


async def mcp_add(home, text: str, session_id: str | None = SESSION) -> None:
    info = types.Implementation(name="claude-code", version="2.1.332")
    async with Client(stdio_client(claude_codes_server(home, session_id)), client_info=info) as client:
        assert not (await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": text})).is_error


def rows(home) -> list:
    return list(reversed(Journal(home.journal_path(BOT_ID)).rows()))  # oldest first


async def test_a_sessions_mcp_writes_file_edits_and_turns_are_one_chat_and_one_run(run_cli, home, tmp_path):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    before = memory.read_bytes()
    rows_before = len(rows(home))
    prompt = payload("UserPromptSubmit", prompt="Note the ferry time for Lisbon")
    assert run_cli("hook", "prompt", "--bot", BOT_ID, stdin=prompt).code == 0
    await mcp_add(home, "The Lisbon ferry leaves at 09:10")  # the agent's MCP tool, mid-turn
    with memory.open("a", encoding="utf-8") as handle:  # the agent's Bash tool, mid-turn
        handle.write("- Bring the ferry tickets printed\n")
    path = write_transcript(tmp_path / "t.jsonl", a_turn())
    assert run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path)).code == 0

    session = existing_session(home, BOT_ID, SESSION)
    assert session is not None and session.chat == chat_id_for(SESSION)
    new = rows(home)[rows_before:]

    assert len(new) == 3  # the MCP write, the Bash edit caught at the Stop, the turn log line
    assert {(r.who, r.how, r.chat, r.run) for r in new} == {(WHO_BOT, HOW_TASK, session.chat, session.run)}
    said = [
        json.loads(line)
        for line in (home.root / "conversations" / "chats" / BOT_ID / f"{session.chat}.ndjson").read_text().splitlines()
    ]
    assert len(said) == 3  # the header, the prompt and the answer: the one chat of the session

    (bot,) = command_json(home, "review", "--bot", BOT_ID)["bots"]
    (run,) = [r for r in bot["runs"] if r["id"] == session.run]
    assert sorted(c["id"] for c in run["changes"]) == sorted(r.id for r in new)

    code, _ = command(home, "undo-run", BOT_ID, session.run, "--yes")
    assert code == 0 and memory.read_bytes() == before  # the whole session taken back


async def test_without_claude_codes_session_id_the_mcp_client_is_its_own_session(home):
    await mcp_add(home, "The Porto train leaves at 07:55", session_id=None)
    (row,) = rows(home)[-1:]
    assert row.chat == f"claude-code (MCP session {row.run})"
    assert existing_session(home, BOT_ID, SESSION) is None
