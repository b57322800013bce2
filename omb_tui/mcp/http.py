"""`omb-tui mcp --http`: Streamable HTTP on 127.0.0.1 alone, every request the owner's.

Spec: memory.md, as tools.py says; the MCP specification's transport security (Streamable HTTP: a server validates
the Origin header against DNS rebinding, binds to localhost when it runs locally, and authenticates every
connection). Before the SDK sees a request, `OwnerOnly` checks, in this order: the Host header names this server
(421 otherwise: a page whose name was rebound to 127.0.0.1 sends its own name); an Origin header, when a browser
sends one, is a page of this computer (403 otherwise); the owner's bearer token, the same file `omb-tui serve` uses
(403 without it or with a wrong one, compared in constant time; never 401, which clients read as OAuth).
Each refusal is `{"error": "<one sentence>"}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import anyio
import anyio.abc
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from ..core.files.paths import MemoryInputError, quoted
from ..core.people.owner_token import BODY_TOO_BIG, MAX_BODY_BYTES, load_or_create_token, token_matches, token_path
from ..netguard.connections import (
    BACKLOG,
    ConnectionGuard,
    GuardedConnection,
    ServeLimits,
    count_accept_failures,
)
from ..netguard.log import log_off_the_event_loop
from .server import MemoryServer

HOST = "127.0.0.1"  # this computer only: there is no option to listen elsewhere
DEFAULT_PORT = 8768  # beside `omb-tui serve`'s 8767
MCP_PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
SHUTDOWN_SECONDS = 3  # a client's open event stream is not waited on longer than this at Ctrl-C
LIMITS = ServeLimits()  # a head within 10 s, a body within 30 s, 500 connections at most: as `omb-tui serve`


class OwnerOnly:
    """ASGI middleware: the Host, the Origin and the owner's token, before anything else runs; while a request is
    in progress its connection is busy for the guard (neither its deadline nor the cap closes it)."""

    def __init__(
        self, app: ASGIApp, token: str, port: int, token_file: str, guard: ConnectionGuard | None = None
    ) -> None:
        self.app = app
        self.token = token
        self.port = port
        self.token_file = token_file
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.guard is None:
            await self.answer(scope, receive, send)
            return
        with self.guard.request(self.guard.transport_of(scope.get("client"))):
            await self.answer(scope, receive, send)

    async def answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {name.lower(): value for name, value in scope["headers"]}
            refused = self.refusal(headers, scope.get("path", ""))
            if refused is None:
                body, refused = await self.body(headers, receive)
            if refused is not None:
                await _refuse(send, *refused)
                return
            # a host name in any case is this server's (checked above); the SDK's own check reads it as written
            scope = {**scope, "headers": [(k, v.lower() if k.lower() == b"host" else v) for k, v in scope["headers"]]}
            receive = _replay(body, receive)
        await self.app(scope, receive, send)

    async def body(self, headers: dict[bytes, bytes], receive: Receive) -> tuple[bytes, tuple[int, str] | None]:
        """The whole body within the guard's time for one (408 past it), as `omb-tui serve` reads one."""
        limits = self.guard.limits if self.guard is not None else LIMITS
        with anyio.move_on_after(limits.body_seconds):
            return await _bounded_body(headers, receive)
        if self.guard is not None:  # only a body past its time gets here
            self.guard.events.add("slow body")
        return b"", (408, limits.slow_body())

    def refusal(self, headers: dict[bytes, bytes], path: str = MCP_PATH) -> tuple[int, str] | None:
        host = headers.get(b"host", b"").decode("latin-1")
        own = (f"127.0.0.1:{self.port}", f"localhost:{self.port}")
        if host.lower() not in own:
            return 421, f"This server answers to {own[0]} or {own[1]}, not to {quoted(host[:100])}."
        origin = headers.get(b"origin")
        if origin is not None and not _from_this_computer(origin.decode("latin-1")):
            return 403, (
                f"A request from the web page {quoted(origin.decode('latin-1')[:100])} is refused: only a page of "
                "this computer may call this server."
            )
        if path.startswith("/.well-known/"):  # OAuth discovery: answered, so no client starts a flow it cannot end
            return 404, (
                f"This server takes the owner's bearer token, not OAuth: send 'Authorization: Bearer <token>' (it "
                f"is in the file {self.token_file}; omb-tui serve --show-token prints it)."
            )
        scheme, _, given = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            # 403, not 401: every MCP client reads a 401 as the start of OAuth, and one without a terminal (the
            # Inspector's CLI) then ends on its own "requires a TTY" and never shows this sentence
            return 403, (
                f"This needs the owner's token as 'Authorization: Bearer <token>' (it is in the file "
                f"{self.token_file}; omb-tui serve --show-token prints it)."
            )
        if not token_matches(given.strip(), self.token):
            return 403, "That token is not the owner's; nothing was read or changed."
        return None


