"""`omb-tui hook install --bot ID [--project DIR] [--print] [--remove]`: the three hooks and the MCP server entry
merged into Claude Code's settings (docs/agents.md), never dropping a key, and taken out again exactly."""

from __future__ import annotations

import copy
import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from support.home import BOT_ID, make_bot
from support.repo import ROOT

from omb_tui.hooks.install import HOOK_EVENTS
from omb_tui.hooks.names import MCP_SERVER_NAME, server_name

pytestmark = pytest.mark.dates  # a transcript's UTC times, read into local ones

EVENTS = list(HOOK_EVENTS.values())

# A settings file as a person's may be: other keys, other hooks (of the same events too), a matcher group.
THEIR_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bar"},
    "hooks": {
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write ."}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send 'Claude is done'"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "cat ~/standing.md"}]}],
    },
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
}
THEIR_CLAUDE_JSON = {
    "numStartups": 42,
    "projects": {"/home/nadia/code": {"allowedTools": [], "mcpServers": {}}},
    "mcpServers": {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
    },
}


def user_dir(tmp_path: Path) -> Path:
    return tmp_path / "user"  # $HOME in every test (conftest)


def settings_path(tmp_path: Path) -> Path:
    return user_dir(tmp_path) / ".claude" / "settings.json"


def claude_json(tmp_path: Path) -> Path:
    return user_dir(tmp_path) / ".claude.json"


