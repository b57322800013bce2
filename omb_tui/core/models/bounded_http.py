"""Every model call's connection, bounded: the whole call by the wall clock, the answer by its size, and no redirect.

Spec: docs/models.md, "Time" and "Bounded connections". httpx's timeouts are per read, so a server that sends a byte
every 0.2 s holds a call with a 5 s timeout for as long as it likes. A call made inside `bounded(seconds, max_bytes)`
(in this thread: a context variable, which `asyncio.to_thread` carries) has each network operation of its
connection (connect, TLS, each write, each read) wait at most what is left of its `seconds`, counted from its first
network step; past it the call ends with `DeadlineReached`, and the connection is closed. (litellm's own work before
it is not the server's: some 60 ms a call, and at a process's first call, while it loads its provider code, up to
seconds on a busy machine, which would leave a fresh `recall` no time at all of its 300 ms.) The bytes read for it are counted: past `max_bytes` it ends
with `AnswerRefused`, and an answer whose Content-Length says more is refused before a byte of it is read. A
redirect (3xx) is refused, never followed: the request, texts and key included, goes only to the instance's address.

litellm reaches a server through one of two clients: the OpenAI SDK's (`litellm.client_session`) or its own
handler's (`litellm.sync_transport`); `install(litellm)` gives both `BoundedTransport`, once, at the first call. A
call outside `bounded` passes through as before. The environment's proxies (HTTPS_PROXY, NO_PROXY) are honoured by
the transport itself, bounded the same way (httpx ignores them once a transport is given).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


class CallCut(Exception):
    """The connection of a bounded call was cut; `why` completes "instance 'ID' …" in one phrase."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class DeadlineReached(CallCut):
    """The call's whole time was up."""


class AnswerRefused(CallCut):
    """The answer was refused before it was read whole (too large, a redirect)."""


@dataclass
class Bounds:
    """One call's bounds: `ends_at` (time.monotonic; None: no deadline, or `seconds` not yet started), `why` (the
    phrase its end gives), `max_bytes` and the bytes `received` so far."""

    ends_at: float | None
    why: str
    max_bytes: int
    seconds: float | None = None  # the deadline's length, until its clock starts at the call's first network step
    received: int = 0

    def left(self) -> float | None:
        """Seconds left (None: no deadline); DeadlineReached when none is."""
        if self.ends_at is None and self.seconds is not None:
            self.ends_at, self.seconds = time.monotonic() + self.seconds, None
        if self.ends_at is None:
            return None
        left = self.ends_at - time.monotonic()
        if left <= 0:
            raise DeadlineReached(self.why)
        return left

    def within(self, seconds: float | None, why: str | None = None) -> None:
        """A deadline of `seconds` from the call's first network step (None: none), its end saying `why` (by
        default "did not answer within N s")."""
        self.ends_at, self.seconds = None, seconds
        self.why = why or f"did not answer within {seconds_text(seconds or 0)} s"

    def until(self, seconds: float | None, started: float, why: str) -> None:
        """Move the deadline to `seconds` after `started` (None: none), its end saying `why`."""
        self.ends_at, self.seconds, self.why = (None if seconds is None else started + seconds), None, why

    def count(self, size: int) -> None:
        self.received += size
        if self.received > self.max_bytes:
            raise too_large(self.max_bytes)


def seconds_text(seconds: float) -> str:
    """Seconds as a sentence gives them: 0.4, 30, 137.5 (what is left of a deadline is never 0.39971)."""
    return f"{round(seconds, 1):g}"


def too_large(max_bytes: int) -> AnswerRefused:
    return AnswerRefused(f"sent an answer larger than the {max_bytes:,} bytes one may have: refused unread")


_bounds: contextvars.ContextVar[Bounds | None] = contextvars.ContextVar("omb_model_call_bounds", default=None)


@contextlib.contextmanager
def bounded(seconds: float | None, max_bytes: int, why: str | None = None) -> Iterator[Bounds]:
    """Bound every connection the call inside makes (the module says how), its end saying `why`; yields the bounds,
    which a streamed call moves once its answer has begun."""
    bounds = Bounds(None, "", max_bytes)
    bounds.within(seconds, why)
    token = _bounds.set(bounds)
    try:
        yield bounds
    finally:
        _bounds.reset(token)


