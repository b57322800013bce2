"""The Codex engine's rules (docs/models.md, "Engines" -> "Codex"), each against a fake `codex` that prints events of
the shapes Codex 0.171.0's `exec --json` prints and records what it was given: the words, the environment, its Codex
home and its folder. The real binary is driven in tests/agents/test_agents_engine_codex.py.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import ModelInstance, update_bot_settings
from omb_tui.core.models import call as model_call
from omb_tui.core.models.engines import EngineCall, EngineFailed, codex, process
from omb_tui.core.models.usage import read_usage

pytestmark = pytest.mark.dates

SYSTEM, PROMPT = "You summarise a bot's notes.", "Summarise: the ferry leaves at 09:10."
SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "topic": {"type": "string"}, "tags": {"type": "array"}},
    "required": ["summary"],
}

FAKE = r"""
import json, os, subprocess, sys, time
mode = os.environ.get("FAKE_CODEX_MODE", "answer")
log = os.environ["FAKE_CODEX_LOG"]
if sys.argv[1:3] == ["debug", "models"]:
    if mode == "no-catalog":
        print("not json"); sys.exit(0)
    entry = {"slug": "gpt-6-luna", "tool_mode": "code_mode_only", "multi_agent_version": "v2",
             "apply_patch_tool_type": "freeform", "supports_search_tool": True,
             "experimental_supported_tools": ["clock"], "base_instructions": "You are Codex."}
    print(json.dumps({"models": [entry, {"slug": "gpt-5.5"}]})); sys.exit(0)
home = os.environ["CODEX_HOME"]
record = {"argv": sys.argv[1:], "cwd": os.getcwd(), "cwd_files": os.listdir("."), "codex_home": home,
          "home_files": sorted(os.listdir(home)), "stdin": sys.stdin.read(),
          "rust_log": os.environ.get("RUST_LOG"),
          "auth": open(os.path.join(home, "auth.json")).read() if os.path.exists(os.path.join(home, "auth.json")) else None}
def value(name):
    for word in sys.argv:
        if word.startswith(name + "="):
            return json.loads(word.split("=", 1)[1])
record["instructions"] = open(value("model_instructions_file")).read()
catalog = value("model_catalog_json")
record["catalog"] = json.load(open(catalog)) if catalog else None
if "--output-schema" in sys.argv:
    record["schema"] = json.load(open(sys.argv[sys.argv.index("--output-schema") + 1]))
with open(log, "w") as out:
    json.dump(record, out)
def say(event):
    print(json.dumps(event), flush=True)
say({"type": "thread.started", "thread_id": "01a24f0e-6ce7-70f1-ab8f-b9081ad6e318"})
say({"type": "turn.started"})
usage = {"input_tokens": 120, "cached_input_tokens": 20, "cache_write_input_tokens": 0, "output_tokens": 9,
         "reasoning_output_tokens": 3}
