"""`omb-tui mcp` over stdio, as an MCP client sees it: the official SDK's client against the command as a subprocess
on a demo home. The tools are the bot's own (the core's schemas and wording) with recall and memory_status; every
write is the store's, journaled as the bot during a task in a chat naming the client and the session, so the journal,
review and undo show it; a bad argument is one sentence and writes nothing; memory off leaves memory_status alone.

Spec: "Remember and forget, in chat", "Recall before each turn", "What a bot knows about its other conversations",
"The journal" (bot writes caught at the turn boundary), "Shared team memory integrity"; docs/mcp.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from support.mcp_helpers import CLIENT_NAME, ROOT, command, command_json, connect, demo_home, home_copy, text_of

from omb_tui.core.base import clock
from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.team import api as team_api
from omb_tui.core.turn.tools import (
    MEMORY_UPDATE,
    MEMORY_UPDATE_TOOL,
    SESSION_SEARCH,
    SESSION_SEARCH_TOOL,
    TEAM_NOTE,
    TEAM_NOTE_TOOL,
)
from omb_tui.mcp.tools import MEMORY_STATUS, RECALL

NEXT_MONTH = clock.today() + timedelta(days=30)
FAKE_KEY = "sk-ant-api03-" + "Zq7Xv2Lm9Rt4Wp8Ks3Nd6Hf1Jc5Bg0Ya" * 2  # shaped like a key, not a real one


def memory_md(home) -> str:
    return (home.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8")


def journal(home, bot_id="scout") -> list[dict]:
    return command_json(home, "journal", bot_id)


# ----- what is offered -----
async def test_the_tools_are_the_bots_own_with_the_cores_schemas_then_recall_and_memory_status(demo_home):
    async with connect(demo_home) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert list(listed) == [MEMORY_UPDATE, SESSION_SEARCH, TEAM_NOTE, RECALL, MEMORY_STATUS]  # Scout is in a team
    for own in (MEMORY_UPDATE_TOOL, SESSION_SEARCH_TOOL, TEAM_NOTE_TOOL):
        function = own["function"]
        tool = listed[function["name"]]
        assert (tool.description, tool.input_schema) == (function["description"], function["parameters"])
    async with connect(demo_home, "harbor") as client:  # in no team: no team_note
        assert [tool.name for tool in (await client.list_tools()).tools] == [
            MEMORY_UPDATE,
            SESSION_SEARCH,
            RECALL,
            MEMORY_STATUS,
        ]


# ----- every tool -----
async def test_every_tool_answers_as_in_a_chat_turn(home_copy):
    async with connect(home_copy) as client:
        added = await client.call_tool(
            MEMORY_UPDATE, {"action": "add", "text": "Prefers green tea after lunch", "until": NEXT_MONTH.isoformat()}
        )
        assert (text_of(added), added.is_error) == ("Saved to MEMORY.md.", False)
        assert f'· from chat "{CLIENT_NAME} (MCP)" · Prefers green tea after lunch · until {NEXT_MONTH}' in memory_md(
            home_copy
        )

        found = text_of(await client.call_tool(SESSION_SEARCH, {"query": "green tea"}))
        assert found.startswith("1 found, best first:") and "Prefers green tea after lunch" in found
        assert "green tea" in text_of(await client.call_tool(SESSION_SEARCH, {"query": "green tea", "since": "24h"}))
        assert text_of(await client.call_tool(SESSION_SEARCH, {"query": "green tea", "until": "2020-01-01"})) == (
            "Nothing found."
        )
        team = text_of(await client.call_tool(SESSION_SEARCH, {"query": "seat price", "scope": "team"}))
        assert "Team plans cost 12 euro a seat" in team

        recalled = await client.call_tool(RECALL, {"message": "Which hotel did we book for the Lisbon offsite?"})
        assert (
            text_of(recalled)
            == command_json(home_copy, "recall", "scout", "Which hotel did we book for the Lisbon offsite?")["block"]
        )
        assert "Baixa Rio" in text_of(recalled) and recalled.structured_content["passages"]

        forgot = await client.call_tool(MEMORY_UPDATE, {"action": "forget", "text": "green tea"})
        assert not forgot.is_error and "green tea" not in memory_md(home_copy)
        preferred = await client.call_tool(MEMORY_UPDATE, {"action": "prefer", "text": "Reminders go to my task app"})
        assert text_of(preferred) == "Saved to About me; every bot reads it there."
        assert "Reminders go to my task app" in home_copy.about_me_path.read_text(encoding="utf-8")

        quote = "We are doing the team offsite in Lisbon in October, 14 people, three nights"
        proposed = await client.call_tool(
            TEAM_NOTE,
            {
                "key": "offsite/lisbon",
                "title": "Lisbon offsite",
                "text": "The team offsite is in Lisbon in October, for 14 people, three nights.",
                "quotes": [quote],
            },
        )
        assert text_of(proposed).startswith("Proposed to the team 'Launch crew' as offsite/lisbon")
        card = next(
            c for c in team_api.show(home_copy, "Launch crew").to_dict()["pending"] if c["key"] == "offsite/lisbon"
        )
        assert (card["by"], card["chat"]) == ("bot:scout", "lisbon-offsite")  # the conversation the quote is in

        status = await client.call_tool(MEMORY_STATUS, {})
    assert text_of(status).startswith("Memory is on for Scout (scout). MEMORY.md: ")
    assert status.structured_content["gauge"] == command_json(home_copy, "gauge", "scout")
    assert set(status.structured_content["not_loaded"]) == {
        "lines_past_the_cut",
        "expired_lines",
        "topics_not_listed",
        "team_notes",
    }


async def test_memory_status_names_what_did_not_load(home_copy):
    lines = "".join(f"- {date(2025, 1, 1) + timedelta(days=n)} · an old fact {n:03d}\n" for n in range(230))
    (home_copy.workspace("scout") / "MEMORY.md").write_text("# Memory\n\n" + lines, encoding="utf-8")
    async with connect(home_copy) as client:
        status = await client.call_tool(MEMORY_STATUS, {})
    not_loaded = status.structured_content["not_loaded"]
    assert not_loaded["lines_past_the_cut"] == status.structured_content["gauge"]["lines_not_loaded"] == 32
    assert "Not loaded: 32 lines of MEMORY.md past the cut" in text_of(status)


# ----- the journal: the bot's work, from the client, undoable -----
async def test_a_note_added_over_mcp_is_the_bots_change_from_the_client_in_the_journal_and_review(home_copy):
    """Done when: the SDK client adds a note through memory_update, and `omb-tui journal` and `omb-tui review
    --json` show it as the bot's change from the MCP client."""
    async with connect(home_copy, name="claude-code") as client:
        for text in ("Nadia flies out of Pune on the 14th", "The offsite budget is 9,000 euro"):
            assert not (await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": text})).is_error
    first, second = journal(home_copy)[1], journal(home_copy)[0]
    for row in (first, second):
        assert (row["who"], row["how"], row["file"]) == (WHO_BOT, HOW_TASK, "MEMORY.md")
        assert row["chat"] == f"claude-code (MCP session {row['run']})" and row["run"] == first["run"]
    code, printed = command(home_copy, "journal", "scout", "--limit", "1")
    assert code == 0 and f"claude-code, MCP session {second['run']}" in printed

    (bot,) = [b for b in command_json(home_copy, "review", "--bot", "scout")["bots"]]
    (run,) = [r for r in bot["runs"] if r["id"] == first["run"]]
    assert run["steps"] == [HOW_TASK] and [c["id"] for c in run["changes"]] == [first["id"], second["id"]]
    assert {(c["who"], c["how"], c["chat"]) for c in run["changes"]} == {(WHO_BOT, HOW_TASK, first["chat"])}

    assert command(home_copy, "undo-run", "scout", first["run"], "--yes")[0] == 0  # the whole session taken back
    assert "Pune on the 14th" not in memory_md(home_copy) and "9,000 euro" not in memory_md(home_copy)


async def test_a_persons_edit_meanwhile_is_journaled_as_theirs_and_kept(home_copy):
    async with connect(home_copy) as client:
        await client.call_tool(MEMORY_STATUS, {})  # the server is up and has read the files
        path = home_copy.workspace("scout") / "MEMORY.md"
        path.write_text(path.read_text(encoding="utf-8") + "- typed in Obsidian: Dana is back on Monday\n")
        await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "Book the train to Porto"})
    newest, before = journal(home_copy)[:2]
    assert (before["who"], before["how"]) == (WHO_PERSON, HOW_OUTSIDE)
    assert (newest["who"], newest["how"]) == (WHO_BOT, HOW_TASK)
    assert "Dana is back on Monday" in memory_md(home_copy) and "Book the train to Porto" in memory_md(home_copy)


