"""The installed `omb-tui` on a demo home, with the scripted model answering each step with an empty answer of its
shape: shared by the upkeep and compaction end-to-end tests."""

from __future__ import annotations

import json

from omb_tui.core.files.paths import Home


def step_shaped(fake) -> None:
    """Answer every call with an empty answer of the shape its step asks for."""

    def next_reply() -> dict:
        body = fake.requests[-1].body
        asked = json.dumps(body.get("response_format")) + json.dumps(body.get("messages"))
        for key, answer in (("pairs", {"pairs": []}), ("moves", {"moves": [], "core": []}), ("facts", {"facts": []})):
            if key in asked:
                return {"content": json.dumps(answer)}
        return {"content": "{}"}

    fake.next_reply = next_reply


def demo_home(tmp_path, run_exe) -> tuple[Home, dict]:
    home = Home(tmp_path / "demo")
    env = {"OMB_HOME": str(home.root), "OMB_HELPER_INSTANCE": ""}
    assert run_exe("demo", "--home", str(home.root), env=env).returncode == 0
    return home, env


def lines(proc) -> dict[str, dict]:
    assert proc.returncode == 0, proc.stderr.decode()
    return {row["bot"]: row for row in map(json.loads, proc.stdout.decode().splitlines())}
