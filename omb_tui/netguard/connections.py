"""Slow and idle clients: how long a request may take to arrive, how many connections may be open, and one log line
a second at most about the ones refused or closed.

Spec: memory.md, "Routes" (docs/serve.md, "Slow, idle and bad clients"; docs/mcp.md for `omb-tui mcp --http`).
Neither aiohttp 3.14 (`keepalive_timeout` closes a connection that sent nothing from its start) nor uvicorn
(`timeout_keep_alive` waits only between requests) closes a request whose head never finishes arriving, counts what
it closed or caps how many are open; so each connection of both servers sits behind a `GuardedConnection`, the HTTP
library's own protocol object inside it, and one `ConnectionGuard` per server keeps the count, the deadlines and the
figures for the log.

- A connection with no request in progress (its headers not all sent yet, or idle between requests) is closed
  `header_seconds` after it opened or after its last answer; an answer still going out keeps it while it moves.
- At the cap, a new connection closes the longest-idle one to make room; only when every open connection has a
  request in progress is the new one refused, with a 503 written before a byte of it is read.
- A body gets `body_seconds` to arrive (app.json_body answers 408 past it).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import math
import resource
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("omb_tui.server")

BACKLOG = 100  # connections the kernel holds before accept(); asyncio accepts up to this many at one go
DESCRIPTORS_KEPT_FREE = 64  # for the journal, the settings and the worker threads' files


@dataclass(frozen=True)
class ServeLimits:
    header_seconds: float = 10.0  # from the connection's start, or its last answer, to a whole request head
    body_seconds: float = 30.0  # from the head to the whole body (2 MiB at most)
    max_connections: int = 500  # open at once; lowered to fit the process's descriptor limit

    def slow_body(self) -> str:
        """What a server answers (408) to a body that did not arrive in time."""
        return f"The body did not arrive within {self.body_seconds:g} s; nothing was read or changed."


def connection_cap(wanted: int) -> int:
    """`wanted`, or fewer when the descriptor limit would run out first (accept() failing is what stalled the server).

    asyncio accepts a whole backlog before the guard sees the first of it, and a connection closed to make room
    gives its descriptor back only on the loop's next turn, so two backlogs more must fit."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - 2 * BACKLOG - DESCRIPTORS_KEPT_FREE))


class ConnectionEvents:
    """What happened to connections, said in one log line at most every `interval` seconds, with the counts since
    the last line; what happens meanwhile waits for the next one (none is lost, none repeats)."""

    def __init__(
        self,
        limits: ServeLimits,
        cap: int,
        *,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        later: Callable[[float, Callable[[], None]], object] | None = None,
    ) -> None:
        self.limits, self.cap, self.interval, self.clock = limits, cap, interval, clock
        self._later = later
        self.since_last_line: Counter[str] = Counter()
        self.total: Counter[str] = Counter()
        self._last_line = -math.inf
        self._line_due = False

    def add(self, what: str, count: int = 1) -> None:
        self.since_last_line[what] += count
        self.total[what] += count
        if self._line_due:
            return
        wait = self._last_line + self.interval - self.clock()
        if wait <= 0:
            self.say()
        else:
            self._line_due = True
            later = self._later or asyncio.get_running_loop().call_later
            later(wait, self.say)

    def say(self) -> None:
        self._line_due = False
        if not self.since_last_line:
            return
        self._last_line = self.clock()
        log.warning("%s", self.sentence(self.since_last_line))
        self.since_last_line.clear()

    def sentence(self, counts: Counter[str]) -> str:
        """One line, each count under its own label: 'Connections refused …: 40; closed idle to make room: 12.'"""
        labels = {
            "refused": f"connections refused, all {self.cap:,} open ones busy",
            "made room": "idle connections closed to make room",
            "no request": f"connections closed with no request within {self.limits.header_seconds:g} s",
            "slow body": f"bodies not sent within {self.limits.body_seconds:g} s",
            "not http": "requests that were not HTTP",
            "out of descriptors": "pauses of a second in accepting connections, the process out of descriptors",
        }
        said = "; ".join(f"{labels[what]}: {count:,}" for what, count in counts.items())
        return said[0].upper() + said[1:] + "."


class GuardedConnection(asyncio.Protocol):
    """One connection: aiohttp's protocol object inside, made only once the guard has let the connection in."""

    def __init__(self, guard: ConnectionGuard, make_handler: Callable[[], asyncio.Protocol]) -> None:
        self.guard, self.make_handler = guard, make_handler
        self.handler: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.requests = 0  # in progress: headers read, answer not yet returned by the route
        self.deadline: asyncio.TimerHandle | None = None
        self.unsent: int | None = None  # bytes of an answer still waiting to go out, at the last deadline

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if not self.guard.admit(self):
            transport.write(self.guard.refusal)  # type: ignore[attr-defined]
            transport.close()
            return
        self.handler = self.make_handler()
        self.handler.connection_made(transport)
        self.guard.idle_from_now(self)

    def data_received(self, data: bytes) -> None:
        if self.handler is not None:
            self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received() if self.handler is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.forget(self)
        if self.handler is not None:
            self.handler.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.handler is not None:
            self.handler.pause_writing()

    def resume_writing(self) -> None:
        if self.handler is not None:
            self.handler.resume_writing()


