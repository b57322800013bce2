"""Slow, idle and flooding clients never keep the owner's requests out: requests that never finish arriving are
closed after the deadline, the open connections are capped below the descriptor limit, the log says what happened
in one line a second at most, and a stderr nobody reads never stops the server."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

from support.serve_helpers import LiveServer
from support.server_processes import DEADLINE, closed_by_server, serve_env, wait_for

from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.owner_token import load_or_create_token
from omb_tui.server.connections import ConnectionEvents, ServeLimits
from omb_tui.server.http import GUARD

API = "/api/bots/scout/memory"


def half_sent(port: int) -> socket.socket:
    """A connection that sends the start of a request and then nothing: the slow client's move."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    sock.sendall(f"GET {API} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode("ascii"))
    return sock


def owner_get(port: int, token: str, path: str = API) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=DEADLINE) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as answer:
        return answer.code, json.loads(answer.read())


def connection_lines(records) -> list[str]:
    return [r.getMessage() for r in records if r.name == "omb_tui.server" and "connections" in r.getMessage().lower()]


def counted(lines: list[str]) -> Counter:
    """The counts the connection lines gave, by label, added up."""
    total: Counter = Counter()
    for line in lines:
        for label, count in re.findall(r"([^;:]+): ([\d,]+)", line.rstrip(".")):
            total[label.strip().lower()] += int(count.replace(",", ""))
    return total


# ----- in-process, with small limits -----
def test_half_sent_requests_past_the_cap_are_closed_and_the_owner_still_gets_in(home, caplog):
    limits = ServeLimits(header_seconds=1.0, max_connections=20)
    with LiveServer(home, limits=limits) as server, ExitStack() as stack:
        started = time.monotonic()
        slow = [stack.enter_context(half_sent(server.port)) for _ in range(50)]
        reply = server.get(API)  # its connection arrives last, so it is never the longest idle
        assert reply.status == 200 and reply.data["name"] == "Scout"
        wait_for(lambda: all(closed_by_server(sock) for sock in slow), "every half-sent request closed")
        wait_for(lambda: counted(connection_lines(caplog.records)).total() >= 50, "the log's counts")
        elapsed = time.monotonic() - started
        assert server.get(API).status == 200
    lines = connection_lines(caplog.records)
    totals = counted(lines)
    # Each half-sent request closed once: to make room for a newer one, or at its deadline (which of the two
    # depends on how fast the 50 were opened); the owner's own connection was never one of them.
    made_room = totals["idle connections closed to make room"]
    assert made_room >= 1 and made_room + totals["connections closed with no request within 1 s"] == 50
    assert len(lines) <= elapsed + 1  # one line a second at most, counts and all
    assert not [r for r in caplog.records if r.exc_info]


def test_a_body_that_stops_arriving_is_408_and_writes_nothing(home):
    limits = ServeLimits(body_seconds=1.0)
    with LiveServer(home, limits=limits) as server:
        before = (home.workspace("scout") / "MEMORY.md").read_bytes()
        with socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE) as sock:
            body = b'{"text": "- only the start'
            sock.sendall(
                f"PUT {API} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer "
                f"{server.token}\r\nContent-Length: 100\r\n\r\n".encode("ascii")
                + body
            )
            answer = b""
            while not answer.endswith(b"}"):  # the whole answer, a JSON object; then the server closes
                answer += sock.recv(65536)
        head, _, payload = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408")
        assert json.loads(payload) == {"error": "The body did not arrive within 1 s; nothing was read or changed."}
        assert (home.workspace("scout") / "MEMORY.md").read_bytes() == before


def test_when_every_open_connection_is_busy_a_new_one_is_503_at_once(home):
    limits = ServeLimits(max_connections=3)
    with LiveServer(home, limits=limits) as server, ThreadPoolExecutor(3) as pool:
        read_hash = server.get(f"{API}/file?path=MEMORY.md").data["hash"]
        with MemoryStore(home, "scout").locked():  # the three saves wait for the bot's lock: three busy connections
            saves = [
                pool.submit(
                    server.request,
                    "PUT",
                    f"{API}/file",
                    {"path": "MEMORY.md", "text": f"- {n}\n", "expectedHash": read_hash},
                )
                for n in range(3)
            ]
            guard = server.app[GUARD]
            wait_for(
                lambda: len(guard.open) == 3 and sum(c.requests for c in guard.open.values()) == 3,
                "three saves waiting, and no other connection open",
            )
            refused = server.get(API)
            assert refused.status == 503 and refused.headers["Retry-After"] == "1"
            assert refused.error == (
                "The server has 3 connections open, its limit, each with a request in progress; try again in a moment."
            )
        assert sorted(save.result(DEADLINE).status for save in saves) == [200, 409, 409]
        assert server.get(API).status == 200


