"""A fake `claude` for the core tier: a small Python script, written by the test into a folder it puts on PATH, that
prints Claude Code's stream-json events (the shapes Claude Code 2.1.332 prints, read off the real program) from a
plan the test gives, and records how it was started (argv, folder, environment, stdin, its pid and its child's).

The real program is driven in tests/agents/test_agents_engine_claude_code.py; this one plays each bad state on cue:
a tool asked for, a hang, a flood, no sign-in, a non-zero exit, output that is not JSON.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

MODEL = "claude-sonnet-5-5"
WAIT_S = 30.0  # how long a process has to be gone once its call has ended (a loaded machine's bound, not a speed)

_SCRIPT = """\
#!{python}
import json, os, subprocess, sys, time
plan = json.loads(open({plan!r}, encoding="utf-8").read())
seen = {{"argv": sys.argv, "cwd": os.getcwd(), "cwd_entries": os.listdir("."), "env": dict(os.environ),
         "stdin": sys.stdin.read(), "pid": os.getpid(), "pgid": os.getpgrp()}}
if plan.get("child"):  # a process of its own, as an agent's shell or server would be
    seen["child"] = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"]).pid
with open({record!r}, "a", encoding="utf-8") as record:
    record.write(json.dumps(seen) + "\\n")
for event in plan["events"]:
    print(event if isinstance(event, str) else json.dumps(event), flush=True)
if plan.get("stderr"):
    sys.stderr.write(plan["stderr"])
if plan.get("flood"):
    while True:
        print("x" * 4096, flush=True)
if plan.get("hang"):
    time.sleep(3600)
sys.exit(plan.get("status", 0))
"""


def init(model: str = MODEL) -> dict:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": "/tmp",
        "session_id": "9e1c",
        "tools": [],
        "mcp_servers": [],
        "model": model,
        "apiKeySource": "none",
        "claude_code_version": "2.1.332",
    }


def assistant(*blocks: dict, n: int = 1, model: str = MODEL, error: str | None = None) -> dict:
    message = {
        "id": f"msg_{n:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": None,
        "usage": {"input_tokens": 100, "output_tokens": 1},
    }
    event: dict = {"type": "assistant", "message": message, "parent_tool_use_id": None, "session_id": "9e1c"}
    if error:
        event["error"] = error
    return event


def text(words: str) -> dict:
    return {"type": "text", "text": words}


def tool_use(name: str, arguments: dict, n: int = 1) -> dict:
    return {"type": "tool_use", "id": f"toolu_{n:04d}", "name": name, "input": arguments}


def result(words: str, *, structured: object = None, is_error: bool = False, model: str = MODEL) -> dict:
    event = {
        "type": "result",
        "subtype": "success",
        "is_error": is_error,
        "num_turns": 1,
        "result": words,
        "session_id": "9e1c",
        "total_cost_usd": 0.00058,
        "usage": {
            "input_tokens": 100,
            "cache_creation_input_tokens": 20,
            "cache_read_input_tokens": 30,
            "output_tokens": 9,
        },
        "modelUsage": {model: {"inputTokens": 100, "outputTokens": 9, "costUSD": 0.00058}},
        "permission_denials": [],
    }
    if structured is not None:
        event["structured_output"] = structured
    return event


def answering(words: str) -> dict:
    """The plan of a plain answer, as Claude Code prints it."""
    return {"events": [init(), assistant(text(words)), result(words)]}


def signed_out() -> dict:
    """What Claude Code 2.1.332 prints with no sign-in: a synthetic message, an error result, status 1."""
    said = "Not logged in · Please run /login"
    return {
        "events": [
            init(),
            assistant(text(said), model="<synthetic>", error="authentication_failed"),
            {**result(said, is_error=True), "total_cost_usd": 0, "modelUsage": {}},
        ],
        "status": 1,
    }


@dataclass
class FakeClaude:
    """The script's folder (for PATH), its path, and what each start recorded."""

    folder: Path
    program: Path
    plan_path: Path
    record_path: Path

    def plan(self, plan: dict) -> None:
        self.plan_path.write_text(json.dumps(plan), encoding="utf-8")

    def starts(self) -> list[dict]:
        if not self.record_path.exists():
            return []
        return [json.loads(line) for line in self.record_path.read_text(encoding="utf-8").splitlines()]


def write_fake_claude(root: Path, name: str = "claude") -> FakeClaude:
    """A fake program called `name` in root/bin, answering "ok" until `plan()` says otherwise."""
    folder = root / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    fake = FakeClaude(folder, folder / name, root / "plan.json", root / "started.ndjson")
    script = _SCRIPT.format(python=sys.executable, plan=str(fake.plan_path), record=str(fake.record_path))
    fake.program.write_text(textwrap.dedent(script), encoding="utf-8")
    fake.program.chmod(0o755)
    fake.plan(answering("ok"))
    return fake


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting to be reaped has ended all the same)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def gone(pid: int) -> bool:
    """True once `pid` has ended; False if it still runs after WAIT_S (a condition waited on, not a timing)."""
    ends = time.monotonic() + WAIT_S
    while alive(pid):
        if time.monotonic() > ends:
            return False
        time.sleep(0.02)
    return True
