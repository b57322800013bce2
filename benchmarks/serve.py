"""Requests per second and p95 latency of `omb-tui serve` under 32 concurrent clients, beside a bare aiohttp route.

Three servers' worth of work in one run, each in its own process on 127.0.0.1, driven by the same aiohttp client
with 32 connections: a bare aiohttp app answering `GET /hello` with a small JSON object (the floor: what aiohttp
costs on this machine), then `omb-tui serve` on the demo home answering the overview (`GET /api/bots/scout/memory`:
a look for outside changes, the gauge, every topic's header) and a hash-checked save (`PUT
/api/bots/scout/memory/file`: each client saves its own topic with the hash its last save returned, so every save
is written: redacted, atomic with fsync, journaled). The three are interleaved, `--rounds` times, each for
`--seconds`; the figures are over every round. Prints requests per second, median and p95 latency, and each route's
ratio to the bare route; then the same two core calls made directly, one after the other on one thread (no HTTP),
which is the most one process could answer. Asserts nothing.

    .venv/bin/python benchmarks/serve.py [--clients 32] [--seconds 4] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SAVES_BOT = "bench"  # the saves go to a bot of their own, so the overview of scout reads the same files throughout

HELLO_SERVER = """
import sys
from aiohttp import web

async def hello(request):
    return web.json_response({"hello": "world"})

app = web.Application()
app.router.add_get("/hello", hello)

async def main():
    import asyncio
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(f"http://127.0.0.1:{runner.addresses[0][1]}", flush=True)
    await asyncio.Event().wait()

import asyncio
asyncio.run(main())
"""


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    refused: int = 0  # any status other than 200

    @property
    def per_second(self) -> float:
        return len(self.latencies) / self.seconds

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def start_server(command: list[str], env: dict) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    address = re.search(r"http://127\.0\.0\.1:\d+", line)
    if not address:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, address.group(0)


async def drive(session: aiohttp.ClientSession, states: list[dict], seconds: float, request_of) -> Figures:
    """One loop per client (its state kept from run to run), each sending one request after the other until the
    time is up."""
    figures = Figures()
    deadline = time.perf_counter() + seconds

    async def client(number: int) -> None:
        state = states[number]
        while time.perf_counter() < deadline:
            method, url, body = request_of(number, state)
            started = time.perf_counter()
            async with session.request(method, url, json=body) as answer:
                data = await answer.json()
            figures.latencies.append(time.perf_counter() - started)
            if answer.status != 200:
                figures.refused += 1
            elif method == "PUT":
                state["hash"] = data["hash"]

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(len(states))))
    figures.seconds = time.perf_counter() - started
    return figures


async def run(hello: str, api: str, token: str, args) -> dict[str, Figures]:
    headers = {"Authorization": f"Bearer {token}"}
    totals = {name: Figures() for name in ("bare aiohttp GET /hello", "overview GET", "hash-checked save PUT")}

    def hello_request(number, state):
        return "GET", f"{hello}/hello", None

    def overview_request(number, state):
        return "GET", f"{api}/api/bots/scout/memory", None

    def save_request(number, state):
        state["n"] = state.get("n", 0) + 1
        text = f"# Bench {number}\n\n- 2026-12-01 · save {state['n']} of client {number}\n"
        return (
            "PUT",
            f"{api}/api/bots/{SAVES_BOT}/memory/file",
            {"path": f"memory/bench-{number}.md", "text": text, "expectedHash": state.get("hash")},
        )

    connector = aiohttp.TCPConnector(limit=args.clients)
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:
        # Warm-up: connections open, the first requests' imports done, every client's topic created.
        states = [{} for _ in range(args.clients)]  # each client's last hash, from run to run
        for _name, request_of in zip(totals, (hello_request, overview_request, save_request)):
            await drive(session, states, 0.5, request_of)
        for _ in range(args.rounds):
            for name, request_of in zip(totals, (hello_request, overview_request, save_request)):
                figures = await drive(session, states, args.seconds, request_of)
                totals[name].latencies += figures.latencies
                totals[name].seconds += figures.seconds
                totals[name].refused += figures.refused
    return totals


def add_saves_bot(home: Path) -> None:
    from omb_tui.core.files.paths import Home
    from omb_tui.core.memory.settings import BotSettings, save_bot_settings

    opened = Home(home)
    opened.workspace(SAVES_BOT).mkdir(parents=True)
    save_bot_settings(opened, BotSettings(id=SAVES_BOT, name="Bench"))


def core_alone(home: Path, calls: int = 200) -> tuple[float, float]:
    """Seconds per overview and per hash-checked save, the core called directly on one thread."""
    from omb_tui.core.files.paths import Home
    from omb_tui.server.app import read_overview, save_file

    opened = Home(home)
    started = time.perf_counter()
    for _ in range(calls):
        read_overview(opened, "scout")
    overview = (time.perf_counter() - started) / calls
    current = save_file(opened, SAVES_BOT, "memory/bench-alone.md", "# Alone\n", None)["hash"]
    started = time.perf_counter()
    for n in range(calls):
        current = save_file(opened, SAVES_BOT, "memory/bench-alone.md", f"# Alone\n\n- save {n}\n", current)["hash"]
    return overview, (time.perf_counter() - started) / calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMB_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        subprocess.run(
            [sys.executable, "-m", "omb_tui.cli", "demo", "--home", str(home)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        add_saves_bot(home)
        token = subprocess.run(
            [sys.executable, "-m", "omb_tui.cli", "--home", str(home), "serve", "--show-token"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        hello_process, hello = start_server([sys.executable, "-c", HELLO_SERVER], env)
        api_process, api = start_server(
            [sys.executable, "-m", "omb_tui.cli", "--home", str(home), "serve", "--port", "0"], env
        )
        try:
            totals = asyncio.run(run(hello, api, token, args))
        finally:
            for process in (hello_process, api_process):
                process.terminate()
                process.wait(timeout=30)
        alone = core_alone(home)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"aiohttp {aiohttp.__version__}; {args.clients} concurrent clients on loopback, "
        f"{args.rounds} interleaved rounds of {args.seconds:g} s each"
    )
    floor = totals["bare aiohttp GET /hello"]
    for name, figures in totals.items():
        refused = f", {figures.refused} not 200" if figures.refused else ""
        ratio = (
            ""
            if figures is floor
            else (
                f"  ({figures.per_second / floor.per_second:.2f}× the bare route's rate, "
                f"p95 {figures.percentile(0.95) / floor.percentile(0.95):.1f}× its p95)"
            )
        )
        median = statistics.median(figures.latencies)
        print(
            f"{name:<26} {figures.per_second:>7,.0f} req/s  median {median * 1000:6.1f} ms"
            f"  p95 {figures.percentile(0.95) * 1000:6.1f} ms  ({len(figures.latencies):,} requests{refused}){ratio}"
        )
    for name, seconds, figures in zip(("overview", "hash-checked save"), alone, list(totals.values())[1:]):
        print(
            f"the core alone, one thread, no HTTP: {name} {seconds * 1000:.1f} ms a call "
            f"({1 / seconds:,.0f} a second); the server answers {figures.per_second * seconds:.2f}× that rate"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
