"""`omb-tui mcp` over stdio, in front of the home's MCP service: the client's lines go to a long-lived process
that has the MCP SDK loaded already, and its answers come back, so a new session is answered in a tenth of the
time (importing the SDK alone takes ~700 ms; docs/agents.md "The MCP service").

This module imports the standard library alone: it runs in every process a client starts. service.py is the
other end. The decisions:

- One service per home (and per clock and time zone, which tests and a person's shells may set apart), on a Unix
  socket in a folder only this user can open (`$XDG_RUNTIME_DIR/omb-tui-<uid>/`, else the temporary folder's);
  a folder another user owns, or one others can open, is never used: the server then runs in this process.
- Started on demand (detached from the client, so closing one session never ends another's), one at a time (a
  lock), ended after 15 idle minutes (`OMB_TUI_MCP_IDLE_SECONDS`), when its home is removed, or when the code
  it runs is not the installed code any more (it finishes its sessions, the next client starts a new one).
- Anything that keeps the service from taking the session (it cannot start, it does not answer within its time,
  it refuses the bot, it holds its most sessions) ends in the old way: the server runs in this process.
  `OMB_TUI_MCP_SERVICE=0` asks for that always. Nothing is lost either way: the service runs the same server,
  over the same lines.
- Once taken, a session never ends in silence: the service's last line says how it ended, and a connection that
  ends without it (the service stopped or killed) is one line on stderr and exit 1. The session's state (the
  handshake, subscriptions) lived in the service, so this process cannot take it over; the client shows the line.
- The hello carries the client's environment: a session's model keys and helper are read from its own client's
  variables (core/memory/environment.py), not from those of the client that started the service.
"""

from __future__ import annotations

import _socket  # what address.open_socket gives: the C socket, without the module's wrapper
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, NoReturn, TypeVar

from . import address
from .address import (  # noqa: F401 (CARRIED, ENV_SWITCH, switched_on: names callers know this module by)
    CARRIED,
    ENV_SWITCH,
    PROTOCOL,
    Unreachable,
    code_stamp,
    open_socket,
    service_key,
    switched_on,
)

ENV_IDLE = "OMB_TUI_MCP_IDLE_SECONDS"
IDLE_SECONDS = 15 * 60
ENV_MAX_SESSIONS = "OMB_TUI_MCP_MAX_SESSIONS"
MAX_SESSIONS = 200  # past this a new session is refused by the service (its client then runs the server itself)
START_SECONDS = 20.0  # a service that has not answered a hello by then (a cold start takes ~1 s) is given up
HELLO_BYTES = 1024 * 1024  # the hello carries the client's environment (Linux allows 2 MiB with the arguments)
STDERR_LINE = b"\x1e"  # a line from the service that starts so is the session's log: to stderr, not the client
LAST_LINE = b"\x04"  # the service's last line of a session, JSON: {"exit": 0} or {"exit": 1, "why": "<sentence>"}
EXIT_SESSION_LOST = 1
SESSION_LOST = (
    "The MCP service ended in the middle of this session (it was stopped or killed), and the session's state was "
    "in it; start the session again."
)
ENV_SESSION_ID = "CLAUDE_CODE_SESSION_ID"  # what Claude Code (2.1.154 on) gives the stdio MCP servers it starts
PACKAGE = Path(address.PACKAGE)
_Number = TypeVar("_Number", int, float)


def runtime_dir() -> Path:
    """This user's folder for the service's socket, lock and log (address.py)."""
    return Path(address.runtime_folder())


def idle_seconds() -> float:
    return _number_set(ENV_IDLE, float, IDLE_SECONDS, least=0.5)


def max_sessions() -> int:
    """How many sessions a service holds at most (a test sets fewer)."""
    return _number_set(ENV_MAX_SESSIONS, int, MAX_SESSIONS, least=1)


def _number_set(name: str, read: Callable[[str], _Number], default: _Number, *, least: _Number) -> _Number:
    """The number a variable sets (at least `least`); unset or not a number, the default."""
    raw = os.environ.get(name, "")
    try:
        return max(least, read(raw)) if raw else default
    except ValueError:
        return default


def serve_through(root: Path, bot_id: str, session_id: str | None, person: str | None = None) -> int:
    """Carry this process's stdin and stdout to the home's service until either side ends; the exit code.
    Raises Unreachable (before a byte of stdin is read) when the service cannot take the session."""
    return pump(connect(root, bot_id, session_id, person))


class Connected(NamedTuple):
    """A connection the service said yes on, and what it sent after its answer in the same read (passed on)."""

    socket: _socket.socket
    after: bytes


def connect(root: Path, bot_id: str, session_id: str | None, person: str | None = None) -> Connected:
    """A connection to the service that has said yes to this bot and session; one is started when none runs,
    and once more when the one running was stale."""
    folder = runtime_dir()
    key = service_key(root)
    path = folder / f"mcp-{key}.sock"
    stamp = code_stamp()
    hello = {
        "omb": PROTOCOL,
        "stamp": stamp,
        "bot": bot_id,
        "session": session_id,
        "person": person,
        "cwd": _cwd(),  # the client's folder (the project's): it names an agent session's chat
        "env": dict(os.environ),
    }
    for _ in range(2):
        connection = open_socket(path)
        if connection is None:
            connection = _start(root, folder / f"mcp-{key}.log", path)
        answer, after = _hello(connection, hello)
        if answer.get("ok") is True:
            return Connected(connection, after)
        connection.close()
        if not answer.get("stale"):
            raise Unreachable(str(answer.get("why") or "The MCP service refused the session."))
    raise Unreachable("The MCP service ended, or ran other code than this install's, at both tries to connect.")


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the folder was removed under the client
        return None