def put(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def ours(settings: dict, event: str) -> list[str]:
    return [
        h["command"]
        for group in settings["hooks"][event]
        for h in group["hooks"]
        if "omb-tui" in h["command"] or "omb_tui.cli" in h["command"]
    ]


def one_line(result) -> str:
    assert "Traceback" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    return lines[0]


# ----- --print -----
def test_print_shows_a_block_pointing_at_the_command(run_exe, home, tmp_path):
    """Done when: `omb-tui hook install --bot scout --print` prints a block pointing at the command."""
    result = run_exe("hook", "install", "--bot", BOT_ID, "--print")
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert f"merge into {settings_path(tmp_path)}" in out and f"merge into {claude_json(tmp_path)}" in out
    hooks, servers = (json.loads(block) for block in _json_blocks(out))
    assert list(hooks["hooks"]) == EVENTS
    command = shlex.split(hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"])
    assert command[-4:] == ["hook", "prompt", "--bot", BOT_ID]
    start = command[: command.index("hook")]
    assert start[-2:] == ["--home", str(home.root)]  # $OMB_HOME named it: Claude Code may not have it set
    program = start[:-2]
    assert os.path.isabs(program[0]) and (Path(program[0]).name == "omb-tui" or program[1:] == ["-m", "omb_tui.cli"])
    entry = servers["mcpServers"][server_name(BOT_ID)]
    assert [entry["command"], *entry["args"]] == [*start, "mcp", "--bot", BOT_ID]
    assert not settings_path(tmp_path).exists() and not claude_json(tmp_path).exists()  # printing writes nothing


def _json_blocks(out: str) -> list[str]:
    blocks, current = [], []
    for line in out.splitlines():
        if line.startswith("#"):
            if current:
                blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    blocks.append("\n".join(current))
    return blocks


def test_print_names_the_home_when_it_was_named(run_cli, home):
    result = run_cli("hook", "install", "--bot", BOT_ID, "--print")
    hooks = json.loads(_json_blocks(result.out)[0])["hooks"]
    for event in EVENTS:
        words = shlex.split(hooks[event][0]["hooks"][0]["command"])
        assert words[words.index("--home") + 1] == str(home.root)  # Claude Code starts it elsewhere, without $OMB_HOME


# ----- install, merge, remove -----
def test_install_into_nothing_writes_both_files_private(run_cli, tmp_path):
    result = run_cli("hook", "install", "--bot", BOT_ID)
    assert result.code == 0, result.err
    assert "restart Claude Code" in result.out
    settings, mcp = read(settings_path(tmp_path)), read(claude_json(tmp_path))
    assert list(settings) == ["hooks"] and list(settings["hooks"]) == EVENTS
    for event, name in zip(EVENTS, HOOK_EVENTS):
        (group,) = settings["hooks"][event]
        assert "matcher" not in group  # every start, every prompt, every stop
        (handler,) = group["hooks"]
        assert handler["type"] == "command" and handler["timeout"] > 0
        assert shlex.split(handler["command"])[-4:] == ["hook", name, "--bot", BOT_ID]
    assert mcp["mcpServers"][server_name(BOT_ID)]["args"][-3:] == ["mcp", "--bot", BOT_ID]
    for path in (settings_path(tmp_path), claude_json(tmp_path)):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_install_merges_keeping_every_key_and_remove_gives_the_files_back(run_cli, tmp_path):
    put(settings_path(tmp_path), THEIR_SETTINGS)
    put(claude_json(tmp_path), THEIR_CLAUDE_JSON)
    assert run_cli("hook", "install", "--bot", BOT_ID).code == 0
    settings, mcp = read(settings_path(tmp_path)), read(claude_json(tmp_path))
    for key in THEIR_SETTINGS:
        if key != "hooks":
            assert settings[key] == THEIR_SETTINGS[key]
    assert settings["hooks"]["PostToolUse"] == THEIR_SETTINGS["hooks"]["PostToolUse"]
    assert settings["hooks"]["Stop"][0] == THEIR_SETTINGS["hooks"]["Stop"][0]  # theirs first, ours after
    assert settings["hooks"]["SessionStart"][0] == THEIR_SETTINGS["hooks"]["SessionStart"][0]
    for event in EVENTS:
        assert len(ours(settings, event)) == 1
    assert mcp["numStartups"] == 42 and mcp["projects"] == THEIR_CLAUDE_JSON["projects"]
    assert mcp["mcpServers"]["github"] == THEIR_CLAUDE_JSON["mcpServers"]["github"]

    again = run_cli("hook", "install", "--bot", BOT_ID)  # idempotent
    assert "nothing written" in again.out
    assert read(settings_path(tmp_path)) == settings

    removed = run_cli("hook", "install", "--bot", BOT_ID, "--remove")
    assert removed.code == 0 and "Took scout's hooks and MCP server out of" in removed.out
    assert read(settings_path(tmp_path)) == THEIR_SETTINGS
    assert read(claude_json(tmp_path)) == THEIR_CLAUDE_JSON
    nothing = run_cli("hook", "install", "--bot", BOT_ID, "--remove")
    assert "Nothing of scout's was in" in nothing.out


def test_remove_after_install_into_nothing_leaves_empty_objects(run_cli, tmp_path):
    run_cli("hook", "install", "--bot", BOT_ID)
    run_cli("hook", "install", "--bot", BOT_ID, "--remove")
    assert read(settings_path(tmp_path)) == {} and read(claude_json(tmp_path)) == {}


def test_a_project_gets_its_own_settings_and_mcp_json(run_cli, tmp_path):
    project = tmp_path / "atlas-site"
    project.mkdir()
    put(project / ".mcp.json", {"mcpServers": {"db": {"command": "pg-mcp"}}})
    result = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project))
    assert result.code == 0, result.err
    assert list(read(project / ".claude" / "settings.json")["hooks"]) == EVENTS
    servers = read(project / ".mcp.json")["mcpServers"]
    assert set(servers) == {"db", server_name(BOT_ID)}
    assert not settings_path(tmp_path).exists() and not claude_json(tmp_path).exists()
    run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project), "--remove")
    assert read(project / ".mcp.json") == {"mcpServers": {"db": {"command": "pg-mcp"}}}


