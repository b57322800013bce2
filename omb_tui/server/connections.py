"""`omb-tui serve`'s connections: the guard both servers share (omb_tui/netguard), and aiohttp's log told apart.

Spec: memory.md, "Routes" (docs/serve.md, "Slow, idle and bad clients").
"""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError

from ..netguard.connections import (
    BACKLOG,
    ConnectionEvents,
    ConnectionGuard,
    GuardedConnection,
    ServeLimits,
    connection_cap,
    count_accept_failures,
    log,
)

__all__ = [
    "BACKLOG",
    "ConnectionEvents",
    "ConnectionGuard",
    "GuardedConnection",
    "HttpParserLog",
    "ServeLimits",
    "connection_cap",
    "count_accept_failures",
]


class HttpParserLog(logging.LoggerAdapter):
    """aiohttp's log for the connections it serves. A request that is not HTTP (a bad header, a TLS hello, a line
    too long) is the client's doing: counted for the connections line, never a traceback. Anything else (a fault
    inside aiohttp) goes to the server's log as it came."""

    def __init__(self, events: ConnectionEvents) -> None:
        super().__init__(log, {})
        self.events = events

    def log(self, level: int, msg: object, *args, exc_info=None, **kwargs) -> None:
        if isinstance(exc_info, HttpProcessingError):
            self.events.add("not http")
            return
        if self.isEnabledFor(level):
            super().log(level, msg, *args, exc_info=exc_info, **kwargs)
