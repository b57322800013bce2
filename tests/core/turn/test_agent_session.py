"""One agent session, one chat and one run (docs/agents.md): the MCP server's writes (Claude Code gives the stdio
server its session id in CLAUDE_CODE_SESSION_ID, Codex names it in each tools/call's `_meta`), an edit of MEMORY.md
by the agent's own file tools caught at the turn's end, and the recorded prompt and answer all name the session's
chat and carry its run; review shows it as one group and undo-run takes the whole session back, MEMORY.md byte for
byte. Whichever of the MCP server and the prompt hook meets the session first opens its chat, with the hooks' title
and person, for both agents alike."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from support.home import BOT_ID
from support.mcp_helpers import ROOT, SHORT_LIVED, command, command_json
from support.transcripts import SESSION, a_turn, payload, write_transcript

from omb_tui.core.base import clock
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT, Journal
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.agents import CLAUDE_CODE, CODEX
from omb_tui.core.people.people import add_person
from omb_tui.core.turn.agent_session import chat_id_for, existing_session
from omb_tui.core.turn.tools import MEMORY_UPDATE
from omb_tui.mcp.front import ENV_SESSION_ID


def claude_codes_server(
    home, session_id: str | None, cwd: Path | None = None, extra: tuple[str, ...] = ()
) -> StdioServerParameters:
    env = {"PYTHONPATH": str(ROOT), "PYTHONUTF8": "1", **clock.carried_env(), **SHORT_LIVED}
    if session_id:
        env[ENV_SESSION_ID] = session_id
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "omb_tui.cli", "mcp", "--bot", BOT_ID, "--home", str(home.root), *extra],
        env=env,
        cwd=cwd,
    )


CLAUDE_CODE_CLIENT = types.Implementation(name="claude-code", version="2.1.332")
CODEX_CLIENT = types.Implementation(name="codex-mcp-client", version="0.171.0")


def codex_call(session_id: str) -> dict:
    """The `_meta` Codex 0.171.0 sends each tools/call with (abridged from a real `codex exec`)."""
    turn = {"session_id": session_id, "thread_id": session_id, "turn_trigger": "exec", "codex_version": "0.171.0"}
    return {"progress_token": 1, "x-codex-turn-metadata": turn, "threadId": session_id, "sessionId": session_id}


async def agent_add(home, agent: str, text: str, cwd: Path | None = None, extra: tuple[str, ...] = ()) -> None:
    """A write through the MCP tool as each agent makes it: Claude Code's server started with its session's id,
    Codex's with a cleared environment and the session named in the call."""
    if agent == CLAUDE_CODE:
        server, client_info, meta = claude_codes_server(home, SESSION, cwd, extra), CLAUDE_CODE_CLIENT, None
    else:
        server, client_info, meta = claude_codes_server(home, None, cwd, extra), CODEX_CLIENT, codex_call(SESSION)
    async with Client(stdio_client(server), client_info=client_info) as client:
        done = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": text}, meta=meta)
        assert not done.is_error, done


async def mcp_add(home, text: str, session_id: str | None = SESSION, cwd: Path | None = None) -> None:
    server = stdio_client(claude_codes_server(home, session_id, cwd))
    async with Client(server, client_info=CLAUDE_CODE_CLIENT) as client:
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


async def test_a_client_that_connects_and_lists_leaves_no_chat_behind(home):
    """`claude mcp list` connects every server with a session id of its own: no chat of the bot comes of it."""
    async with Client(stdio_client(claude_codes_server(home, SESSION)), client_info=CLAUDE_CODE_CLIENT) as client:
        assert MEMORY_UPDATE in [tool.name for tool in (await client.list_tools()).tools]
        await client.list_resources()
    assert existing_session(home, BOT_ID, SESSION) is None


BOTH = pytest.mark.parametrize("agent", [CLAUDE_CODE, CODEX])
TITLES = {CLAUDE_CODE: "Claude Code in trips", CODEX: "Codex in trips"}


def hook(run_cli, agent: str, name: str, data: bytes, *extra: str):
    done = run_cli(
        "hook", name, "--bot", BOT_ID, *extra, *(["--agent", agent] if agent != CLAUDE_CODE else []), stdin=data
    )
    assert done.code == 0, done
    return done


@BOTH
async def test_a_write_before_any_prompt_hook_opens_the_chat_as_the_hooks_would(run_cli, home, tmp_path, agent):
    """The MCP server's first write opens the session's chat with the hooks' title; the note names that chat, and
    the journal shows its title, not its id."""
    project = tmp_path / "trips"
    project.mkdir()
    await agent_add(home, agent, "The Lisbon ferry leaves at 09:10", cwd=project)
    session = existing_session(home, BOT_ID, SESSION, agent)
    assert session is not None and session.title == TITLES[agent]
    memory = (home.workspace(BOT_ID) / "MEMORY.md").read_text(encoding="utf-8")
    assert f'· from chat "{TITLES[agent]}" · The Lisbon ferry leaves at 09:10' in memory
    listed = run_cli("journal", BOT_ID, "--limit", "1").out
    assert f'  chat "{TITLES[agent]}"' in listed and session.chat not in listed
    assert listed.count(TITLES[agent].split(" in ")[0]) == 1  # the client is named once, by the title
    (row,) = command_json(home, "journal", BOT_ID, "--limit", "1")
    assert (row["chat_title"], row["chat"], row["run"]) == (TITLES[agent], session.chat, session.run)
    hook(run_cli, agent, "prompt", payload("UserPromptSubmit", prompt="And the hotel?"))
    assert existing_session(home, BOT_ID, SESSION, agent) == session  # the hooks go on in the chat the server opened


@BOTH
async def test_a_write_after_the_prompt_hook_is_in_its_chat_and_the_note_names_it(run_cli, home, tmp_path, agent):
    project = tmp_path / "trips"
    project.mkdir()
    hook(run_cli, agent, "prompt", payload("UserPromptSubmit", prompt="Note the ferry time", cwd=str(project)))
    session = existing_session(home, BOT_ID, SESSION, agent)
    assert session is not None and session.title == TITLES[agent]
    await agent_add(home, agent, "The Lisbon ferry leaves at 09:10", cwd=tmp_path)  # the chat's title stays the hooks'
    memory = (home.workspace(BOT_ID) / "MEMORY.md").read_text(encoding="utf-8")
    assert f'· from chat "{TITLES[agent]}" · The Lisbon ferry leaves at 09:10' in memory
    (row,) = rows(home)[-1:]
    assert (row.who, row.how, row.chat, row.run) == (WHO_BOT, HOW_TASK, session.chat, session.run)


@BOTH
async def test_a_person_installs_session_opened_by_its_first_write_is_the_persons(run_cli, home, tmp_path, agent):
    """The server started with `--person dana` (as a `--person` install starts it) opens the chat as her hooks
    would: hers, never the owner's."""
    add_person(home, "dana")
    await agent_add(home, agent, "The depot opens at 7", cwd=tmp_path, extra=("--person", "dana"))
    session = existing_session(home, BOT_ID, SESSION, agent)
    assert session is not None
    chat = conv.find_conversation(home, BOT_ID, session.chat)
    assert chat.started_by == conv.Starter("person", "dana")
    assert conv.Member("person", "dana") in chat.members
    hook(run_cli, agent, "prompt", payload("UserPromptSubmit", prompt="And the hotel?"), "--person", "dana")
    assert existing_session(home, BOT_ID, SESSION, agent) == session
