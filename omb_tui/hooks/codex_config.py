"""Codex's `config.toml`: the bot's MCP server table and the hooks feature flag, written into the person's text;
and the trust Codex asks of each hook.

Codex reads MCP servers from `[mcp_servers.<name>]` tables (`command`, `args`; `env_vars` names the variables of
its own environment it passes on, as it starts a server with a cleared one; `default_tools_approval_mode` whether
a tool call waits for the person's yes, which `codex exec` can never give) and runs hooks with `[features] hooks`
on (`codex_hooks`, the older name, is deprecated: Codex 0.171.0 warns of it at every start), and only the hooks the
person trusted (below). Python reads TOML (tomllib) but writes none, and a person's config.toml has
comments, order and spacing worth keeping, so the file is edited as text: a table of ours (its `command` and
`args` start omb-tui's `mcp --bot`) is cut out from its header to the next header, the new table is added at the
end, and the flag is set in the `[features]` table (added when there is none). Everything else stays byte for byte.
The result is read again with tomllib and must hold exactly what was meant; a file whose tables install cannot edit
as text (a dotted `mcp_servers.omb-tui-scout.command = …` key, an inline table) is refused in one sentence.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable

_HEADER = re.compile(r"^[ \t]*\[")
_FEATURES = re.compile(r"^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(#.*)?$")
_HOOKS_FLAG = re.compile(r"^[ \t]*hooks[ \t]*=.*$")
_OLD_HOOKS_FLAG = re.compile(r"^[ \t]*codex_hooks[ \t]*=[ \t]*true[ \t]*(#.*)?$")
PASSED_ENV = ["OMB_HOME"]  # a project's files name no home: the one the person's environment names reaches the server
APPROVAL = "approve"  # omb-tui's own tools run without a question: `codex exec` refuses every call that needs one


class NotEditable(ValueError):
    """The file's text does not let install make the change; the reason, for one sentence."""


