"""Claude Code's hooks and the MCP server's start: how long each takes, as Claude Code runs it. Prints figures,
asserts nothing.

Beside a baseline a user would compare with (`python -c pass`, the least any Python hook costs), in the same run:

- the demo home: each hook started as Claude Code starts it (a new process of the installed command, one JSON
  object on stdin), five times, the median wall time; then what its imports cost (`python -X importtime`, every
  module's own time added up);
- a large home (`--large-mb`, 30 by default: synthetic 1:1 chats of forty messages each), once indexed:
  session-start, a session's first prompt (which opens its chat) and the prompts after it, five times each;
- a fresh home of `--fresh-mb` (169 by default) with no index: the first session-start and the first prompt, once
  each (a hook builds for 1.5 s at most and answers; the build goes on in the background), and how long that
  background build took to finish;
- MCP over stdio: from starting `omb-tui mcp --bot scout` to the answer to `initialize`, five times each: with no
  service running (a session's first start after 15 idle minutes: the service starts), with the home's service
  running (every other start), and in the client's own process (`OMB_TUI_MCP_SERVICE=0`, as before the service);
  beside a bare server of the `mcp` SDK (one tool, nothing else) started the same way, and the service's memory;
- Claude Code's and Codex's hooks on the large home (session-start, a prompt of a session under way, stop), the
  home's service up (the hooks' front hands each to it) and down (the hook runs in its own process, as before the
  front): `--hook-runs` times each, every run right after a `python -c pass`, so each figure is also a ratio to
  that baseline, taken under the same load (the load average is printed before and after); each service-down run
  is followed by the same hook of the code before the front (`--against REV`, git archive of this checkout; that
  code indexes its own copy of the home), so "no slower than before the front" is measured in the same minutes.

    .venv/bin/python benchmarks/hooks.py [--large-mb 30] [--fresh-mb 169] [--skip-large] [--hooks-only]
        [--hook-runs 15] [--against REV|none]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from omb_tui.core.memory import conversations as conv  # noqa: E402 (the checkout's, as every benchmark runs it)
from omb_tui.mcp.front import running_services  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5
SESSION = "0b7e2c4d-1111-4222-8333-444455556666"
PROMPT = "Which hotel did we pick for the Lisbon offsite?"


def command() -> list[str]:
    script = Path(sys.executable).parent / "omb-tui"
    return [str(script)] if script.exists() else [sys.executable, "-m", "omb_tui.cli"]


def transcript(path: Path) -> None:
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-12-02T09:00:00Z",
            "message": {"role": "user", "content": PROMPT},
        },
        {
            "type": "assistant",
            "uuid": "u2",
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
            },
        },
        {
            "type": "user",
            "uuid": "u3",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        },
        {
            "type": "assistant",
            "uuid": "u4",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Hotel Baixa Rio."}]},
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


WORDS = (
    "ferry hotel lisbon budget offsite train porto dinner booking invoice garden tomatoes shuttle airport "
    "meeting agenda draft review deadline client launch roadmap sprint design report slides weekend hike "
    "trail museum tickets concert dentist insurance renewal passport visa flight seat window aisle lunch"
).split()


def synthetic_home(home: Path, megabytes: int, env: dict) -> int:
    """The demo home, then 1:1 chats of forty messages each until the chats take `megabytes`; how many chats."""
    subprocess.run([*command(), "demo", "--home", str(home)], env=env, capture_output=True, check=True)
    folder = home / "conversations" / "chats" / "scout"
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    written, count = 0, 0
    while written < megabytes * 1_000_000:
        chat_id = f"bench-{count:05d}"
        header = conv.Conversation(
            id=chat_id,
            title=f"Chat {count}",
            kind=conv.KIND_CHAT,
            started_by=conv.Starter("person", "Nadia"),
            members=[conv.Member("person", "Nadia"), conv.Member("bot", "scout")],
            created=datetime(2026, 10, 1 + count % 28, 9, tzinfo=UTC),
        ).header_json()
        lines = [json.dumps(header)]
        for n in range(40):
            person = n % 2 == 0
            lines.append(
                json.dumps(
                    {
                        "type": "message",
                        "at": f"2026-10-{1 + count % 28:02d}T09:{n:02d}:00+00:00",
                        "author_kind": "person" if person else "bot",
                        "author": "Nadia" if person else "scout",
                        "text": " ".join(rng.choice(WORDS) for _ in range(55)),
                        "failed": False,
                        **({"origin": "person"} if person else {}),
                    }
                )
            )
        text = "\n".join(lines) + "\n"
        (folder / f"{chat_id}.ndjson").write_text(text, encoding="utf-8")
        written += len(text)
        count += 1
    return count


def run_hook(
    home: Path,
    hook: str,
    event: str,
    path: Path,
    env: dict,
    session: str = SESSION,
    agent: str = "claude-code",
    code: Path | None = None,
) -> float:
    """One hook as the agent starts it; with `code`, that checkout's (`python -m omb_tui.cli` there)."""
    data = {"session_id": session, "transcript_path": str(path), "cwd": "/work/atlas", "hook_event_name": event}
    data["prompt"] = PROMPT
    data["source"] = "startup"
    data["last_assistant_message"] = "Hotel Baixa Rio."
    start_argv = command() if code is None else [sys.executable, "-m", "omb_tui.cli"]
    argv = [*start_argv, "--home", str(home), "hook", hook, "--bot", "scout", "--agent", agent]
    if code is not None:
        env = {**env, "PYTHONPATH": str(code)}
    start = time.perf_counter()
    subprocess.run(argv, input=json.dumps(data).encode(), env=env, capture_output=True, check=True, cwd=code)
    return time.perf_counter() - start


