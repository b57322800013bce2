"""The hooks' front (omb_tui/cli/hook_front.py; docs/agents.md "The hooks and the service"): the installed hook
command hands its payload to the home's service, which answers with what the command line would have printed;
when the service cannot answer (none runs, it was killed, it broke off), the command line answers in the hook's own
process. Each hook of Claude Code and Codex is run both ways, on two copies of one home, and compared byte for byte.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st
from support.home import BOT_ID, omb_tui_command
from support.server_processes import wait_for
from support.transcripts import PROMPT, a_turn, payload, write_transcript

from omb_tui.cli import hook_front
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.hooks import install
from omb_tui.hooks.payload import MAX_PAYLOAD_BYTES
from omb_tui.mcp import address, front

pytestmark = [
    pytest.mark.dates,  # a transcript's UTC times, read into local ones
    pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds the service through /proc"),
]

IMPORT_LINE = "import time:"  # what PYTHONPROFILEIMPORTTIME writes on stderr, one line per module imported
ASKED = "Which seats do I like on flights, and where do I live?"  # recall finds the home's notes on both
FRONT_MODULES = {"omb_tui", "omb_tui.cli", "omb_tui.cli.hook_front", "omb_tui.mcp", "omb_tui.mcp.address"}


def environment(**extra: str) -> dict[str, str]:
    """A hook's environment as an agent gives it: this checkout's code, the suite's clock, no home variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "PYTHONIOENCODING"))}
    env.update({"PYTHONUTF8": "1", "PYTHONPATH": str(Path(hook_front.__file__).resolve().parents[2])})
    env.update(clock.carried_env())
    env.update(extra)
    return env


def run_hook(home: Home, argv: list[str], stdin: bytes, **env: str) -> subprocess.CompletedProcess[bytes]:
    """The installed command, as the agent starts it: `<omb-tui> --home DIR hook NAME --bot ID …`."""
    command = [*omb_tui_command(), "--home", str(home.root), "hook", *argv]
    return subprocess.run(command, input=stdin, capture_output=True, env=environment(**env), timeout=120)


def modules_imported(stderr: bytes) -> set[str]:
    """The modules PYTHONPROFILEIMPORTTIME listed."""
    lines = stderr.decode("utf-8", "replace").splitlines()
    listed = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith(IMPORT_LINE)}
    return listed - {"imported package"}  # the header


def without_import_lines(stderr: bytes) -> bytes:
    return b"".join(line for line in stderr.splitlines(keepends=True) if not line.startswith(IMPORT_LINE.encode()))


def end_services(home: Home) -> None:
    for pid in front.running_services(home.root):
        os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not front.running_services(home.root), "the home's service ended")


@pytest.fixture
def twins(home, tmp_path) -> Iterator[tuple[Home, Home]]:
    """Two copies of one home (modes and times kept): the service serves the first; the second has none."""
    served = Home(tmp_path / "served")
    alone = Home(tmp_path / "alone")
    for copy in (served, alone):
        shutil.copytree(home.root, copy.root, copy_function=shutil.copy2)
    yield served, alone
    end_services(served)


def start_service(home: Home, monkeypatch) -> None:
    """The home's service, started as `omb-tui mcp` starts it (its first session opened and closed at once)."""
    monkeypatch.setenv(front.ENV_IDLE, "120")  # ended by the test, not by its idle time
    for name, value in clock.carried_env().items():
        monkeypatch.setenv(name, value)
    front.connect(home.root, BOT_ID, None).socket.close()
    wait_for(lambda: front.running_services(home.root), "the home's service runs")


def assert_served(result: subprocess.CompletedProcess[bytes]) -> None:
    """The service answered: the hook's process loaded the front, and nothing of the core or past the standard
    library."""
    loaded = modules_imported(result.stderr)
    assert "omb_tui.cli.hook_front" in loaded, result.stderr[-2000:]
    ours = {name for name in loaded if name.split(".")[0] == "omb_tui"}
    assert ours <= FRONT_MODULES, sorted(ours - FRONT_MODULES)
    assert beyond_the_standard_library(loaded) == set()