items = {
    "command": {"id": "item_1", "type": "command_execution", "command": "/bin/bash -lc 'ls'",
                "aggregated_output": "", "exit_code": None, "status": "in_progress"},
    "mcp": {"id": "item_1", "type": "mcp_tool_call", "server": "notes", "tool": "save", "arguments": {},
            "result": None, "error": None, "status": "in_progress"},
    "web": {"id": "item_1", "type": "web_search", "query": "ferry"},
    "patch": {"id": "item_1", "type": "file_change", "changes": [], "status": "in_progress"},
}
if mode in items or mode == "refused":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    open(log + ".child", "w").write(str(child.pid))
    if mode == "refused" and os.environ.get("RUST_LOG", "error") != "off":  # Codex logs errors unless told not to
        sys.stderr.write("2026-12-07T05:51:53Z ERROR codex_core::tools::router: error=unsupported call: exec_command\n")
        sys.stderr.flush()
    else:
        say({"type": "item.started", "item": items[mode]})
    time.sleep(30)  # were the call not dropped, the answer below would come
    say({"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "done anyway"}})
    sys.exit(0)
if mode == "hang":
    time.sleep(600)
if mode == "garbage":
    print("Welcome to Codex!"); sys.exit(0)
if mode == "flood":
    while True:
        say({"type": "item.updated", "item": {"id": "item_1", "type": "reasoning", "text": "x" * 1000}})
if mode in ("fail", "unauthorized"):
    message = "unexpected status 401 Unauthorized" if mode == "unauthorized" else "stream disconnected: boom"
    say({"type": "error", "message": message})
    say({"type": "turn.failed", "error": {"message": message}})
    sys.exit(1)
if mode == "silent-exit":
    sys.stderr.write("panicked at core/src/lib.rs\n"); sys.exit(101)
if mode == "refresh":
    with open(os.path.join(home, "auth.json"), "w") as out:
        json.dump({"tokens": {"refresh_token": "new"}}, out)
    if os.environ.get("FAKE_PERSON_AUTH"):
        with open(os.environ["FAKE_PERSON_AUTH"], "w") as out:
            json.dump({"tokens": {"refresh_token": "their own login"}}, out)
say({"type": "item.completed", "item": {"id": "item_0", "type": "error", "message": "Model metadata warning"}})
say({"type": "item.completed", "item": {"id": "item_1", "type": "reasoning", "text": "thinking"}})
text = os.environ.get("FAKE_CODEX_ANSWER", "The ferry leaves at 09:10.")
if mode != "no-answer":
    say({"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": text}})
say({"type": "turn.completed", "usage": usage})
"""


@pytest.fixture
def fake(tmp_path, monkeypatch) -> dict:
    """A fake `codex` on PATH, the person's Codex home signed in (with their config, hooks and AGENTS.md beside)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "codex"
    program.write_text(f"#!{sys.executable}\n{FAKE}", encoding="utf-8")
    program.chmod(0o755)
    person = tmp_path / "person-codex"
    person.mkdir()
    (person / "auth.json").write_text(json.dumps({"tokens": {"refresh_token": "old"}}), encoding="utf-8")
    (person / "config.toml").write_text('[mcp_servers.notes]\ncommand = "notes-server"\n', encoding="utf-8")
    (person / "hooks.json").write_text("{}", encoding="utf-8")
    (person / "AGENTS.md").write_text("Always answer in French.", encoding="utf-8")
    log = tmp_path / "fake-codex.json"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("CODEX_HOME", str(person))
    monkeypatch.setenv("FAKE_CODEX_LOG", str(log))
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    monkeypatch.setenv("RUST_LOG", "off")  # a person's setting that would hide the router's refusal
    return {"program": program, "person": person, "log": log}


def engine_call(
    command: tuple[str, ...] = ("codex",), *, schema: dict | None = None, seconds: float = 60
) -> EngineCall:
    instance = ModelInstance("codex", "", engine="codex", command=command)
    return EngineCall(instance, "", SYSTEM, PROMPT, schema, seconds)


def recorded(fake: dict) -> dict:
    return json.loads(fake["log"].read_text(encoding="utf-8"))


def running(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its parent to read it has ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def ends(pid: int, within: float = 10.0) -> bool:
    """Whether the process has ended or ends soon: a killed one takes the kernel a moment; one never signalled
    (the call's group not ended) sleeps on for minutes."""
    deadline = time.monotonic() + within
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def failure(monkeypatch, mode: str) -> EngineFailed:
    """The call's failure with the fake in `mode`."""
    monkeypatch.setenv("FAKE_CODEX_MODE", mode)
    with pytest.raises(EngineFailed) as failed:
        codex.run(engine_call())
    return failed.value


def test_each_call_is_isolated_in_its_words(fake):
    reply = codex.run(engine_call())
    assert reply.text == "The ferry leaves at 09:10."
    argv = recorded(fake)["argv"]
    assert argv[0] == "exec" and argv[-1] == "-"
    for word in ("--json", "--ephemeral", "--skip-git-repo-check", "--ignore-user-config", "--ignore-rules"):
        assert word in argv
    assert argv[argv.index("--sandbox") + 1] == "read-only"
    disabled = {argv[i + 1] for i, word in enumerate(argv) if word == "--disable"}
    assert {"shell_tool", "unified_exec", "view_image", "apps", "plugins", "hooks", "multi_agent"} <= disabled
    settings = {argv[i + 1] for i, word in enumerate(argv) if word == "-c"}
    for setting in ('web_search="disabled"', "mcp_servers={}", "project_doc_max_bytes=0", 'history.persistence="none"'):
        assert setting in settings
    # no model named: the smallest, at low effort
    assert 'model="gpt-6-luna"' in settings and 'model_reasoning_effort="low"' in settings
    assert reply.model == "gpt-6-luna"


def test_the_prompt_goes_on_stdin_and_the_instructions_replace_codexs(fake):
    codex.run(engine_call())
    seen = recorded(fake)
    assert seen["stdin"] == PROMPT and PROMPT not in seen["argv"]
    assert seen["instructions"] == SYSTEM


def test_the_models_catalog_entry_goes_without_its_tools(fake):
    codex.run(engine_call())
    (entry,) = recorded(fake)["catalog"]["models"]
    assert entry["slug"] == "gpt-6-luna" and entry["base_instructions"] == "You are Codex."
    assert not {"tool_mode", "multi_agent_version", "apply_patch_tool_type"} & entry.keys()
    assert entry["supports_search_tool"] is False and entry["experimental_supported_tools"] == []


def test_an_unreadable_catalog_makes_no_call(fake, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "no-catalog")
    monkeypatch.setattr(codex, "_CATALOGS", {})
    with pytest.raises(EngineFailed, match="model catalog"):
        codex.run(engine_call())
    assert not fake["log"].exists()


def test_a_codex_home_of_its_own_holds_only_the_sign_in_and_goes_after(fake):
    codex.run(engine_call(schema=SCHEMA))
    seen = recorded(fake)
    assert Path(seen["codex_home"]) != fake["person"]
    assert set(seen["home_files"]) <= {"auth.json", "instructions.md", "models.json", "schema.json"}
    assert seen["auth"] == (fake["person"] / "auth.json").read_text(encoding="utf-8")
    assert seen["cwd_files"] == [] and seen["rust_log"] == "error"
    assert not Path(seen["codex_home"]).exists() and not Path(seen["cwd"]).exists()


def test_a_refreshed_sign_in_goes_back_to_the_person(fake, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "refresh")
    codex.run(engine_call())
    assert json.loads((fake["person"] / "auth.json").read_text())["tokens"]["refresh_token"] == "new"


def test_a_login_of_their_own_meanwhile_wins_over_a_refresh(fake, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "refresh")
    monkeypatch.setenv("FAKE_PERSON_AUTH", str(fake["person"] / "auth.json"))
    codex.run(engine_call())
    assert json.loads((fake["person"] / "auth.json").read_text())["tokens"]["refresh_token"] == "their own login"


def test_the_persons_model_and_provider_settings_come_after_the_isolations(fake):
    provider = ("-c", 'model_providers.mine.base_url="http://127.0.0.1:9/v1"', "-c", "model_provider=mine")
    reply = codex.run(engine_call(("codex", *provider, "-m", "gpt-5.5")))
    argv = recorded(fake)["argv"]
    assert argv[-5:] == [*provider, "-"]
    assert 'model="gpt-5.5"' in argv and "-m" not in argv and reply.model == "gpt-5.5"
    assert recorded(fake)["catalog"]["models"][0]["slug"] == "gpt-5.5"


@pytest.mark.parametrize(
    "words",
    [
        ("--enable", "shell_tool"),
        ("-c", "features.shell_tool=true"),
        ("-c", 'web_search="live"'),
        ("-c", 'mcp_servers.notes.command="notes-server"'),
        ("--config=tools.view_image=true",),
        ("--sandbox", "danger-full-access"),
        ("--dangerously-bypass-approvals-and-sandbox",),
        ("-p", "work"),
        ("-c", 'notify=["sh"]'),
    ],
)
def test_a_persons_word_that_could_turn_a_tool_back_on_is_refused(fake, words):
    with pytest.raises(EngineFailed) as failed:
        codex.run(engine_call(("codex", *words)))
    assert "which a Codex call does not take" in failed.value.sentence and words[0] in failed.value.sentence
    assert not fake["log"].exists()  # Codex never started


@pytest.mark.parametrize(
    ("mode", "tool"),
    [
        ("command", "shell"),
        ("mcp", "notes/save"),
        ("web", "web search"),
        ("patch", "apply_patch"),
        ("refused", "exec_command"),
    ],
)
def test_a_tool_call_drops_the_call_and_ends_its_group(fake, monkeypatch, mode, tool):
    failed = failure(monkeypatch, mode)
    assert failed.dropped
    assert failed.sentence == f"Codex asked for a tool ({tool}); the call was dropped"
    child = int(Path(str(fake["log"]) + ".child").read_text())
    assert ends(child)


def test_a_structured_answer_uses_codexs_schema_and_reads_back_as_asked(fake, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_ANSWER", json.dumps({"summary": "Ferry at 09:10", "topic": None, "tags": None}))
    reply = codex.run(engine_call(schema=SCHEMA))
    strict = recorded(fake)["schema"]
    assert strict["required"] == ["summary", "topic", "tags"] and strict["additionalProperties"] is False
    assert strict["properties"]["topic"]["type"] == ["string", "null"]
    assert reply.data == {"summary": "Ferry at 09:10"}  # the optional nulls Codex had to send are gone


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("fail", "`codex` exited with status 1: stream disconnected: boom"),
        ("unauthorized", "run `codex login`"),
        ("garbage", "`codex` printed something that is not a JSON event"),
        ("no-answer", "`codex` finished without an answer"),
        ("silent-exit", "`codex` exited with status 101: panicked at core/src/lib.rs"),
    ],
)
def test_bad_states_are_one_sentence(fake, monkeypatch, mode, words):
    failed = failure(monkeypatch, mode)
    assert words in failed.sentence and "\n" not in failed.sentence
    assert not failed.dropped


def test_a_hang_is_ended_at_the_calls_time(fake, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "hang")
    with pytest.raises(EngineFailed, match=r"`codex` did not finish within 1 s; the call was ended"):
        codex.run(engine_call(seconds=1))


def test_a_flood_is_ended(fake, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "flood")
    monkeypatch.setattr(process, "MAX_OUTPUT_BYTES", 1024 * 1024)
    with pytest.raises(EngineFailed, match="printed more than 1 MB"):
        codex.run(engine_call())


def test_not_on_path_names_the_program(fake):
    with pytest.raises(EngineFailed, match="`no-such-codex` is not on PATH: install Codex or set `command`"):
        codex.run(engine_call(("no-such-codex",)))


def test_not_signed_in_names_codex_login(fake, monkeypatch):
    (fake["person"] / "auth.json").unlink()
    with pytest.raises(EngineFailed) as failed:
        codex.run(engine_call())
    assert failed.value.sentence == codex.NOT_SIGNED_IN and "`codex login`" in failed.value.sentence
    assert not fake["log"].exists()
    monkeypatch.setenv("CODEX_API_KEY", "sk-test")  # a key in the environment signs `codex exec` in too
    codex.run(engine_call())
    assert recorded(fake)["auth"] is None


# ----- through complete(): the usage row -----
@pytest.fixture
def codex_bot(home, fake):
    config = {"instances": {"cx": {"engine": "codex", "timeout": 60}}}
    home.config_path.write_text(json.dumps(config), encoding="utf-8")
    update_bot_settings(home, "scout", instance="cx")
    return home


def test_an_answer_writes_a_usage_row_on_the_plan(codex_bot, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_ANSWER", json.dumps({"summary": "Ferry at 09:10", "topic": None, "tags": ["x"]}))
    answer = model_call.complete(codex_bot, "scout", "capture", [{"role": "user", "content": PROMPT}], schema=SCHEMA)
    assert answer.data == {"summary": "Ferry at 09:10", "tags": ["x"]}
    (row,) = read_usage(codex_bot, clock.now_utc().strftime("%Y-%m"))
    assert row["engine"] == "codex" and row["cost"] == "plan" and row["cost_usd"] == 0.0
    assert (row["prompt_tokens"], row["completion_tokens"], row["cached_tokens"], row["reasoning_tokens"]) == (
        120,
        9,
        20,
        3,
    )
    assert row["model"] == "gpt-6-luna"


def test_a_dropped_call_is_unavailable_and_its_row_says_so(codex_bot, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "command")
    with pytest.raises(model_call.ModelUnavailable, match=r"asked for a tool \(shell\); the call was dropped"):
        model_call.complete(codex_bot, "scout", "capture", [{"role": "user", "content": PROMPT}])
    (row,) = read_usage(codex_bot, clock.now_utc().strftime("%Y-%m"))
    assert row["dropped"] is True and row["ok"] is False and row["engine"] == "codex"
