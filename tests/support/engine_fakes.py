"""Engine instances without a real agent CLI: a stand-in program to name in `command` (never started: the engine's
run is scripted), config.json with engine instances, and the `engine` fixture that answers in place of
`engines.run_engine` for what the call path around it does (usage, the helper rule, what the surfaces say).

Use: `from support.engine_fakes import engine, write_engine_config` (engine: the fixture), then
`engine.replies.append(EngineReply(...))` or `engine.replies.append(EngineFailed("why"))`; `engine.calls` keeps
every EngineCall it was given.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from omb_tui.core.files.paths import Home
from omb_tui.core.models import engine_call
from omb_tui.core.models.engines import EngineCall, EngineFailed, EngineReply


def stand_in_program(folder: Path, name: str = "claude") -> str:
    """An executable file to name as an engine's program, so a look on PATH finds it; it only fails if run."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text("#!/bin/sh\necho 'a stand-in: the test scripts the engine' >&2\nexit 3\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return str(program)


def write_engine_config(home: Home, instances: dict, **fields) -> None:
    home.config_path.write_text(json.dumps({"instances": instances, **fields}), encoding="utf-8")


def claude_code_with_a_codex_helper(home: Home, folder: Path) -> None:
    """Instance `sub` on Claude Code and `cx` on Codex, both on a stand-in program, with `cx` named as the helper."""
    program = stand_in_program(folder)
    write_engine_config(
        home,
        {"sub": {"engine": "claude-code", "command": [program]}, "cx": {"engine": "codex", "command": [program]}},
        helper={"instanceId": "cx"},
    )


class ScriptedEngine:
    def __init__(self) -> None:
        self.replies: list[EngineReply | EngineFailed] = []
        self.calls: list[EngineCall] = []

    def __call__(self, call: EngineCall) -> EngineReply:
        self.calls.append(call)
        if not self.replies:
            raise AssertionError(f"the engine was called with nothing scripted: {call.prompt[:80]!r}")
        reply = self.replies.pop(0)
        if isinstance(reply, EngineFailed):
            raise reply
        return reply


@pytest.fixture
def engine(monkeypatch) -> ScriptedEngine:
    scripted = ScriptedEngine()
    monkeypatch.setattr(engine_call, "run_engine", scripted)
    return scripted
