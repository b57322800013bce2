"""One line per finished turn in the bot's daily log, while memory is on.

Spec: memory.md, "What a bot knows about its other conversations" ("One log line per finished turn
when memory is on": what the bot said last, the tools it used and whether the turn failed, appended
to `memory/log/YYYY-MM-DD.md`, sourced to the chat or room) and the opening (memory off stops the
automatic daily turn logs). The write goes through MemoryStore, so it is atomic, redacted and
journaled like any other change. A line looks like:

    - 09:05 · from chat "Invoice reconciliation" · tools: read_file, send_email · said: "Sent the three…"
    - 17:40 · from room "Launch" · the turn failed · no tools · said: "The calendar API timed out."
"""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

from . import conversations as conv
from .journal import HOW_TASK, WHO_BOT
from .paths import LOG_DIR, MEMORY_DIR, Home, validate_bot_id
from .settings import load_bot_settings
from .store import Actor, MemoryStore, WriteResult

SAID_MAX_CHARS = 280
TOOLS_MAX = 12


def turn_log_line(
    source: str, said: str, tools: Sequence[str] = (), failed: bool = False, at: datetime | None = None
) -> str:
    """The log line for one turn (no line ending). `source` is `chat "Title"` or `room "Title"`."""
    moment = (at or datetime.now()).astimezone()
    flat = " ".join(said.split())
    if len(flat) > SAID_MAX_CHARS:
        flat = flat[: SAID_MAX_CHARS - 1].rstrip() + "…"
    names = [" ".join(str(tool).split()) for tool in tools if str(tool).strip()]
    unique = list(dict.fromkeys(names))
    if len(unique) > TOOLS_MAX:
        used = ", ".join(unique[:TOOLS_MAX]) + f" and {len(unique) - TOOLS_MAX} more"
    else:
        used = ", ".join(unique)
    parts = [f"- {moment:%H:%M}", f"from {source}"]
    if failed:
        parts.append("the turn failed")
    parts.append(f"tools: {used}" if used else "no tools")
    parts.append(f'said: "{flat}"' if flat else "said nothing")
    return " · ".join(parts)


def conversation_source(conversation: conv.Conversation) -> str:
    """How a log line names where a turn happened: `room "Launch"` or `chat "Invoice reconciliation"`."""
    title = " ".join(conversation.title.replace('"', "'").split())
    return f'room "{title}"' if conversation.is_room else f'chat "{title}"'


def append_turn_log(
    home: Home,
    bot_id: str,
    conversation: conv.Conversation | str,
    said: str,
    *,
    tools: Sequence[str] = (),
    failed: bool = False,
    at: datetime | None = None,
) -> WriteResult | None:
    """Append the line for one finished turn to `memory/log/YYYY-MM-DD.md` (the day of `at`, local time).

    Returns None, writing nothing, when the bot's memory is off. `conversation` is the chat or room
    (or its id). The journal row names the bot, during a task, from that chat.
    """
    validate_bot_id(bot_id)
    if not load_bot_settings(home, bot_id).memory:
        return None
    if isinstance(conversation, str):
        conversation = conv.find_conversation(home, bot_id, conversation)
    moment = (at or datetime.now()).astimezone()
    line = turn_log_line(conversation_source(conversation), said, tools, failed, moment)
    rel = f"{MEMORY_DIR}/{LOG_DIR}/{moment.date().isoformat()}.md"
    store = MemoryStore(home, bot_id)
    actor = Actor(WHO_BOT, HOW_TASK, chat=conversation.id)
    with store.locked():
        current = store.read(rel)
        text = current.text if current.exists else f"# {moment.date().isoformat()}\n\n"
        if text and not text.endswith("\n"):
            text += "\n"
        return store.write(rel, text + line + "\n", actor, expected_hash=current.hash, allow_log=True)