async def test_a_write_is_redacted_and_private(home_copy):
    async with connect(home_copy) as client:
        saved = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": f"The staging key is {FAKE_KEY}"})
    assert not saved.is_error
    assert FAKE_KEY not in memory_md(home_copy) and "«redacted" in memory_md(home_copy)
    assert stat.S_IMODE(os.stat(home_copy.workspace("scout") / "MEMORY.md").st_mode) == 0o600


# ----- bad input and memory off -----
BAD_CALLS = [
    (MEMORY_UPDATE, {"action": "shout", "text": "x"}, "Nothing was done: 'action' must be one of add, forget, prefer."),
    (MEMORY_UPDATE, {"action": "add"}, "Nothing was done: 'text' is missing."),
    (
        MEMORY_UPDATE,
        {"action": "add", "text": "x", "until": "next week"},
        "Nothing was done: 'until' must be a date as YYYY-MM-DD, not 'next week'.",
    ),
    (MEMORY_UPDATE, {"action": "add", "text": "x" * 1001}, "Nothing was done: That note is 1001 characters;"),
    (SESSION_SEARCH, {"scope": "everything", "query": "tea"}, "Nothing was done: "),
    (RECALL, {"message": 7}, "Nothing was done: 'message' must be text."),
    ("read_file", {}, "There is no tool named 'read_file'; the tools are memory_update, session_search, "),
]


