"""What a call on a person's own plan costs in time: one model call through each engine (the real Claude Code, Codex
and claude-code-acp from npm) against an API instance on the same scripted answer, and a night of upkeep on the
demo's five bots with Scout on Claude Code, Atlas on Codex and Harbor on claude-code-acp, against the same night with
those three on the API instance (docs/models.md, "Engines"; docs/performance.md).

Every model is a scripted server on 127.0.0.1 answering at once (tests/support/: the Messages API for Claude Code and
claude-code-acp, the Responses API for Codex, the OpenAI-compatible server for the API instance; a night's answers
are made from each step's request, support/night_answers.py), so a figure is the client's own time: for an engine,
the CLI's start, its own work and ours around it. The CLI's share of a call is what it takes beyond the API call
(the model answers at once in both); "bare start" is the program answering and nothing else (`--version`; for
claude-code-acp, `initialize`), a lower bound: Claude Code's `--version` answers before the CLI loads at all. The load
average is printed before and after: on a shared machine the ratios are the figures.

    .venv/bin/python benchmarks/engines.py [--calls 7] [--cache DIR | --bin-dir DIR] [--no-night] [--json]

The CLIs are installed with npm at the versions the tests pin into `--cache` (default ~/.cache/omb-tui/engines),
once; `--bin-dir` names a folder that already holds `claude`, `codex` and `claude-code-acp` instead.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scripted servers live with the tests

from support import night_answers  # noqa: E402
from support.engine_night import (  # noqa: E402
    CALL_TIMEOUT,
    ScriptedModels,
    next_morning,
    on_engines,
    put_on,
    run_at,
    scratch_person,
)
from support.fake_llm import FakeLLM, start  # noqa: E402
from support.home import make_bot  # noqa: E402
from support.npm_tools import CLAUDE_CODE, CLAUDE_CODE_ACP, CODEX, NotInstalled, npm_install  # noqa: E402

from omb_tui.core.base import clock  # noqa: E402
from omb_tui.core.files.paths import Home  # noqa: E402
from omb_tui.core.memory.settings import update_bot_settings  # noqa: E402
from omb_tui.core.models.call import TEST_PROMPT, complete  # noqa: E402
from omb_tui.core.models.usage import read_usage  # noqa: E402

PACKAGES = {"claude": CLAUDE_CODE, "codex": CODEX, "claude-code-acp": CLAUDE_CODE_ACP}
DEFAULT_CACHE = Path.home() / ".cache" / "omb-tui" / "engines"
ANSWER = '{"ok": true}'
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}


def programs_from(args: argparse.Namespace) -> dict[str, Path]:
    if args.bin_dir:
        found = {name: Path(args.bin_dir) / name for name in PACKAGES}
        missing = [str(path) for path in found.values() if not path.exists()]
        if missing:
            raise SystemExit(f"--bin-dir has no {', '.join(missing)}")
        return found
    try:
        return {name: npm_install(Path(args.cache) / name, package, name) for name, package in PACKAGES.items()}
    except NotInstalled as why:
        raise SystemExit(str(why)) from None


def load() -> str:
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def timed(action, times: int) -> list[float]:
    samples = []
    for _ in range(times):
        began = time.monotonic()
        action()
        samples.append(time.monotonic() - began)
    return samples


def bare_start(program: Path, env: dict[str, str]) -> None:
    """The program up and answering, doing nothing else."""
    if program.name != "claude-code-acp":
        subprocess.run([str(program), "--version"], env=env, capture_output=True, check=True, timeout=CALL_TIMEOUT)
        return
    agent = subprocess.Popen(
        [str(program)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert agent.stdin and agent.stdout
    agent.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    agent.stdin.flush()
    agent.stdout.readline()
    agent.kill()
    agent.wait()


def calls(folder: Path, programs: dict[str, Path], times: int) -> list[dict]:
    """Each instance's call, `times` times after one not counted (a cold disk), in this process as upkeep makes it."""
    person = scratch_person(folder / "person")
    fake, stop = start(FakeLLM(answer_for=lambda body: {"content": ANSWER}))
    home = Home(folder / "home")
    make_bot(home)
    figures = []
    with ScriptedModels() as models:
        models.messages.plans[TEST_PROMPT] = [ANSWER]
        models.responses.plans[TEST_PROMPT] = [ANSWER]
        engines = on_engines(programs)
        instances = {"api": {"model": "openai/qwen3-8b", "api_base": fake.api_base, "timeout": CALL_TIMEOUT}}
        instances |= {on.engine: models.instance(on) for on in engines}
        home.config_path.write_text(json.dumps({"instances": instances}), encoding="utf-8")
        os.environ.update({**person.env, "ANTHROPIC_BASE_URL": models.messages_api.url})
        tempfile.tempdir = str(person.tmp)
        messages = [{"role": "system", "content": "You answer with JSON."}, {"role": "user", "content": TEST_PROMPT}]
        try:
            for instance in instances:
                update_bot_settings(home, "scout", instance=instance)

                def one() -> None:
                    answer = complete(home, "scout", "capture", messages, schema=SCHEMA)
                    assert answer.data == {"ok": True}, answer.text

                one()
                figure = {"instance": instance, "call_ms": median_ms(timed(one, times))}
                on = next((on for on in engines if on.engine == instance), None)
                if on is not None:
                    bare_start(on.program, person.env)
                    figure["start_ms"] = median_ms(timed(lambda on=on: bare_start(on.program, person.env), times))
                    figure["start_share"] = round(figure["start_ms"] / figure["call_ms"], 2)
                figures.append(figure)
        finally:
            stop()
    api = next(figure["call_ms"] for figure in figures if figure["instance"] == "api")
    for figure in figures:
        figure["times_api"] = round(figure["call_ms"] / api, 1)
        figure["cli_share"] = round(1 - api / figure["call_ms"], 2)  # the model answers at once: the rest is the CLI
    return figures


