"""`omb-tui serve`: the memory routes over HTTP (docs/serve.md); aiohttp and the server load only when it runs."""

from __future__ import annotations

import argparse

from ..core.files.paths import Home
from .common import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers,
        "serve",
        cmd_serve,
        "Serve the memory routes over HTTP under /api (JSON, the owner's bearer token; docs/serve.md).",
        bot=False,
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this computer only)"
    )
    p.add_argument("--port", type=int, default=8767, metavar="N", help="the port (default 8767; 0: any free port)")
    p.add_argument("--allow-remote", action="store_true", help="allow a --host other computers can reach")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        type=_allowed_host,
        help="answer requests whose Host header is NAME (a proxy's or a LAN name; any port unless given), "
        "besides this server's own address; repeatable",
    )
    p.add_argument("--show-token", action="store_true", help="print the token (made on first use) and exit")


def _allowed_host(value: str) -> str:
    from ..server.hosts import allowed_host_argument  # (light, but the server package loads only when used)

    try:
        return allowed_host_argument(value)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def cmd_serve(args: argparse.Namespace) -> int:
    from ..server.run import serve

    return serve(
        Home(args.home),
        host=args.host,
        port=args.port,
        allow_remote=args.allow_remote,
        allow_hosts=args.allow_host,
        show_token=args.show_token,
    )
