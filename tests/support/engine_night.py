"""A night of upkeep on the person's own plans: the demo's bots moved onto engine instances, their CLIs pointed at
the scripted APIs on 127.0.0.1 that answer every step from what it was shown (support/night_answers.py), a scratch
HOME for the person, and the installed command run at a moment the clock is moved to.

Shared by tests/agents/test_agents_engines_night.py and benchmarks/engines.py.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import time as time_of_day
from pathlib import Path

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.settings import update_bot_settings
from support import night_answers
from support.home import omb_tui_command
from support.scripted_messages_api import Script as MessagesScript
from support.scripted_messages_api import ScriptedMessagesApi
from support.scripted_responses_api import Script as ResponsesScript
from support.scripted_responses_api import ScriptedResponsesApi, config_overrides

CALL_TIMEOUT = 240  # seconds, each engine call's: every call starts an agent, on a loaded machine
NIGHT_TIMEOUT = 900  # seconds for a whole night


@dataclass(frozen=True)
class OnEngine:
    """A demo bot moved onto an engine for the night: its instance's id and engine, the program, and the npm
    folder every process of that engine is started from."""

    bot: str
    instance: str
    engine: str
    program: Path
    install: Path


def on_engines(programs: dict[str, Path]) -> list[OnEngine]:
    """Scout on Claude Code, Atlas on Codex, Harbor on claude-code-acp: those of them whose program is given."""
    plan = [("scout", "claude-code", "claude"), ("atlas", "codex", "codex"), ("harbor", "acp", "claude-code-acp")]
    return [
        OnEngine(bot, f"{bot}-{engine}", engine, programs[program], _npm_folder(programs[program]))
        for bot, engine, program in plan
        if program in programs
    ]


def _npm_folder(program: Path) -> Path:
    """The install folder (`<folder>/node_modules/.bin/<program>`): every process started from it names it."""
    return program.parent.parent.parent


def answer_from_request(body: dict) -> str | None:
    return night_answers.answer(night_answers.request_text(body))


class ScriptedModels:
    """The scripted APIs every engine calls, all answering from night_answers: the Messages API (Claude Code and
    claude-code-acp through ANTHROPIC_BASE_URL) and the Responses API (Codex through its `-c` words)."""

    def __init__(self) -> None:
        self.messages = MessagesScript(answer_for=answer_from_request)
        self.responses = ResponsesScript(answer_for=answer_from_request)
        self.messages_api = ScriptedMessagesApi(self.messages)
        self.responses_api = ScriptedResponsesApi(self.responses)

    def __enter__(self) -> ScriptedModels:
        self.messages_api.__enter__()
        self.responses_api.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.messages_api.__exit__(*exc)
        self.responses_api.__exit__(*exc)

    def instance(self, on: OnEngine) -> dict:
        """config.json's instance for the bot's engine, its model one of these APIs."""
        command = [str(on.program)]
        if on.engine == "codex":
            command += config_overrides(self.responses_api.url)
        return {"engine": on.engine, "command": command, "timeout": CALL_TIMEOUT}


def put_on(home: Home, instances: dict, bots: dict[str, str]) -> None:
    """Add `instances` to config.json and move each bot onto its instance, its upkeep on (the demo's Atlas has it
    off)."""
    config = json.loads(home.config_path.read_text(encoding="utf-8"))
    config["instances"] = {**config.get("instances", {}), **instances}
    home.config_path.write_text(json.dumps(config), encoding="utf-8")
    for bot, instance in bots.items():
        update_bot_settings(home, bot, instance=instance, upkeep=True)


@dataclass(frozen=True)
class Person:
    """The person's scratch HOME, the folder they run omb-tui from, the temporary folder every call's own folders
    go in, and the environment of their shell."""

    user: Path
    here: Path
    tmp: Path
    env: dict[str, str]


def scratch_person(folder: Path) -> Person:
    """Signed in to Codex by a key, to Claude Code by a subscription's token (the claude-code engine takes no API
    key) and, for claude-code-acp, a key: dummies the scripted APIs take."""
    user, here, private_tmp = folder / "user", folder / "here", folder / "tmp"
    for made in (user / ".codex", here, private_tmp):
        made.mkdir(parents=True)
    (user / ".codex" / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-test-" + "0" * 20}), "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "CODEX", "OPENAI", "ANTHROPIC_", "CLAUDE"))}
    env.update(
        {
            "HOME": str(user),
            "TMPDIR": str(private_tmp),
            "PYTHONUTF8": "1",
            "ANTHROPIC_API_KEY": "sk-ant-api03-" + "0" * 40,
            "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-" + "0" * 40,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    )
    if os.geteuid() == 0:  # Claude Code refuses to start as root outside a sandbox
        env["IS_SANDBOX"] = "1"
    env.update(clock.carried_env())
    return Person(user, here, private_tmp, env)


def next_morning(written: datetime) -> datetime:
    """04:00 local on the day after the demo was written: the tidy-up's hour has passed, every chat is quiet."""
    return clock.local_at(written.astimezone().date() + timedelta(days=1), time_of_day(4, 0))


def run_at(
    person: Person, home: Home, argv: list[str], at: datetime, models: ScriptedModels
) -> subprocess.CompletedProcess[str]:
    """The installed command at the moment `at` (the clock its process reads, moved there), from the person's own
    folder and shell."""
    shift = clock.shift() + at.timestamp() - clock.timestamp()  # from this clock, itself maybe moved already
    env = {**person.env, clock.SHIFT_ENV: repr(shift), "ANTHROPIC_BASE_URL": models.messages_api.url}
    return subprocess.run(
        [*omb_tui_command(), "--home", str(home.root), *argv],
        env=env,
        cwd=person.here,
        capture_output=True,
        text=True,
        timeout=NIGHT_TIMEOUT,
    )