async def test_a_bad_argument_is_one_sentence_and_writes_nothing(home_copy):
    before, rows = memory_md(home_copy), len(journal(home_copy))
    async with connect(home_copy) as client:
        for name, arguments, said in BAD_CALLS:
            result = await client.call_tool(name, arguments)
            assert result.is_error and text_of(result).startswith(said), (name, arguments, text_of(result))
            assert "Traceback" not in text_of(result) and "\n" not in text_of(result)
    assert memory_md(home_copy) == before and len(journal(home_copy)) == rows


async def test_memory_off_leaves_memory_status_alone_which_says_so(home_copy):
    update_bot_settings(home_copy, "scout", memory=False)
    before, rows = memory_md(home_copy), len(journal(home_copy))
    async with connect(home_copy) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == [MEMORY_STATUS]
        status = await client.call_tool(MEMORY_STATUS, {})
        refused = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "Prefers tea"})
    assert text_of(status).startswith("Memory is off for Scout (scout): nothing loads into its prompt")
    assert status.structured_content == {"bot": "scout", "name": "Scout", "memory": False}
    assert refused.is_error
    assert text_of(refused) == "Nothing was done: memory is off for this bot, so memory_status is its only tool."
    assert memory_md(home_copy) == before and len(journal(home_copy)) == rows


async def test_a_broken_settings_file_is_one_sentence_wherever_it_is_met_never_a_traceback(home_copy, tmp_path):
    home_copy.settings_path("scout").write_text("{not json", encoding="utf-8")
    broken = f"{home_copy.settings_path('scout')} is not valid JSON"
    with open(tmp_path / "server.log", "w+", encoding="utf-8") as log:
        async with connect(home_copy, errlog=log) as client:
            for refused in (client.list_tools(), client.list_resources()):
                with pytest.raises(MCPError, match=re.escape(broken)):
                    await refused
            for name in (MEMORY_STATUS, MEMORY_UPDATE):
                result = await client.call_tool(name, {"action": "add", "text": "x"})
                assert result.is_error and text_of(result).startswith(f"Nothing was done: {broken}")
        log.seek(0)
        assert "Traceback" not in log.read()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bot", "nobody"], "There is no bot 'nobody' in "),
        (["--bot", "../scout"], "'../scout' is not a valid bot id"),
    ],
)
def test_a_bot_that_does_not_exist_is_one_sentence_and_exit_2(demo_home, argv, said):
    done = run_mcp(["--home", str(demo_home.root), *argv])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"omb-tui: {said}") and done.stderr.count("\n") == 1


def test_a_home_that_does_not_exist_is_one_sentence_and_exit_2(tmp_path):
    done = run_mcp(["--home", str(tmp_path / "typo"), "--bot", "scout"])
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert "does not exist" in done.stderr and not (tmp_path / "typo").exists()


def run_mcp(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "omb_tui.cli", "mcp", *argv],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


