"""Whether the owner's requests still get answers while many connections send half a request and stop.

`omb-tui serve` on the demo home, in its own process with the descriptor limit many systems start with (1,024),
faces N connections that each send the start of a request and then nothing (N = 0, then each of --half-open).
Meanwhile the owner sends --requests overview requests one after the other, each on a new connection with a
--timeout, as a web panel would; printed: how many were answered, their median and slowest time, and how many of
the half-sent connections the server had closed --wait seconds later. Asserts nothing.

    .venv/bin/python benchmarks/serve_slow_clients.py [--half-open 1100 5000] [--requests 20] [--timeout 10]
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


def start_server(home: Path, env: dict, descriptors: int) -> tuple[subprocess.Popen, int]:
    def limit() -> None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(descriptors, hard), hard))

    process = subprocess.Popen(
        [sys.executable, "-m", "omb_tui.cli", "--home", str(home), "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=limit,
    )
    line = process.stdout.readline()
    address = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not address:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, int(address.group(1))


def half_sent(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET {API} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode("ascii"))
    return sock


def owner_request(port: int, token: str, timeout: float) -> float | None:
    """Seconds the answer took, or None when none came within the timeout."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{API}", headers={"Authorization": f"Bearer {token}"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            json.loads(answer.read())
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
    try:
        for _ in range(count):
            try:
                slow.append(half_sent(port))
            except OSError:  # the kernel's queue is full: the rest could not even connect
                break
        times = [owner_request(port, token, args.timeout) for _ in range(args.requests)]
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
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; the server "
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
            process, port = start_server(home, env, args.descriptors)  # a fresh server for each run
            try:
                print(one_run(port, token, count, args), flush=True)
            finally:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
