"""`omb-tui hook install`: the three hooks and the MCP server entry, merged into Claude Code's settings.

Where Claude Code reads them:

- the hooks: `~/.claude/settings.json` (every project), or `DIR/.claude/settings.json` with `--project DIR`, under
  `"hooks"`: an event's list of matcher groups, each `{"hooks": [{"type": "command", "command": …}]}` (SessionStart,
  UserPromptSubmit and Stop take no matcher: one group with none runs every time);
- the MCP server: `~/.claude.json`'s `"mcpServers"` (Claude Code's user scope, what `claude mcp add --scope user`
  writes), or the project's `DIR/.mcp.json` (its project scope, which Claude Code asks about once before using it).

Merging never drops a key: everything else in both files stays as it was, other hooks of the same events too.
What is ours is recognised by its command (`omb-tui … hook <name> --bot <id>`, `omb-tui … mcp --bot <id>`): install
replaces an earlier one of ours (another path, another bot: one bot per settings file), remove takes out exactly
the bot's. A file that is not a JSON object (or whose "hooks" or "mcpServers" is not one) is refused in one
sentence before anything is written; each file is written atomically, 0600, through the core's writer (a settings
file that is a symbolic link, as a dotfiles folder makes it, has its target written).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..core.base.errors import WriteRefused
from ..core.files import disk
from ..core.memory.agents import CLAUDE_CODE
from ..core.memory.settings import BrokenFile
from . import codex_config
from .agent_files import (
    HOOK_EVENTS,
    Check,
    Where,
    broken_file,
    dump_settings,
    entry_args,
    group_commands,
    hook_of,
    read_settings,
    read_text_file,
    server_bot,
)
from .names import server_name

HOOK_TIMEOUT_SECONDS = 30  # a first recall index build on a large home can take seconds; Claude Code waits 60


@dataclass
class Plan:
    """What install or remove does to the two files: their new contents, and whether each changes."""

    where: Where
    settings: dict
    mcp: dict
    settings_changed: bool
    mcp_changed: bool
    replaced: list[str] = field(default_factory=list)  # earlier commands of ours that install replaces
    mcp_text: str | None = None  # Codex's config.toml as it will be (the MCP file as text, not JSON)


def program(home_option: str | None, *, project: bool = False) -> list[str]:
    """How the hooks and the MCP server start omb-tui: the installed command's absolute path (the one running,
    else the one beside this Python), else this Python with `-m omb_tui.cli`; then `--home DIR` when the home was
    named (by --home or $OMB_HOME), as an absolute path, since Claude Code runs it from a project's folder.

    For a project (files that may be committed and used on another machine): `omb-tui` by name when the one on
    PATH is this one, and no `--home`: omb-tui then reads $OMB_HOME, else its default home, wherever it runs."""
    started = sys.argv[0] if sys.argv else ""
    if Path(started).name in ("omb-tui", "omb-tui.exe") and os.path.isfile(started):
        words = [os.path.abspath(started)]
    elif (beside := Path(sys.executable).parent / ("omb-tui.exe" if os.name == "nt" else "omb-tui")).is_file():
        words = [str(beside)]  # the venv's bin folder, not the interpreter's link target
    else:
        words = [os.path.abspath(sys.executable), "-m", "omb_tui.cli"]
    if project:
        on_path = shutil.which("omb-tui")
        if on_path is not None and os.path.realpath(on_path) == os.path.realpath(words[0]):
            words = ["omb-tui"]
        return words
    named = home_option or os.environ.get("OMB_HOME")
    if named:
        words += ["--home", os.path.abspath(os.path.expanduser(named))]
    return words


def committable(start: list[str]) -> bool:
    """Whether a project's files name omb-tui in a way another machine can run: by name, found on PATH."""
    return start == ["omb-tui"]