def cut_in(exc: BaseException) -> CallCut | None:
    """The CallCut that caused `exc` (litellm and the OpenAI SDK wrap it in errors of their own), if one did."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, CallCut):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return None


# ----- the network, one operation at a time -----
def _wait(timeout: float | None, bounds: Bounds | None) -> float | None:
    left = bounds.left() if bounds is not None else None
    if left is None:
        return timeout
    return left if timeout is None else min(timeout, left)


def _on_time(call: Any, timeout: float | None) -> Any:
    """Run one network operation within what is left of the call's time; its timeout past the deadline is the
    deadline's."""
    bounds = _bounds.get()
    try:
        return call(_wait(timeout, bounds))
    except Exception as exc:
        if bounds is not None and bounds.ends_at is not None and time.monotonic() >= bounds.ends_at:
            raise DeadlineReached(bounds.why) from exc
        raise


class _BoundedStream:
    """A connection's stream (httpcore's NetworkStream) whose every operation keeps to the call's bounds."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = _on_time(lambda wait: self._inner.read(max_bytes, wait), timeout)
        bounds = _bounds.get()
        if bounds is not None:
            bounds.count(len(data))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        _on_time(lambda wait: self._inner.write(buffer, wait), timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        return _BoundedStream(_on_time(lambda wait: self._inner.start_tls(ssl_context, server_hostname, wait), timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _BoundedBackend:
    """httpcore's network backend, its streams bounded."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, **options: Any) -> _BoundedStream:
        return _BoundedStream(_on_time(lambda wait: self._inner.connect_tcp(host, port, wait, **options), timeout))

    def connect_unix_socket(self, path: str, timeout: float | None = None, **options: Any) -> _BoundedStream:
        return _BoundedStream(_on_time(lambda wait: self._inner.connect_unix_socket(path, wait, **options), timeout))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


# ----- the transport litellm's clients are given -----
def _transport_class() -> type:
    import httpx

    class BoundedTransport(httpx.BaseTransport):
        """httpx's transport with bounded connections, refusing redirects and answers too large for the call, and
        sending through the environment's proxy where it names one for the address."""

        def __init__(self, verify: Any = True, http2: bool = False) -> None:
            from httpx._utils import URLPattern, get_environment_proxies

            self._direct = self._pool_of(None, verify, http2)
            self._proxied = sorted(
                (
                    (URLPattern(pattern), None if url is None else self._pool_of(url, verify, http2))
                    for pattern, url in get_environment_proxies().items()
                ),
                key=lambda item: item[0],
            )

        @staticmethod
        def _pool_of(proxy: str | None, verify: Any, http2: bool) -> httpx.HTTPTransport:
            transport = httpx.HTTPTransport(verify=verify, http2=http2, proxy=proxy)
            pool: Any = transport._pool  # the one place the network backend can be given: httpx does not take one
            pool._network_backend = _BoundedBackend(pool._network_backend)
            return transport

        def _for(self, url: httpx.URL) -> httpx.HTTPTransport:
            for pattern, transport in self._proxied:
                if pattern.matches(url):
                    return transport or self._direct
            return self._direct

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            response = self._for(request.url).handle_request(request)
            bounds = _bounds.get()
            if bounds is None:
                return response
            problem = None
            if 300 <= response.status_code < 400:
                problem = AnswerRefused(f"answered with a redirect ({response.status_code}), which is not followed")
            elif (size := _content_length(response)) is not None and size > bounds.max_bytes:
                problem = too_large(bounds.max_bytes)
            if problem is not None:
                response.close()
                raise problem
            return response

        def close(self) -> None:
            self._direct.close()
            for _, transport in self._proxied:
                if transport is not None:
                    transport.close()

    return BoundedTransport


def _content_length(response: Any) -> int | None:
    try:
        return int(response.headers.get("content-length", ""))
    except ValueError:
        return None


def install(litellm: Any) -> None:
    """Give litellm's two clients a bounded transport (the module says which); called once, after the import."""
    import httpx
    from litellm.llms.custom_httpx.http_handler import get_ssl_configuration, http2_enabled

    http2 = http2_enabled()
    transport = _transport_class()(verify=get_ssl_configuration(http2=http2), http2=http2)
    litellm.sync_transport = transport
    # The OpenAI SDK's client: redirects are the transport's to refuse, never the client's to follow.
    litellm.client_session = httpx.Client(transport=transport, follow_redirects=False, timeout=None)
