"""Whether the owner's requests still get answers while many connections send half a request and stop.

`omb-tui serve` (or, with `--server mcp`, `omb-tui mcp --bot scout --http`) on the demo home, in its own process
with the descriptor limit many systems start with (1,024), faces N connections that each send the start of a
request and then nothing (N = 0, then each of --half-open). Meanwhile the owner sends --requests requests one after
the other (serve: the bot's overview; mcp: an MCP initialize), each on a new connection with a --timeout, as a web
panel or an agent would; printed: how many were answered, their median and slowest time, how many of the half-sent
connections the server had closed --wait seconds later, and how much the server wrote to stderr meanwhile. Asserts
nothing.

    .venv/bin/python benchmarks/serve_slow_clients.py [--server serve|mcp] [--half-open 1100 5000] [--requests 20]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API = "/api/bots/scout/memory"
MCP = "/mcp"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def start_server(home: Path, env: dict, descriptors: int, server: str, stderr) -> tuple[subprocess.Popen, int]:
    def limit() -> None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(descriptors, hard), hard))

    command = ["serve", "--port", "0"] if server == "serve" else ["mcp", "--bot", "scout", "--http", "--port", "0"]
    process = subprocess.Popen(
        [sys.executable, "-m", "omb_tui.cli", "--home", str(home), *command],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        preexec_fn=limit,
    )
    line = process.stdout.readline()
    address = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not address:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, int(address.group(1))


def half_sent(port: int, path: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode("ascii"))
    return sock


def owner_request(port: int, token: str, timeout: float, server: str) -> float | None:
    """Seconds the answer took, or None when none came within the timeout."""
    headers = {"Authorization": f"Bearer {token}"}
    if server == "serve":
        request = urllib.request.Request(f"http://127.0.0.1:{port}{API}", headers=headers)
    else:
        headers.update({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        body = json.dumps(INITIALIZE).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}{MCP}", data=body, headers=headers, method="POST")
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            answer.read()
            return time.perf_counter() - started if answer.status == 200 else None
    except OSError:
        return None


def closed(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def one_run(port: int, token: str, count: int, args) -> str:
    slow = []
    path = API if args.server == "serve" else MCP
    try:
        for _ in range(count):
            try:
                slow.append(half_sent(port, path))
            except OSError:  # the kernel's queue is full: the rest could not even connect
                break
        times = [owner_request(port, token, args.timeout, args.server) for _ in range(args.requests)]
        answered = [t for t in times if t is not None]
        said = f"{len(slow):>5,} half-sent connections: {len(answered)} of {args.requests} owner's requests answered"
        if answered:
            said += f", median {statistics.median(answered) * 1000:.1f} ms, slowest {max(answered) * 1000:.1f} ms"
        if slow:
            time.sleep(args.wait)
            said += f"; {sum(closed(sock) for sock in slow):,} of them closed by the server {args.wait:g} s later"
        return said
    finally:
        for sock in slow:
            sock.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["serve", "mcp"], default="serve", help="which of the two HTTP servers")
    parser.add_argument("--half-open", type=int, nargs="+", default=[1100, 5000])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--wait", type=float, default=12.0, help="seconds before counting the closed ones")
    parser.add_argument("--descriptors", type=int, default=1024, help="the server's descriptor limit")
    args = parser.parse_args()
    wanted = max(args.half_open) + 256  # this process holds the client ends
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMB_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"omb-tui {args.server}; the server "
        f"may have {args.descriptors:,} descriptors; {args.requests} owner's requests a run, each allowed "
        f"{args.timeout:g} s"
    )
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        subprocess.run(
            [sys.executable, "-m", "omb_tui.cli", "demo", "--home", str(home)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        token = subprocess.run(
            [sys.executable, "-m", "omb_tui.cli", "--home", str(home), "serve", "--show-token"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for count in [0, *args.half_open]:
            with tempfile.TemporaryFile() as stderr:
                process, port = start_server(home, env, args.descriptors, args.server, stderr)  # a fresh one each run
                try:
                    said = one_run(port, token, count, args)
                finally:
                    process.terminate()
                    try:
                        code = process.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        process.kill()
                        code = process.wait()
                stderr.seek(0)
                err = stderr.read()
                tracebacks = err.count(b"Traceback")
                print(
                    f"{said}; stderr {len(err):,} bytes, {tracebacks:,} tracebacks; exit {code} on SIGTERM", flush=True
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