def beyond_the_standard_library(modules: set[str]) -> set[str]:
    """The modules of `modules` that are neither the standard library's, nor omb_tui's, nor loaded by every
    interpreter at its start here (a site's sitecustomize, setuptools' hook)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, env=environment())
    bare = modules_imported(done.stderr) | {"__main__"}  # the script run itself
    return {name for name in modules if name.split(".")[0] not in {*sys.stdlib_module_names, "omb_tui"}} - bare


# The hooks of both agents, each event, and the ways a payload goes wrong: (argv after `hook`, payload)
def cases(transcript: Path) -> dict[str, tuple[list[str], bytes]]:
    found: dict[str, tuple[list[str], bytes]] = {}
    for agent in ("claude-code", "codex"):
        words = ["--bot", BOT_ID, "--agent", agent]
        found[f"{agent} session-start"] = (["session-start", *words], payload("SessionStart", source="startup"))
        found[f"{agent} prompt"] = (["prompt", *words], payload("UserPromptSubmit", prompt=ASKED))
        found[f"{agent} stop"] = (["stop", *words], payload("Stop", transcript))
        found[f"{agent} resume"] = (["session-start", *words], payload("SessionStart", source="resume"))
    found["a person's prompt"] = (
        ["prompt", "--bot", BOT_ID, "--person", "nadia"],
        payload("UserPromptSubmit", prompt="Where do I live?"),
    )
    found["not JSON"] = (["prompt", "--bot", BOT_ID], b"{not json")
    found["another event"] = (["stop", "--bot", BOT_ID], payload("UserPromptSubmit", prompt=PROMPT))
    found["no prompt"] = (["prompt", "--bot", BOT_ID], payload("UserPromptSubmit"))
    found["no such bot"] = (["prompt", "--bot", "nobody"], payload("UserPromptSubmit", prompt=PROMPT))
    found["an unreadable transcript"] = (["stop", "--bot", BOT_ID], payload("Stop", transcript.parent / "gone.jsonl"))
    return found


def test_every_hook_of_both_agents_answers_the_same_through_the_service_as_in_process(twins, tmp_path, monkeypatch):
    served, alone = twins
    start_service(served, monkeypatch)
    transcript = write_transcript(tmp_path / "session.jsonl", a_turn())
    for what, (argv, stdin) in cases(transcript).items():  # in turn: a hook sees what the ones before it wrote
        through = run_hook(served, argv, stdin, PYTHONPROFILEIMPORTTIME="1")
        assert_served(through)
        itself = run_hook(alone, argv, stdin)
        assert (through.returncode, through.stdout) == (itself.returncode, itself.stdout), what
        home_named = without_import_lines(through.stderr).replace(bytes(served.root), bytes(alone.root))
        assert home_named == itself.stderr, what  # the same, but for the home's name in "no such bot"
        assert through.returncode == 0, what
    assert b"Scout" in run_hook(served, *cases(transcript)["claude-code session-start"]).stdout  # not all empty
    assert b"window seats" in run_hook(served, *cases(transcript)["codex prompt"]).stdout


def test_the_front_imports_the_standard_library_alone(home, monkeypatch, tmp_path):
    start_service(home, monkeypatch)
    try:
        probe = (
            "import sys; from omb_tui.cli.hook_front import answer_through_service, hook_here; "
            "code = answer_through_service(hook_here(sys.argv[2:])); "
            "open(sys.argv[1], 'w').write(repr(code) + '\\n' + '\\n'.join(sys.modules))"
        )
        listing = tmp_path / "modules.txt"
        argv = ["--home", str(home.root), "hook", "prompt", "--bot", BOT_ID]
        stdin = payload("UserPromptSubmit", prompt=ASKED)
        done = subprocess.run(
            [sys.executable, "-c", probe, str(listing), *argv],
            input=stdin,
            capture_output=True,
            env=environment(),
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        code, *modules = listing.read_text().splitlines() if listing.exists() else ["missing"]
    finally:
        end_services(home)
    assert code == "0"  # the service answered
    assert done.stdout.startswith(b"Recalled from your own notes")
    ours = {name for name in modules if name.startswith("omb_tui")}
    assert ours == FRONT_MODULES
    assert beyond_the_standard_library(set(modules)) == set()
    # nor the standard library's heavier modules (their C parts serve): together 15 ms of every prompt
    assert {"json", "re", "socket", "hashlib", "contextlib"} & set(modules) == set()


def test_a_killed_service_leaves_the_hook_to_its_own_process_with_the_same_answer(twins, monkeypatch):
    served, alone = twins
    start_service(served, monkeypatch)
    (pid,) = front.running_services(served.root)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not front.running_services(served.root), "the killed service is gone")
    assert Path(address.socket_path(served.root)).exists()  # its socket is left, with no one listening
    stdin = payload("UserPromptSubmit", prompt=ASKED)
    through = run_hook(served, ["prompt", "--bot", BOT_ID], stdin, PYTHONPROFILEIMPORTTIME="1")
    itself = run_hook(alone, ["prompt", "--bot", BOT_ID], stdin)
    assert "omb_tui.core.files.paths" in modules_imported(through.stderr)  # answered in its own process
    assert through.stdout == itself.stdout and through.stdout.startswith(b"Recalled from your own notes")
    assert without_import_lines(through.stderr) == itself.stderr and through.returncode == itself.returncode == 0


# What a service (or whatever listens on its socket) may say after the payload: nothing, or an answer to refuse
BROKEN_ANSWERS = {
    "nothing": b"",
    "nesting past the stack": b"[" * 200_000 + b"\n",
    "not UTF-8": b'{"ok": true, "stdout": "\xff", "stderr": ""}\n',
    "two values": b'{"ok": true, "stdout": "", "stderr": ""} {}\n',
    "not a yes": b'{"ok": false, "why": "no"}\n',
    "a stdout that is no text": b'{"ok": true, "stdout": 7, "stderr": ""}\n',
}


@pytest.mark.parametrize("said", BROKEN_ANSWERS.values(), ids=BROKEN_ANSWERS.keys())
def test_a_service_that_breaks_off_or_answers_wrong_leaves_the_same_payload_to_the_hooks_own_process(twins, said):
    served, alone = twins
    path = address.socket_path(served.root)
    taken: list[bytes] = []
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)

    def take_and_answer() -> None:  # reads the hello and the payload, then says `said` and ends
        connection, _ = listener.accept()
        with connection:
            while part := connection.recv(1 << 16):
                taken.append(part)
            connection.sendall(said)

    reader = threading.Thread(target=take_and_answer, daemon=True)
    reader.start()
    try:
        stdin = payload("UserPromptSubmit", prompt=ASKED)
        through = run_hook(served, ["prompt", "--bot", BOT_ID], stdin)
        itself = run_hook(alone, ["prompt", "--bot", BOT_ID], stdin)
    finally:
        listener.close()
        os.unlink(path)
    reader.join()
    hello, _, sent = b"".join(taken).partition(b"\n")
    assert json.loads(hello)["hook"] == "prompt" and sent == stdin  # the service was asked
    assert (through.returncode, through.stdout, through.stderr) == (itself.returncode, itself.stdout, itself.stderr)
    assert through.stdout.startswith(b"Recalled from your own notes")


def test_a_hook_the_service_cannot_answer_runs_without_the_command_lines_parser(home):
    """In its own process (no service), a hook is read as install writes it and run: no command group's parser is
    built, and nothing recall does not use without embeddings (the models, the vectors) is imported."""
    stdin = payload("UserPromptSubmit", prompt=ASKED)
    done = run_hook(home, ["prompt", "--bot", BOT_ID], stdin, OMB_TUI_MCP_SERVICE="0", PYTHONPROFILEIMPORTTIME="1")
    loaded = modules_imported(done.stderr)
    assert done.returncode == 0 and done.stdout.startswith(b"Recalled from your own notes")
    assert "omb_tui.hooks.run" in loaded  # answered here
    assert {name for name in loaded if name.startswith("omb_tui.cli")} == {"omb_tui.cli", "omb_tui.cli.hook_front"}
    unused = ("argparse", "omb_tui.core.models", "omb_tui.core.index.vectors", "subprocess", "difflib", "tempfile")
    assert {m for m in loaded if any(m == name or m.startswith(name + ".") for name in unused)} == set()


def test_a_hook_in_its_own_process_finishes_a_restore_first_as_every_command_does(home):
    home.restore_stage.mkdir()  # a restore killed before it staged anything: removed at the next start
    done = run_hook(
        home, ["prompt", "--bot", BOT_ID], payload("UserPromptSubmit", prompt=ASKED), OMB_TUI_MCP_SERVICE="0"
    )
    assert done.returncode == 0 and done.stdout.startswith(b"Recalled from your own notes")
    assert not home.restore_stage.exists()


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
@pytest.mark.parametrize("person", [None, "nadia"])
def test_the_installed_hook_commands_are_the_fronts(agent, person, home):
    commands = install.hook_handlers(install.program(str(home.root)), BOT_ID, person, agent)
    assert set(commands) == {"SessionStart", "UserPromptSubmit", "Stop"}
    for handler in commands.values():
        words = shlex.split(handler["command"])
        start = 3 if words[1:3] == ["-m", "omb_tui.cli"] else 1
        call = hook_front.hook_call(words[start:])
        assert call is not None, words
        assert (call.bot, call.person, call.agent) == (BOT_ID, person, agent)
        assert hook_front.home_root(call.home) == str(home.root)


def test_the_installed_command_is_answered_by_the_service_unchanged(home, monkeypatch):
    start_service(home, monkeypatch)
    try:
        handler = install.hook_handlers(install.program(str(home.root)), BOT_ID)["UserPromptSubmit"]
        stdin = payload("UserPromptSubmit", prompt=ASKED)
        done = subprocess.run(
            handler["command"],
            shell=True,  # as Claude Code and Codex run a command hook
            input=stdin,
            capture_output=True,
            env=environment(PYTHONPROFILEIMPORTTIME="1"),
            timeout=120,
        )
    finally:
        end_services(home)
    assert_served(done)
    assert done.returncode == 0 and done.stdout.startswith(b"Recalled from your own notes")


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "prompt", "--help"],
        ["hook", "prompt", "--bot"],
        ["hook", "prompt", "--bot", ""],
        ["hook", "prompt", "--bot", BOT_ID, "--bot", "other"],
        ["hook", "prompt", "--bot", BOT_ID, "--agent", "cursor"],
        ["hook", "prompt", "--bo", BOT_ID],
        ["hook", "install", "--bot", BOT_ID],
        ["hook", "prompt", "--bot", BOT_ID, "--person", "-x"],
        ["--home", "", "hook", "prompt", "--bot", BOT_ID],
        ["recall", BOT_ID, "hotel"],
    ],
)
def test_what_is_not_a_hook_as_install_writes_it_goes_to_the_command_line(argv):
    assert hook_front.hook_call(argv) is None


def test_the_front_finds_the_home_the_core_finds(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OMB_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for given in [None, "link", "~/link", str(tmp_path / "link" / ".." / "link")]:
        assert hook_front.home_root(given) == str(Home(given).root), given
    monkeypatch.setenv("OMB_HOME", "~/link")
    assert hook_front.home_root(None) == str(Home(None).root)
    assert hook_front.MAX_PAYLOAD_BYTES == MAX_PAYLOAD_BYTES


def test_the_temporary_folder_is_the_one_tempfile_picks(tmp_path, monkeypatch):
    import tempfile

    for named in (str(tmp_path), None):
        if named is None:
            monkeypatch.delenv("TMPDIR", raising=False)
        else:
            monkeypatch.setenv("TMPDIR", named)
        monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() looks again
        assert address.temporary_folder() == tempfile.gettempdir()


TEXTS = st.text(st.characters(codec=None, exclude_categories=()))  # any code point, lone surrogates too
JSON_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXTS,
    lambda inner: st.dictionaries(TEXTS, inner, max_size=5),
    max_leaves=20,
)


@hypothesis.given(JSON_LIKE)
def test_the_fronts_hello_is_written_as_json_dumps_writes_it(value):
    assert hook_front.json_text(value) == json.dumps(value)


@hypothesis.given(st.recursive(JSON_LIKE | st.floats(), lambda inner: st.lists(inner, max_size=4), max_leaves=20))
def test_the_services_answer_is_read_as_json_loads_reads_it(value):
    text = json.dumps(value) + "\n"
    assert repr(hook_front.json_value(text)) == repr(json.loads(text))  # (repr: NaN is never equal to itself)


@pytest.mark.parametrize("text", ["", "\n", '{"ok": true} {}', '{"ok": tru', "[1,]", '"\\ud800', "{'ok': 1}"])
def test_what_is_not_one_json_value_is_refused_as_json_loads_refuses_it(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        hook_front.json_value(text)