def nights(folder: Path, programs: dict[str, Path]) -> list[dict]:
    """The demo's night, `upkeep --due` as a person runs it at 04:00 the next morning: once with Scout, Atlas and
    Harbor on their engines, once with those three on the API instance, the same answers either way."""
    from omb_tui.demo.home import write_demo_home

    written = Home(folder / "demo")
    write_demo_home(written)
    finished = clock.now_utc()
    fake, stop = start(FakeLLM(answer_for=night_answers.fake_llm_answer))
    figures = []
    try:
        with ScriptedModels() as models:
            engines = on_engines(programs)
            api = {"model": "openai/qwen3-8b", "api_base": fake.api_base, "timeout": CALL_TIMEOUT}
            for kind in ("engines", "api"):
                person = scratch_person(folder / f"person-{kind}")
                home = Home(folder / f"night-{kind}")
                shutil.copytree(written.root, home.root, symlinks=True)
                if kind == "engines":
                    put_on(
                        home,
                        {on.instance: models.instance(on) for on in engines},
                        {on.bot: on.instance for on in engines},
                    )
                else:
                    put_on(home, {"api": api}, {on.bot: "api" for on in engines})
                night = next_morning(finished)
                load_before = load()
                began = time.monotonic()
                done = run_at(person, home, ["upkeep", "--due", "--json"], night, models)
                seconds = time.monotonic() - began
                if done.returncode != 0:
                    raise SystemExit(f"the {kind} night failed: {done.stderr.strip()[-300:]}")
                rows = read_usage(home, night.astimezone(UTC).strftime("%Y-%m"))
                bots = {}
                for on in engines:
                    mine = [row for row in rows if row["bot"] == on.bot]
                    bots[on.bot] = {
                        "on": on.engine if kind == "engines" else "api",
                        "calls": len(mine),
                        "failed": sum(1 for row in mine if not row["ok"]),
                        "call_s": round(sum(row["duration_ms"] for row in mine) / 1000, 1),
                    }
                figures.append(
                    {
                        "night": kind,
                        "wall_s": round(seconds, 1),
                        "bots": bots,
                        "load_before": load_before,
                        "load_after": load(),
                    }
                )
    finally:
        stop()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=7, help="calls per instance (the median is printed)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--cache", default=str(DEFAULT_CACHE), help="the folder the CLIs are installed into")
    where.add_argument("--bin-dir", help="a folder holding claude, codex and claude-code-acp already")
    parser.add_argument("--no-night", action="store_true", help="time the calls only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    programs = programs_from(args)
    report: dict = {"load_before": load(), "programs": {name: str(path) for name, path in programs.items()}}
    with tempfile.TemporaryDirectory(prefix="omb-engines-") as scratch:
        report["calls"] = calls(Path(scratch) / "calls", programs, args.calls)
        report["load_after_calls"] = load()
        if not args.no_night:
            report["nights"] = nights(Path(scratch) / "nights", programs)
    report["load_after"] = load()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"load average before: {report['load_before']}")
    print(f"one call, median of {args.calls} (the same scripted answer; start: the bare program answering):")
    for figure in report["calls"]:
        line = f"  {figure['instance']:<12} {figure['call_ms']:>8.1f} ms  {figure['times_api']:>5.1f}x the API call"
        if "start_ms" in figure:
            line += f", {figure['cli_share']:.0%} of it the CLI's"
            line += f"; bare start {figure['start_ms']:.1f} ms ({figure['start_share']:.0%} of the call)"
        print(line)
    print(f"load average after the calls: {report['load_after_calls']}")
    for night in report.get("nights", []):
        print(
            f"the demo's night, {night['night']}: {night['wall_s']} s (load {night['load_before']} -> {night['load_after']})"
        )
        for bot, figures in night["bots"].items():
            print(
                f"  {bot:<8} on {figures['on']:<12} {figures['calls']:>3} calls ({figures['failed']} failed), "
                f"{figures['call_s']} s in calls"
            )
    print(f"load average after: {report['load_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