def hook_handlers(
    start: list[str], bot_id: str, person: str | None = None, agent: str = CLAUDE_CODE
) -> dict[str, dict]:
    """Each event's handler: `{"type": "command", "command": "<omb-tui> hook <name> --bot <id>", "timeout": …}`
    (`--agent codex` in Codex's)."""
    handlers = {}
    for name, event in HOOK_EVENTS.items():
        words = [*start, "hook", name, "--bot", bot_id]
        if person:  # session-start too: on a Team Cloud home the person's own layer loads (docs/team-cloud.md)
            words += ["--person", person]
        if agent != CLAUDE_CODE:
            words += ["--agent", agent]
        handlers[event] = {"type": "command", "command": shlex.join(words), "timeout": HOOK_TIMEOUT_SECONDS}
    return handlers


def mcp_server(start: list[str], bot_id: str, person: str | None = None) -> dict:
    """The MCP server entry: Claude Code starts `<omb-tui> mcp --bot <id>` and talks to it on stdin and stdout
    (`--person NAME` as the hooks have it: on a Team Cloud home, the sessions work for that person)."""
    args = [*start[1:], "mcp", "--bot", bot_id] + (["--person", person] if person else [])
    return {"type": "stdio", "command": start[0], "args": args}


def snippets(start: list[str], bot_id: str, person: str | None = None, agent: str = CLAUDE_CODE) -> tuple[dict, dict]:
    """What install merges: `{"hooks": {event: [group]}}` and `{"mcpServers": {name: entry}}`."""
    handlers = hook_handlers(start, bot_id, person, agent)
    hooks = {event: [{"hooks": [handler]}] for event, handler in handlers.items()}
    return {"hooks": hooks}, {"mcpServers": {server_name(bot_id): mcp_server(start, bot_id, person)}}


def plan_install(where: Where, start: list[str], bot_id: str, person: str | None = None) -> Plan:
    """Both files as they will be: every earlier hook of ours for these events and our MCP entry replaced."""
    settings = read_settings(where.settings)
    mcp = {} if where.toml else read_settings(where.mcp)
    before = copy.deepcopy((settings, mcp))
    hooks = _object(settings, "hooks", where.settings)
    replaced: list[str] = []
    for event, handler in hook_handlers(start, bot_id, person, where.agent).items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise broken_file(where.settings, f'its "hooks" has a "{event}" that is not a list')
        name = _name_of(event)
        replaced += _take_out(groups, lambda command, name=name: hook_of(command)[0] == name)
        groups.append({"hooks": [handler]})
    if where.toml:
        return _plan_codex_install(where, settings, before[0], replaced, start, bot_id, person)
    servers = _object(mcp, "mcpServers", where.mcp)
    entry, name = mcp_server(start, bot_id, person), server_name(bot_id)
    for other in [key for key, value in servers.items() if key != name and server_bot(value) is not None]:
        replaced.append(_entry_command(servers.pop(other)))  # ours, under the old name or for another bot
    old = servers.get(name)
    if old is not None and old != entry:
        replaced.append(_entry_command(old))
    servers[name] = entry
    replaced = [command for command in replaced if command not in _commands(hooks, entry)]
    return Plan(where, settings, mcp, settings != before[0], mcp != before[1], replaced)


def _plan_codex_install(
    where: Where,
    settings: dict,
    settings_before: dict,
    replaced: list[str],
    start: list[str],
    bot_id: str,
    person: str | None = None,
) -> Plan:
    """Codex's part: the server table in config.toml (and its hooks flag on), as text."""
    text = read_text_file(where.mcp)
    entry = mcp_server(start, bot_id, person)
    try:
        new, taken = codex_config.install_server(
            text, server_name(bot_id), entry["command"], entry["args"], lambda table: server_bot(table) is not None
        )
    except codex_config.NotEditable as exc:
        raise broken_file(where.mcp, str(exc)) from None
    replaced += [_entry_command(table) for table in taken]
    return Plan(where, settings, {}, settings != settings_before, new != text, replaced, mcp_text=new)


