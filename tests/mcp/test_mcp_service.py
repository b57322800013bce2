"""The home's MCP service (omb_tui/mcp/front.py, service.py; docs/agents.md "The MCP service"): `omb-tui mcp` over
stdio hands its client to one long-lived process per home, which serves every session as the stdio server would.
Driven as Claude Code drives it: the official SDK's client starts `omb-tui mcp` and talks on its pipes; the service
is found as a process, its socket as a file.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from support.fake_llm import fake_llm, write_llm_config  # noqa: F401 (fixtures)
from support.mcp_helpers import ROOT, SHORT_LIVED, connect, demo_home, home_copy, text_of  # noqa: F401 (fixtures)
from support.server_processes import wait_for

from omb_tui.core.base import clock
from omb_tui.mcp import front
from omb_tui.mcp.tools import MEMORY_STATUS


def services_of(home) -> list[int]:
    return front.running_services(home.root)


CLIENT = types.Implementation(name="test", version="1")


def socket_of(home) -> Path:
    return front.runtime_dir() / f"mcp-{front.service_key(home.root)}.sock"


async def status_of(client: Client) -> str:
    return text_of(await client.call_tool(MEMORY_STATUS, {}))


pytestmark = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds processes through /proc")


async def test_sessions_at_once_share_one_service_and_each_reaches_its_own_bot(home_copy):
    async with connect(home_copy, "scout") as scout, connect(home_copy, "ledger") as ledger:
        scouts, ledgers = await status_of(scout), await status_of(ledger)
        assert len(services_of(home_copy)) == 1
        path = socket_of(home_copy)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert "Scout" in scouts and "Ledger" not in scouts
    assert "Ledger" in ledgers and "Scout" not in ledgers
    async with connect(home_copy, "scout") as again:  # the next session: the same service, no second start
        await status_of(again)
        assert len(services_of(home_copy)) == 1


async def test_a_service_of_other_code_hands_over_and_finishes_its_sessions(home_copy):
    async with connect(home_copy) as first:
        (old,) = services_of(home_copy)
        with socket.socket(socket.AF_UNIX) as other:  # a client of another install: other code than this service's
            other.connect(str(socket_of(home_copy)))
            other.sendall(json.dumps({"omb": front.PROTOCOL, "stamp": "other", "bot": "scout"}).encode() + b"\n")
            answer = json.loads(other.makefile().readline())
        assert answer["ok"] is False and answer["stale"] is True
        assert not socket_of(home_copy).exists()  # given up at once: the next client starts a new service
        async with connect(home_copy) as second:
            await status_of(second)
            assert [pid for pid in services_of(home_copy) if pid != old]
        assert "Scout" in await status_of(first)  # the old one still serves the session it had
    wait_for(lambda: old not in services_of(home_copy), "the old service ends with its last session")


async def test_a_connection_that_says_nothing_holds_no_one_up(home_copy):
    async with connect(home_copy) as client:
        await status_of(client)
    with socket.socket(socket.AF_UNIX) as silent:
        silent.connect(str(socket_of(home_copy)))
        async with connect(home_copy) as client:
            assert "Scout" in await status_of(client)


def test_the_service_ends_when_idle_and_a_session_after_starts_one(home_copy):
    async def one_session() -> None:
        async with connect(home_copy) as client:
            await status_of(client)

    anyio.run(one_session)
    wait_for(lambda: not services_of(home_copy), "the service ends 2 s after its last session")
    assert not socket_of(home_copy).exists()
    anyio.run(one_session)


async def test_a_folder_others_can_open_is_never_used(home_copy, tmp_path, monkeypatch):
    runtime = tmp_path / "run"
    (runtime / f"omb-tui-{os.getuid()}").mkdir(parents=True, mode=0o755)
    os.chmod(runtime / f"omb-tui-{os.getuid()}", 0o755)
    env = {"PYTHONPATH": str(ROOT), "XDG_RUNTIME_DIR": str(runtime), **clock.carried_env(), **SHORT_LIVED}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "omb_tui.cli", "mcp", "--bot", "scout", "--home", str(home_copy.root)],
        env=env,
    )
    errlog = tmp_path / "stderr"
    with errlog.open("w+") as err:
        async with Client(stdio_client(params, errlog=err)) as client:
            assert "Scout" in await status_of(client)
            assert not services_of(home_copy)
    said = errlog.read_text()
    assert "is not a folder only you can open" in said and "runs in this process" in said
    assert not list((runtime / f"omb-tui-{os.getuid()}").iterdir())


async def test_switched_off_the_server_runs_in_the_clients_process(home_copy):
    env = {"PYTHONPATH": str(ROOT), front.ENV_SWITCH: "0", **clock.carried_env(), **SHORT_LIVED}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "omb_tui.cli", "mcp", "--bot", "scout", "--home", str(home_copy.root)],
        env=env,
    )
    async with Client(stdio_client(params)) as client:
        assert "Scout" in await status_of(client)
        assert not services_of(home_copy)


async def test_two_clients_that_start_a_service_at_once_are_both_served_by_one(home_copy, tmp_path):
    """Both found no service and started one: one took the lock, the other exited, both sessions were served by
    the one (neither fell back to a server of its own)."""
    statuses: list[str] = []
    with (tmp_path / "stderr").open("w+") as err:

        async def session(bot_id: str) -> None:
            async with connect(home_copy, bot_id, errlog=err) as client:
                statuses.append(await status_of(client))
                assert len(services_of(home_copy)) == 1

        async with anyio.create_task_group() as group:
            group.start_soon(session, "scout")
            group.start_soon(session, "ledger")
    assert len(statuses) == 2
    assert "runs in this process" not in (tmp_path / "stderr").read_text()


def test_the_front_a_client_starts_loads_neither_the_sdk_nor_the_library(home_copy):
    """The process a client starts at every session imports the standard library and the command line's own
    parts: the SDK, the web stack under it and the library load in the service, once."""
    params = types.InitializeRequestParams(
        protocol_version="2025-11-25", capabilities=types.ClientCapabilities(), client_info=CLIENT
    )
    request = types.JSONRPCRequest(jsonrpc="2.0", id=1, method="initialize", params=params.model_dump(by_alias=True))
    timed = [sys.executable, "-X", "importtime", "-m", "omb_tui.cli"]
    done = subprocess.run(
        [*timed, "--home", str(home_copy.root), "mcp", "--bot", "scout"],
        input=request.model_dump_json(by_alias=True, exclude_none=True).encode() + b"\n",
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert json.loads(done.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "omb-tui"
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    assert "omb_tui.mcp.front" in loaded and services_of(home_copy)
    heavy = ("mcp", "mcp_types", "pydantic", "anyio", "litellm", "omb_tui.library", "omb_tui.mcp.server")
    assert {m for m in loaded if any(m == name or m.startswith(name + ".") for name in heavy)} == set()


# ----- a session is never dropped in silence -----
def initialize_line() -> bytes:
    params = types.InitializeRequestParams(
        protocol_version="2025-11-25", capabilities=types.ClientCapabilities(), client_info=CLIENT
    )
    request = types.JSONRPCRequest(jsonrpc="2.0", id=1, method="initialize", params=params.model_dump(by_alias=True))
    return request.model_dump_json(by_alias=True, exclude_none=True).encode() + b"\n"


def started_front(home, bot_id: str = "scout") -> subprocess.Popen[bytes]:
    """`omb-tui mcp` as a client starts it, past its handshake (its answer read), its stdin left open."""
    front_process = subprocess.Popen(
        [sys.executable, "-m", "omb_tui.cli", "--home", str(home.root), "mcp", "--bot", bot_id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), **clock.carried_env(), **SHORT_LIVED},
    )
    assert front_process.stdin is not None and front_process.stdout is not None
    front_process.stdin.write(initialize_line())
    front_process.stdin.flush()
    assert json.loads(front_process.stdout.readline())["result"]["serverInfo"]["name"] == "omb-tui"
    return front_process


async def test_at_its_most_sessions_a_new_session_is_served_in_its_own_process_and_says_so(home_copy, tmp_path):
    """The service holds at most OMB_TUI_MCP_MAX_SESSIONS sessions (200 unless set, fewer under a low descriptor
    limit); the next client's front serves the session itself, after one line on stderr."""
    with (tmp_path / "first").open("w+") as first_err, (tmp_path / "second").open("w+") as second_err:
        async with connect(home_copy, errlog=first_err, env={front.ENV_MAX_SESSIONS: "1"}) as first:
            assert "Scout" in await status_of(first)
            async with connect(home_copy, errlog=second_err) as second:
                assert "Scout" in await status_of(second)
                assert len(services_of(home_copy)) == 1
            assert "Scout" in await status_of(first)  # the one it holds goes on
    said = (tmp_path / "second").read_text().splitlines()
    assert said == ["omb-tui: The MCP service holds 1 session, its most. This session's server runs in this process."]
    assert (tmp_path / "first").read_text() == ""


