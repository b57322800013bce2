"""What the route modules share: the server's application keys, the refusal a route raises, JSON in and out, and
running a core call on the worker threads.

Spec: memory.md, "Routes" (JSON in and out; every error one sentence). `app.py` (the memory routes, the middleware
and the application) and `teams.py` (the team routes) both build on this module, and neither imports the other's
routes but through `build_app`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web

from ..core.files.paths import Home
from .connections import ConnectionGuard

MAX_BODY_DEPTH = 32  # levels of a JSON body; every route's body has two at most

HOME = web.AppKey("home", Home)
TOKEN = web.AppKey("token", str)
OPENER = web.AppKey("opener", object)
EXECUTOR = web.AppKey("executor", ThreadPoolExecutor)
GUARD = web.AppKey("guard", ConnectionGuard)


class ApiError(Exception):
    """A request the server refuses: its status, one sentence, and any fields the client needs to go on."""

    def __init__(self, status: int, message: str, extra: dict | None = None, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.extra, self.headers = status, message, extra or {}, headers or {}


# ----- JSON in and out -----
def camel_keys(value: object) -> object:
    """The core's snake_case keys as the API's camelCase (max_lines -> maxLines), all the way down."""
    if isinstance(value, dict):
        return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), str(k)): camel_keys(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [camel_keys(item) for item in value]
    return value


def json_response(data: object, status: int = 200, headers: dict | None = None) -> web.Response:
    try:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a byte of a file that is not UTF-8 (a lone surrogate): sent as its \udcXX escape
        body = json.dumps(data, ensure_ascii=True).encode("ascii")
    return web.Response(body=body, status=status, headers=headers, content_type="application/json", charset="utf-8")


def without_home(text: str, home: Home) -> str:
    """`text` without the server's home folder: a path under it said relative to it, the folder itself "the home"."""
    root = str(home.root)
    return text.replace(root + os.sep, "").replace(root, "the home")


def error_response(status: int, message: str, extra: dict | None = None, headers: dict | None = None):
    return json_response({"error": message, **(extra or {})}, status, headers)


async def json_body(request: web.Request, *, optional: bool = False) -> dict:
    guard = request.app[GUARD]
    try:
        async with asyncio.timeout(guard.limits.body_seconds):
            raw = await request.read()  # past MAX_BODY_BYTES aiohttp raises 413 here
    except TimeoutError:
        guard.events.add("slow body")
        raise ApiError(408, guard.limits.slow_body()) from None
    if not raw.strip():
        if optional:
            return {}
        raise ApiError(400, "The body is empty; send a JSON object.")
    try:
        data = json.loads(raw.decode("utf-8"))  # a \udcXX escape comes back as the byte it stands for
    except RecursionError:  # json's decoder stops near 1,000 levels; the check below says the limit
        raise ApiError(400, TOO_DEEP) from None
    except (UnicodeDecodeError, ValueError):
        raise ApiError(400, "The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ApiError(400, "The body must be a JSON object.")
    refuse_what_no_file_can_hold(data)
    return data


TOO_DEEP = f"The body is nested more than {MAX_BODY_DEPTH} levels deep; no route takes that."


def refuse_what_no_file_can_hold(body: dict) -> None:
    """Every string of the body (keys too) must be text a file can hold, at most MAX_BODY_DEPTH levels down.

    A \udc80-\udcff escape stands for a byte that is not UTF-8 (as a file's text is read), so it passes; any other
    lone surrogate (\ud800) is half of a UTF-16 pair and no character at all. Walked with a list, not recursion."""
    pending: list[tuple[object, int]] = [(body, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_BODY_DEPTH:
            raise ApiError(400, TOO_DEEP)
        if isinstance(value, dict):
            pending.extend((key, depth) for key in value)
            pending.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            pending.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError as exc:
                lone = value[exc.start]
                raise ApiError(
                    400,
                    f"The body holds \\u{ord(lone):04x}, half of a UTF-16 pair that is no "
                    "character on its own; send text as UTF-8.",
                ) from None


def text_field(body: dict, name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise ApiError(400, f"The body needs '{name}' as a string.")
    return value


async def in_thread(request: web.Request, func: Callable, *args, **kwargs):
    """A blocking core call on the server's worker threads; the event loop goes on serving other requests."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(request.app[EXECUTOR], functools.partial(func, *args, **kwargs))


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Turns:
    """One asyncio lock per name, kept only while a request holds or waits for it.

    An entry counts its users and goes with the last one, so requests naming bots that do not exist (any number
    of them) leave nothing behind."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def turn(self, name: str):
        lock = self._locks.setdefault(name, asyncio.Lock())
        self._users[name] = self._users.get(name, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[name] -= 1
            if not self._users[name]:
                del self._users[name], self._locks[name]


BOT_TURNS = web.AppKey("bot_turns", Turns)
