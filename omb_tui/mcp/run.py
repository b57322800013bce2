"""Start the MCP server of one bot: over stdio (the client started this process), or Streamable HTTP (http.py).

Spec: memory.md, as tools.py says. The command line opens the bot first: a bot or a home that is not there is one
sentence on stderr and exit 2, as every command says it, before the SDK even loads.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
from mcp.server.stdio import stdio_server

from ..library import BotMemory
from .server import MemoryServer


def serve(
    bot: BotMemory, *, http: bool = False, port: int | None = None, say: Callable[[str], None] | None = None
) -> int:
    """`omb-tui mcp --bot ID`: MCP over this process's stdin and stdout until the client closes them; with `http`,
    Streamable HTTP on 127.0.0.1:port until Ctrl-C or SIGTERM."""
    memory = MemoryServer(bot)
    if not http:
        anyio.run(_serve_stdio, memory)
        return 0
    from .http import DEFAULT_PORT, serve_http

    return serve_http(memory, DEFAULT_PORT if port is None else port, say or (lambda line: print(line, flush=True)))


async def _serve_stdio(memory: MemoryServer) -> None:
    server = memory.build()

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    await memory.run_beside(serve)
