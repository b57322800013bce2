"""How long `omb-tui upkeep --due` takes over many bots, against its ideal: calls ÷ concurrency × answer time.

A home of N bots (default 100), each with a 1:1 chat waiting for capture (an hour quiet) and a tidy-up due (never
tidied; an expired note and enough live ones for the contradiction call). The model is the scripted
OpenAI-compatible server of the tests (tests/support/fake_llm.py) on 127.0.0.1, answering every call after `--delay`
seconds (default 0.2) with a valid empty answer of the step's shape. Prints the wall time, the calls made, the
most calls the server saw at once, and the ratio to the ideal. Goal (docs/upkeep.md): at most 1.5×.

The run is made twice on two such homes, once with the nightly guard (docs/guard.md) and once without it, and the
guard's added cost is printed: each bot has a fact the person wrote with its probe already made, so the guarded run
reads the files and the journal before and after and runs the probe through recall and session_search twice (no
extra model call). Goal: at most 10% over the run without it.

    .venv/bin/python benchmarks/upkeep.py [--bots 100] [--concurrency 8] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server lives with the tests

from support.fake_llm import FakeLLM, start  # noqa: E402

from omb_tui.core.base import clock  # noqa: E402
from omb_tui.core.files.paths import Home  # noqa: E402
from omb_tui.core.memory import conversations as conv  # noqa: E402
from omb_tui.core.memory.settings import BotSettings, save_bot_settings  # noqa: E402


class StepShapedAnswers(FakeLLM):
    """Every call answered after `delay` with an empty answer in the shape its step asks for."""

    delay = 0.2

    def next_reply(self) -> dict:
        body = self.requests[-1].body  # the request just recorded (under the server's lock)
        asked = json.dumps(body.get("response_format")) + " ".join(
            str(message.get("content")) for message in body.get("messages", [])
        )

        def names(key: str) -> bool:  # a key of the answer's shape, in a schema or in the prompt's words
            return f'"{key}"' in asked or f"'{key}'" in asked or f"`{key}`" in asked

        if names("pairs"):
            answer = {"pairs": []}
        elif names("moves"):
            answer = {"moves": [], "core": []}
        elif names("facts"):
            answer = {"facts": []}
        else:
            answer = {}
        return {"delay": self.delay, "content": json.dumps(answer)}


def build_home(root: Path, bots: int, api_base: str) -> Home:
    home = Home(root)
    hour_ago = clock.now_utc() - timedelta(hours=1)
    for number in range(bots):
        bot_id = f"bot{number:03d}"
        workspace = home.workspace(bot_id)
        workspace.mkdir(parents=True)
        save_bot_settings(home, BotSettings(id=bot_id, name=f"Bot {number}"))
        notes = [f"- 2026-0{1 + day % 9}-1{day % 10} · note {day} about project {number}\n" for day in range(8)]
        (workspace / "MEMORY.md").write_text("".join(notes) + "- 2026-01-01 · a trip · until 2026-01-05\n")
        conversation = conv.Conversation(
            id="plans",
            title="Plans",
            kind=conv.KIND_CHAT,
            started_by=conv.Starter("person", "Ana"),
            members=[conv.Member("person", "Ana"), conv.Member("bot", bot_id)],
            created=hour_ago,
        )
        path = conv.create_conversation(home, conversation, bot_id)
        conv.append_message(
            path, conv.Message("person", "Ana", hour_ago, "I moved to Porto last week.", origin="person")
        )
        conv.append_message(path, conv.Message("bot", bot_id, hour_ago + timedelta(seconds=5), "Noted, Porto."))
    home.config_path.write_text(
        json.dumps(
            {
                "instances": {
                    "local": {"model": "openai/qwen3-8b", "api_base": api_base, "timeout": 60, "concurrency": 64}
                },
                "helper": {"instanceId": "local"},
            }
        )
    )
    return home


CONFIRMED_FACT = "- 2026-02-01 · the studio's printer is on the third floor\n"


def give_each_bot_a_probe(home: Home) -> None:
    """A fact the person wrote in each bot's MEMORY.md, and its probe, as a past run would have made it."""
    from omb_tui.core.guard.probes import Probe, ProbeFile, write_probes
    from omb_tui.core.journal.changes import Actor
    from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
    from omb_tui.core.memory.store import MemoryStore

    for bot_id in home.bot_ids():
        store = MemoryStore(home, bot_id)
        text = store.read("MEMORY.md").text + CONFIRMED_FACT
        store.write("MEMORY.md", text, Actor(WHO_PERSON, HOW_COMMAND_LINE))
        fact = "the studio's printer is on the third floor"
        probe = Probe(fact, fact.casefold(), "MEMORY.md", "where is the printer", "written by the person", "")
        write_probes(store, ProbeFile(probes=[probe], scanned_until="9999"))