async def test_a_note_added_over_mcp_is_in_what_claude_codes_next_session_starts_with(home_copy):
    """Done when, with an agent's hooks: a note the client added through memory_update is in MEMORY.md, so the
    next session's `omb-tui hook session-start` prints it with the memory block (recall never gives MEMORY.md's
    notes: they load every turn)."""
    async with connect(home_copy, name="claude-code") as client:
        added = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "The harbour office opens at 7:15"})
    assert not added.is_error
    payload = '{"session_id": "s-2", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "SessionStart"}'
    done = subprocess.run(
        [sys.executable, "-m", "omb_tui.cli", "--home", str(home_copy.root), "hook", "session-start", "--bot", "scout"],
        input=payload,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0 and "The harbour office opens at 7:15" in done.stdout


@contextlib.contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """The folder refuses every new file, as a read-only home does, even to root (the immutable attribute); skipped
    where chattr is missing or the file system or privileges refuse it."""
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here (needs CAP_LINUX_IMMUTABLE and a file system that has it)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


async def test_a_home_that_cannot_be_written_is_one_sentence_and_no_traceback(home_copy):
    """On a read-only home a tool once answered "The tool failed (OSError)" and stderr held a traceback."""
    before = memory_md(home_copy)
    errlog = tempfile.TemporaryFile("w+")
    with unwritable(home_copy.workspace("scout")):
        async with connect(home_copy, errlog=errlog) as client:
            added = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "Prefers window seats"})
    answer = text_of(added)
    assert answer.startswith("The tool could not finish: Permission denied: ") and answer.count(". ") == 0
    assert "MEMORY.md could not be saved, nothing was changed" in answer  # the file as the person knows it
    errlog.seek(0)
    said = errlog.read()
    assert "Traceback" not in said and "could not finish" in said
    assert memory_md(home_copy) == before


# ----- what a client needs to use the tools well -----
async def test_tools_say_which_only_read_and_what_their_data_looks_like(home_copy):
    async with connect(home_copy) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in (SESSION_SEARCH, RECALL, MEMORY_STATUS):
            assert tools[name].annotations.read_only_hint is True, name
        for name in (MEMORY_UPDATE, TEAM_NOTE):
            assert tools[name].annotations.read_only_hint is False, name
        assert all(tool.annotations.open_world_hint is False for tool in tools.values())
        for name in (RECALL, MEMORY_STATUS):  # their answers carry data: it matches what they declare
            schema = tools[name].output_schema
            result = await client.call_tool(
                name, {"message": "Which hotel did we book for the Lisbon offsite?"} if name == RECALL else {}
            )
            assert set(schema["required"]) <= set(result.structured_content), name
            assert set(result.structured_content) <= set(schema["properties"]), name


async def test_a_prompt_and_a_topic_template_are_offered(home_copy):
    async with connect(home_copy) as client:
        (template,) = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "memory://scout/memory/{topic}"
        (prompt,) = (await client.list_prompts()).prompts
        got = await client.get_prompt(prompt.name, {"about": "the Lisbon offsite"})
        (message,) = got.messages
        assert message.role == "user" and message.content.text.startswith("What do you remember about the Lisbon")
        assert "omb-tui recalled this from your memory" in message.content.text
        with pytest.raises(MCPError):
            await client.get_prompt("nothing_like_it", {"about": "x"})


def start_stdio(home) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "omb_tui.cli", "--home", str(home.root), "mcp", "--bot", "scout"],
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUTF8": "1", **clock.carried_env()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def exchange(server: subprocess.Popen, line: bytes) -> dict:
    server.stdin.write(line + b"\n")
    server.stdin.flush()
    return json.loads(server.stdout.readline())


INITIALIZE_LINE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},'
    b'"clientInfo":{"name":"raw","version":"1"}}}'
)


def test_a_request_the_sdk_cannot_read_gets_an_error_reply_not_silence(home_copy):
    server = start_stdio(home_copy)
    try:
        assert exchange(server, INITIALIZE_LINE)["id"] == 1
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        surrogate = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"message":"a \\ud800 b"}}}'
        deep = b'{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":' + b"[" * 50_000 + b"]" * 50_000 + b"}"
        for line, request_id in ((surrogate, 2), (deep, "deep")):
            reply = exchange(server, line)
            assert reply["id"] == request_id and reply["error"]["code"] == -32700
            assert reply["error"]["message"].startswith("The request is not one this server can read")
        assert exchange(server, b'{"jsonrpc":"2.0","id":4,"method":"ping"}') == {
            "jsonrpc": "2.0",
            "id": 4,
            "result": {},
        }
    finally:
        server.kill()
        server.wait()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_ends_the_stdio_server_with_exit_0(home_copy, signum):
    server = start_stdio(home_copy)
    try:
        assert exchange(server, INITIALIZE_LINE)["id"] == 1  # it is serving
        server.send_signal(signum)
        assert server.wait(timeout=60) == 0  # before: SIGINT left it running until Claude Code sent SIGTERM
        assert b"Traceback" not in server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