async def test_the_log_line_comes_once_a_second_with_every_count():
    clock, scheduled, said = [100.0], [], []
    events = ConnectionEvents(
        ServeLimits(), 500, clock=lambda: clock[0], later=lambda delay, call: scheduled.append((clock[0] + delay, call))
    )
    import logging

    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())
    logging.getLogger("omb_tui.server").addHandler(handler)
    try:
        for _ in range(1000):
            events.add("no request")
        events.add("refused", 3)
        assert said == ["Connections closed with no request within 10 s: 1."] and len(scheduled) == 1
        clock[0], call = scheduled[0]
        call()
        assert (
            said[1] == "Connections closed with no request within 10 s: 999; connections refused, all 500 open "
            "ones busy: 3."
        )
        call()  # nothing new since: no line
        assert len(said) == 2 and events.total == Counter({"no request": 1000, "refused": 3})
    finally:
        logging.getLogger("omb_tui.server").removeHandler(handler)


# ----- the installed command -----
def start_serve(home, tmp_path, *, code: str = "", descriptors: int | None = None, stderr=None):
    """`omb-tui serve --port 0` in its own process (after `code`, and with at most `descriptors` open files); its
    port. The limit is set by the child itself: a preexec_fn could deadlock in a forked copy of this threaded one."""
    if descriptors:
        code = (
            "import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, "
            f"({descriptors}, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\n"
        ) + code
    program = [
        sys.executable,
        "-c",
        code + "\nimport sys\nfrom omb_tui.cli import main\nsys.exit(main(['serve', '--port', '0']))",
    ]
    server = subprocess.Popen(program, env=serve_env(home, tmp_path), stdout=subprocess.PIPE, stderr=stderr)
    line = server.stdout.readline().decode()
    address = re.search(r"http://127\.0\.0\.1:(\d+)/api", line)
    assert address, line
    return server, int(address.group(1))


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def test_more_half_sent_requests_than_descriptors_never_stall_the_command(home, tmp_path):
    token = load_or_create_token(home)
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        server, port = start_serve(home, tmp_path, descriptors=400, stderr=stderr)
        try:
            started = time.monotonic()
            with ExitStack() as stack:
                for _ in range(450):  # more than the 400 descriptors the server may have
                    stack.enter_context(half_sent(port))
                status, data = owner_get(port, token)
                assert (status, data["name"]) == (200, "Scout")
            elapsed = time.monotonic() - started
        finally:
            stop(server)
    said = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in said
    lines = [line for line in said.splitlines() if "connections" in line.lower()]
    assert lines and len(lines) <= elapsed + 1


BROKEN_JOURNAL = """
from omb_tui.netguard import log
from omb_tui.server import app

log.QUEUED_LINES = 50

def broken_journal(*args):
    raise RuntimeError("a bug, told at length: " + "x" * 4000)

app.read_journal = broken_journal
"""


def test_a_stderr_nobody_reads_never_stops_the_server_nor_its_exit(home, tmp_path):
    token = load_or_create_token(home)
    server, port = start_serve(home, tmp_path, code=BROKEN_JOURNAL, stderr=subprocess.PIPE)  # never read
    try:
        for _ in range(200):  # each a 500 with a 4 KB traceback: 64 KB fill the pipe after 16, 50 the queue
            assert owner_get(port, token, f"{API}/journal")[0] == 500
        status, data = owner_get(port, token)
        assert (status, data["name"]) == (200, "Scout")
        server.terminate()
        wait_for(lambda: server.poll() is not None, "the server ending on SIGTERM")
        assert server.returncode == 0
    finally:
        stop(server)


def test_lines_dropped_while_stderr_is_stuck_are_counted_and_told():
    import logging
    import queue
    import threading

    from omb_tui.netguard.log import STOP, DroppingQueueHandler, write_lines

    stuck, written = threading.Event(), []

    class StuckStderr(logging.Handler):
        def emit(self, record):
            stuck.wait(DEADLINE)
            written.append(record.getMessage())

    lines: queue.Queue = queue.Queue(2)
    handler = DroppingQueueHandler(lines)
    writer = threading.Thread(target=write_lines, args=(lines, handler, [StuckStderr()]), daemon=True)
    writer.start()
    handler.handle(logging.makeLogRecord({"msg": "line 0", "levelno": logging.ERROR}))
    wait_for(lambda: lines.empty(), "the writer holding line 0")
    for n in range(1, 10):  # two wait in the queue, seven are dropped
        handler.handle(logging.makeLogRecord({"msg": f"line {n}", "levelno": logging.ERROR}))
    stuck.set()
    wait_for(lambda: len(written) == 4, "the queued lines written, and the count of those dropped")
    handler.handle(logging.makeLogRecord({"msg": "line 10", "levelno": logging.ERROR}))
    lines.put(STOP)
    writer.join(DEADLINE)
    assert written == [
        "line 0",
        "7 log lines were dropped: stderr was not being read fast enough.",
        "line 1",
        "line 2",
        "line 10",
    ]
