"""The environment a caller's model keys and helper choice are read from: this process's, or, inside the MCP
service (docs/agents.md, "The MCP service"), the environment of the client that started the session being served.

Spec: memory.md, "The helper model" (OMB_HELPER_INSTANCE and OMB_HELPER_MODEL win over config.json's helper);
docs/models.md (an instance's key is read from the variable its `api_key_env` names, at each call). One long-lived
process serves many clients, each started with its own variables, so what a call reads must be the one it serves,
not the first client's. A worker thread gets it with the rest of its context (anyio copies it); a thread started
by hand carries it with `carried`.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

_SESSION: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar("session_environ", default=None)


def current() -> Mapping[str, str]:
    """The variables model keys and the helper are read from now: the session's, else this process's."""
    given = _SESSION.get()
    return os.environ if given is None else given


@contextlib.contextmanager
def session_environment(environ: Mapping[str, str]) -> Iterator[None]:
    """Within it, `current()` is `environ` (for this task or thread and what it starts with its context)."""
    token = _SESSION.set(dict(environ))
    try:
        yield
    finally:
        _SESSION.reset(token)


def carried(work: Callable[..., Any]) -> Callable[..., Any]:
    """`work`, to run in a thread of its own under the environment the caller sees now (and nothing else of its
    context: a session's log stays the session's)."""
    given = _SESSION.get()

    def run(*args: Any) -> Any:
        if given is None:
            return work(*args)
        with session_environment(given):
            return work(*args)

    return run
