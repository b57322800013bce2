"""Time for a model call: a run's deadline, streamed answers with a first-token and an idle timeout, and how many
calls one instance has in flight.

Spec: memory.md, "The helper model"; docs/models.md, "Time" and docs/local-models.md. A small local model
evaluates a long prompt for minutes before its first token, then writes 5-12 tokens a second: a call bounded by
one timeout either waits too long for a dead server or cuts off a live one. With `stream: true` the instance's
`timeout` bounds the wait for the first token and `idleTimeout` each silence after it, so a model still writing
is never cut off, and a run's deadline (`run_deadline`) bounds every call of the run together. An instance on
this machine (`api_base` on localhost) answers one call at a time unless it says `concurrency`: a local server
given four prompts at once evaluates them four times slower each, and every one of them times out.
"""

from __future__ import annotations

import contextlib
import contextvars
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..memory.settings import ModelInstance
from .bounded_http import bounded, cut_in, seconds_text

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")
STEP_DEADLINE_S = 1800.0  # one upkeep step of one bot (capture, organize, the tidy-up): every call together

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("omb_model_run_deadline", default=None)


@contextlib.contextmanager
def run_deadline(seconds: float | None) -> Iterator[None]:
    """Every model call made inside (in this thread or task) ends within `seconds` of now, together; a call
    started after it is refused (`DeadlinePassed`). None: no deadline. An outer, earlier deadline still holds."""
    if seconds is None:
        yield
        return
    ends_at = time.monotonic() + seconds
    outer = _deadline.get()
    token = _deadline.set(ends_at if outer is None else min(outer, ends_at))
    try:
        yield
    finally:
        _deadline.reset(token)


def seconds_left() -> float | None:
    """What is left of the run's deadline (None: no deadline)."""
    ends_at = _deadline.get()
    return None if ends_at is None else ends_at - time.monotonic()


class DeadlinePassed(Exception):
    """The run's deadline has passed: the call is not made."""


@dataclass(frozen=True)
class CallTimes:
    """The bounds of one call: `first` (the whole answer without streaming, the first token with it), `idle` (the
    longest silence between tokens, when streamed) and `total` (the whole call, from a job's timeout or the run's
    deadline; None: no bound beyond the others)."""

    first: float
    idle: float | None
    total: float | None


def call_times(instance: ModelInstance, job_timeout: float | None, streamed: bool) -> CallTimes:
    """The bounds of a call from the instance, the job's timeout and what is left of the run's deadline."""
    left = seconds_left()
    if left is not None and left <= 0:
        raise DeadlinePassed
    bounds = [b for b in (job_timeout, left) if b is not None]
    total = min(bounds) if bounds else None
    if not streamed:
        first = instance.timeout if job_timeout is None else job_timeout
        return CallTimes(min(first, left) if left is not None else first, None, total)
    first = min([instance.timeout, *bounds])
    return CallTimes(first, instance.idle_timeout, total)


# ----- calls in flight per instance -----
_instance_slots: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


def is_local(instance: ModelInstance) -> bool:
    """Whether the instance's server runs on this machine (its `api_base` names localhost)."""
    if not instance.api_base:
        return False
    host = (urlsplit(instance.api_base).hostname or "").lower()
    return host in LOCAL_HOSTS or host.startswith("127.")


def most_in_flight(instance: ModelInstance) -> int | None:
    """How many calls the instance may have in flight: its `concurrency`, else 1 on this machine, else no bound
    of its own (the process-wide one holds)."""
    if instance.concurrency is not None:
        return instance.concurrency
    return 1 if is_local(instance) else None


@contextlib.contextmanager
def instance_slot(instance: ModelInstance) -> Iterator[None]:
    """Hold one of the instance's slots while its call is in flight (none to hold when it has no bound)."""
    most = most_in_flight(instance)
    if most is None:
        yield
        return
    with _slots_lock:
        slots = _instance_slots.setdefault((instance.api_base or instance.id, most), threading.BoundedSemaphore(most))
    with slots:
        yield