AGENT_HOOKS = (("session-start", "SessionStart"), ("prompt", "UserPromptSubmit"), ("stop", "Stop"))


def agent_hooks(home: Path, path: Path, env: dict, runs: int, then: tuple[Path, Path] | None = None) -> None:
    """Each agent's three hooks, service up and down: the median, and the median of each run's ratio to the
    `python -c pass` just before it. With `then` (a checkout of older code and its own copy of the home), each
    service-down run is followed by the same hook of that code, so both are timed under the same load."""
    bare_env = {name: value for name, value in env.items() if name != "PYTHONPATH"}

    def python_pass() -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=bare_env, check=True)
        return time.perf_counter() - start

    for agent in ("claude-code", "codex"):
        for state in ("up", "down"):
            end_services(home)
            if state == "up":
                mcp_initialize(home, env)  # as the agent's MCP server starts it with the session
            for hook, event in AGENT_HOOKS:
                times, ratios, before, before_ratios = [], [], [], []
                for _ in range(runs):
                    baseline = python_pass()
                    times.append(run_hook(home, hook, event, path, env, agent=agent))
                    ratios.append(times[-1] / baseline)
                    if state == "down" and then is not None:
                        code, then_home = then
                        before.append(run_hook(then_home, hook, event, path, env, agent=agent, code=code))
                        before_ratios.append(before[-1] / baseline)
                if state == "up":
                    assert running_services(home), "the service ended during the runs"
                print(
                    f"{agent:<12} {hook:<14} service {state:<4}  {median_ms(times)}   "
                    f"{statistics.median(ratios):4.1f} x python -c pass"
                )
                if before:
                    print(
                        f"{'':<12} {'':<14} {'before front':<12}  {median_ms(before)}   "
                        f"{statistics.median(before_ratios):4.1f} x python -c pass   "
                        f"(now {statistics.median(times) / statistics.median(before):.2f} x)"
                    )
    end_services(home)


# The last commit before the hooks' front (cli/hook_front.py): a hook's own process then, 148 ms a prompt on the
# 30 MB home, which the front's fallback must not exceed.
BEFORE_FRONT = "0c79c22"