def plan_remove(where: Where, bot_id: str) -> Plan:
    """Both files without this bot's hooks and MCP entry; everything else as it was."""
    settings = read_settings(where.settings)
    mcp = {} if where.toml else read_settings(where.mcp)
    removed = 0
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise broken_file(where.settings, 'its "hooks" is not an object')
    for event in HOOK_EVENTS.values():
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        name = _name_of(event)
        taken = _take_out(groups, lambda command, name=name: hook_of(command) == (name, bot_id))
        removed += len(taken)
        if taken and not groups:
            del hooks[event]
    if removed and not hooks:
        del settings["hooks"]
    if where.toml:
        text = read_text_file(where.mcp)
        try:
            new, gone = codex_config.remove_servers(text, lambda table: server_bot(table) == bot_id)
        except codex_config.NotEditable as exc:
            raise broken_file(where.mcp, str(exc)) from None
        return Plan(where, settings, {}, removed > 0, gone > 0, mcp_text=new)
    servers = mcp.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise broken_file(where.mcp, 'its "mcpServers" is not an object')
    mcp_changed = False
    for name in [key for key, value in (servers or {}).items() if server_bot(value) == bot_id]:
        del servers[name]  # under its own name, or the name every bot had before
        mcp_changed = True
    if mcp_changed and not servers:
        del mcp["mcpServers"]
    return Plan(where, settings, mcp, removed > 0, mcp_changed)


def apply(plan: Plan) -> list[Path]:
    """Write the files that change (atomically, 0600), both or neither: both texts are made before either is
    written, and when the second cannot be written the first is put back as it was. The paths written."""
    mcp_bytes = plan.mcp_text.encode("utf-8") if plan.mcp_text is not None else dump_settings(plan.mcp)
    changes = [
        (path, Path(os.path.realpath(path)), data)
        for path, data, changed in (
            (
                plan.where.settings,
                dump_settings(plan.settings) if plan.settings_changed else b"",
                plan.settings_changed,
            ),
            (plan.where.mcp, mcp_bytes, plan.mcp_changed),
        )
        if changed
    ]
    written: list[tuple[Path, Path, bytes | None]] = []  # (as named, its target, its bytes before)
    for path, target, data in changes:
        try:
            before = _bytes_before(target)
            disk.atomic_write_bytes(target, data)
        except OSError as exc:
            for _, done, old in reversed(written):
                _put_back(done, old)
            raise WriteRefused(exc, str(path)) from None
        written.append((path, target, before))
    return [path for path, _, _ in written]


def _bytes_before(target: Path) -> bytes | None:
    try:
        with disk.open_regular(target) as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _put_back(target: Path, old: bytes | None) -> None:
    with contextlib.suppress(OSError):
        if old is None:
            target.unlink()
        else:
            disk.atomic_write_bytes(target, old)


def _object(settings: dict, key: str, path: Path) -> dict:
    value = settings.setdefault(key, {})
    if not isinstance(value, dict):
        raise broken_file(path, f'its "{key}" is not an object')
    return value


def _name_of(event: str) -> str:
    return next(name for name, each in HOOK_EVENTS.items() if each == event)


def _take_out(groups: list, is_ours) -> list[str]:
    """Take our handlers out of an event's matcher groups (a group left empty goes too); their commands."""
    taken: list[str] = []
    for group in list(groups):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            continue  # not a group Claude Code knows: left as it is
        mine = [
            h for h in handlers if isinstance(h, dict) and isinstance(h.get("command"), str) and is_ours(h["command"])
        ]
        for handler in mine:
            handlers.remove(handler)
            taken.append(handler["command"])
        if mine and not handlers:
            groups.remove(group)
    return taken


def _entry_command(entry: object) -> str:
    if not isinstance(entry, dict):
        return json.dumps(entry)
    return shlex.join([str(entry.get("command") or entry.get("url") or "?"), *entry_args(entry)])


def _commands(hooks: dict, entry: dict) -> set[str]:
    """Every command the merged files now run of ours: what `replaced` need not name."""
    return {_entry_command(entry), *(command for groups in hooks.values() for command in group_commands(groups))}


