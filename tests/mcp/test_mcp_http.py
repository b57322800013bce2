"""`omb-tui mcp --http`: Streamable HTTP on 127.0.0.1 alone, as the official SDK's client and a plain HTTP client see
it. Every request needs the owner's token (the file `omb-tui serve` uses): none and a wrong one are 403; a web page
of another site (its Origin) and a rebound name (its Host) are refused before the token is even read; it stops on
SIGTERM with exit 0.

Spec: "The journal"; the MCP specification's Streamable HTTP security (Origin, localhost, authentication);
docs/mcp.md.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from support.mcp_helpers import CLIENT_NAME, ROOT, command_json, demo_home, home_copy, start_http_server

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT
from omb_tui.core.people.owner_token import token_path
from omb_tui.core.turn.tools import MEMORY_UPDATE


@dataclass
class Running:
    home: Home
    port: int
    token: str
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@pytest.fixture
def running(home_copy) -> Iterator[Running]:
    """`omb-tui mcp --bot scout --http --port 0`, its address read from the line it prints first."""
    process, line = start_http_server(home_copy)
    try:
        address = re.search(r"http://127\.0\.0\.1:(\d+)/mcp ", line)
        assert address, line + process.stderr.read()
        assert str(token_path(home_copy)) in line
        yield Running(home_copy, int(address.group(1)), token_path(home_copy).read_text().strip(), process)
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    assert code == 0 and "Traceback" not in process.stderr.read()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "urllib", "version": "1"}},
}


def post(server: Running, headers: dict[str, str]) -> tuple[int, dict]:
    """One JSON-RPC initialize, with exactly these headers besides the body's."""
    body = json.dumps(INITIALIZE).encode()
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
    request = urllib.request.Request(server.url, data=body, headers=sent, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, {}
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"{}")


async def test_the_sdk_client_works_over_http_with_the_owners_token_and_writes_as_the_bot(running):
    assert stat.S_IMODE(os.stat(token_path(running.home)).st_mode) == 0o600  # made on the first start
    headers = {"Authorization": f"Bearer {running.token}"}
    for mode, text in (("auto", "Prefers the aisle seat"), ("legacy", "Flies from Pune")):
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http:
            transport = streamable_http_client(running.url, http_client=http)
            info = types.Implementation(name=CLIENT_NAME, version="1.0")
            async with Client(transport, mode=mode, client_info=info) as client:
                assert MEMORY_UPDATE in [tool.name for tool in (await client.list_tools()).tools]
                saved = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": text})
                assert not saved.is_error and "memory://scout/MEMORY.md" in [
                    r.uri for r in (await client.list_resources()).resources
                ]
    rows = command_json(running.home, "journal", "scout")[:2]
    for row in rows:
        assert (row["who"], row["how"]) == (WHO_BOT, HOW_TASK)
        assert row["chat"] == f"{CLIENT_NAME} (MCP session {row['run']})"
    assert rows[0]["run"] != rows[1]["run"]  # two clients' sessions, two runs


def test_no_token_and_a_wrong_one_are_403_each_in_one_sentence(running):
    status, said = post(running, {})
    assert status == 403 and said["error"].startswith("This needs the owner's token as 'Authorization: Bearer")
    assert str(token_path(running.home)) in said["error"]
    wrong = running.token[:-1] + ("A" if running.token[-1] != "A" else "B")
    assert post(running, {"Authorization": f"Bearer {wrong}"}) == (
        403,
        {"error": "That token is not the owner's; nothing was read or changed."},
    )
    assert post(running, {"Authorization": f"Bearer {running.token}"})[0] == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "https://127.0.0.1.evil.example:8768", "null"])
def test_a_web_page_of_another_site_is_refused_even_with_the_token(running, origin):
    status, said = post(running, {"Authorization": f"Bearer {running.token}", "Origin": origin})
    assert status == 403 and said["error"] == (
        f"A request from the web page '{origin}' is refused: only a page of this computer may call this server."
    )


def test_a_page_of_this_computer_may_call_it_with_the_token(running):
    for origin in ("http://localhost:3000", f"http://127.0.0.1:{running.port}"):
        assert post(running, {"Authorization": f"Bearer {running.token}", "Origin": origin})[0] == 200