class NoGuard:
    """The scheduler's guard, doing nothing: the run as it was before the guard."""

    class Outcome:
        def to_dict(self) -> dict:
            return {}

        def line(self) -> None:
            return None

    def __init__(self, *args: object) -> None:
        self.outcome = self.Outcome()

    def __enter__(self) -> NoGuard:
        return self

    def __exit__(self, *args: object) -> None:
        return None

    def allows(self, step: str) -> bool:
        return True


def timed_run(fake: FakeLLM, folder: str, args: argparse.Namespace, *, guarded: bool):
    from omb_tui.core import schedule
    from omb_tui.core.guard.night import NightGuard
    from omb_tui.core.models import call

    home = build_home(Path(folder) / ("guarded" if guarded else "unguarded"), args.bots, fake.api_base)
    give_each_bot_a_probe(home)
    call.complete(home, "bot000", "warm-up", [{"role": "user", "content": "hi"}])  # first-call setup
    fake.requests.clear()
    fake.most_at_once = 0
    schedule.NightGuard = NightGuard if guarded else NoGuard  # type: ignore[misc,assignment]
    started = time.perf_counter()
    report = schedule.upkeep_due(home, concurrency=args.concurrency)
    return report, time.perf_counter() - started, len(fake.requests)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    os.environ.pop("OMB_HELPER_INSTANCE", None)
    os.environ.pop("OMB_HELPER_MODEL", None)
    StepShapedAnswers.delay = args.delay
    fake, stop = start(StepShapedAnswers())
    from omb_tui.core.models.litellm_setup import litellm_module  # imported before the clock starts

    litellm_module()
    try:
        with tempfile.TemporaryDirectory() as folder:
            _, unguarded, unguarded_calls = timed_run(fake, folder, args, guarded=False)
            report, wall, calls = timed_run(fake, folder, args, guarded=True)
    finally:
        stop()
    ideal = calls / args.concurrency * args.delay
    failed = [bot.bot for bot in report.bots if bot.left_alone]
    tidied = sum(1 for bot in report.bots if bot.tidy)
    captured = sum(1 for bot in report.bots if bot.capture and not bot.capture.get("reason"))
    print(
        f"{args.bots} bots, concurrency {args.concurrency}, answers after {args.delay:.2f} s: "
        f"{calls} calls ({captured} captures, {tidied} tidy-ups), at most {fake.most_at_once} at once"
    )
    print(
        f"wall {wall:.2f} s; ideal (calls ÷ concurrency × answer time) {ideal:.2f} s; ratio {wall / ideal:.2f}× "
        f"(goal ≤ 1.5×)"
        if ideal
        else f"wall {wall:.2f} s; no calls were made"
    )
    print(
        f"the guard: {wall:.2f} s against {unguarded:.2f} s without it ({unguarded_calls} calls): "
        f"{(wall / unguarded - 1) * 100:+.1f}% (goal ≤ +10%)"
    )
    checked = sum(1 for bot in report.bots if bot.guard and bot.guard.get("probes"))
    print(f"probes run before and after the steps in {checked} of {len(report.bots)} runs")
    undone = sum(1 for bot in report.bots if bot.guard and bot.guard.get("failed"))
    if undone:
        print(f"the guard failed {undone} runs (none expected)")
    if failed:
        print(f"left alone: {', '.join(failed[:5])}{' …' if len(failed) > 5 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
