"""`omb-tui mcp` as a subprocess on a demo home, talked to by the official SDK's client (no network).

The demo home is written once per module (`demo_home`); a test that writes works on its own copy (`home_copy`,
copied with the files' times, so nothing looks changed outside). `connect` starts `omb-tui mcp --bot ID` the way
an MCP client does (python -m omb_tui.cli, this checkout on PYTHONPATH) and yields the SDK's `Client`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TextIO

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

import omb_tui
from omb_tui.cli import main
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.demo.home import write_demo_home
from omb_tui.mcp.front import ENV_IDLE

ROOT = Path(omb_tui.__file__).resolve().parents[1]
CLIENT_NAME = "test-client"
SHORT_LIVED = {ENV_IDLE: "2"}  # the MCP service a test starts ends 2 s after its last session, not 15 min


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory) -> Home:
    home = Home(tmp_path_factory.mktemp("demo") / "home")
    write_demo_home(home)
    return home


@pytest.fixture
def home_copy(demo_home, tmp_path) -> Home:
    shutil.copytree(demo_home.root, tmp_path / "home", copy_function=shutil.copy2)
    return Home(tmp_path / "home")


def server_parameters(home: Home, bot_id: str, *extra: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "omb_tui.cli", "mcp", "--bot", bot_id, "--home", str(home.root), *extra],
        env={
            "PYTHONPATH": str(ROOT),
            "PYTHONUTF8": "1",
            **clock.carried_env(),
            **SHORT_LIVED,
            **(env or {}),
        },  # the SDK passes no other
    )


@contextlib.asynccontextmanager
async def connect(
    home: Home,
    bot_id: str = "scout",
    *,
    name: str = CLIENT_NAME,
    errlog: TextIO = sys.stderr,
    extra: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    **options,
) -> AsyncIterator[Client]:
    """The SDK's client on a fresh `omb-tui mcp` over stdio (its stderr to `errlog`; `extra` more of its words,
    `env` more of its environment); `options` go to `Client` (mode, message_handler)."""
    info = types.Implementation(name=name, version="1.0")
    transport = stdio_client(server_parameters(home, bot_id, *extra, env=env), errlog=errlog)
    async with Client(transport, client_info=info, **options) as client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return content.text


def command(home: Home, *argv: str) -> tuple[int, str]:
    """`omb-tui ARGV` on the home, in this process: (exit code, what it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--home", str(home.root), *argv])
    return code, out.getvalue()


def command_json(home: Home, *argv: str):
    code, printed = command(home, *argv, "--json")
    assert code == 0, printed
    return json.loads(printed)


def start_http_server(home: Home) -> tuple[subprocess.Popen, str]:
    """`omb-tui mcp --bot scout --http --port 0` on the home, and the first line it says (where it listens)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "omb_tui.cli", "mcp", "--bot", "scout", "--http", "--port", "0"],
        env={**os.environ, "PYTHONPATH": str(ROOT), "OMB_HOME": str(home.root), "PYTHONUTF8": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return process, process.stdout.readline() if process.stdout else ""  # waits for the server to listen
