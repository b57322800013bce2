"""An agent's settings files as omb-tui finds them, for install (install.py) and its checks (codex_check.py)
alike: where a bot is installed (`Where`), a file read bounded and written back as it was read, omb-tui's own hook
commands and MCP server entries recognised in them, and what a `--check` says of them (`Check`). The lowest of the
hooks' install modules: it imports none of them.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..core.files import disk
from ..core.files.paths import MemoryInputError
from ..core.memory.agents import CLAUDE_CODE, CODEX, codex_home
from ..core.memory.settings import BrokenFile

# Our hook commands (`omb-tui hook NAME`) and the Claude Code event each answers, in the order they run.
HOOK_EVENTS = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "stop": "Stop"}
MAX_SETTINGS_BYTES = 256 << 20  # ~/.claude.json grows with every project Claude Code has seen; never this far


@dataclass(frozen=True)
class Where:
    """The two files a bot is installed into, and whose they are (Claude Code's, or Codex's: its hooks.json
    and config.toml, in $CODEX_HOME (else `~/.codex/`) or the project's `.codex/`)."""

    settings: Path  # the hooks
    mcp: Path  # the MCP server entry
    agent: str = CLAUDE_CODE

    @classmethod
    def of(cls, project: Path | None, agent: str = CLAUDE_CODE) -> Where:
        if project is not None and not project.is_dir():
            raise MemoryInputError(f"The project folder {project} does not exist.")
        root = project.resolve() if project is not None else None
        if agent == CODEX:
            folder = root / ".codex" if root is not None else codex_home(os.environ)  # where Codex reads, as it does
            return cls(folder / "hooks.json", folder / "config.toml", CODEX)
        if root is None:
            user = Path.home()
            return cls(user / ".claude" / "settings.json", user / ".claude.json")
        return cls(root / ".claude" / "settings.json", root / ".mcp.json")

    @property
    def toml(self) -> bool:
        return self.agent == CODEX


def read_text_file(path: Path) -> str:
    """A settings file's text ("" when missing), read as read_settings reads one (a regular file, bounded)."""
    try:
        with disk.open_regular(Path(os.path.realpath(path))) as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise broken_file(path, exc.strerror or str(exc)) from None
    if len(data) > MAX_SETTINGS_BYTES:
        raise broken_file(path, f"it is over {MAX_SETTINGS_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise broken_file(path, "it is not UTF-8 text") from None


def read_settings(path: Path) -> dict:
    """A settings file's object ({} when it is missing or blank); BrokenFile, in one sentence, when it is not one.

    Read only when it is a regular file of at most MAX_SETTINGS_BYTES (a FIFO or a link to a device is refused,
    never waited on). Every value the project does not set is written back as it was read: a number keeps its
    text (`1e400`, `1.10`), `NaN` and `Infinity` stay, a lone surrogate stays an escape (see `dump_settings`)."""
    text = read_text_file(path)
    if not text.strip(" \t\n\r\x0b\x0c"):  # blank as bytes are: ASCII whitespace only
        return {}
    try:
        value = json.loads(text, parse_float=_Raw, parse_constant=_Raw, parse_int=_int_or_raw)
    except json.JSONDecodeError as exc:
        raise broken_file(path, f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (ValueError, RecursionError):
        raise broken_file(path, "it is not valid JSON") from None
    if not isinstance(value, dict):
        raise broken_file(path, "it is not a JSON object")
    return value


class _Raw(str):
    """A number (or NaN/Infinity) as its text in the file: written back as it was, never as Python sees it."""

    __slots__ = ()


def _int_or_raw(text: str) -> int | _Raw:
    return _Raw(text) if text.startswith("-0") else int(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def dump_settings(data: dict) -> bytes:
    """The settings as JSON text, two spaces a level, UTF-8: every number read keeps its text, and a lone surrogate
    (valid as a JSON escape, never as UTF-8) is written as its escape again."""
    raws: list[str] = []
    nonce = secrets.token_hex(8)

    def swap(data: object) -> object:
        if isinstance(data, _Raw):
            raws.append(str(data))
            return f"\x00{nonce}:{len(raws) - 1}\x00"  # a string no settings file holds, swapped back below
        if isinstance(data, dict):
            return {key: swap(value) for key, value in data.items()}
        if isinstance(data, list):
            return [swap(value) for value in data]
        return data

    text = json.dumps(swap(data), indent=2, ensure_ascii=False) + "\n"
    if raws:
        text = re.sub(rf'"\\u0000{nonce}:(\d+)\\u0000"', lambda m: raws[int(m.group(1))], text)
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.encode("utf-8")


def broken_file(path: Path, why: str) -> BrokenFile:
    return BrokenFile(
        f"The settings file {path} cannot be merged into: {why}. Fix it or move it away; nothing was changed."
    )


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return []


def _is_omb_tui(words: list[str]) -> bool:
    """`…/omb-tui …` or `python -m omb_tui.cli …`."""
    if not words:
        return False
    return Path(words[0]).name in ("omb-tui", "omb-tui.exe") or words[1:3] == ["-m", "omb_tui.cli"]


def _bot_after(words: list[str], start: int) -> str | None:
    rest = words[start:]
    return rest[rest.index("--bot") + 1] if "--bot" in rest[:-1] else None


def hook_of(command: str) -> tuple[str | None, str | None]:
    """(the hook's name, its bot) when `command` runs one of our hooks; (None, None) otherwise."""
    words = _words(command)
    if not _is_omb_tui(words):
        return None, None
    for i in range(len(words) - 1):
        if words[i] == "hook" and words[i + 1] in HOOK_EVENTS:
            return words[i + 1], _bot_after(words, i + 2)
    return None, None


def server_bot(entry: object) -> str | None:
    """The bot an `omb-tui mcp --bot ID` entry serves; None when the entry is not ours."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    words = [entry["command"], *entry_args(entry)]
    if not _is_omb_tui(words) or "mcp" not in words:
        return None
    return _bot_after(words, words.index("mcp") + 1)


def entry_args(entry: dict) -> list[str]:
    args = entry.get("args")
    return [str(arg) for arg in args] if isinstance(args, list) else []


def group_commands(groups: object) -> list[str]:
    """The commands of an event's matcher groups (what is not a group or a handler Claude Code knows, skipped)."""
    return [
        handler["command"]
        for group in (groups if isinstance(groups, list) else [])
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
        if isinstance(handler, dict) and isinstance(handler.get("command"), str)
    ]


@dataclass(frozen=True)
class Check:
    ok: bool
    said: str

    def to_dict(self) -> dict:
        return {"ok": self.ok, "said": self.said}
