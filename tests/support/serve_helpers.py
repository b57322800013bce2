"""A real `omb-tui serve` application on 127.0.0.1 (any free port), run by the test, and a plain HTTP client for it.

The server runs on its own event loop in a thread, as `omb-tui serve` runs it, so a test (or the app under Pilot)
talks to it over a real socket; `opened` records what POST .../open would have opened, so nothing opens.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field

import pytest

from omb_tui.core.files.paths import Home
from omb_tui.core.people.owner_token import load_or_create_token
from omb_tui.server.app import build_app
from omb_tui.server.connections import ServeLimits
from omb_tui.server.run import start

OWNER = object()  # send the home's own token


@dataclass
class Reply:
    status: int
    data: dict = field(default_factory=dict)
    headers: dict = field(default_factory=dict)

    @property
    def error(self) -> str:
        return self.data.get("error", "")


class LiveServer:
    def __init__(
        self,
        home: Home,
        host: str = "127.0.0.1",
        limits: ServeLimits | None = None,
        allow_hosts: tuple[str, ...] | list[str] = (),
    ) -> None:
        self.home, self.host = home, host
        self.token = load_or_create_token(home)
        self.opened: list[str] = []
        self.app = build_app(home, self.token, opener=self.opened.append, limits=limits, allow_hosts=allow_hosts)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-server", daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        self.listening = asyncio.run_coroutine_threadsafe(start(self.app, self.host, 0), self.loop).result(30)
        self.port = self.listening.port
        return self

    def __exit__(self, *exc_info) -> None:
        asyncio.run_coroutine_threadsafe(self.listening.stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: object = OWNER,
        raw: bytes | None = None,
        headers: dict | None = None,
    ) -> Reply:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode("utf-8"))
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {self.token if token is OWNER else token}"
        if data is not None:
            sent.setdefault("Content-Type", "application/json")
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                status, payload, got = answer.status, answer.read(), dict(answer.headers)
        except urllib.error.HTTPError as answer:
            status, payload, got = answer.code, answer.read(), dict(answer.headers)
        return Reply(status, json.loads(payload) if payload else {}, got)

    def get(self, path: str, **options) -> Reply:
        return self.request("GET", path, **options)


@pytest.fixture
def server(home):
    """A LiveServer on the test's home (import it into a test module to use it there)."""
    with LiveServer(home) as server:
        yield server


def memory_file(home: Home, rel: str = "MEMORY.md"):
    """A file of scout's workspace, by its path as the routes name it."""
    return home.workspace("scout").joinpath(*rel.split("/"))
