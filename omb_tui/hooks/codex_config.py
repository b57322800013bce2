"""Codex's `config.toml`: the bot's MCP server table and the hooks feature flag, written into the person's text.

Codex reads MCP servers from `[mcp_servers.<name>]` tables (`command`, `args`) and runs hooks only with
`[features] codex_hooks = true`. Python reads TOML (tomllib) but writes none, and a person's config.toml has
comments, order and spacing worth keeping, so the file is edited as text: a table of ours (its `command` and
`args` start omb-tui's `mcp --bot`) is cut out from its header to the next header, the new table is added at the
end, and the flag is set in the `[features]` table (added when there is none). Everything else stays byte for byte.
The result is read again with tomllib and must hold exactly what was meant; a file whose tables install cannot edit
as text (a dotted `mcp_servers.omb-tui-scout.command = …` key, an inline table) is refused in one sentence.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable

_HEADER = re.compile(r"^[ \t]*\[")
_FEATURES = re.compile(r"^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(#.*)?$")
_HOOKS_FLAG = re.compile(r"^[ \t]*codex_hooks[ \t]*=.*$")


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


def server_table(name: str, command: str, args: list[str]) -> str:
    return f"[mcp_servers.{name}]\ncommand = {json.dumps(command, ensure_ascii=False)}\nargs = {json.dumps(args, ensure_ascii=False)}\n"


def with_hooks_flag(text: str) -> str:
    """`text` with `codex_hooks = true` in its `[features]` table (a table added at the end when there is none)."""
    if parse(text).get("features", {}).get("codex_hooks") is True:
        return text
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if not _FEATURES.match(line.rstrip("\r\n")):
            continue
        end = next((i for i in range(index + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
        for inner in range(index + 1, end):
            if _HOOKS_FLAG.match(lines[inner].rstrip("\r\n")):
                lines[inner] = "codex_hooks = true\n"
                return "".join(lines)
        lines.insert(index + 1, "codex_hooks = true\n")
        return "".join(lines)
    return _appended(text, "[features]\ncodex_hooks = true\n")


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
    if parse(new)["mcp_servers"].get(name) != {"command": command, "args": args}:
        raise NotEditable(f"its mcp_servers.{name} would not read back as written")
    return new, [value for value in replaced if value != {"command": command, "args": args}]


def remove_servers(text: str, ours: Callable[[object], bool]) -> tuple[str, int]:
    """`text` without the tables of ours `ours` picks; how many went. The hooks flag stays: it may be yours."""
    servers = parse(text).get("mcp_servers", {})
    names = [key for key in servers if ours(servers[key])] if isinstance(servers, dict) else []
    new = without_tables(text, names)
    if any(key in parse(new).get("mcp_servers", {}) for key in names):
        raise NotEditable("it defines a server of ours in a form install does not edit; take it out by hand")
    return new, len(names)
