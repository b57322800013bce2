"""Start the MCP server of one bot: over stdio, the client having started this process.

Spec: memory.md, as tools.py says. The command line opens the bot first: a bot or a home that is not there is one
sentence on stderr and exit 2, as every command says it, before the SDK even loads.
"""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from ..library import BotMemory
from .server import MemoryServer


def serve(bot: BotMemory) -> int:
    """`omb-tui mcp --bot ID`: MCP over this process's stdin and stdout until the client closes them."""
    anyio.run(_serve_stdio, MemoryServer(bot))
    return 0


async def _serve_stdio(memory: MemoryServer) -> None:
    server = memory.build()

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, memory.options(server))

    await memory.run_beside(serve)
