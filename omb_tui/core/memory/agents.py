"""The agents whose sessions are recorded as a bot's chats (Claude Code, Codex): how their chats are named. Here,
on the lowest floor, so both the turn (core/turn/agent_session.py) and the review (which names an agent's group)
read one table; and where Codex keeps its files, which its engine and the hooks' install both read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CLAUDE_CODE = "claude-code"
CODEX = "codex"


@dataclass(frozen=True)
class Agent:
    """An agent whose sessions the hooks record: its chats are `<prefix><session_id>`, titled `<name> in …`."""

    prefix: str
    name: str


AGENTS = {CLAUDE_CODE: Agent("claude-code-", "Claude Code"), CODEX: Agent("codex-", "Codex")}


def codex_home(environ: Mapping[str, str]) -> Path:
    """The person's Codex home: $CODEX_HOME, else ~/.codex."""
    given = environ.get("CODEX_HOME")
    return Path(given) if given else Path(environ.get("HOME") or Path.home()) / ".codex"
