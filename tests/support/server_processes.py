"""A server (`omb-tui serve`, `omb-tui mcp --http`) run as a child process: its environment, and waiting on what
it does without a timing assertion. Shared by the serve and MCP connection tests."""

from __future__ import annotations

import os
import socket
import time

import pytest

from omb_tui.core.base import clock


def serve_env(home, tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMB_")}
    env.update({"OMB_HOME": str(home.root), "HOME": str(tmp_path / "user"), "PYTHONUTF8": "1"})
    env.update(clock.carried_env())  # the suite's clock (scripts/dev.py test --today)
    return env


DEADLINE = 60.0  # seconds a condition may take on a busy machine before the test gives up on it


def wait_for(condition, what: str, deadline: float = DEADLINE):
    """Polls until `condition()` is true; fails naming `what` after `deadline` seconds (never a timing assertion)."""
    give_up = time.monotonic() + deadline
    while not (result := condition()):
        if time.monotonic() > give_up:
            pytest.fail(f"{what}: still not so after {deadline:g} s")
        time.sleep(0.05)
    return result


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True