# ----- streaming -----
class StreamStopped(Exception):
    """A streamed answer was cut: `why` says how (no first token, a silence, the deadline)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class StreamBroken(StreamStopped):
    """A streamed answer that ended before it was done (a server that ends a stream when another request comes,
    as llama-cpp-python's does unless started with --interrupt_requests False). Tried again, like a dropped
    connection."""


def stream_completion(litellm: Any, request: dict, times: CallTimes, max_bytes: int) -> Any:
    """The answer of a streamed request, rebuilt as one response (usage included when the server gives it).

    Until the server has begun its answer, the connection is bounded by `times.first` on the wall clock, however
    slowly its headers come; then by `times.total` (bounded_http), and a watchdog cuts it when no token came
    within `times.first` of the start or tokens stop for `times.idle`. The stream's bytes together are at most
    `max_bytes`. A stream that breaks off once begun is `StreamBroken`: the server took the request (its output
    mode included), so the failure is never taken for a refusal of the request."""
    started = time.monotonic()
    request = {**request, "stream": True, "stream_options": {"include_usage": True}, "timeout": times.first}
    watch = _Watchdog(started, times)
    try:
        first = f"did not start answering within {seconds_text(times.first)} s"
        with bounded(times.first, max_bytes, first) as bounds:
            stream = litellm.completion(**request)  # returns once the server has begun its answer
            total = f"was still answering at the end of its {seconds_text(times.total or 0)} s"
            bounds.until(times.total, started, total)
            watch.start(stream)
            chunks = []
            try:
                for chunk in stream:
                    chunks.append(chunk)
                    if _has_token(chunk):
                        watch.token()
            except Exception as exc:
                if watch.stopped:
                    raise
                if cut := cut_in(exc):  # its time or its size: it did not break off, it was cut
                    raise StreamStopped(cut.why) from None
                raise StreamBroken("broke off its answer before it was done (the server ended the stream)") from None
    except Exception:
        if watch.stopped:
            raise StreamStopped(watch.stopped) from None
        raise
    finally:
        watch.done()
    if watch.stopped:
        raise StreamStopped(watch.stopped)
    return litellm.stream_chunk_builder(chunks, messages=request["messages"])


def _has_token(chunk: Any) -> bool:
    choices = getattr(chunk, "choices", None) or []
    delta = getattr(choices[0], "delta", None) if choices else None
    return bool(getattr(delta, "content", None) or getattr(delta, "tool_calls", None))


class _Watchdog:
    """Cuts a stream's socket when its time is up (a read blocked on a silent server cannot be woken otherwise)."""

    def __init__(self, started: float, times: CallTimes) -> None:
        self.started, self.times = started, times
        self.last_token: float | None = None
        self.stopped: str | None = None
        self._finished = threading.Event()
        self._wake = threading.Event()  # a token came or the stream ended: the limit is looked at again
        self._stream: Any = None

    def start(self, stream: Any) -> None:
        self._stream = stream
        threading.Thread(target=self._watch, name="model-stream-watchdog", daemon=True).start()

    def token(self) -> None:
        self.last_token = time.monotonic()
        self._wake.set()

    def done(self) -> None:
        self._finished.set()
        self._wake.set()

    def _limit(self) -> tuple[float, str]:
        times = self.times
        if self.last_token is None:
            at, why = self.started + times.first, f"did not start answering within {seconds_text(times.first)} s"
        else:
            idle = times.idle if times.idle is not None else times.first
            at, why = self.last_token + idle, f"stopped answering: no token for {seconds_text(idle)} s"
        if times.total is not None and self.started + times.total < at:
            at = self.started + times.total
            why = f"was still answering at the end of its {seconds_text(times.total)} s"
        return at, why

    def _watch(self) -> None:
        while not self._finished.is_set():
            at, why = self._limit()
            if time.monotonic() >= at:
                self.stopped = why
                _cut(self._stream)
                return
            self._wake.wait(at - time.monotonic())
            self._wake.clear()


def _cut(stream: Any) -> None:
    """Shut the stream's socket down, which wakes the read blocked on it; closing alone would not."""
    response = getattr(getattr(stream, "completion_stream", None), "response", None)
    network = (getattr(response, "extensions", None) or {}).get("network_stream")
    sock = network.get_extra_info("socket") if network is not None else None
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    if response is not None:
        with contextlib.suppress(Exception):
            response.close()
