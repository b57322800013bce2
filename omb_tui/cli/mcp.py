"""`omb-tui mcp`: one bot's memory over the Model Context Protocol (docs/mcp.md); the MCP SDK and the server load
only when it runs."""

from __future__ import annotations

import argparse

from .common import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers,
        "mcp",
        cmd_mcp,
        "Serve one bot's memory over MCP: its tools, recall and memory status, on stdio (docs/mcp.md).",
        bot=False,
    )
    p.add_argument("--bot", required=True, metavar="ID", help="the bot whose memory it serves")


def cmd_mcp(args: argparse.Namespace) -> int:
    from ..library import Memory

    bot = Memory(args.home).bot(args.bot)  # a bot that is not there: one sentence, exit 2, before the SDK loads
    from ..mcp.run import serve

    return serve(bot)
