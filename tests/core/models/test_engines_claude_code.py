"""The claude-code engine (docs/models.md, "Engines"): `complete()` on an instance `{"engine": "claude-code"}` runs
one isolated `claude -p` per call and keeps the call path's contract (text, checked JSON, one usage row, one
sentence when there is no answer).

Claude Code here is a fake (tests/support/fake_claude.py) printing the real program's stream-json shapes, so each
rule and each bad state is played on cue; the real program is driven in the agents tier.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.fake_claude import FakeClaude, answering, assistant, gone, init, result, signed_out, text, tool_use
from support.fake_claude import write_fake_claude as make_fake

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models import instances
from omb_tui.core.models.call import ModelUnavailable, complete
from omb_tui.core.models.engines import claude_code, process
from omb_tui.core.models.output_modes import JSON_PROMPT
from omb_tui.core.models.usage import read_usage

HELLO = [{"role": "system", "content": "You are Scout."}, {"role": "user", "content": "hello"}]
SCHEMA = {  # a capture answer's shape, small
    "type": "object",
    "required": ["notes", "sure"],
    "properties": {
        "notes": {"type": "array", "items": {"type": "string", "maxLength": 40}},
        "sure": {"type": "boolean"},
    },
}


@pytest.fixture
def fake(tmp_path, monkeypatch) -> FakeClaude:
    fake = make_fake(tmp_path / "cli")
    monkeypatch.setenv("PATH", f"{fake.folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return fake


@pytest.fixture
def cc_home(home, fake, monkeypatch):
    """Scout's jobs on instance "cc", Claude Code on the person's sign-in."""
    write_config(home, {"engine": "claude-code", "timeout": 60})
    update_bot_settings(home, "scout", instance="cc")
    for name in ("OMB_HELPER_INSTANCE", "OMB_HELPER_MODEL"):
        monkeypatch.delenv(name, raising=False)
    instances.forget_said()
    yield home
    instances.forget_said()


def write_config(home, instance: dict) -> None:
    home.config_path.write_text(json.dumps({"instances": {"cc": instance}}), encoding="utf-8")


def rows(home) -> list[dict]:
    return read_usage(home, clock.now_utc().strftime("%Y-%m"))


def pairs(argv: list[str]) -> set[tuple[str, str]]:
    return set(zip(argv, argv[1:], strict=False))


# ----- isolation -----
def test_each_call_is_one_claude_p_with_every_isolation_flag(cc_home, fake, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-NOTAREALKEY")  # an API instance's key, not the sign-in
    answer = complete(cc_home, "scout", "capture", HELLO)
    assert answer.text == "ok"
    [start] = fake.starts()
    argv = start["argv"]
    assert argv[0] == str(fake.program) and "-p" in argv
    for flag in ("--strict-mcp-config", "--safe-mode", "--no-session-persistence", "--disable-slash-commands"):
        assert flag in argv, flag
    assert {
        ("--tools", ""),
        ("--setting-sources", ""),
        ("--mcp-config", claude_code.EMPTY_MCP_CONFIG),
        ("--output-format", "stream-json"),
        ("--system-prompt", "You are Scout."),  # replaces the coding agent's prompt, not appended to it
    } <= pairs(argv)
    assert json.loads(claude_code.EMPTY_MCP_CONFIG) == {"mcpServers": {}}
    assert "--bare" not in argv and "--append-system-prompt" not in argv and "--model" not in argv
    assert start["stdin"] == "hello"  # the prompt on stdin, never in argv (ps shows argv to every user)
    env = start["env"]
    assert env["HOME"] == os.environ["HOME"]  # the person's sign-in lives there
    assert "ANTHROPIC_API_KEY" not in env
    assert env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] == "1" and env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] == "1"
    assert start["pgid"] == start["pid"]  # a process group of its own


def test_it_starts_in_an_empty_folder_of_its_own_removed_after_with_its_temporary_files(cc_home, fake):
    complete(cc_home, "scout", "capture", HELLO)
    [start] = fake.starts()
    assert start["cwd_entries"] == []
    folder, scratch = Path(start["cwd"]), Path(start["env"]["TMPDIR"])
    assert folder != scratch and start["env"]["CLAUDE_CODE_TMPDIR"] == str(scratch)
    assert not folder.exists() and not scratch.exists()


def test_the_instances_model_and_command_are_used(cc_home, fake, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # found through `command`, not PATH
    write_config(cc_home, {"engine": "claude-code", "model": "haiku", "command": [str(fake.program), "--debug-x"]})
    complete(cc_home, "scout", "capture", HELLO)
    argv = fake.starts()[-1]["argv"]
    assert argv[:2] == [str(fake.program), "--debug-x"] and ("--model", "haiku") in pairs(argv)


# ----- the answer and its usage -----
def test_its_usage_row_is_on_the_persons_plan(cc_home, fake):
    complete(cc_home, "scout", "capture", HELLO)
    row = rows(cc_home)[-1]
    assert row["ok"] is True and row["engine"] == "claude-code" and row["instance"] == "cc"
    assert row["cost"] == "plan" and row["cost_usd"] == 0.0 and row["plan_cost_usd"] == 0.00058
    assert row["prompt_tokens"] == 150 and row["completion_tokens"] == 9  # fresh, cache written and cache read
    assert row["model"] == "claude-sonnet-5-5" and row["cached_tokens"] == 30 and row["turns"] == 1


def test_a_schema_is_claude_codes_own_and_its_answer_is_checked_again(cc_home, fake):
    notes = {"notes": ["The ferry leaves at 09:10"], "sure": True}
    fake.plan(
        {
            "events": [
                init(),
                assistant(tool_use("StructuredOutput", notes)),
                result(json.dumps(notes), structured=notes),
            ]
        }
    )
    answer = complete(cc_home, "scout", "capture", HELLO, schema=SCHEMA)
    assert answer.data == notes
    start = fake.starts()[-1]
    argv = start["argv"]
    assert json.loads(argv[argv.index("--json-schema") + 1]) == SCHEMA
    assert JSON_PROMPT not in start["stdin"] and "maxLength" not in start["stdin"]  # not in the prompt
    assert rows(cc_home)[-1]["output_mode"] == "engine schema"

    bad = {"notes": ["x" * 80], "sure": True}
    fake.plan({"events": [init(), result(json.dumps(bad), structured=bad)]})
    with pytest.raises(ModelUnavailable, match="answered, but"):
        complete(cc_home, "scout", "capture", HELLO, schema=SCHEMA)
    assert rows(cc_home)[-1]["ok"] is False


def test_a_tool_asked_for_drops_the_call_and_ends_its_process_group(cc_home, fake):
    fake.plan(
        {
            "events": [init(), assistant(text("Let me look."), tool_use("Bash", {"command": "touch /tmp/x"}))],
            "child": True,
            "hang": True,  # as Claude Code would, it goes on; only ending it stops what it would run
        }
    )
    with pytest.raises(ModelUnavailable) as caught:
        complete(cc_home, "scout", "capture", HELLO)
    assert caught.value.reason == "`claude` asked for a tool (Bash); the call was dropped"
    [start] = fake.starts()
    assert gone(start["child"]) and gone(start["pid"])
    row = rows(cc_home)[-1]
    assert row["dropped"] is True and row["ok"] is False and row["error"] == caught.value.reason
    assert row["prompt_tokens"] == 100 and row["completion_tokens"] == 1 and row["cost"] == "plan"  # so far


def test_a_tool_asked_for_when_no_schema_was_given_drops_even_the_schema_tool(cc_home, fake):
    fake.plan({"events": [init(), assistant(tool_use("StructuredOutput", {"notes": []}))], "hang": True})
    with pytest.raises(ModelUnavailable, match=r"asked for a tool \(StructuredOutput\)"):
        complete(cc_home, "scout", "capture", HELLO)


def test_tools_are_refused_before_anything_starts(cc_home, fake):
    tool = {"type": "function", "function": {"name": "memory_update", "parameters": {"type": "object"}}}
    with pytest.raises(ModelUnavailable, match="every tool off"):
        complete(cc_home, "scout", "chat", HELLO, tools=[tool])
    assert fake.starts() == []


# ----- bad states, one sentence each -----
def test_a_hang_is_ended_at_the_timeout_with_its_process_group(cc_home, fake):
    write_config(cc_home, {"engine": "claude-code", "timeout": 1})
    fake.plan({"events": [init()], "child": True, "hang": True})
    with pytest.raises(ModelUnavailable) as caught:
        complete(cc_home, "scout", "capture", HELLO)
    assert caught.value.reason == "`claude` did not finish within 1 s; the call was ended"
    [start] = fake.starts()
    assert gone(start["child"]) and gone(start["pid"])
    assert not Path(start["cwd"]).exists()


def test_a_flood_is_bounded(cc_home, fake, monkeypatch):
    monkeypatch.setattr(process, "MAX_OUTPUT_BYTES", 1024 * 1024)
    fake.plan({"events": [init()], "flood": True})
    with pytest.raises(ModelUnavailable) as caught:
        complete(cc_home, "scout", "capture", HELLO)
    assert caught.value.reason == "`claude` printed more than 1 MB; the call was ended"
    assert gone(fake.starts()[0]["pid"])


def test_not_on_path_says_what_to_do(cc_home, fake, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(ModelUnavailable) as caught:
        complete(cc_home, "scout", "capture", HELLO)
    assert caught.value.reason == ("`claude` is not on PATH: install Claude Code or set `command` in instance 'cc'")
    assert fake.starts() == [] and rows(cc_home)[-1]["ok"] is False


def test_not_signed_in_names_claude_then_login(cc_home, fake):
    fake.plan(signed_out())
    with pytest.raises(ModelUnavailable) as caught:
        complete(cc_home, "scout", "capture", HELLO)
    reason = caught.value.reason
    assert reason == "`claude` is not signed in: run `claude` and sign in with /login"
    assert reason.index("`claude`") < reason.index("/login")


@pytest.mark.parametrize(
    "plan, sentence",
    [
        (
            {"events": [init()], "stderr": "Error: settings are broken\n", "status": 3},
            "`claude` exited with status 3: Error: settings are broken",
        ),
        (
            {"events": ["<html>Service Unavailable</html>"]},
            "`claude` printed something that is not Claude Code's stream-json: <html>Service Unavailable</html>",
        ),
        ({"events": [init()]}, "`claude` ended without an answer"),
        (
            {"events": [init(), result("API Error: 529 overloaded", is_error=True)], "status": 1},
            "`claude` answered with an error: API Error: 529 overloaded",
        ),
        ({**answering("ok"), "status": 2}, "`claude` exited with status 2: no message"),
    ],
    ids=["non-zero exit", "unreadable", "no result", "error result", "an answer but a failed exit"],
)
def test_a_failing_cli_is_one_sentence(cc_home, fake, plan, sentence):
    fake.plan(plan)
    with pytest.raises(ModelUnavailable) as caught:
        complete(cc_home, "scout", "capture", HELLO)
    assert caught.value.reason == sentence
    assert rows(cc_home)[-1]["error"] == sentence
