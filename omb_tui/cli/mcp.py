"""`omb-tui mcp`: one bot's memory over the Model Context Protocol (docs/mcp.md); the MCP SDK and the server load
only when it runs."""

from __future__ import annotations

import argparse
import os

from .common import CliError, add_command, given, print_error


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers,
        "mcp",
        cmd_mcp,
        "Serve one bot's memory over MCP: its tools, recall, memory status and files, on stdio, or Streamable "
        "HTTP on 127.0.0.1 with the owner's token (docs/mcp.md).",
        bot=False,
    )
    p.add_argument("--bot", type=given, required=True, metavar="ID", help="the bot whose memory it serves")
    p.add_argument(
        "--http",
        action="store_true",
        help="Streamable HTTP on 127.0.0.1 (this computer only; every request needs the owner's token, as serve's)",
    )
    p.add_argument("--port", type=int, metavar="N", help="with --http: the port (default 8768; 0: any free port)")
    p.add_argument(
        "--person",
        metavar="NAME",
        help="a person of a Team Cloud home the sessions work for: their own layer of the bot too (docs/team-cloud.md)",
    )


def cmd_mcp(args: argparse.Namespace) -> int:
    if args.port is not None and not args.http:
        raise CliError("--port goes with --http: over stdio the client starts this command and talks on its pipes.")
    if not args.http:
        from ..core.files.paths import Home, validate_bot_id
        from ..mcp import front

        if front.switched_on():
            home = Home(args.home)
            validate_bot_id(args.bot)  # as the library's bot(): one sentence, exit 2, before any server starts
            home.require_bot(args.bot)
            if args.person is not None:
                from ..core.people.layers import require_person

                require_person(home, args.person)
            try:  # the home's service, with the SDK loaded already (docs/agents.md, "The MCP service")
                return front.serve_through(home.root, args.bot, os.environ.get(front.ENV_SESSION_ID), args.person)
            except front.Unreachable as exc:
                print_error(f"{exc} This session's server runs in this process.")
    from ..library import Memory

    bot = Memory(args.home).bot(
        args.bot, person=args.person
    )  # a bot that is not there: one sentence, exit 2, before the SDK loads
    from ..mcp.run import serve

    return serve(bot, http=args.http, port=args.port)
