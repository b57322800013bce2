"""Claude Code's hooks on the demo home: how long each takes, as Claude Code runs it. Prints figures, asserts nothing.

Each hook is started as Claude Code starts it (a new process of the installed command, one JSON object on stdin),
five times, and the median wall time is printed with the machine's load; then what its imports cost
(`python -X importtime`, every module's own time added up: a hook imports the core it uses when it runs).

    .venv/bin/python benchmarks/hooks.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as folder:
        home, path = Path(folder) / "home", Path(folder) / f"{SESSION}.jsonl"
        subprocess.run([*command(), "demo", "--home", str(home)], env=env, capture_output=True, check=True)
        transcript(path)
        print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
        for hook, event in (("session-start", "SessionStart"), ("prompt", "UserPromptSubmit"), ("stop", "Stop")):
            data = {"session_id": SESSION, "transcript_path": str(path), "cwd": "/work/atlas", "hook_event_name": event}
            data["prompt"] = PROMPT
            argv = [*command(), "--home", str(home), "hook", hook, "--bot", "scout"]
            times = []
            for _ in range(RUNS):
                start = time.perf_counter()
                subprocess.run(argv, input=json.dumps(data).encode(), env=env, capture_output=True, check=True)
                times.append(time.perf_counter() - start)
            print(
                f"{hook:<14} median {statistics.median(times) * 1000:4.0f} ms   (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})"
            )
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-m", "omb_tui.cli", *argv[len(command()) :]],
                input=json.dumps(data).encode(),
                env=env,
                capture_output=True,
            )
            own = 0  # every module's own import time: the process's whole import cost
            for line in done.stderr.decode().splitlines():
                parts = [part.strip() for part in line.removeprefix("import time:").split("|")]
                if len(parts) == 3 and parts[0].isdigit():
                    own += int(parts[0])
            print(f"{'':<14} imports, all of them: {own / 1000:.0f} ms")
        print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


if __name__ == "__main__":
    main()