# ----- --check: will Claude Code load what install wrote? -----
def check(where: Where, bot_id: str, project: Path | None) -> list[Check]:
    """What Claude Code will find: the bot's three hooks, its MCP entry, a command it can start, and (a project's
    `.mcp.json`) whether the server is approved. Each a sentence, in the order Claude Code meets them. Codex's
    checks after its MCP entry: hooks/codex_check.py."""
    config: dict = {}
    found: list[Check] = []
    settings = read_settings(where.settings)
    if where.toml:
        try:
            servers_file = codex_config.parse(read_text_file(where.mcp))
        except codex_config.NotEditable as exc:
            raise broken_file(where.mcp, str(exc)) from None
        config = servers_file
        servers_file = {"mcpServers": servers_file.get("mcp_servers")}
    else:
        servers_file = read_settings(where.mcp)
    hooks = settings.get("hooks") if isinstance(settings.get("hooks"), dict) else {}
    missing = []
    for name, event in HOOK_EVENTS.items():
        if not any(hook_of(command) == (name, bot_id) for command in group_commands(hooks.get(event))):
            missing.append(event)
    found.append(
        Check(True, f"{bot_id}'s three hooks are in {where.settings}.")
        if not missing
        else Check(False, f"{where.settings} lacks {bot_id}'s {', '.join(missing)} hook: run omb-tui hook install.")
    )
    servers = servers_file.get("mcpServers") if isinstance(servers_file.get("mcpServers"), dict) else {}
    name = server_name(bot_id)
    entry = servers.get(name)
    if server_bot(entry) != bot_id:
        found.append(Check(False, f"{where.mcp} has no MCP server {name}: run omb-tui hook install."))
        return found
    found.append(Check(True, f"{where.mcp} names the MCP server {name}."))
    if where.toml:
        from . import codex_check

        return found + codex_check.checks(where, settings, config, entry, project)
    command = str(entry.get("command"))
    runs = shutil.which(command) if os.sep not in command else (command if os.access(command, os.X_OK) else None)
    found.append(
        Check(True, f"Its command {command} runs ({runs}).")
        if runs
        else Check(False, f"Its command {command} is not found here (on PATH, or as a file that can run).")
    )
    if project is not None:
        found.append(_approval(project.resolve(), name))
    return found


def _approval(root: Path, name: str) -> Check:
    """Whether Claude Code will start the project's server without asking: the folder trusted (its trust question
    answered, in ~/.claude.json; a parent's trust does not count) and the server approved, in the project's or the
    user's settings or for this folder in ~/.claude.json (checked with Claude Code 2.1.332: approval alone leaves
    it "Pending approval"); else the step left."""
    try:
        projects = read_settings(Path.home() / ".claude.json").get("projects")
    except BrokenFile:
        projects = None
    this = projects.get(str(root)) if isinstance(projects, dict) else None
    this = this if isinstance(this, dict) else {}
    places = [root / ".claude" / "settings.local.json", root / ".claude" / "settings.json"]
    places.append(Path.home() / ".claude" / "settings.json")
    approved: Path | str | None = None
    for place in places:
        try:
            data = read_settings(place)
        except BrokenFile:
            continue
        if name in _names(data.get("disabledMcpjsonServers")):
            return Check(False, f"{place} turns the server {name} off (disabledMcpjsonServers).")
        if approved is None and (
            data.get("enableAllProjectMcpServers") is True or name in _names(data.get("enabledMcpjsonServers"))
        ):
            approved = place
    if name in _names(this.get("disabledMcpjsonServers")):
        return Check(False, f"You turned the server {name} off for {root} in Claude Code.")
    if approved is None and name in _names(this.get("enabledMcpjsonServers")):
        approved = "your answer in Claude Code"
    if this.get("hasTrustDialogAccepted") is not True:
        return Check(
            False,
            f"Claude Code does not trust {root} yet, so its .mcp.json waits: start claude there once and answer "
            f"yes to trusting the folder{'' if approved else ' and to the server ' + name}.",
        )
    if approved is None:
        return Check(
            False,
            f"The server {name} waits for approval: Claude Code asks once when it starts in {root} (answer yes), "
            f'or add "enabledMcpjsonServers": ["{name}"] to {root / ".claude" / "settings.local.json"}.',
        )
    return Check(True, f"{root} is trusted and the server {name} approved ({approved}).")


def _names(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