@pytest.mark.parametrize(
    ("ending", "said"),
    [
        (signal.SIGKILL, front.SESSION_LOST),
        (signal.SIGTERM, "The MCP service was stopped in the middle of this session; start the session again."),
    ],
)
def test_a_service_ended_mid_session_is_one_line_and_a_failing_exit_from_every_front(home_copy, ending, said):
    """The session's state (its handshake, its subscriptions) lived in the service, so no front can go on with
    it: each says why in one line, and exits non-zero, so the agent shows a reason instead of a server that left."""
    fronts = [started_front(home_copy, "scout"), started_front(home_copy, "ledger")]
    (service,) = services_of(home_copy)
    os.kill(service, ending)
    for ended in fronts:
        _out, err = ended.communicate(timeout=60)  # a bound on a stuck front, never a measure
        assert ended.returncode == front.EXIT_SESSION_LOST
        assert err.decode().splitlines() == [f"omb-tui: {said}"]


async def test_a_service_that_loads_slower_than_its_idle_time_serves_the_hello_it_was_started_for(home_copy, tmp_path):
    """Its idle time counts from when it can serve: loading the SDK (~700 ms) once outlasted a short idle time and
    the service ended with the first client's hello unread."""
    with (tmp_path / "stderr").open("w+") as err:
        async with connect(home_copy, errlog=err, env={front.ENV_IDLE: "0.5"}) as client:
            assert "Scout" in await status_of(client)
            assert len(services_of(home_copy)) == 1
    assert (tmp_path / "stderr").read_text() == ""


