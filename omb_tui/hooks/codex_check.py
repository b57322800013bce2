"""`omb-tui hook install --agent codex --check`: will Codex run what install wrote? Each check one sentence, in the
order Codex meets them (docs/agents.md, "Codex CLI"):

- a project's `.codex/` loads only when the person trusted the folder (`[projects."<dir>"] trust_level`);
- the bot's server starts as Codex starts it: with a cleared environment (the variables below, the table's `env`,
  and those its `env_vars` pass on), answering `initialize`, so "ok" means Codex will have the tools;
- its tools run under `codex exec` only when approved in the table (`codex exec` can ask nobody);
- hooks are on (`[features] hooks`), and each of the bot's three hooks is trusted as it is now: Codex skips an
  untrusted or changed hook without a word.

Checked with Codex 0.171.0 (its `hooks/list` gives the keys and hashes codex_config.py computes).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..core.memory.agents import codex_home
from . import codex_config
from .agent_files import HOOK_EVENTS, Check, Where, group_commands, hook_of, read_text_file, server_bot

# What Codex passes an MCP server of its own environment (0.171.0, on Unix), before the table's env and env_vars.
CODEX_SERVER_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ")
START_SECONDS = 30.0  # a first start of the home's MCP service takes about a second; a loaded machine more
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "omb-tui hook install --check", "version": "1"},
    },
}


def user_config_path() -> Path:
    """The person's own config.toml, where Codex keeps the trust it was given (of folders and of hooks)."""
    return codex_home(os.environ) / "config.toml"


def checks(where: Where, settings: dict, config: dict, entry: dict, project: Path | None) -> list[Check]:
    """The checks after the hooks and the server entry are found (install.check)."""
    user = config if project is None else _read_config(user_config_path())
    bot_id = server_bot(entry) or ""
    found: list[Check] = []
    if project is not None:
        root = str(project.resolve())
        found.append(
            Check(True, f"Codex trusts {root}, so it loads the project's .codex/.")
            if codex_config.project_trusted(user, root)
            else Check(
                False,
                f"Codex loads nothing of {root}/.codex (the hooks, the server) until you trust the folder: start "
                f"codex there once and answer yes to trusting it, or run codex exec --trust there once.",
            )
        )
    found.append(server_starts(entry, project.resolve() if project is not None else Path.cwd()))
    found.append(_approved(entry, bot_id))
    found.append(
        Check(True, f"Codex runs hooks ([features] hooks is on in {where.mcp}).")
        if codex_config.hooks_on(config) and codex_config.hooks_on(user)
        else Check(False, f"Codex runs no hooks: [features] hooks is false; set it true in {where.mcp}.")
    )
    found.append(_trusted(where, settings, user, bot_id, project))
    return found


def _read_config(path: Path) -> dict:
    try:
        return codex_config.parse(read_text_file(path))
    except (codex_config.NotEditable, ValueError):
        return {}


def _approved(entry: dict, bot_id: str) -> Check:
    mode = entry.get("default_tools_approval_mode")
    tools = entry.get("tools") if isinstance(entry.get("tools"), dict) else {}
    update = tools.get("memory_update") if isinstance(tools.get("memory_update"), dict) else {}
    if (update.get("approval_mode") or mode) == codex_config.APPROVAL:
        return Check(True, f'{bot_id}\'s tools run without a question (default_tools_approval_mode = "approve").')
    return Check(
        False,
        f"Codex asks before each of {bot_id}'s tools, and codex exec, which cannot ask, refuses them: run omb-tui "
        'hook install --agent codex again (it writes default_tools_approval_mode = "approve").',
    )


def _trusted(where: Where, settings: dict, user: dict, bot_id: str, project: Path | None) -> Check:
    """Whether Codex will run each of the bot's three hooks: trusted, with the hash of the hook as it is now."""
    hooks = settings.get("hooks") if isinstance(settings.get("hooks"), dict) else {}
    trusted = codex_config.trusted_hashes(user)
    untrusted: list[str] = []
    changed: list[str] = []
    for name, event in HOOK_EVENTS.items():
        for key, digest in _our_hooks(str(where.settings), event, hooks.get(event), name, bot_id):
            if key not in trusted:
                untrusted.append(event)
            elif trusted[key] != digest:
                changed.append(event)
    if not untrusted and not changed:
        return Check(True, f"You trusted {bot_id}'s three hooks in Codex, as they are now.")
    where_to = f" in {project.resolve()}" if project is not None else ""
    what = ", ".join(untrusted + changed)
    why = (
        "are new to it"
        if not changed
        else ("changed since you trusted them" if not untrusted else "are new or changed")
    )
    return Check(
        False,
        f"Codex skips {bot_id}'s {what} hooks without a word: they {why}. Start codex{where_to} once and answer "
        '"Trust all and continue" (or trust them in /hooks).',
    )


def _our_hooks(hooks_file: str, event: str, groups: object, name: str, bot_id: str) -> list[tuple[str, str]]:
    """(key, hash) of each handler of ours for `event`, as Codex names and hashes it."""
    found = []
    for g, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
            if not isinstance(handler, dict) or handler.get("command") not in group_commands([group]):
                continue
            if hook_of(handler["command"]) == (name, bot_id):
                digest = codex_config.hook_hash(event, group.get("matcher"), handler)
                found.append((codex_config.hook_key(hooks_file, event, g, h), digest))
    return found


def server_env(entry: dict) -> dict[str, str]:
    """The environment Codex starts the server with: a few of its own variables, those `env_vars` names, `env`."""
    env = {name: os.environ[name] for name in CODEX_SERVER_ENV if name in os.environ}
    passed = entry.get("env_vars") if isinstance(entry.get("env_vars"), list) else []
    for item in passed:
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, str) and name in os.environ:
            env[name] = os.environ[name]
    given = entry.get("env") if isinstance(entry.get("env"), dict) else {}
    env.update({str(key): str(value) for key, value in given.items()})
    return env


def server_starts(entry: dict, cwd: Path) -> Check:
    """Start the server as Codex will and ask it `initialize`: ok only when it answers (the process group ended
    after, as an engine call's is)."""
    from ..core.models.engines import EngineFailed
    from ..core.models.engines.process import AgentProcess

    argv = [str(entry.get("command")), *(str(arg) for arg in entry.get("args") or [])]
    folder = Path(str(entry["cwd"])) if entry.get("cwd") else cwd
    shown, answer, said = " ".join(argv), b"", ""
    try:
        with AgentProcess(
            argv,
            cwd=folder,
            env=server_env(entry),
            seconds=START_SECONDS,
            stdin_text=json.dumps(INITIALIZE) + "\n",
            keep_stdin=True,
        ) as process:
            answer = next(iter(process.lines()), b"")
            if not answer:
                process.wait()  # its stderr read to the end: the server's own sentence
                said = process.stderr_tail()
    except EngineFailed:
        said = f"no answer within {START_SECONDS:g} s"
    try:
        ok = "result" in json.loads(answer)
    except ValueError:
        ok = False
    if ok:
        return Check(True, f"The server starts as Codex starts it (a cleared environment) and answers: {shown}.")
    return Check(
        False,
        f"The server does not start as Codex starts it (a cleared environment): {shown}"
        + (f" says: {said.removeprefix('omb-tui: ')}" if said else " gave no answer."),
    )
