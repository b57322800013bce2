"""Start the server: loopback unless told otherwise, the token made on the first start, the address printed."""

from __future__ import annotations

import asyncio
import ipaddress
import signal
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from aiohttp import web

from ..core.files.paths import Home, MemoryInputError, quoted
from ..core.people.owner_token import load_or_create_token, token_path
from ..netguard.log import log_off_the_event_loop
from .app import HOSTS, Opener, build_app
from .connections import BACKLOG, HttpParserLog, count_accept_failures
from .http import GUARD

DEFAULT_PORT = 8767


def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to any address, so it counts as remote
        return False


def remote_warning(host: str, port: int) -> str:
    return (
        f"Listening on {host}:{port}, not only on this computer: anyone who can reach it and has the token can "
        "read and change every bot's memory, its journal and About me. The token travels in clear text (no "
        "TLS): use this only on a network you trust, or behind a TLS proxy."
    )


@dataclass
class Listening:
    """A started server: the port it got, and how to stop it."""

    runner: web.AppRunner
    server: asyncio.AbstractServer
    port: int

    async def stop(self) -> None:
        self.server.close()
        await self.runner.cleanup()


async def start(app: web.Application, host: str, port: int) -> Listening:
    """Listen on host:port (0: any free port), every connection behind the app's guard (connections.py)."""
    guard = app[GUARD]
    runner = web.AppRunner(app, access_log=None, handle_signals=False, logger=HttpParserLog(guard.events))
    await runner.setup()
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(count_accept_failures(guard.events))
    try:
        server = await loop.create_server(guard.protocol_factory(runner.server), host, port, backlog=BACKLOG)
    except OSError as exc:
        await runner.cleanup()
        raise MemoryInputError(
            f"Cannot listen on {quoted(host)} port {port}: {(exc.strerror or str(exc)).rstrip('.').lower()}."
        ) from None
    bound = server.sockets[0].getsockname()[1]
    app[HOSTS].listening_on(host, bound)
    return Listening(runner, server, bound)


def serve(
    home: Home,
    *,
    host: str,
    port: int,
    allow_remote: bool = False,
    allow_hosts: Iterable[str] = (),
    show_token: bool = False,
    say: Callable[[str], None] | None = None,
    opener: Opener | None = None,
) -> int:
    """`omb-tui serve`: runs until Ctrl-C or SIGTERM. With show_token, prints the token (making it) and returns."""
    say = say or (lambda line: print(line, flush=True))
    if not 0 <= port <= 65535:
        raise MemoryInputError(f"--port must be from 0 to 65535, not {port}.")
    if not is_loopback_host(host) and not allow_remote:
        raise MemoryInputError(
            f"{quoted(host)} is not a loopback address: listening there lets other computers "
            "reach every bot's memory. Add --allow-remote if that is what you want."
        )
    token = load_or_create_token(home)
    if show_token:
        say(token)
        return 0
    from ..core.index import background as vectors_background

    vectors_background.enable()  # a long-lived process: embeddings on, vectors are made in its background
    with log_off_the_event_loop():
        app = build_app(home, token, opener=opener, allow_hosts=allow_hosts)
        return asyncio.run(_serve(app, home, host, port, say))


async def _serve(app: web.Application, home: Home, host: str, port: int, say: Callable[[str], None]) -> int:
    listening = await start(app, host, port)
    bound = listening.port
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):  # Windows: Ctrl-C still ends asyncio.run
            pass
    shown = f"[{host}]" if ":" in host else host
    if not is_loopback_host(host):
        say(remote_warning(host, bound))
    say(
        f"Serving {home.root} on http://{shown}:{bound}/api (the token is in {token_path(home)}; "
        "omb-tui serve --show-token prints it). Ctrl-C stops."
    )
    try:
        await stop.wait()
    finally:
        await listening.stop()
    return 0