class ConnectionGuard:
    """The open connections of one server, oldest first, and which of them are idle, longest-idle first."""

    def __init__(self, limits: ServeLimits) -> None:
        self.limits = limits
        self.cap = connection_cap(limits.max_connections)
        self.events = ConnectionEvents(limits, self.cap)
        self.open: dict[asyncio.BaseTransport, GuardedConnection] = {}
        self.idle: OrderedDict[GuardedConnection, None] = OrderedDict()
        self.peers: dict[tuple, GuardedConnection] = {}
        body = json.dumps(
            {
                "error": f"The server has {self.cap:,} connections open, its limit, each with a request "
                "in progress; try again in a moment."
            }
        ).encode("utf-8")
        self.refusal = (
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
            b"Content-Length: %d\r\nRetry-After: 1\r\nConnection: close\r\n\r\n%s" % (len(body), body)
        )

    def protocol_factory(self, make_handler: Callable[[], asyncio.Protocol]) -> Callable[[], GuardedConnection]:
        return lambda: GuardedConnection(self, make_handler)

    def admit(self, connection: GuardedConnection) -> bool:
        if len(self.open) >= self.cap:
            longest_idle = next(iter(self.idle), None)
            if longest_idle is None:
                self.events.add("refused")
                return False
            self.close(longest_idle, "made room")
        self.open[connection.transport] = connection
        peer = connection.transport.get_extra_info("peername")
        if peer is not None:
            self.peers[_peer_key(peer)] = connection
        return True

    def transport_of(self, peer: object) -> asyncio.BaseTransport | None:
        """The transport of the open connection from `peer` ((host, port), as an ASGI scope's "client" gives it):
        how a server that hands its routes no transport (uvicorn) marks a connection busy with `request`."""
        connection = self.peers.get(_peer_key(peer)) if peer is not None else None
        return connection.transport if connection is not None else None

    def idle_from_now(self, connection: GuardedConnection) -> None:
        self.idle[connection] = None
        self.idle.move_to_end(connection)
        self._arm(connection)

    def _arm(self, connection: GuardedConnection) -> None:
        loop = asyncio.get_running_loop()
        connection.deadline = loop.call_later(self.limits.header_seconds, self._deadline_passed, connection)

    def _deadline_passed(self, connection: GuardedConnection) -> None:
        connection.deadline = None
        if connection.requests or connection.transport not in self.open:
            return
        unsent = connection.transport.get_write_buffer_size()
        if unsent and (connection.unsent is None or unsent < connection.unsent):  # an answer still moving out
            connection.unsent = unsent
            self._arm(connection)
            return
        self.close(connection, "no request")

    def close(self, connection: GuardedConnection, why: str) -> None:
        self.forget(connection)
        connection.transport.abort()  # not close(): that would wait for a reader who may never read
        self.events.add(why)

    def forget(self, connection: GuardedConnection) -> None:
        if self.open.pop(connection.transport, None) is not None:
            peer = connection.transport.get_extra_info("peername")
            if peer is not None and self.peers.get(_peer_key(peer)) is connection:
                del self.peers[_peer_key(peer)]
        self.idle.pop(connection, None)
        if connection.deadline is not None:
            connection.deadline.cancel()
            connection.deadline = None

    @contextlib.contextmanager
    def request(self, transport: asyncio.BaseTransport | None):
        """Around a route's handler: the connection is busy, so neither its deadline nor the cap closes it."""
        connection = self.open.get(transport) if transport is not None else None
        if connection is None:  # served without `run.start` (a test client), or already gone
            yield
            return
        connection.requests += 1
        connection.unsent = None
        self.idle.pop(connection, None)
        if connection.deadline is not None:
            connection.deadline.cancel()
            connection.deadline = None
        try:
            yield
        finally:
            connection.requests -= 1
            if not connection.requests and connection.transport in self.open:
                self.idle_from_now(connection)


def _peer_key(peer: object) -> tuple:
    """(host, port) of a peer name: an IPv6 one has flow info and scope after them."""
    return tuple(peer[:2]) if isinstance(peer, tuple | list) else (peer,)


def count_accept_failures(events: ConnectionEvents) -> Callable[[asyncio.AbstractEventLoop, dict], None]:
    """An event loop exception handler: accept() failing for want of descriptors (asyncio then pauses accepting for
    a second and would log a traceback each time) is counted for the connections line; the rest as asyncio would."""

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        failure = context.get("exception")
        if isinstance(failure, OSError) and failure.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
            events.add("out of descriptors")
            return
        loop.default_exception_handler(context)

    return handler