def test_install_replaces_an_earlier_install_of_ours_and_says_so(run_cli, tmp_path):
    old = "/old/venv/bin/omb-tui hook prompt --bot ledger"
    put(settings_path(tmp_path), {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": old}]}]}})
    result = run_cli("hook", "install", "--bot", BOT_ID)
    assert f"Replaced: {old}" in result.out
    settings = read(settings_path(tmp_path))
    assert len(settings["hooks"]["UserPromptSubmit"]) == 1  # one bot per settings file
    assert shlex.split(ours(settings, "UserPromptSubmit")[0])[-1] == BOT_ID


def test_remove_takes_out_only_this_bots(run_cli, home, tmp_path):
    make_bot(home, "ledger", "Ledger")
    theirs = "/venv/bin/omb-tui hook stop --bot ledger"
    put(settings_path(tmp_path), {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": theirs}]}]}})
    put(
        claude_json(tmp_path),
        {"mcpServers": {"omb-tui": {"command": "/venv/bin/omb-tui", "args": ["mcp", "--bot", "ledger"]}}},
    )
    before = (settings_path(tmp_path).read_bytes(), claude_json(tmp_path).read_bytes())
    result = run_cli("hook", "install", "--bot", BOT_ID, "--remove")
    assert "Nothing of scout's was in" in result.out
    assert (settings_path(tmp_path).read_bytes(), claude_json(tmp_path).read_bytes()) == before


def test_a_settings_file_that_is_a_link_has_its_target_written(run_cli, tmp_path):
    target = put(tmp_path / "dotfiles" / "claude-settings.json", {"model": "opus"})
    settings_path(tmp_path).parent.mkdir(parents=True)
    settings_path(tmp_path).symlink_to(target)
    assert run_cli("hook", "install", "--bot", BOT_ID).code == 0
    assert settings_path(tmp_path).is_symlink()
    assert read(target)["model"] == "opus" and list(read(target)["hooks"]) == EVENTS


# ----- refusals: one sentence, exit 2, nothing written -----
@pytest.mark.parametrize(
    ("broken", "which", "says"),
    [
        (b'{"model": "opus",}', "settings", "is not valid JSON (line 1"),
        (b"[1, 2]", "settings", "is not a JSON object"),
        (b'{"hooks": []}', "settings", 'its "hooks" is not an object'),
        (b'{"hooks": {"Stop": {"hooks": []}}}', "settings", 'has a "Stop" that is not a list'),
        (b'{"mcpServers": "none"}', "mcp", 'its "mcpServers" is not an object'),
        (b"\xff\xfe{}", "mcp", "is not UTF-8 text"),
    ],
)
def test_a_broken_settings_file_is_one_sentence_exit_2_and_untouched(run_cli, tmp_path, broken, which, says):
    good = put(settings_path(tmp_path) if which == "mcp" else claude_json(tmp_path), {"keep": True})
    bad = settings_path(tmp_path) if which == "settings" else claude_json(tmp_path)
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_bytes(broken)
    good_bytes = good.read_bytes()
    result = run_cli("hook", "install", "--bot", BOT_ID)
    assert result.code == 2
    sentence = one_line(result)
    assert says in sentence and str(bad) in sentence and "nothing was changed" in sentence
    assert bad.read_bytes() == broken and good.read_bytes() == good_bytes  # neither file written


def test_remove_from_a_broken_settings_file_is_refused_too(run_cli, tmp_path):
    bad = settings_path(tmp_path)
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b'{"hooks": ')
    result = run_cli("hook", "install", "--bot", BOT_ID, "--remove")
    assert result.code == 2 and "is not valid JSON" in one_line(result)
    assert bad.read_bytes() == b'{"hooks": ' and not claude_json(tmp_path).exists()


def test_a_missing_bot_or_project_is_one_sentence_exit_2(run_cli, tmp_path):
    result = run_cli("hook", "install", "--bot", "nobody")
    assert result.code == 2 and "There is no bot 'nobody'" in one_line(result)
    result = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(tmp_path / "nowhere"))
    assert result.code == 2 and "does not exist" in one_line(result)
    assert not settings_path(tmp_path).exists()


def test_print_and_remove_together_are_a_usage_mistake(run_cli):
    result = run_cli("hook", "install", "--bot", BOT_ID, "--print", "--remove")
    assert result.code == 2


def test_the_person_named_at_install_goes_into_every_hook_and_the_mcp_server(run_cli, tmp_path):
    """On a Team Cloud home the person's own layer loads at a session's start and the MCP server works for them
    (docs/team-cloud.md), so every command names them."""
    run_cli("hook", "install", "--bot", BOT_ID, "--person", "Nadia Rahman")
    settings = read(settings_path(tmp_path))
    for event in ("SessionStart", "UserPromptSubmit", "Stop"):
        assert shlex.split(ours(settings, event)[0])[-2:] == ["--person", "Nadia Rahman"], event
    servers = read(claude_json(tmp_path))["mcpServers"]
    assert [entry["args"][-2:] for entry in servers.values()] == [["--person", "Nadia Rahman"]]


def test_the_installed_hook_command_runs(run_cli, tmp_path, home):
    """What install writes is a command line the shell runs as written: the prompt hook through it."""
    import subprocess

    run_cli("hook", "install", "--bot", BOT_ID)
    command = ours(read(settings_path(tmp_path)), "UserPromptSubmit")[0]
    payload = json.dumps({"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "Which seat on trips?"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(command, shell=True, input=payload.encode(), capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"likes window seats" in done.stdout


def test_remove_keeps_a_group_that_holds_other_handlers_too(run_cli, tmp_path):
    run_cli("hook", "install", "--bot", BOT_ID)
    settings = read(settings_path(tmp_path))
    mixed = copy.deepcopy(settings)
    mixed["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "say done"})
    put(settings_path(tmp_path), mixed)
    run_cli("hook", "install", "--bot", BOT_ID, "--remove")
    assert read(settings_path(tmp_path)) == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}
    }


# ----- docs/agents.md, as written -----
def agents_doc_blocks(language: str) -> list[str]:
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    return [block.split("```", 1)[0] for block in text.split(f"```{language}\n")[1:]]


def test_the_claude_code_snippets_in_the_docs_are_what_install_writes():
    from omb_tui.hooks.install import snippets

    hooks, servers = snippets(["/path/to/omb-tui"], "scout")
    blocks = [json.loads(block) for block in agents_doc_blocks("json")]
    assert blocks[0] == hooks and blocks[1] == servers


def test_every_mcp_snippet_in_the_docs_starts_the_server_for_scout():
    import tomllib

    for block in agents_doc_blocks("json"):
        data = json.loads(block)
        if "mcpServers" in data:
            entry = data["mcpServers"][server_name("scout")]
            assert [entry["command"], *entry["args"]] == ["/path/to/omb-tui", "mcp", "--bot", "scout"]
    (codex,) = agents_doc_blocks("toml")
    entry = tomllib.loads(codex)["mcp_servers"][server_name("scout")]
    assert [entry["command"], *entry["args"]] == ["/path/to/omb-tui", "mcp", "--bot", "scout"]


# ----- an install is all or nothing: both files or neither, every value as it was, nothing that hangs -----
ODD_VALUES = (
    '{\n  "lone": "half an emoji \\ud83d here",\n  "huge": 1e400,\n  "nan": NaN,\n  "ninf": -Infinity,\n'
    '  "exact": 1.10,\n  "pair": "\\ud83d\\ude00",\n  "projects": {"/w": {"n": 2.50e3}}\n}\n'
)


def test_values_the_project_did_not_set_are_written_back_as_they_were(run_exe, tmp_path):
    path = claude_json(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ODD_VALUES, encoding="utf-8")
    result = run_exe("hook", "install", "--bot", BOT_ID)
    assert result.returncode == 0, result
    written = path.read_text(encoding="utf-8")
    for text in ('"half an emoji \\ud83d here"', "1e400", "NaN", "-Infinity", "1.10", "2.50e3"):
        assert text in written, (text, written)
    assert "😀" in written or "\\ud83d\\ude00" in written
    assert server_name(BOT_ID) in json.loads(written.replace("NaN", "0").replace("-Infinity", "0"))["mcpServers"]
    assert settings_path(tmp_path).exists()
    assert run_exe("hook", "install", "--bot", BOT_ID, "--remove").returncode == 0
    removed = path.read_text(encoding="utf-8")
    assert server_name(BOT_ID) not in removed
    for text in ('"half an emoji \\ud83d here"', "1e400", "NaN", "-Infinity", "1.10", "2.50e3"):
        assert text in removed, (text, removed)


def test_when_the_second_file_cannot_be_written_neither_is(run_cli, tmp_path, monkeypatch):
    from omb_tui.core.files import disk

    put(settings_path(tmp_path), THEIR_SETTINGS)
    put(claude_json(tmp_path), THEIR_CLAUDE_JSON)
    before = settings_path(tmp_path).read_bytes(), claude_json(tmp_path).read_bytes()
    real = disk.atomic_write_bytes

    def refuse_claude_json(path: Path, data: bytes, **kw: object) -> None:
        if path.name == ".claude.json":
            raise PermissionError(13, "Permission denied", str(path))
        real(path, data, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(disk, "atomic_write_bytes", refuse_claude_json)
    result = run_cli("hook", "install", "--bot", BOT_ID)
    assert result.code == 1 and "Permission denied" in one_line(result) and "nothing was changed" in one_line(result)
    assert (settings_path(tmp_path).read_bytes(), claude_json(tmp_path).read_bytes()) == before


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_claude_json_that_would_never_end_is_one_sentence(run_exe, tmp_path, kind):
    path = claude_json(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    result = run_exe("hook", "install", "--bot", BOT_ID)
    err = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, result
    assert "not a regular file" in err and "nothing was changed" in err
    assert not settings_path(tmp_path).exists()


# ----- two bots wired at once: each bot its own server name -----
def test_each_bot_has_its_own_server_name_and_a_user_and_a_project_install_both_stand(run_cli, home, tmp_path):
    make_bot(home, "atlas", "Atlas")
    project = tmp_path / "site"
    project.mkdir()
    assert run_cli("hook", "install", "--bot", BOT_ID).code == 0
    assert run_cli("hook", "install", "--bot", "atlas", "--project", str(project)).code == 0
    user_servers = read(claude_json(tmp_path))["mcpServers"]
    project_servers = read(project / ".mcp.json")["mcpServers"]
    assert list(user_servers) == ["omb-tui-scout"] and list(project_servers) == ["omb-tui-atlas"]
    assert user_servers["omb-tui-scout"]["args"][-1] == "scout"
    assert project_servers["omb-tui-atlas"]["args"][-1] == "atlas"


def test_an_entry_under_the_old_shared_name_is_moved_and_said(run_cli, tmp_path):
    old = {"type": "stdio", "command": "/old/venv/bin/omb-tui", "args": ["mcp", "--bot", BOT_ID]}
    put(
        claude_json(tmp_path),
        {**THEIR_CLAUDE_JSON, "mcpServers": {**THEIR_CLAUDE_JSON["mcpServers"], MCP_SERVER_NAME: old}},
    )
    result = run_cli("hook", "install", "--bot", BOT_ID)
    assert result.code == 0 and "Replaced: /old/venv/bin/omb-tui mcp --bot scout" in result.out
    servers = read(claude_json(tmp_path))["mcpServers"]
    assert set(servers) == {"github", server_name(BOT_ID)}
    put(
        claude_json(tmp_path),
        {"mcpServers": {MCP_SERVER_NAME: old, "github": THEIR_CLAUDE_JSON["mcpServers"]["github"]}},
    )
    assert run_cli("hook", "install", "--bot", BOT_ID, "--remove").code == 0
    assert set(read(claude_json(tmp_path))["mcpServers"]) == {"github"}


def test_the_block_at_a_sessions_start_names_the_tools_of_this_bots_server(run_cli, home):
    result = run_cli(
        "hook",
        "session-start",
        "--bot",
        BOT_ID,
        stdin=json.dumps(
            {"session_id": "s-1", "transcript_path": "/x", "cwd": "/w", "hook_event_name": "SessionStart"}
        ).encode(),
    )
    assert "mcp__omb-tui-scout__memory_update" in result.out and "mcp__omb-tui-scout__session_search" in result.out


# ----- a project install a team can commit, and --check -----
def on_path(monkeypatch, tmp_path) -> Path:
    """An `omb-tui` on PATH that is the one running (as pipx installs it)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "omb-tui"
    script.write_text("#!/bin/sh\nexec true\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(sys, "argv", [str(script)])
    return script


def test_a_project_install_names_omb_tui_by_name_and_no_home(run_cli, tmp_path, monkeypatch):
    on_path(monkeypatch, tmp_path)
    project = tmp_path / "site"
    project.mkdir()
    result = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project))
    assert result.code == 0, result.err
    entry = read(project / ".mcp.json")["mcpServers"][server_name(BOT_ID)]
    assert [entry["command"], *entry["args"]] == ["omb-tui", "mcp", "--bot", BOT_ID]
    for event in EVENTS:
        for command in ours(read(project / ".claude" / "settings.json"), event):
            assert shlex.split(command)[0] == "omb-tui" and "--home" not in command
    written = (project / ".mcp.json").read_text() + (project / ".claude" / "settings.json").read_text()
    assert str(tmp_path) not in written  # nothing of this machine in files meant to be committed
    assert "Claude Code starts the project's server omb-tui-scout once you trust the folder" in result.out
    assert "set OMB_HOME=" in result.out  # the fixture's home is not the default one


def test_a_project_install_without_omb_tui_on_path_says_its_files_are_this_machines(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    project = tmp_path / "site"
    project.mkdir()
    result = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project))
    assert result.code == 0 and "a path on this machine" in result.out


def test_check_says_what_claude_code_will_load(run_cli, tmp_path, monkeypatch):
    on_path(monkeypatch, tmp_path)
    project = tmp_path / "site"
    project.mkdir()
    before = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project), "--check", "--json")
    assert before.code == 1 and json.loads(before.out)["ok"] is False
    assert run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project)).code == 0
    pending = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project), "--check")
    assert pending.code == 1
    lines = pending.out.splitlines()
    assert lines[0].startswith("ok ") and lines[1].startswith("ok ") and lines[2].startswith("ok ")
    assert lines[3].startswith("NOT ") and "does not trust" in lines[3]
    put(claude_json(tmp_path), {"projects": {str(project.resolve()): {"hasTrustDialogAccepted": True}}})
    untold = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project), "--check")
    assert untold.code == 1 and "waits for approval" in untold.out and "enabledMcpjsonServers" in untold.out
    put(project / ".claude" / "settings.local.json", {"enabledMcpjsonServers": [server_name(BOT_ID)]})
    approved = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project), "--check", "--json")
    assert approved.code == 0 and all(each["ok"] for each in json.loads(approved.out)["checks"])
    put(claude_json(tmp_path), {"projects": {str(project.parent.resolve()): {"hasTrustDialogAccepted": True}}})
    parent = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project), "--check")
    assert parent.code == 1 and "does not trust" in parent.out  # a parent's trust does not count
    put(project / ".claude" / "settings.local.json", {"disabledMcpjsonServers": [server_name(BOT_ID)]})
    off = run_cli("hook", "install", "--bot", BOT_ID, "--project", str(project), "--check")
    assert off.code == 1 and "turns the server omb-tui-scout off" in off.out


def test_check_of_a_user_install_finds_the_command_it_wrote(run_cli, tmp_path):
    assert run_cli("hook", "install", "--bot", BOT_ID).code == 0
    result = run_cli("hook", "install", "--bot", BOT_ID, "--check")
    assert result.code == 0, result.out
    assert len(result.out.splitlines()) == 3 and all(line.startswith("ok ") for line in result.out.splitlines())
