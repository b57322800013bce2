"""The MCP server of one bot's memory: the SDK's low-level server over tools.py, one session per client.

Spec: memory.md, as tools.py says. The low-level `Server` of the official SDK (2.x), not its decorator layer: the
tools keep the core's own JSON schemas, which a function signature could not give. Every call runs the core in a
worker thread, so a slow write or a recall index being brought up to date never holds up the event loop.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from .. import __version__
from ..library import BotMemory
from .session import Session, Sessions
from .tools import call, offered, tool_name

SERVER_NAME = "omb-tui"
SESSION_HEADER = "mcp-session-id"  # Streamable HTTP's session, when the client keeps one


def instructions(bot: BotMemory) -> str:
    """What the client is told once, at the start, of this server."""
    return (
        f"The long-term memory of the bot {bot.core.name} ({bot.id}), kept by omb-tui as markdown files: every "
        "change is journaled as yours and a person can undo it. Call recall with each new message; save what "
        "should stay with memory_update; look back with session_search. The resource MEMORY.md is the memory "
        "block as it loads into your prompt."
    )


class MemoryServer:
    """The handlers of one server: the bot, and the sessions of the clients that call it."""

    def __init__(self, bot: BotMemory) -> None:
        self.bot = bot
        self.sessions = Sessions()

    def session_of(self, ctx: ServerRequestContext[Any, Any]) -> Session:
        """The calling client's session: by the name it gave and, over HTTP, the session it keeps."""
        params = ctx.session.client_params
        headers = getattr(ctx.request, "headers", None)
        transport = headers.get(SESSION_HEADER) if headers is not None else None
        return self.sessions.of(params.client_info.name if params is not None else None, transport)

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = await anyio.to_thread.run_sync(offered, self.bot)
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in tools])

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = self.session_of(ctx)
        answer = await anyio.to_thread.run_sync(call, self.bot, session, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)], structured_content=answer.data, is_error=answer.refused
        )

    def build(self) -> Server[Any]:
        return Server(
            SERVER_NAME,
            version=__version__,
            title=f"{self.bot.core.name}'s memory (omb-tui)",
            instructions=instructions(self.bot),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )


def mcp_tool(tool: dict) -> types.Tool:
    """A tool in OpenAI's function format, as the core writes the bot's own, as MCP lists it."""
    function = tool["function"]
    return types.Tool(name=tool_name(tool), description=function["description"], input_schema=function["parameters"])
