"""An engine call's process (docs/models.md, "Engines"), whatever the engine: started in an empty folder removed
afterwards, in a process group of its own that is ended whole, read within its time and its size; and the engine
instances config.json may hold, each wrong field one sentence.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap

import pytest
from support.fake_claude import gone

from omb_tui.core.memory.settings import BrokenFile, ModelInstance, load_config
from omb_tui.core.models.engines import EngineCall, EngineFailed, flatten, process, run_engine
from omb_tui.core.models.engines.process import AgentProcess, empty_folder, resolve_program

# A parent that starts a child in its group, says both pids, then waits for ever.
PARENT = textwrap.dedent(
    """
    import os, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    print(os.getpid(), child.pid, flush=True)
    time.sleep(3600)
    """
)


def call_on(engine: str | None, command: tuple[str, ...] | None = None) -> EngineCall:
    instance = ModelInstance("e", "", engine=engine, command=command)
    return EngineCall(instance, "", "", "hello", None, 10.0)


# ----- the folder -----
def test_the_folder_is_new_empty_private_and_removed_even_after_a_failure():
    with pytest.raises(RuntimeError), empty_folder() as folder:
        assert list(folder.iterdir()) == [] and (folder.stat().st_mode & 0o777) == 0o700
        (folder / "left.txt").write_text("an agent's leftovers", encoding="utf-8")
        raise RuntimeError("the call failed")
    assert not folder.exists()


# ----- the group -----
def test_ending_a_call_ends_every_process_it_started(tmp_path):
    with AgentProcess([sys.executable, "-c", PARENT], cwd=tmp_path, env=os.environ, seconds=60) as agent:
        parent, child = (int(pid) for pid in next(agent.lines()).split())
        assert os.getpgid(child) == parent  # the child is in the call's own group
    assert gone(parent) and gone(child)


def test_a_call_past_its_time_is_ended_whole(tmp_path):
    agent = AgentProcess([sys.executable, "-c", PARENT], cwd=tmp_path, env=os.environ, seconds=1)
    lines = agent.lines()
    parent, child = (int(pid) for pid in next(lines).split())
    with pytest.raises(EngineFailed, match=r"did not finish within 1 s; the call was ended"):
        next(lines)
    assert gone(parent) and gone(child)


def test_a_process_that_left_the_group_holding_the_output_cannot_hold_the_call(tmp_path):
    escape = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)'], start_new_session=True)\n"
        "print(child.pid, flush=True)\n"
    )
    agent = AgentProcess([sys.executable, "-c", escape], cwd=tmp_path, env=os.environ, seconds=1)
    lines = agent.lines()
    escaped = int(next(lines))
    try:
        with pytest.raises(EngineFailed, match="did not finish within 1 s"):
            next(lines)  # its output stays open in the escaped process: the call ends at its time all the same
        agent.end()
    finally:
        os.kill(escaped, signal.SIGKILL)  # a process of its own group is out of the call's reach; the test ends it


def test_a_flood_is_cut_at_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "MAX_OUTPUT_BYTES", 1024 * 1024)
    flood = "import sys\nwhile True: sys.stdout.write('y' * 4095 + '\\n')"
    with AgentProcess([sys.executable, "-c", flood], cwd=tmp_path, env=os.environ, seconds=60) as agent:
        read = 0
        with pytest.raises(EngineFailed, match=r"printed more than 1 MB; the call was ended"):
            for line in agent.lines():
                read += len(line)
        assert read <= 1024 * 1024 and gone(agent.process.pid)


def test_one_endless_line_is_cut_at_the_bound_too(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "MAX_LINE_BYTES", 64 * 1024)
    monkeypatch.setattr(process, "MAX_OUTPUT_BYTES", 1024 * 1024)
    endless = "import sys\nwhile True: sys.stdout.write('z' * 4096)"
    with AgentProcess([sys.executable, "-c", endless], cwd=tmp_path, env=os.environ, seconds=60) as agent:
        with pytest.raises(EngineFailed, match="printed more than"):
            list(agent.lines())


# ----- the program -----
def test_a_program_not_on_path_is_one_sentence_naming_it(tmp_path):
    environ = {"PATH": str(tmp_path)}
    with pytest.raises(EngineFailed) as caught:
        resolve_program(call_on("claude-code"), environ)
    assert caught.value.sentence == "`claude` is not on PATH: install Claude Code or set `command` in instance 'e'"
    with pytest.raises(EngineFailed, match=r"^`codex` is not on PATH: install Codex or set `command`"):
        resolve_program(call_on("codex"), environ)
    with pytest.raises(EngineFailed, match=r"^`gemini` is not on PATH: install the agent or set `command`"):
        resolve_program(call_on("acp", ("gemini", "--experimental-acp")), environ)


def test_an_unknown_engine_is_one_sentence():
    with pytest.raises(EngineFailed, match="names an unknown engine; use one of claude-code, codex, acp"):
        run_engine(call_on("grok-cli"))


def test_messages_become_instructions_and_one_prompt():
    system = {"role": "system", "content": "You are Scout."}
    assert flatten([system, {"role": "user", "content": "hello"}]) == ("You are Scout.", "hello")
    turns = [
        system,
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "yo"}]},
    ]
    assert flatten(turns) == ("You are Scout.", "User: hi\n\nAssistant: yo")


# ----- engine instances in config.json -----
def write_config(home, instance: dict) -> None:
    home.config_path.write_text(json.dumps({"instances": {"mine": instance}}), encoding="utf-8")


def test_an_engine_instance_is_read_with_its_defaults(home):
    write_config(home, {"engine": "claude-code"})
    mine = load_config(home).instances["mine"]
    assert (mine.engine, mine.command, mine.model, mine.label) == ("claude-code", None, "", "claude-code")
    assert mine.timeout == 180 and mine.concurrency == 2
    write_config(home, {"engine": "acp", "command": ["gemini", "--experimental-acp"], "model": "flash", "timeout": 30})
    mine = load_config(home).instances["mine"]
    assert mine.command == ("gemini", "--experimental-acp") and mine.label == "acp:flash" and mine.timeout == 30


@pytest.mark.parametrize(
    "instance, sentence",
    [
        ({"engine": "gemini"}, "'engine' must be one of claude-code, codex, acp."),
        ({"engine": "acp"}, "runs on the acp engine and needs a 'command', such as ['gemini', '--experimental-acp']."),
        (
            {"engine": "claude-code", "api_key_env": "ANTHROPIC_API_KEY"},
            "runs on the claude-code engine, which uses its own sign-in: remove 'api_key_env' and 'api_base'.",
        ),
        ({"engine": "codex", "command": "codex exec"}, "'command' must be a list of words"),
        ({"engine": "codex", "command": []}, "'command' must be a list of words"),
        ({"engine": "codex", "command": ["codex", 3]}, "'command' must be a list of words"),
        ({"engine": "claude-code", "timeout": 0}, "'timeout' must be a number of seconds above 0."),
        ({"engine": "claude-code", "concurrency": 0}, "'concurrency' must be a whole number from 1 to 64."),
    ],
    ids=[
        "unknown engine",
        "acp without command",
        "a key on an engine",
        "command a string",
        "command empty",
        "command not words",
        "timeout",
        "concurrency",
    ],
)
def test_a_wrong_engine_instance_is_one_sentence(home, instance, sentence):
    write_config(home, instance)
    before = home.config_path.read_bytes()
    with pytest.raises(BrokenFile) as caught:
        load_config(home)
    said = str(caught.value)
    assert sentence in said and "'mine'" in said and "\n" not in said
    assert home.config_path.read_bytes() == before
