"""`omb-tui mcp` over stdio as a client we did not write sees it: the MCP Inspector's command-line mode (the npm
package, pinned) lists the bot's tools and adds a note through memory_update, which lands in MEMORY.md and in the
journal as the bot's change from the Inspector's session.

The `inspector` tier (docs/testing.md): skipped when `npx` is not on PATH, or when the package cannot be fetched
(no network); a first `npx -y … --version` fetches it into an npm cache of this module's own, outside the home.

Spec: "Remember and forget, in chat", "The journal"; docs/mcp.md.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable

import pytest
from support.mcp_helpers import ROOT, command_json, demo_home, home_copy, start_http_server  # noqa: F401 (fixtures)

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT
from omb_tui.core.people.owner_token import token_path
from omb_tui.core.turn.tools import MEMORY_UPDATE, MEMORY_UPDATE_TOOL, SESSION_SEARCH, TEAM_NOTE
from omb_tui.mcp.front import ENV_IDLE
from omb_tui.mcp.tools import MEMORY_STATUS, RECALL

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
NPX = shutil.which("npx")
SCRIPT = shutil.which("script")
TIMEOUT = 180  # seconds: a first fetch on a slow link, or a loaded machine
INSPECTOR_CLIENT = "inspector-cli"  # the name the Inspector's CLI gives itself at initialize

pytestmark = pytest.mark.skipif(NPX is None, reason="npx is not on PATH (the MCP Inspector runs through npx)")

Inspect = Callable[..., dict]


@pytest.fixture(scope="module")
def inspect(tmp_path_factory) -> Inspect:
    """Fetch the Inspector once (skip if it cannot be), then run its CLI against `omb-tui mcp --bot scout` on a
    home: `inspect(home, "--method", "tools/list")` is the JSON it printed."""
    scratch = tmp_path_factory.mktemp("inspector")
    env = {
        **os.environ,
        "HOME": str(scratch / "user"),  # its catalog (~/.mcp-inspector) and npm's files, never the person's
        "npm_config_cache": str(scratch / "npm"),
        "npm_config_update_notifier": "false",
    }
    try:
        fetched = subprocess.run(
            [NPX, "-y", INSPECTOR, "--version"], capture_output=True, text=True, env=env, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"{INSPECTOR} could not be fetched from the npm registry within {TIMEOUT} s")
    if fetched.returncode != 0:
        lines = fetched.stderr.strip().splitlines()
        said = next((line for line in lines if line.startswith("npm error code")), lines[-1] if lines else "no message")
        pytest.skip(f"{INSPECTOR} could not be fetched from the npm registry (no network?): {said}")

    def run(home: Home, *method: str) -> dict:
        if method and method[0] in ("--raw", "--terminal"):  # the Inspector's own arguments; its finished process
            argv = [NPX, "-y", INSPECTOR, "--cli", *method[1:]]
            if method[0] == "--terminal":  # in a pseudo-terminal, as a person runs it
                argv = [SCRIPT, "-qec", shlex.join(argv), os.devnull]
            return {"done": subprocess.run(argv, **_quiet(env))}
        server = [sys.executable, "-m", "omb_tui.cli", "mcp", "--bot", "scout", "--home", str(home.root)]
        argv = [
            NPX,
            "-y",
            INSPECTOR,
            "--cli",
            "-e",
            f"PYTHONPATH={ROOT}",
            "-e",
            "PYTHONUTF8=1",
            "-e",
            f"{ENV_IDLE}=2",
            *server,
            *method,
        ]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return run


def test_the_inspector_lists_the_bots_tools_with_the_cores_schemas(inspect, demo_home):
    listed = {tool["name"]: tool for tool in inspect(demo_home, "--method", "tools/list")["tools"]}
    assert list(listed) == [MEMORY_UPDATE, SESSION_SEARCH, TEAM_NOTE, RECALL, MEMORY_STATUS]  # Scout is in a team
    function = MEMORY_UPDATE_TOOL["function"]
    assert (listed[MEMORY_UPDATE]["description"], listed[MEMORY_UPDATE]["inputSchema"]) == (
        function["description"],
        function["parameters"],
    )


def test_a_note_added_by_the_inspector_is_in_memory_md_and_the_journal_as_the_bots(inspect, home_copy):
    note = "Nadia takes the early train to Porto"
    called = inspect(
        home_copy,
        *("--method", "tools/call", "--tool-name", MEMORY_UPDATE),
        *("--tool-arg", "action=add", f"text={note}"),
    )
    assert called == {"content": [{"type": "text", "text": "Saved to MEMORY.md."}], "isError": False}
    memory = (home_copy.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8")
    assert f'· from chat "{INSPECTOR_CLIENT} (MCP)" · {note}' in memory

    newest = command_json(home_copy, "journal", "scout")[0]
    assert (newest["who"], newest["how"], newest["file"]) == (WHO_BOT, HOW_TASK, "MEMORY.md")
    assert newest["chat"] == f"{INSPECTOR_CLIENT} (MCP session {newest['run']})" and note in newest["diff"]


def _quiet(env: dict) -> dict:
    """How the Inspector runs as a script runs it: no terminal on stdin, stdout or stderr."""
    return {"capture_output": True, "text": True, "env": env, "timeout": TIMEOUT, "stdin": subprocess.DEVNULL}


@pytest.fixture
def http_server(home_copy):
    """`omb-tui mcp --bot scout --http --port 0`; its address."""
    process, line = start_http_server(home_copy)
    try:
        yield line.split(" on ", 1)[1].split(" ", 1)[0]
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize("terminal", ["--raw", "--terminal"])
def test_without_the_token_the_inspector_ends_on_the_token_sentence(inspect, home_copy, http_server, terminal):
    """A 401 started the Inspector's OAuth, which without a terminal ended on its own "requires a TTY" line: the
    person never learned that the server wants the owner's token, nor where it is. With a terminal or without,
    the sentence is what it ends on."""
    if terminal == "--terminal" and SCRIPT is None:
        pytest.skip("script(1) is not on PATH (it gives the Inspector a terminal)")
    done = inspect(home_copy, terminal, http_server, "--transport", "http", "--method", "tools/list")["done"]
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert "This needs the owner's token as 'Authorization: Bearer <token>'" in said, said
    assert "TTY" not in said and str(token_path(home_copy)) in said
