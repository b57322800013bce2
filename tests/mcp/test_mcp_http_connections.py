"""`omb-tui mcp --http` under the slow client's attack, as `omb-tui serve` is (docs/mcp.md): more half-sent
requests than the process has descriptors never keep the owner out, a head that never finishes is closed at its
deadline, a body that stops arriving is 408, the log says what happened in one line a second at most (not a
traceback per refused accept), and SIGTERM with all of them open ends the server with exit 0 and no traceback.

Each server runs as the installed command does (`omb_tui.cli.main`), in its own process with its own descriptor
limit; the deadlines are lowered through the module's LIMITS before it starts (what the command uses is 10 s for a
head and 30 s for a body, docs/mcp.md).
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import ExitStack

from support.server_processes import DEADLINE, closed_by_server, serve_env, wait_for

from omb_tui.core.people.owner_token import load_or_create_token

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "urllib", "version": "1"}},
}


def start_mcp(home, tmp_path, stderr, *, descriptors: int | None = None, limits: str = ""):
    code = "import resource\n"
    if descriptors:
        code += (
            f"resource.setrlimit(resource.RLIMIT_NOFILE, ({descriptors}, "
            "resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\n"
        )
    if limits:
        code += f"from omb_tui.mcp import http\nfrom omb_tui.netguard.connections import ServeLimits\nhttp.LIMITS = ServeLimits({limits})\n"
    code += (
        "import sys\nfrom omb_tui.cli import main\nsys.exit(main(['mcp', '--bot', 'scout', '--http', '--port', '0']))"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", code],
        env=serve_env(home, tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
    )
    line = server.stdout.readline().decode()
    address = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
    assert address, line
    return server, int(address.group(1))


def half_sent(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode("ascii"))
    return sock


def owner_initialize(port: int, token: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=json.dumps(INITIALIZE).encode(),
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=DEADLINE) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def ended(server: subprocess.Popen) -> int:
    try:
        return server.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        raise


def test_more_half_sent_requests_than_descriptors_never_lock_the_owner_out(home, tmp_path):
    token = load_or_create_token(home)
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        server, port = start_mcp(home, tmp_path, stderr, descriptors=400)
        try:
            started = time.monotonic()
            with ExitStack() as stack:
                for _ in range(450):  # more than the 400 descriptors the server may have
                    stack.enter_context(half_sent(port))
                assert owner_initialize(port, token) == 200
                elapsed = time.monotonic() - started
                server.send_signal(signal.SIGTERM)  # with every half-sent request still open
                assert ended(server) == 0
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    said = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in said and "Too many open files" not in said, said[:2000]
    lines = [line for line in said.splitlines() if "connections" in line.lower()]
    assert lines and len(lines) <= elapsed + 2, said[:2000]  # one a second, and the last one at the stop


def test_a_head_that_never_finishes_is_closed_at_its_deadline(home, tmp_path):
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        server, port = start_mcp(home, tmp_path, stderr, limits="header_seconds=1.0")
        try:
            with ExitStack() as stack:
                slow = [stack.enter_context(half_sent(port)) for _ in range(5)]
                wait_for(lambda: all(closed_by_server(sock) for sock in slow), "every half-sent request closed")
        finally:
            server.terminate()
            assert ended(server) == 0
    said = (tmp_path / "stderr.txt").read_text()
    assert "Connections closed with no request within 1 s: " in said and "Traceback" not in said


def test_a_body_that_stops_arriving_is_408_in_one_sentence(home, tmp_path):
    token = load_or_create_token(home)
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        server, port = start_mcp(home, tmp_path, stderr, limits="body_seconds=1.0")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as sock:
                sock.sendall(
                    f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                    "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                    "Content-Length: 100\r\n\r\n".encode("ascii")
                    + b'{"jsonrpc": "2.0", "id": 1, "meth'
                )
                answer = b""
                while not answer.endswith(b"}"):
                    chunk = sock.recv(65536)
                    assert chunk, answer
                    answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 408")
            assert json.loads(body) == {"error": "The body did not arrive within 1 s; nothing was read or changed."}
            assert owner_initialize(port, token) == 200
        finally:
            server.terminate()
            assert ended(server) == 0
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
