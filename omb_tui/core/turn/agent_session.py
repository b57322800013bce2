"""An agent's session (Claude Code's, as its hooks and its MCP server see it) as one chat of the bot and one run.

Spec: memory.md, "The journal" (every row says who, how and from which chat; a run's rows carry its id, so review
lists it as one group and undo-run takes it back). A Claude Code session reaches a bot three ways: the MCP
server's tools write while the agent works, its own file tools (Bash, Edit) change memory files that the Stop hook
finds at the turn's end, and the hooks record the prompt and the answer. All three name the same chat,
`claude-code-<session_id>`, and carry the same run id, made from the chat's start and the session id, so each
process that meets the session (a hook is a new process every prompt; the MCP server is another) finds the same
one without asking any other (docs/agents.md, "One session, one run").
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC
from pathlib import PurePath

from ..files.paths import Home, MemoryInputError
from ..memory import conversations as conv
from ..memory.agents import AGENTS, CLAUDE_CODE
from .chats import default_person, open_chat

CHAT_PREFIX = AGENTS[CLAUDE_CODE].prefix  # a Claude Code session's conversation: claude-code-<session_id>
SESSION_ID_MAX_CHARS = 40  # a UUID is 36
TITLE_MAX_CHARS = 80
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _contains_credential(text: str) -> bool:
    from ..redaction.redact import contains_credential  # here: a hook's usual session id (a UUID) never needs it

    return contains_credential(text)


def chat_id_for(session_id: str, agent: str = CLAUDE_CODE) -> str:
    """The conversation of an agent's session: `claude-code-<session_id>` (`codex-…`). A session id is a UUID;
    one that is not (longer than a UUID, not made for a file name, or shaped like a credential) is hashed, so
    whatever a payload sends never names a file."""
    if _UUID.match(session_id) or (  # a UUID is what Claude Code and Codex send, and never a credential
        len(session_id) <= SESSION_ID_MAX_CHARS
        and _SESSION_ID.match(session_id)
        and ".." not in session_id
        and not _contains_credential(session_id)
    ):
        return AGENTS[agent].prefix + session_id
    return AGENTS[agent].prefix + hashlib.sha256(session_id.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def session_title(cwd: str | None, agent: str = CLAUDE_CODE) -> str:
    """What the session's conversation is called: `Claude Code in <the project folder's name>` (`Codex in …`),
    the same whether its prompt hook or its MCP server opens it."""
    name = " ".join(PurePath(cwd).name.split()) if cwd else ""
    shown = AGENTS[agent].name
    title = f"{shown} in {name}" if name else shown
    return title if len(title) <= TITLE_MAX_CHARS else title[: TITLE_MAX_CHARS - 1] + "…"


@dataclass(frozen=True)
class AgentSession:
    """The chat a session's work is in, the run every row of it carries, and the chat's title (a note saved in
    the session names it)."""

    chat: str
    run: str
    title: str = ""


def session_run(conversation: conv.Conversation) -> str:
    """The run of the session whose chat this is: `<its start, UTC>-<6 hex of its id>`, shaped like every run id
    (review reads a run's start from it), the same whichever process asks."""
    started = conversation.created.astimezone(UTC)
    return f"{started:%Y%m%dT%H%M%S}-{hashlib.sha256(conversation.id.encode()).hexdigest()[:6]}"


def open_session(
    home: Home,
    bot_id: str,
    session_id: str,
    *,
    person: str | None = None,
    title: str | None = None,
    agent: str = CLAUDE_CODE,
) -> AgentSession:
    """The session's chat (made now, a 1:1 chat the person started, when this is the first the home hears of the
    session) and its run. Whichever process meets the session first makes it, with the same title and person:
    the prompt hook at the first prompt, or the MCP server at the session's first write (never at its connect,
    which `claude mcp list` makes too)."""
    found = existing_session(home, bot_id, session_id, agent)
    if found is not None:
        return found
    chat_id = chat_id_for(session_id, agent)
    try:  # who is talking is looked for only now: on a large home that look reads every chat's header
        conversation = open_chat(home, bot_id, chat_id, person=person or default_person(home, bot_id), title=title)
    except MemoryInputError:  # another process made it between the look and the write: read theirs
        conversation = conv.find_conversation(home, bot_id, chat_id)
    return AgentSession(chat_id, session_run(conversation), conversation.title)


def existing_session(home: Home, bot_id: str, session_id: str | None, agent: str = CLAUDE_CODE) -> AgentSession | None:
    """The session when the home holds its chat (a turn of it began); None otherwise. Its header alone is read:
    the run comes from its id and start, and every prompt of the session asks."""
    if not session_id:
        return None
    chat_id = chat_id_for(session_id, agent)
    header = conv.read_conversation(conv.chats_dir(home, bot_id) / f"{chat_id}.ndjson", header_only=True)
    return AgentSession(chat_id, session_run(header), header.title) if header is not None else None