def older_code(rev: str, folder: Path, home: Path, env: dict) -> tuple[Path, Path]:
    """`rev`'s omb_tui (git archive, compiled as an installed package has it) and a copy of `home` it indexed
    itself (an index of another version would be built again in the first runs)."""
    code, then_home = folder / f"code-{rev}", folder / f"home-{rev}"
    code.mkdir()
    archive = subprocess.run(["git", "archive", rev, "omb_tui"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "omb_tui")], check=True)
    shutil.copytree(home, then_home, symlinks=True)
    subprocess.run(
        [sys.executable, "-m", "omb_tui.cli", "--home", str(then_home), "index", "scout"],
        env={**env, "PYTHONPATH": str(code)},
        cwd=code,
        capture_output=True,
        check=True,
    )
    return code, then_home


def median_ms(times: list[float]) -> str:
    return (
        f"median {statistics.median(times) * 1000:5.0f} ms   (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})"
    )


BARE_SDK_SERVER = """
import anyio, mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])

async def main():
    server = Server("bare", on_list_tools=tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def end_services(home: Path) -> None:
    for pid in running_services(home):
        os.kill(pid, signal.SIGTERM)
    while running_services(home):
        time.sleep(0.01)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def mcp_initialize(home: Path, env: dict, argv: list[str] | None = None) -> float:
    """From starting the stdio server (`omb-tui mcp`, or `argv`) to its answer to `initialize`."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    start = time.perf_counter()
    server = subprocess.Popen(
        argv or [*command(), "--home", str(home), "mcp", "--bot", "scout"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(request).encode() + b"\n")
    server.stdin.flush()
    server.stdout.readline()
    took = time.perf_counter() - start
    server.kill()
    server.wait()
    return took


def wait_for_build(home: Path, env: dict) -> float:
    """Seconds until the background build is done (`omb-tui index --wait` returns once it has the lock)."""
    start = time.perf_counter()
    subprocess.run([*command(), "--home", str(home), "index", "scout", "--wait"], env=env, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large-mb", type=int, default=30)
    parser.add_argument("--fresh-mb", type=int, default=169)
    parser.add_argument("--skip-large", action="store_true", help="the demo home, the baseline and MCP only")
    parser.add_argument("--hooks-only", action="store_true", help="the large home's agent hooks, service up and down")
    parser.add_argument("--hook-runs", type=int, default=15, help="runs of each agent hook (default 15)")
    parser.add_argument(
        "--against",
        metavar="REV",
        default=BEFORE_FRONT,
        help="with --hooks-only: the commit whose hooks each service-down run is compared with, in the same runs "
        f"(default {BEFORE_FRONT}, the last before the hooks' front); 'none' skips it",
    )
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMB_TUI_MCP_IDLE_SECONDS": "900"}
    # as an installed package has them: the modules' bytecode written (PYTHONDONTWRITEBYTECODE would leave every
    # run compiling what changed since the last one)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "omb_tui")], check=True)
    with tempfile.TemporaryDirectory() as folder:
        home, path = Path(folder) / "home", Path(folder) / f"{SESSION}.jsonl"
        subprocess.run([*command(), "demo", "--home", str(home)], env=env, capture_output=True, check=True)
        transcript(path)
        print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
        if args.hooks_only:
            large = Path(folder) / "large"
            chats = synthetic_home(large, args.large_mb, env)
            then = None
            if args.against != "none":
                try:
                    then = older_code(args.against, Path(folder), large, env)
                except subprocess.CalledProcessError:  # a shallow clone, a commit of another history
                    print(f"{args.against} is not in this checkout's history: the code before the front is not timed")
            subprocess.run(
                [*command(), "--home", str(large), "index", "scout"], env=env, capture_output=True, check=True
            )
            print(f"{args.large_mb} MB home ({chats:,} chats), indexed; each hook {args.hook_runs} times:")
            agent_hooks(large, path, env, args.hook_runs, then)
            print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
            return
        baseline = []
        for _ in range(RUNS):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            baseline.append(time.perf_counter() - start)
        print(f"{'python -c pass':<28} {median_ms(baseline)}   (the baseline: any Python hook)")
        for hook, event in (("session-start", "SessionStart"), ("prompt", "UserPromptSubmit"), ("stop", "Stop")):
            times = [run_hook(home, hook, event, path, env) for _ in range(RUNS)]
            print(f"demo home: {hook:<17} {median_ms(times)}")
            data = {"session_id": SESSION, "transcript_path": str(path), "cwd": "/work/atlas", "hook_event_name": event}
            data["prompt"] = PROMPT
            done = subprocess.run(
                [
                    sys.executable,
                    "-X",
                    "importtime",
                    "-m",
                    "omb_tui.cli",
                    "--home",
                    str(home),
                    "hook",
                    hook,
                    "--bot",
                    "scout",
                ],
                input=json.dumps(data).encode(),
                env=env,
                capture_output=True,
            )
            own = 0  # every module's own import time: the process's whole import cost
            for line in done.stderr.decode().splitlines():
                parts = [part.strip() for part in line.removeprefix("import time:").split("|")]
                if len(parts) == 3 and parts[0].isdigit():
                    own += int(parts[0])
            print(f"{'':<28} imports, all of them: {own / 1000:.0f} ms")
        bare = [mcp_initialize(home, env, [sys.executable, "-c", BARE_SDK_SERVER]) for _ in range(RUNS)]
        print(f"{'MCP: a bare SDK server':<28} {median_ms(bare)}   (the baseline: the SDK's own stdio server)")
        cold = []
        for _ in range(RUNS):
            end_services(home)
            cold.append(mcp_initialize(home, env))
        print(f"{'MCP initialize, no service':<28} {median_ms(cold)}   (the service starts)")
        warm = [mcp_initialize(home, env) for _ in range(RUNS)]
        print(f"{'MCP initialize, service up':<28} {median_ms(warm)}")
        print(f"{'':<28} the service's memory: {' '.join(f'{rss_mb(pid):.0f} MB' for pid in running_services(home))}")
        end_services(home)
        alone = [mcp_initialize(home, {**env, "OMB_TUI_MCP_SERVICE": "0"}) for _ in range(RUNS)]
        print(f"{'MCP initialize, in-process':<28} {median_ms(alone)}   (OMB_TUI_MCP_SERVICE=0)")
        if not args.skip_large:
            large = Path(folder) / "large"
            chats = synthetic_home(large, args.large_mb, env)
            subprocess.run(
                [*command(), "--home", str(large), "index", "scout"], env=env, capture_output=True, check=True
            )
            named = f"{args.large_mb} MB home ({chats:,} chats), indexed:"
            times = [run_hook(large, "session-start", "SessionStart", path, env) for _ in range(RUNS)]
            print(f"{named} session-start          {median_ms(times)}")
            first = [
                run_hook(large, "prompt", "UserPromptSubmit", path, env, f"{SESSION[:-4]}{n:04d}") for n in range(RUNS)
            ]
            print(f"{named} a session's first prompt {median_ms(first)}")
            times = [run_hook(large, "prompt", "UserPromptSubmit", path, env) for _ in range(RUNS)]
            print(f"{named} each prompt after it     {median_ms(times)}")
            print(f"{named} each agent's hooks, {args.hook_runs} times each:")
            agent_hooks(large, path, env, args.hook_runs)
            fresh = Path(folder) / "fresh"
            chats = synthetic_home(fresh, args.fresh_mb, env)
            first = run_hook(fresh, "session-start", "SessionStart", path, env)
            second = run_hook(fresh, "prompt", "UserPromptSubmit", path, env)
            built = wait_for_build(fresh, env)
            print(
                f"{args.fresh_mb} MB home ({chats:,} chats), no index: first session-start {first * 1000:.0f} ms, "
                f"first prompt {second * 1000:.0f} ms; the background build finished {built:.1f} s after that"
            )
        print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


if __name__ == "__main__":
    main()
