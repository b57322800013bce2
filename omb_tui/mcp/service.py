"""The home's MCP service: one long-lived process that serves the sessions `omb-tui mcp` (front.py) hands it,
each over its own connection on a Unix socket, with the MCP SDK loaded once (docs/agents.md, "The MCP service";
docs/mcp.md, "A session and its service").

`python -m omb_tui.mcp.service HOME SOCKET`, started by front.py alone. It takes the lock beside its socket (a
second one started at the same moment exits at once), listens before it loads the SDK (so a client waits on the
socket, not on a retry loop), then serves every connection as `omb-tui mcp` over stdio serves its one client:
the same server, the same lines. A connection starts with one line of JSON (the hello: the bot, the Claude Code
session, the code the client runs, the client's environment) and one line back (`{"ok": true}`, or why not).
The session's last line says how it ended (front.LAST_LINE): the client closed its side, or the sentence why the
service could not go on with it (an error, a stop). It ends when idle for IDLE_SECONDS, when its home is gone,
when its socket is no longer its own, on SIGTERM or SIGINT (after the calls still writing, as the stdio server),
or, told by a client that the installed code changed, once its sessions end.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import fcntl
import functools
import io
import json
import logging
import os
import resource
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
import anyio.to_thread
from anyio.streams.buffered import BufferedByteReceiveStream

from ..core.base.text import plural
from ..core.memory import environment
from .front import (
    HELLO_BYTES,
    LAST_LINE,
    PROTOCOL,
    START_SECONDS,
    STDERR_LINE,
    code_stamp,
    idle_seconds,
    max_sessions,
)

log = logging.getLogger("omb_tui.mcp")
MAX_LINE = 64 * 1024 * 1024  # a JSON-RPC line longer than this ends its connection (a memory file is 24 KB)
SHUTDOWN_SECONDS = 3
DESCRIPTORS_PER_SESSION = 8  # its connection, the watcher's inotify and pipe, the index while a call reads it
DESCRIPTORS_KEPT = 64  # the service's own (the SDK, the log, the listener) and a margin
STOPPED = "The MCP service was stopped in the middle of this session; start the session again."
# Where a log line of a session goes: to its client's stderr (through the front), as `omb-tui mcp` in the client's
# own process wrote it; a line of no session goes to the service's log.
_SESSION_LOG: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("session_log", default=None)


class _ToSession(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        tell = _SESSION_LOG.get()
        if tell is not None:
            tell(self.format(record))


# Where a log line of a hook's call goes: into its answer, as the command line in the hook's process wrote it.
_HOOK_LOG: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("hook_log", default=None)


class _ToHook(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        lines = _HOOK_LOG.get()
        if lines is not None:
            lines.append(self.format(record) + "\n")


def _of_no_session(record: logging.LogRecord) -> bool:
    return _SESSION_LOG.get() is None and _HOOK_LOG.get() is None


class _Lines:
    """A connection's lines, as the SDK's stdio transport reads stdin."""

    def __init__(self, stream: BufferedByteReceiveStream) -> None:
        self.stream = stream
        self.why: str | None = None  # why the lines ended early, when they did

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        try:
            line = await self.stream.receive_until(b"\n", MAX_LINE)
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError, anyio.BrokenResourceError):
            raise StopAsyncIteration from None
        except anyio.DelimiterNotFound:
            self.why = f"The client sent a line over {MAX_LINE >> 20} MB, so the MCP service ended the session."
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

    async def send_last(self, ending: dict[str, object]) -> None:
        """The session's last line: how it ended, for the front to say and exit with."""
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            await self.send(LAST_LINE + json.dumps(ending).encode() + b"\n")


