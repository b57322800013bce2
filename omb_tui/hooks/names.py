"""What a bot's MCP server and its tools are called in the agents' settings and in the memory block: the install
writes these names and a session-start hook says them, so they live apart from the install's settings code (which
imports TOML and a settings reader a hook would pay for at every session's start)."""

from __future__ import annotations

import re

from ..core.memory.agents import CLAUDE_CODE, CODEX

MCP_SERVER_NAME = "omb-tui"  # the name every bot's server had before each got its own: install moves it
MCP_SERVER_PREFIX = "omb-tui-"


def server_name(bot_id: str) -> str:
    """The bot's MCP server in a client's settings: `omb-tui-<bot>`, so two bots wired at once (a user install and
    a project install) are two servers, and the agent's tools read `mcp__omb-tui-<bot>__memory_update`."""
    return MCP_SERVER_PREFIX + bot_id


def tool_name(bot_id: str, tool: str) -> str:
    """What Claude Code calls the bot's tool `tool`: `mcp__<server>__<tool>`."""
    return f"mcp__{server_name(bot_id)}__{tool}"


def codex_namespace(bot_id: str) -> str:
    """The namespace Codex offers the bot's tools in (behind its tool search): `mcp__<server>`, every character
    but a letter, a digit and `_` made `_` (`mcp__omb_tui_scout`); the tools keep their own names."""
    return "mcp__" + re.sub(r"[^A-Za-z0-9_]", "_", server_name(bot_id))


def tools_named(bot_id: str, agent: str = CLAUDE_CODE) -> str:
    """The memory block's words for the bot's save and search tools, as the agent names them."""
    if agent == CODEX:
        return (
            f"the memory_update tool and look back through earlier conversations with session_search (both in the "
            f"tool namespace {codex_namespace(bot_id)} of the {server_name(bot_id)} MCP server"
        )
    return (
        f"the {tool_name(bot_id, 'memory_update')} tool and look back through earlier conversations with "
        f"{tool_name(bot_id, 'session_search')} (the {server_name(bot_id)} MCP server"
    )