TOO_BIG = (413, BODY_TOO_BIG)


async def _bounded_body(headers: dict[bytes, bytes], receive: Receive) -> tuple[bytes, tuple[int, str] | None]:
    """The whole body, read before the SDK sees it, up to MAX_BODY_BYTES (as `omb-tui serve`): a longer one, declared
    or sent in chunks, is refused without reading on (a 30 MB argument once held the server 20 s at 600 MB)."""
    declared = headers.get(b"content-length", b"").strip()
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return b"", TOO_BIG
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: the SDK sees that as it would
            return b"", None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return b"", TOO_BIG
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts), None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body already read, then whatever the connection says next (a disconnect)."""
    given = False

    async def replayed() -> dict:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _from_this_computer(origin: str) -> bool:
    """An Origin of a page this computer serves (any port): http(s) on a loopback name. `null` is not one."""
    try:
        parts = urlsplit(origin)
        name = parts.hostname
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and name in LOOPBACK_NAMES


async def _refuse(send: Send, status: int, sentence: str) -> None:
    body = json.dumps({"error": sentence}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii"))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def listen(port: int) -> socket.socket:
    """The socket on 127.0.0.1:port (0: any free port), or one sentence saying why not."""
    if not 0 <= port <= 65535:
        raise MemoryInputError(f"--port must be from 0 to 65535, not {port}.")
    try:
        return socket.create_server((HOST, port))
    except OSError as exc:
        raise MemoryInputError(
            f"Cannot listen on {HOST} port {port}: {(exc.strerror or str(exc)).rstrip('.').lower()}."
        ) from None


class _Uvicorn(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Ctrl-C and SIGTERM are this command's (`_stop_on_signal`): it stops and exits 0, as `serve` does, where
        uvicorn's own handlers would raise the signal again once it stopped."""
        yield


def serve_http(memory: MemoryServer, port: int, say: Callable[[str], None]) -> int:
    """Serve until Ctrl-C or SIGTERM; the address and where the token is are said once it is listening.

    Every connection sits behind the connection guard `omb-tui serve` uses (omb_tui/netguard): uvicorn's h11
    protocol object is made inside a GuardedConnection only once the guard lets the connection in, a head has
    LIMITS.header_seconds to arrive and a body LIMITS.body_seconds, the open connections are capped below the
    descriptor limit with the longest idle closed first, accept() failing for want of descriptors is counted, not
    told as a traceback, and the log is written by a thread, never from the event loop."""
    home = memory.bot.home
    token = load_or_create_token(home)
    sock = listen(port)
    bound = sock.getsockname()[1]
    guard = ConnectionGuard(LIMITS)
    server = _Uvicorn(
        uvicorn.Config(
            OwnerOnly(_app(memory), token, bound, str(token_path(home)), guard),
            http=_guarded_h11(guard),
            backlog=BACKLOG,  # what connection_cap counts on
            log_config=None,  # our logging (redacted, one line), not uvicorn's
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        )
    )
    listening = (
        f"Serving {memory.bot.core.name}'s memory over MCP on http://{HOST}:{bound}{MCP_PATH} (the owner's token is "
        f"in {token_path(home)}; omb-tui serve --show-token prints it). Ctrl-C stops."
    )
    with log_off_the_event_loop():
        anyio.run(_serve, memory, server, sock, guard, lambda: say(listening))
    return 0


def _guarded_h11(guard: ConnectionGuard) -> Callable[..., asyncio.Protocol]:
    """What uvicorn calls for each connection (its `http` setting takes a protocol class or any such callable)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    def protocol(**made_with: object) -> asyncio.Protocol:
        return GuardedConnection(guard, lambda: H11Protocol(**made_with))  # type: ignore[arg-type]

    return protocol


def _app(memory: MemoryServer) -> ASGIApp:
    server = memory.build()
    return server.streamable_http_app(streamable_http_path=MCP_PATH, host=HOST)


async def _serve(
    memory: MemoryServer, server: _Uvicorn, sock: socket.socket, guard: ConnectionGuard, listening: Callable[[], None]
) -> None:
    asyncio.get_running_loop().set_exception_handler(count_accept_failures(guard.events))

    async def serve() -> None:
        async with anyio.create_task_group() as group:
            await group.start(_stop_on_signal, server)
            listening()  # the socket queues connections already; a signal from now on stops it cleanly
            await server.serve(sockets=[sock])
            group.cancel_scope.cancel()

    await memory.run_beside(serve)


async def _stop_on_signal(server: _Uvicorn, *, task_status: anyio.abc.TaskStatus[None]) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            server.should_exit = True
            return