class Service:
    def __init__(self, root: Path, path: Path, lock: int) -> None:
        self.root = root
        self.path = path
        self.lock = lock  # held while the socket is this service's to give up
        self.stamp = code_stamp()
        self.open = 0
        self.cap = session_cap(max_sessions())
        self.last_closed = time.monotonic()
        self.draining = False  # told the installed code changed: no new sessions, ends with its last one
        self.servers: list[Any] = []  # the MemoryServer of each open session, for the calls still writing
        self.inode = 0

    async def connection(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            full = self.open >= self.cap
            self.open += 1  # counted from its hello on, so that the service never ends idle with it unanswered
            try:
                await self._session(stream, full)
            except Exception as exc:  # one connection's failure never ends the others' sessions
                log.warning("An MCP session ended on an error: %s", exc)
            finally:
                self.open -= 1
                self.last_closed = time.monotonic()

    async def _session(self, stream: anyio.abc.SocketStream, full: bool) -> None:
        if not _same_user(stream):
            await _answer(stream, {"ok": False, "why": "The MCP service serves its own user alone."})
            return
        buffered = BufferedByteReceiveStream(stream)
        hello = None
        with anyio.move_on_after(START_SECONDS):  # a client that says nothing is let go, holding no one up
            try:
                hello = _parsed(await buffered.receive_until(b"\n", HELLO_BYTES))
            except anyio.DelimiterNotFound:
                await _answer(
                    stream,
                    {
                        "ok": False,
                        "why": f"The client's environment is over {HELLO_BYTES >> 20} MiB, more than a hello takes.",
                    },
                )
                return
            except (anyio.EndOfStream, anyio.IncompleteRead):
                return
        if not hello:
            return
        if hello.get("omb") != PROTOCOL or hello.get("stamp") != self.stamp:
            self.stop_taking()
            await _answer(stream, {"ok": False, "stale": True, "why": "This service runs other code."})
            return
        if self.draining:  # the client starts the next service
            await _answer(stream, {"ok": False, "stale": True, "why": "This service gives way to a new one."})
            return
        if full:  # answered after the hello is read: a refusal with it unread reached the client as a reset
            why = f"The MCP service holds {plural(self.cap, 'session')}, its most."
            await _answer(stream, {"ok": False, "why": why})
            return
        serve = self._hook if "hook" in hello else self._serve  # a hook's call (cli/hook_front.py), or a session
        given = hello.get("env")
        if isinstance(given, dict) and all(isinstance(v, str) for v in given.values()):
            # the session's model keys and helper are its own client's, not those this service started with
            with environment.session_environment(given):
                await serve(stream, buffered, hello)
        else:
            await serve(stream, buffered, hello)

    async def _hook(self, stream: anyio.abc.SocketStream, buffered: BufferedByteReceiveStream, hello: dict) -> None:
        """One hook's call: the payload after the hello, to the end the front sends; one line back, what the
        hook's process writes (hooks/answer.py, as the command line answers), its log lines first as the command
        line writes them. No answer (the front then runs the hook itself) when the payload does not come."""
        from ..hooks.answer import answer_hook
        from ..hooks.payload import MAX_PAYLOAD_BYTES

        name, bot, person, agent = (hello.get(key) for key in ("hook", "bot", "person", "agent"))
        if not (isinstance(name, str) and isinstance(bot, str) and isinstance(agent, str)):
            await _answer(stream, {"ok": False, "why": "The hook's call names no hook, bot or agent."})
            return
        if hello.get("home") != os.path.realpath(self.root):  # never another home's, whatever its socket's name
            await _answer(stream, {"ok": False, "why": "This service serves another home."})
            return
        payload = bytearray()
        with anyio.move_on_after(START_SECONDS) as waited:  # a front that sends nothing is let go
            with contextlib.suppress(anyio.EndOfStream, anyio.IncompleteRead):
                while len(payload) <= MAX_PAYLOAD_BYTES:  # the hook reads that much of stdin at most
                    payload += await buffered.receive()
        if waited.cancelled_caught:
            return
        lines: list[str] = []
        _HOOK_LOG.set(lines)  # this task's, copied into the worker thread with its context
        run = functools.partial(
            answer_hook,
            name,
            str(self.root),
            bot,
            io.BytesIO(bytes(payload[: MAX_PAYLOAD_BYTES + 1])),
            person=person if isinstance(person, str) else None,
            agent=agent,
        )
        answer = await anyio.to_thread.run_sync(run)
        await _answer(stream, {"ok": True, "stdout": answer.stdout, "stderr": "".join(lines) + answer.stderr})

    async def _serve(self, stream: anyio.abc.SocketStream, buffered: BufferedByteReceiveStream, hello: dict) -> None:
        from ..core.files.paths import MemoryInputError
        from ..library import Memory
        from .run import serve_lines
        from .server import MemoryServer

        try:
            person = hello.get("person")  # a Team Cloud person the session works for (None: the owner)
            bot = Memory(self.root).bot(str(hello.get("bot")), person=person if isinstance(person, str) else None)
        except (MemoryInputError, OSError) as exc:
            await _answer(stream, {"ok": False, "why": str(exc)})
            return
        session, cwd = hello.get("session"), hello.get("cwd")
        memory = MemoryServer(
            bot,
            agent_session_id=session if isinstance(session, str) else None,
            cwd=cwd if isinstance(cwd, str) else None,
        )
        await _answer(stream, {"ok": True})
        out, lines_in = _Out(stream), _Lines(buffered)
        loop, lines = asyncio.get_running_loop(), asyncio.Queue[str]()
        _SESSION_LOG.set(lambda line: loop.call_soon_threadsafe(lines.put_nowait, line))  # this task's, and its own
        self.servers.append(memory)
        ending: dict[str, object] = {"exit": 1, "why": STOPPED}  # unless the session gets to an end of its own
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(out.send_log, lines)
                await serve_lines(memory, lines_in, out)
                group.cancel_scope.cancel()
            ending = {"exit": 0} if lines_in.why is None else {"exit": 1, "why": lines_in.why}
        except Exception as exc:  # one session's failure never ends the others'; its client is told why
            ending = {"exit": 1, "why": _failure(exc)}
        finally:
            self.servers.remove(memory)
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_SECONDS):
                await out.send_last(ending)

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


