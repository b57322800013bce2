"""Start the MCP server of one bot: over stdio (the client started this process), or Streamable HTTP (http.py).

Spec: memory.md, as tools.py says. The command line opens the bot first: a bot or a home that is not there is one
sentence on stderr and exit 2, as every command says it, before the SDK even loads.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
import pydantic
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from ..library import BotMemory
from .front import ENV_SESSION_ID
from .server import MemoryServer


def serve(
    bot: BotMemory, *, http: bool = False, port: int | None = None, say: Callable[[str], None] | None = None
) -> int:
    """`omb-tui mcp --bot ID`: MCP over this process's stdin and stdout until the client closes them; with `http`,
    Streamable HTTP on 127.0.0.1:port until Ctrl-C or SIGTERM."""
    from ..core.index import background as vectors_background

    vectors_background.enable()  # a long-lived process: embeddings on, vectors are made in its background
    if not http:
        memory = MemoryServer(bot, agent_session_id=os.environ.get(ENV_SESSION_ID), cwd=os.getcwd())
        anyio.run(_serve_stdio, memory)
        return 0
    from .http import DEFAULT_PORT, serve_http

    memory = MemoryServer(bot)
    return serve_http(memory, DEFAULT_PORT if port is None else port, say or (lambda line: print(line, flush=True)))


SHUTDOWN_SECONDS = 3  # a tool call still writing at Ctrl-C or SIGTERM is waited for this long at most


async def _serve_stdio(memory: MemoryServer) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(_exit_on_signal, memory)
        await serve_lines(memory)
        group.cancel_scope.cancel()


async def serve_lines(memory: MemoryServer, lines_in: Any = None, lines_out: Any = None) -> None:
    """One client's session over lines of JSON-RPC: this process's stdin and stdout, or (the MCP service) a
    connection's, given as the SDK's stdio transport takes them (`async for line in lines_in`,
    `lines_out.write(text)` and `flush()`)."""
    server = memory.build()

    async def serve() -> None:
        async with stdio_server(lines_in, lines_out) as (read, write), anyio.create_task_group() as group:
            checked_in, checked = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            group.start_soon(_answer_unreadable, read, write, checked_in)
            await server.run(checked, write, server.create_initialization_options())
            group.cancel_scope.cancel()

    await memory.run_beside(serve)


async def _exit_on_signal(memory: MemoryServer) -> None:
    """Ctrl-C or SIGTERM ends the stdio server at once, exit 0: a tool call still writing finishes first (up to
    SHUTDOWN_SECONDS; every write is atomic and journaled before its file changes, so even then nothing is half
    done), then the process ends without waiting on the thread that reads stdin, which no signal wakes (Claude
    Code waited for SIGINT in vain, then sent SIGTERM)."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            with anyio.move_on_after(SHUTDOWN_SECONDS):
                while memory.calls_running:
                    await anyio.sleep(0.01)
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(0)


_REQUEST_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


async def _answer_unreadable(
    read: anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
    write: anyio.abc.ObjectSendStream[SessionMessage],
    forward: anyio.abc.ObjectSendStream[SessionMessage | Exception],
) -> None:
    """Pass the client's messages on; a line that is not a JSON-RPC message (a lone surrogate escape, nesting
    deeper than the parser goes) gets a parse error back, with its id when one can be read from the line, where
    the SDK answered nothing and the client waited for ever."""
    async with forward:
        async for item in read:
            reply = unreadable_reply(item) if isinstance(item, Exception) else None
            if reply is None:
                await forward.send(item)
            else:
                await write.send(reply)


def unreadable_reply(problem: Exception) -> SessionMessage | None:
    """The parse error for a line the SDK could not read (None for another problem: the SDK's to handle)."""
    errors = problem.errors() if isinstance(problem, pydantic.ValidationError) else []
    line = errors[0].get("input") if errors else None
    if not isinstance(line, str) or errors[0].get("type") != "json_invalid":
        return None
    found = _REQUEST_ID.search(line[:4096].encode("utf-8", "surrogateescape"))
    request_id: str | int | None = None
    if found:
        given = found.group(1).decode("utf-8", "replace")
        request_id = int(given) if not given.startswith('"') else given[1:-1]
    why = str(errors[0].get("msg") or "it is not valid JSON").removeprefix("Invalid JSON: ")
    sentence = f"The request is not one this server can read ({why}); nothing was done."
    error = types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=types.PARSE_ERROR, message=sentence)
    )
    return SessionMessage(error)