async def test_a_new_session_after_the_service_was_killed_is_served_by_a_new_one(home_copy):
    async with connect(home_copy) as client:
        await status_of(client)
    (old,) = services_of(home_copy)
    os.kill(old, signal.SIGKILL)
    wait_for(lambda: old not in services_of(home_copy), "the killed service is gone")
    assert socket_of(home_copy).exists()  # left behind, with no one listening
    async with connect(home_copy) as client:
        assert "Scout" in await status_of(client)
        assert [pid for pid in services_of(home_copy) if pid != old]


async def test_each_session_reads_its_model_key_from_its_own_clients_environment(home_copy, fake_llm):
    """The service was started by the first client, with that client's variables; a later session's embeddings
    call carries its own client's key, and a client without the variable sends none (recall by words alone)."""
    write_llm_config(
        home_copy,
        fake_llm,
        instances={
            "vectors": {"model": "openai/mini-embed", "api_base": fake_llm.api_base, "api_key_env": "OMB_EMBED_KEY"}
        },
        embeddings={"instanceId": "vectors"},
    )

    def keys_sent_for(message: str) -> set[str]:
        return {
            {name.lower(): value for name, value in request.headers.items()}.get("authorization", "")
            for request in list(fake_llm.requests)
            if request.path.endswith("/embeddings") and request.body.get("input") == [message]
        }

    async def recall_until_sent(client: Client, message: str) -> set[str]:
        for _ in range(50):  # a query past its deadline is not kept: asked again until the server heard it
            await client.call_tool("recall", {"message": message})
            if sent := keys_sent_for(message):
                return sent
        pytest.fail(f"no embeddings request for {message!r}")

    async with (
        connect(home_copy, env={"OMB_EMBED_KEY": "key-of-alice"}) as alice,
        connect(home_copy, env={"OMB_EMBED_KEY": "key-of-bob"}) as bob,
        connect(home_copy) as carol,
    ):
        assert len(services_of(home_copy)) == 1
        assert await recall_until_sent(alice, "alice asks about the trip") == {"Bearer key-of-alice"}
        assert await recall_until_sent(bob, "bob asks about the trip") == {"Bearer key-of-bob"}
        await carol.call_tool("recall", {"message": "carol asks about the trip"})
    assert keys_sent_for("carol asks about the trip") == set()


async def test_a_session_goes_on_when_its_memory_files_cannot_be_watched(demo_home, monkeypatch, caplog):
    """A full inotify table (watchfiles raises RuntimeError) once ended the session at its start; now only the
    watching stops, in one log line (the service sends it to that client's stderr)."""
    import watchfiles

    from omb_tui import Memory
    from omb_tui.mcp.server import MemoryServer

    tried = anyio.Event()

    async def no_watcher(*_args, **_kwargs):
        tried.set()
        raise RuntimeError("Error creating recommended watcher: Too many open files (os error 24)")
        yield  # an async generator, as awatch is

    monkeypatch.setattr(watchfiles, "awatch", no_watcher)
    served = []

    async def serve() -> None:
        await tried.wait()
        await anyio.sleep(0)  # the watcher's task takes its turn: it has failed by now
        served.append(True)

    await MemoryServer(Memory(demo_home).bot("scout"), watch=True).run_beside(serve)
    assert served == [True]
    assert "cannot watch the memory files" in caplog.text