def parse(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NotEditable(f"it is not valid TOML ({exc})") from None


def _table_header(name: str) -> re.Pattern[str]:
    quoted = re.escape(name)
    return re.compile(rf'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("{quoted}"|{quoted})[ \t]*(\.[^\]]*)?\][ \t]*(#.*)?$')


def without_tables(text: str, names: list[str]) -> str:
    """`text` without the `[mcp_servers.<name>]` tables (and their subtables) of `names`."""
    if not names:
        return text
    headers = [_table_header(name) for name in names]
    kept: list[str] = []
    cutting = False
    for line in text.splitlines(keepends=True):
        if _HEADER.match(line):
            was_cutting = cutting
            cutting = any(header.match(line.rstrip("\r\n")) for header in headers)
            if cutting and not was_cutting and kept and not kept[-1].strip():
                kept.pop()  # the blank line that set the table apart goes with it
        if not cutting:
            kept.append(line)
    return "".join(kept)


def server_entry(command: str, args: list[str]) -> dict:
    """The table Codex reads for the bot's server: its command, the home the person's environment names passed on,
    and omb-tui's own tools approved."""
    return {"command": command, "args": args, "env_vars": PASSED_ENV, "default_tools_approval_mode": APPROVAL}


def server_table(name: str, command: str, args: list[str]) -> str:
    return f"[mcp_servers.{name}]\n" + "".join(
        f"{key} = {json.dumps(value, ensure_ascii=False)}\n" for key, value in server_entry(command, args).items()
    )


def with_hooks_flag(text: str) -> str:
    """`text` with `hooks = true` in its `[features]` table (a table added at the end when there is none), and the
    deprecated `codex_hooks = true` it stands for taken out."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if not _FEATURES.match(line.rstrip("\r\n")):
            continue
        end = next((i for i in range(index + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
        inner = [i for i in range(index + 1, end) if not _OLD_HOOKS_FLAG.match(lines[i].rstrip("\r\n"))]
        flag = next((i for i in inner if _HOOKS_FLAG.match(lines[i].rstrip("\r\n"))), None)
        if flag is not None:
            lines[flag] = "hooks = true\n"
        else:
            inner.insert(0, -1)  # where the flag goes: first in the table
        body = ["hooks = true\n" if i == -1 else lines[i] for i in inner]
        return "".join(lines[: index + 1] + body + lines[end:])
    return _appended(text, "[features]\nhooks = true\n")


def hooks_on(config: dict) -> bool:
    """Whether Codex runs hooks with this config: `[features] hooks` (on unless set false; `codex_hooks` is its
    older name)."""
    features = config.get("features") if isinstance(config.get("features"), dict) else {}
    return features.get("hooks", features.get("codex_hooks", True)) is not False


def _appended(text: str, block: str) -> str:
    """`block` after `text`, one blank line between (never more blank lines at each install again)."""
    if not text.strip():
        return block
    if text.endswith("\n\n"):
        return text + block
    return text + ("\n" if text.endswith("\n") else "\n\n") + block


def install_server(
    text: str, name: str, command: str, args: list[str], ours: Callable[[object], bool]
) -> tuple[str, list[dict]]:
    """`text` with the table `name` (our server) in place of every table of ours, and the hooks flag on; the
    tables of ours it replaced."""
    servers = parse(text).get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise NotEditable('its "mcp_servers" is not a table')
    mine = [key for key in servers if ours(servers[key])]
    replaced = [servers[key] for key in mine]
    cut = without_tables(text, mine)
    if name in parse(cut).get("mcp_servers", {}):
        raise NotEditable(f"it defines mcp_servers.{name} in a form install does not edit; take it out by hand")
    new = with_hooks_flag(_appended(cut, server_table(name, command, args)))
    entry = server_entry(command, args)
    if parse(new)["mcp_servers"].get(name) != entry or not hooks_on(parse(new)):
        raise NotEditable(f"its mcp_servers.{name} would not read back as written")
    return new, [value for value in replaced if value != entry]


def remove_servers(text: str, ours: Callable[[object], bool]) -> tuple[str, int]:
    """`text` without the tables of ours `ours` picks; how many went. The hooks flag stays: it may be yours."""
    servers = parse(text).get("mcp_servers", {})
    names = [key for key in servers if ours(servers[key])] if isinstance(servers, dict) else []
    new = without_tables(text, names)
    if any(key in parse(new).get("mcp_servers", {}) for key in names):
        raise NotEditable("it defines a server of ours in a form install does not edit; take it out by hand")
    return new, len(names)


# ----- hook trust -----
# Codex runs a hook of the person's (not a managed one) only when they trusted exactly that hook: their config.toml
# holds `[hooks.state."<key>"] trusted_hash = "sha256:…"`, where the key is `<hooks.json path>:<event>:<group
# index>:<handler index>` and the hash is of the hook as Codex normalises it (its event, its matcher, the handler
# with its timeout). An untrusted or changed hook is skipped without a word; Codex asks at its next interactive
# start ("Trust all and continue") and lists them in /hooks. Checked against Codex 0.171.0's `hooks/list`.
EVENT_KEYS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop"}
DEFAULT_HOOK_TIMEOUT = 600  # seconds, when a handler names none (as Codex reads it)


def hook_hash(event: str, matcher: object, handler: dict) -> str:
    """The hash Codex trusts a command hook by: sha256 of its normalised identity as compact, key-sorted JSON."""
    normal: dict = {"type": "command", "command": handler.get("command"), "async": handler.get("async") is True}
    timeout = handler.get("timeout")
    normal["timeout"] = (
        max(1, timeout) if isinstance(timeout, int) and not isinstance(timeout, bool) else DEFAULT_HOOK_TIMEOUT
    )
    for key in ("statusMessage", "additionalContextLimit"):
        if handler.get(key) is not None:
            normal[key] = handler[key]
    identity: dict = {"event_name": EVENT_KEYS[event], "hooks": [normal]}
    if isinstance(matcher, str):
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def hook_key(hooks_file: str, event: str, group: int, handler: int) -> str:
    return f"{hooks_file}:{EVENT_KEYS[event]}:{group}:{handler}"


def trusted_hashes(config: dict) -> dict[str, str]:
    """Each hook key's trusted hash in the person's config.toml (`[hooks.state]`)."""
    hooks = config.get("hooks") if isinstance(config.get("hooks"), dict) else {}
    states = hooks.get("state") if isinstance(hooks.get("state"), dict) else {}
    return {
        key.strip(): state["trusted_hash"]
        for key, state in states.items()
        if isinstance(state, dict) and isinstance(state.get("trusted_hash"), str)
    }


def project_trusted(config: dict, root: str) -> bool:
    """Whether Codex loads a project's `.codex/` (its hooks and its servers): the folder trusted in the person's
    config.toml (`[projects."<dir>"] trust_level = "trusted"`, what `codex exec --trust` or the trust question
    writes)."""
    projects = config.get("projects") if isinstance(config.get("projects"), dict) else {}
    this = projects.get(root)
    return isinstance(this, dict) and this.get("trust_level") == "trusted"