def test_a_rebound_name_is_421_before_the_token_is_read(running):
    status, said = post(running, {"Host": f"evil.example:{running.port}"})
    assert status == 421 and said["error"] == (
        f"This server answers to 127.0.0.1:{running.port} or localhost:{running.port}, not to "
        f"'evil.example:{running.port}'."
    )


def test_the_host_name_is_read_in_any_case(running):
    """Host names are case-insensitive: LOCALHOST is this server, not the SDK's plain-text 421."""
    for host in (f"LOCALHOST:{running.port}", f"LocalHost:{running.port}"):
        assert post(running, {"Authorization": f"Bearer {running.token}", "Host": host})[0] == 200


def raw_request(server: Running, head: str, body: bytes = b"") -> tuple[int, dict]:
    """One POST written on a socket as given; the status and JSON of the answer."""
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {server.token}\r\n"
        f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{head}Connection: close\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        sock.sendall(head.encode("ascii") + b"\r\n" + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status = int(answer.split(b" ", 2)[1])
    return status, json.loads(answer.split(b"\r\n\r\n", 1)[1])


def test_a_body_over_the_cap_is_refused_in_one_sentence_and_the_server_goes_on(running):
    """A 30 MB argument once held the server 20 s at 600 MB: past 2 MiB (as `omb-tui serve`) a body is refused (413)
    unread when its length says so, and as soon as it passes the cap when it comes in chunks."""
    status, said = raw_request(running, "Content-Length: 31457280\r\n")  # 30 MiB announced, not a byte sent
    assert status == 413 and said["error"] == (
        "The body is larger than 2 MiB (2,097,152 bytes), the limit for one request; nothing was read or changed."
    )
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "recall", "arguments": {}}}
    call["params"]["arguments"]["message"] = "x" * (2 * 1024 * 1024)  # just over the cap with the JSON around it
    payload = json.dumps(call).encode()
    chunked = b"".join(
        b"%x\r\n%s\r\n" % (len(p), p) for p in (payload[i : i + 65536] for i in range(0, len(payload), 65536))
    )
    status, said = raw_request(running, "Transfer-Encoding: chunked\r\n", chunked + b"0\r\n\r\n")
    assert status == 413 and "larger than 2 MiB" in said["error"]
    assert post(running, {"Authorization": f"Bearer {running.token}"})[0] == 200


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="127.0.0.2 is a loopback address on Linux only")
def test_it_listens_on_127_0_0_1_alone(running):
    """Bound to 127.0.0.1, not to every address: another address of this very machine does not reach it."""
    with socket.create_connection(("127.0.0.1", running.port), timeout=10):
        pass
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", running.port), timeout=10).close()


def test_port_goes_with_http_and_a_port_in_use_is_one_sentence(demo_home):
    def mcp(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "omb_tui.cli", "--home", str(demo_home.root), "mcp", "--bot", "scout", *argv],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )

    stdio_port = mcp("--port", "9000")
    assert stdio_port.returncode == 2 and stdio_port.stderr == (
        "omb-tui: --port goes with --http: over stdio the client starts this command and talks on its pipes.\n"
    )
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        in_use = mcp("--http", "--port", str(port))
    assert in_use.returncode == 2 and in_use.stdout == ""
    assert in_use.stderr.startswith(f"omb-tui: Cannot listen on 127.0.0.1 port {port}: ")
    assert in_use.stderr.count("\n") == 1


def test_oauth_discovery_is_answered_so_no_client_starts_a_flow(running):
    """A 401 made an MCP client look for OAuth (the Inspector without a terminal then ended on "requires a TTY"):
    the well-known documents are a 404 naming the token file, without the token, and a request without the token
    is a 403 with the sentence, never a 401 (tests/mcp/inspector drives the Inspector)."""
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server/mcp"):
        request = urllib.request.Request(f"http://127.0.0.1:{running.port}{path}")
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=30)
        assert answer.value.code == 404
        said = json.loads(answer.value.read())["error"]
        assert "not OAuth" in said and str(token_path(running.home)) in said
    body = json.dumps(INITIALIZE).encode()
    request = urllib.request.Request(running.url, data=body, headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=30)
    assert answer.value.code == 403 and "WWW-Authenticate" not in answer.value.headers
    assert str(token_path(running.home)) in json.loads(answer.value.read())["error"]