def session_cap(wanted: int) -> int:
    """`wanted`, or fewer when the descriptor limit would run out first; the soft limit is raised toward the hard
    one to fit it (a session past the descriptors was accepted, then reset)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = DESCRIPTORS_KEPT + wanted * DESCRIPTORS_PER_SESSION
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, (soft - DESCRIPTORS_KEPT) // DESCRIPTORS_PER_SESSION))


def _failure(exc: BaseException) -> str:
    """One sentence for what ended a session: the first error inside a task group's, redacted."""
    from ..core.base.errors import oserror_sentence
    from ..core.redaction.redact import redact

    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    said = " ".join(redact(oserror_sentence(exc)).text.split())[:500].rstrip(".")
    return f"The MCP service could not go on with this session: {said}."


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

    service.last_closed = time.monotonic()  # idle from now: a slow load never ends it with that hello unread

    async with listener, anyio.create_task_group() as group:
        group.start_soon(service.watch_end, group.cancel_scope)
        group.start_soon(service.on_signal, group.cancel_scope)
        await _accept_all(listener, service, group)
    service.give_up_socket()


async def _accept_all(listener: anyio.abc.SocketListener, service: Service, group: anyio.abc.TaskGroup) -> None:
    """Each connection to its own task; accept() failing (no descriptor left) is said once and tried again, where
    the listener's own loop ended the service and every session it held."""
    failing = False
    while True:
        try:
            stream = await listener.accept()
        except OSError as exc:
            if not failing:
                log.warning("A connection could not be accepted (%s); the sessions held go on.", exc)
            failing = True
            await anyio.sleep(0.1)
            continue
        failing = False
        group.start_soon(service.connection, stream)


def main(argv: list[str]) -> int:
    from ..core.redaction.data import redact_log_handlers

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s omb-tui mcp service: %(message)s")
    logging.getLogger().handlers[0].addFilter(_of_no_session)
    logging.getLogger().handlers[0].setLevel(logging.WARNING)
    to_session = _ToSession(logging.WARNING)
    to_session.setFormatter(logging.Formatter("omb-tui: %(message)s"))  # as `omb-tui mcp` writes its own
    logging.getLogger().addHandler(to_session)
    to_hook = _ToHook()
    to_hook.setFormatter(logging.Formatter("omb-tui: %(message)s"))  # as the command line writes a hook's
    logging.getLogger().addHandler(to_hook)
    logging.getLogger("omb_tui.recall").setLevel(logging.INFO)  # the hooks' auto-recall line, as cli/__init__.py
    redact_log_handlers()
    root, path = Path(argv[0]), Path(argv[1])
    from ..core.index import background as vectors_background

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