def _start(root: Path, log: Path, path: Path) -> _socket.socket:
    """Start the service (detached: its own session, no terminal, its output to its log) and connect to it."""
    with contextlib.suppress(OSError):
        if log.stat().st_size > 1_000_000:  # a log kept for looking into a failure, not for ever
            log.unlink()
    give_up = time.monotonic() + START_SECONDS
    started = _spawn(root, path, log)
    while time.monotonic() < give_up:
        connection = open_socket(path)
        if connection is not None:
            return connection
        if started.poll() is not None:
            if started.returncode != 0:
                raise Unreachable(f"The MCP service did not start (exit {started.returncode}; its log: {log}).")
            # 0: another service held the lock; it serves, or it was ending just then: start one again
            time.sleep(0.05)
            started = _spawn(root, path, log)
        time.sleep(0.01)
    raise Unreachable(f"The MCP service did not open {path} within {START_SECONDS:.0f} s (its log: {log}).")


def _spawn(root: Path, path: Path, log: Path) -> subprocess.Popen[bytes]:
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    env = {name: value for name, value in os.environ.items() if name != ENV_SESSION_ID}
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE.parent), *filter(None, [env.get("PYTHONPATH")])])
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "omb_tui.mcp.service", str(root), str(path)],
            stdin=subprocess.DEVNULL,
            stdout=descriptor,
            stderr=descriptor,
            env=env,
            cwd=str(path.parent),
            start_new_session=True,
        )
    finally:
        os.close(descriptor)


def _hello(connection: _socket.socket, hello: dict[str, object]) -> tuple[dict[str, object], bytes]:
    """Say which bot and session; the service's one-line answer, and any bytes that came after it."""
    connection.settimeout(START_SECONDS)
    try:
        connection.sendall(json.dumps(hello).encode() + b"\n")
        received = b""
        while b"\n" not in received and len(received) < HELLO_BYTES:
            part = connection.recv(HELLO_BYTES)
            if not part:
                break
            received += part
    except TimeoutError as exc:
        connection.close()
        raise Unreachable(f"The MCP service did not answer within {START_SECONDS:.0f} s.") from exc
    except OSError:  # reset: the service ended just as this connected (idle); tried once more, as a stale one
        connection.close()
        return {"ok": False, "stale": True}, b""
    connection.settimeout(None)
    line, _, after = received.partition(b"\n")
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):  # a service gone mid-answer, or not ours: as stale, tried once more
        return {"ok": False, "stale": True}, b""
    return answer, after


def pump(connected: Connected) -> int:
    """stdin to the service, the service to stdout, until the service's last line says how the session ended, or
    stdout is gone. A connection that ends without that line lost the session: one line on stderr, exit 1. SIGINT
    and SIGTERM end this at once: the service finishes any write."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: os._exit(0))
    connection = connected.socket
    threading.Thread(target=_forward_stdin, args=(connection,), daemon=True).start()
    to = 0  # where the line being copied goes: 0 at a line's start, else _TO_CLIENT, _TO_STDERR or _TO_LAST
    last = b""  # the service's last line, as it comes
    part = connected.after
    while True:
        start = 0
        while start < len(part):
            if not to:
                to = _KINDS.get(part[start : start + 1], _TO_CLIENT)
                start += to != _TO_CLIENT  # the mark is the service's, not the line's
            end = part.find(b"\n", start)
            stop = len(part) if end < 0 else end + 1
            if to == _TO_LAST:
                last += part[start:stop]
                if end >= 0:
                    _end(_ended(last))
            elif not _write_all(to, part[start:stop]):
                _end(0)  # the client closed its side: no one is there to tell
            to = to if end < 0 else 0
            start = stop
        try:
            part = connection.recv(1 << 16)
        except OSError:
            part = b""
        if not part:
            _say(SESSION_LOST)
            _end(EXIT_SESSION_LOST)


_TO_CLIENT, _TO_STDERR, _TO_LAST = 1, 2, 3
_KINDS = {STDERR_LINE: _TO_STDERR, LAST_LINE: _TO_LAST}


def _ended(line: bytes) -> int:
    """The exit code the service's last line gives, its sentence said on stderr."""
    try:
        told = json.loads(line)
    except ValueError:
        told = None
    if not isinstance(told, dict):
        _say(SESSION_LOST)
        return EXIT_SESSION_LOST
    if isinstance(told.get("why"), str) and told["why"]:
        _say(told["why"])
    code = told.get("exit")
    return code if isinstance(code, int) and 0 <= code <= 255 else EXIT_SESSION_LOST


def _say(sentence: str) -> None:
    _write_all(2, f"omb-tui: {' '.join(sentence.split())}\n".encode("utf-8", "replace"))


def _end(code: int) -> NoReturn:
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(code)


def _forward_stdin(connection: _socket.socket) -> None:
    try:
        while part := os.read(0, 1 << 16):
            connection.sendall(part)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_WR)


def _write_all(descriptor: int, data: bytes) -> bool:
    """All of `data` written; False when the descriptor is closed at the other end."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(descriptor, view) :]
    except OSError:
        return False
    return True


def running_services(root: Path) -> list[int]:
    """The service processes serving the home at `root`, by their command line (Linux's /proc; elsewhere none are
    found): for a look from outside, as tests and benchmarks/hooks.py take."""
    found = []
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else ():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"omb_tui.mcp.service" in argv and os.fsencode(root) in argv:
                found.append(int(entry.name))
    return found
