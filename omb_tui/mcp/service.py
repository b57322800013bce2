"""The home's MCP service: one long-lived process that serves the sessions `omb-tui mcp` (front.py) hands it,
each over its own connection on a Unix socket, with the MCP SDK loaded once (issue 36; docs/agents.md).

`python -m omb_tui.mcp.service HOME SOCKET`, started by front.py alone. It takes the lock beside its socket (a
second one started at the same moment exits at once), listens before it loads the SDK (so a client waits on the
socket, not on a retry loop), then serves every connection as `omb-tui mcp` over stdio serves its one client:
the same server, the same lines. A connection starts with one line of JSON (the hello: the bot, the Claude Code
session, the code the client runs) and one line back (`{"ok": true}`, or why not). It ends when idle for
IDLE_SECONDS, when its home is gone, when its socket is no longer its own, on SIGTERM or SIGINT (after the calls
still writing, as the stdio server), or, told by a client that the installed code changed, once its sessions end.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import fcntl
import json
import logging
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from .front import HELLO_BYTES, PROTOCOL, START_SECONDS, STDERR_LINE, code_stamp, idle_seconds

log = logging.getLogger("omb_tui.mcp")
MAX_LINE = 64 * 1024 * 1024  # a JSON-RPC line longer than this ends its connection (a memory file is 24 KB)
MAX_CONNECTIONS = 200  # past this a new connection is refused (its client then runs the server itself)
SHUTDOWN_SECONDS = 3
# Where a log line of a session goes: to its client's stderr (through the front), as `omb-tui mcp` in the client's
# own process wrote it; a line of no session goes to the service's log.
_SESSION_LOG: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("session_log", default=None)


class _ToSession(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        tell = _SESSION_LOG.get()
        if tell is not None:
            tell(self.format(record))


def _of_no_session(record: logging.LogRecord) -> bool:
    return _SESSION_LOG.get() is None


class _Lines:
    """A connection's lines, as the SDK's stdio transport reads stdin."""

    def __init__(self, stream: BufferedByteReceiveStream) -> None:
        self.stream = stream

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        try:
            line = await self.stream.receive_until(b"\n", MAX_LINE)
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError, anyio.BrokenResourceError):
            raise StopAsyncIteration from None
        except anyio.DelimiterNotFound:
            log.warning("A client sent a line over %d MB; its session ends.", MAX_LINE >> 20)
            raise StopAsyncIteration from None
        return line.decode("utf-8", "replace")


class _Out:
    """A connection's side the answers go to, as the SDK's stdio transport writes stdout."""

    def __init__(self, stream: anyio.abc.ByteStream) -> None:
        self.stream = stream
        self.sending = anyio.Lock()  # the SDK's answers and the session's log lines, one whole line at a time

    async def write(self, text: str) -> None:
        await self.send(text.encode("utf-8", "surrogateescape"))

    async def send(self, data: bytes) -> None:
        async with self.sending:
            await self.stream.send(data)

    async def send_log(self, lines: asyncio.Queue[str]) -> None:
        while True:
            text = await lines.get()
            await self.send(
                b"".join(STDERR_LINE + line.encode("utf-8", "replace") + b"\n" for line in text.splitlines())
            )

    async def flush(self) -> None:
        return None


class Service:
    def __init__(self, root: Path, path: Path, lock: int) -> None:
        self.root = root
        self.path = path
        self.lock = lock  # held while the socket is this service's to give up
        self.stamp = code_stamp()
        self.open = 0
        self.last_closed = time.monotonic()
        self.draining = False  # told the installed code changed: no new sessions, ends with its last one
        self.servers: list[Any] = []  # the MemoryServer of each open session, for the calls still writing
        self.inode = 0

    async def connection(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            if self.open >= MAX_CONNECTIONS or self.draining:
                await _answer(stream, {"ok": False, "stale": self.draining, "why": "The MCP service is full."})
                return
            self.open += 1
            try:
                await self._session(stream)
            except Exception as exc:  # one connection's failure never ends the others' sessions
                log.warning("An MCP session ended on an error: %s", exc)
            finally:
                self.open -= 1
                self.last_closed = time.monotonic()

    async def _session(self, stream: anyio.abc.SocketStream) -> None:
        if not _same_user(stream):
            await _answer(stream, {"ok": False, "why": "The MCP service serves its own user alone."})
            return
        buffered = BufferedByteReceiveStream(stream)
        hello = None
        with anyio.move_on_after(START_SECONDS):  # a client that says nothing is let go, holding no one up
            hello = _parsed(await buffered.receive_until(b"\n", HELLO_BYTES))
        if not hello:
            return
        if hello.get("omb") != PROTOCOL or hello.get("stamp") != self.stamp:
            self.stop_taking()
            await _answer(stream, {"ok": False, "stale": True, "why": "This service runs other code."})
            return
        from ..core.memory.paths import MemoryInputError
        from ..library import Memory
        from .run import serve_lines
        from .server import MemoryServer

        try:
            person = hello.get("person")  # a Team Cloud person the session works for (None: the owner)
            bot = Memory(self.root).bot(str(hello.get("bot")), person=person if isinstance(person, str) else None)
        except (MemoryInputError, OSError) as exc:
            await _answer(stream, {"ok": False, "why": str(exc)})
            return
        session = hello.get("session")
        memory = MemoryServer(bot, agent_session_id=session if isinstance(session, str) else None)
        await _answer(stream, {"ok": True})
        out = _Out(stream)
        loop, lines = asyncio.get_running_loop(), asyncio.Queue[str]()
        _SESSION_LOG.set(lambda line: loop.call_soon_threadsafe(lines.put_nowait, line))  # this task's, and its own
        self.servers.append(memory)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(out.send_log, lines)
                await serve_lines(memory, _Lines(buffered), out)
                group.cancel_scope.cancel()
        finally:
            self.servers.remove(memory)

    def stop_taking(self) -> None:
        """Give the socket up to the next service (unlinked while it is still ours) and end with the last
        session."""
        if not self.draining:
            self.draining = True
            self.give_up_socket()

    def give_up_socket(self) -> None:
        """The socket unlinked while it is still ours, then the lock let go: the next service may start."""
        if self.lock < 0:
            return
        if self._socket_is_ours():
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(self.lock)
        self.lock = -1

    def _socket_is_ours(self) -> bool:
        try:
            return os.lstat(self.path).st_ino == self.inode
        except OSError:
            return False

    def should_end(self) -> bool:
        if self.open:
            return False
        if self.draining or not self.root.is_dir() or not self._socket_is_ours():
            return True
        return time.monotonic() - self.last_closed >= idle_seconds()

    async def watch_end(self, scope: anyio.CancelScope) -> None:
        while not self.should_end():
            await anyio.sleep(0.25)
        scope.cancel()

    async def on_signal(self, scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                self.stop_taking()
                with anyio.move_on_after(SHUTDOWN_SECONDS):
                    while any(server.calls_running for server in self.servers):
                        await anyio.sleep(0.01)
                scope.cancel()
                return


def _same_user(stream: anyio.abc.SocketStream) -> bool:
    """The client runs as this user (the socket's folder is only theirs already; Linux says who is at the other
    end, so a folder made open later is no way in either)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    raw = stream.extra(anyio.abc.SocketAttribute.raw_socket)
    _pid, uid, _gid = struct.unpack("3i", raw.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return bool(uid == os.getuid())


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


async def _answer(stream: anyio.abc.ByteStream, answer: dict[str, object]) -> None:
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stream.send(json.dumps(answer).encode() + b"\n")


async def _serve(service: Service) -> None:
    listener = await anyio.create_unix_listener(service.path)
    os.chmod(service.path, 0o600)
    service.inode = os.lstat(service.path).st_ino
    from . import server  # noqa: F401  the SDK loads now, while the first client's hello waits on the socket

    async with listener, anyio.create_task_group() as group:
        group.start_soon(service.watch_end, group.cancel_scope)
        group.start_soon(service.on_signal, group.cancel_scope)
        await listener.serve(service.connection)
    service.give_up_socket()


def main(argv: list[str]) -> int:
    from ..core.memory.redact_data import redact_log_handlers

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s omb-tui mcp service: %(message)s")
    logging.getLogger().handlers[0].addFilter(_of_no_session)
    to_session = _ToSession()
    to_session.setFormatter(logging.Formatter("omb-tui: %(message)s"))  # as `omb-tui mcp` writes its own
    logging.getLogger().addHandler(to_session)
    redact_log_handlers()
    root, path = Path(argv[0]), Path(argv[1])
    from ..core.recall import vectors_background

    vectors_background.enable()  # a long-lived process: embeddings on, vectors are made in its background
    lock = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another one is starting or serving: its socket is the one to use
        return 0
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a socket left by one that was killed: no one listens on it (the lock says)
    anyio.run(_serve, Service(root, path, lock))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
