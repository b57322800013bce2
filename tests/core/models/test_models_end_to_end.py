"""The model layer end to end, run as a person would: the installed `omb-tui` on a demo home whose config.json names
an instance on a local OpenAI-compatible server (the scripted one in tests/support/fake_llm.py, on 127.0.0.1).

`models test` answers; `chat scout` holds a conversation in which "remember …" lands in MEMORY.md as a journaled
bot change in that chat; `usage` shows every call.
"""

from __future__ import annotations

import json

import pytest
from support.fake_llm import fake_llm  # noqa: F401 (the fixture)

from omb_tui.core.files.paths import Home

pytestmark = pytest.mark.dates


def test_models_test_chat_with_remember_and_usage_on_the_demo_home(tmp_path, run_exe, fake_llm):  # noqa: F811
    home = Home(tmp_path / "demo")
    env = {"OMB_HOME": str(home.root), "OMB_HELPER_INSTANCE": ""}
    assert run_exe("demo", "--home", str(home.root), env=env).returncode == 0
    config = json.loads(home.config_path.read_text()) if home.config_path.exists() else {}
    config["instances"] = {"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "timeout": 10}}
    home.config_path.write_text(json.dumps(config))
    settings = json.loads(home.settings_path("scout").read_text())
    home.settings_path("scout").write_text(json.dumps({**settings, "instance": "local"}))

    tested = run_exe("models", "test", "local", env=env)
    assert tested.returncode == 0, tested.stderr.decode()
    assert b"ms" in tested.stdout or b" s" in tested.stdout  # the latency

    fake_llm.script(
        {"tool_calls": [("memory_update", {"action": "add", "text": "The person's dog is called Biscuit"})]},
        "Noted: your dog is Biscuit.",
        "You told me your dog is called Biscuit.",
    )
    chat = run_exe(
        "chat",
        "scout",
        "--chat",
        "pets",
        stdin=b"Remember that my dog is called Biscuit\nWhat is my dog called?\n",
        env=env,
    )
    assert chat.returncode == 0, chat.stderr.decode()
    assert chat.stdout.decode().splitlines() == [
        "Noted: your dog is Biscuit.",
        "You told me your dog is called Biscuit.",
    ]
    memory = (home.workspace("scout") / "MEMORY.md").read_text()
    assert "The person's dog is called Biscuit" in memory
    rows = [json.loads(line) for line in home.journal_path("scout").read_text().splitlines()]
    remembered = [r for r in rows if "Biscuit" in r["diff"]]
    assert remembered and remembered[-1]["who"] == "bot" and remembered[-1]["how"] == "during a task"
    assert remembered[-1]["chat"] == "pets"
    # The second turn saw the note: the memory block in its system prompt holds it.
    system = fake_llm.requests[-1].body["messages"][0]
    assert system["role"] == "system" and "Biscuit" in system["content"]

    usage = run_exe("usage", "--json", env=env)
    assert usage.returncode == 0
    used = json.loads(usage.stdout)["rows"]
    assert len(used) == len(fake_llm.requests) == 4  # models test, then the chat's three calls
    assert {row["instance"] for row in used} == {"local"} and all(row["ok"] for row in used)
    assert {row["bot"] for row in used[1:]} == {"scout"}
