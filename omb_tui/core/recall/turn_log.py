"""One line per finished turn in the bot's daily log, while memory is on.

Spec: memory.md, "What a bot knows about its other conversations" ("One log line per finished turn
when memory is on": what the bot said last, the tools it used and whether the turn failed, appended
to `memory/log/YYYY-MM-DD.md`, sourced to the chat or room) and the opening (memory off stops the
automatic daily turn logs). The write goes through MemoryStore, so it is atomic, redacted and
journaled like any other change. A day's file starts with a `# YYYY-MM-DD` heading and a blank line;
each line after it looks like:

    - 09:05 · from chat "Invoice reconciliation" · tools: read_file, send_email · said: "Sent the three…"
    - 17:40 · from room "Launch" · the turn failed · no tools · said: "The calendar API timed out."

On a Team Cloud home the line goes only where the words of the conversation's people may go (docs/team-cloud.md,
"A turn's trace"): the bot's shared log when no person of the home is in the conversation, that person's own layer
when they are its only voice, and nowhere when several voices are in it, so no person's chat is told to another.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from ..base import clock
from ..files.paths import LOG_DIR, MEMORY_DIR, Home, validate_bot_id
from ..journal.changes import Actor, WriteResult
from ..journal.journal import HOW_TASK, WHO_BOT
from ..memory import conversations as conv
from ..memory.settings import load_bot_settings
from ..memory.store import MemoryStore
from ..people.layers import layer_store
from ..people.people import list_people

SAID_MAX_CHARS = 280
TOOLS_MAX = 12


def turn_log_line(
    source: str, said: str, tools: Sequence[str] = (), failed: bool = False, at: datetime | None = None
) -> str:
    """The log line for one turn (no line ending). `source` is `chat "Title"` or `room "Title"`."""
    moment = (at or clock.now()).astimezone()
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


def turn_log_source(title: str, is_room: bool = False) -> str:
    """How a log line names where a turn happened: `room "Launch"` or `chat "Invoice reconciliation"`."""
    flat = " ".join(title.replace('"', "'").split())
    return f'room "{flat}"' if is_room else f'chat "{flat}"'


def conversation_source(conversation: conv.Conversation) -> str:
    """turn_log_source for a chat or room."""
    return turn_log_source(conversation.title, conversation.is_room)


def turn_log_rel(day: date) -> str:
    """The workspace path of a day's log: `memory/log/YYYY-MM-DD.md`."""
    return f"{MEMORY_DIR}/{LOG_DIR}/{day.isoformat()}.md"


def turn_log_heading(day: date) -> str:
    """What a new day's log starts with, before its first line."""
    return f"# {day.isoformat()}\n\n"


def append_log_line(store: MemoryStore, day: date, line: str, actor: Actor) -> WriteResult:
    """Append one finished line (from turn_log_line) to the log of `day`, starting the file with its heading.

    The low-level step of append_turn_log, for a caller that names the chat and the actor itself (the demo,
    telling a bot's past): it does not look at the memory switch. Read and write happen under the bot's lock,
    so two turns finishing at once both land.
    """
    rel = turn_log_rel(day)
    with store.locked():
        current = store.read(rel)
        text = current.text if current.exists else turn_log_heading(day)
        if text and not text.endswith("\n"):
            text += "\n"
        return store.write(rel, text + line + "\n", actor, expected_hash=current.hash, allow_log=True)


def append_turn_log(
    home: Home,
    bot_id: str,
    conversation: conv.Conversation | str,
    said: str,
    *,
    tools: Sequence[str] = (),
    failed: bool = False,
    at: datetime | None = None,
    run: str | None = None,
    speaker: str | None = None,
) -> WriteResult | None:
    """Append the line for one finished turn to `memory/log/YYYY-MM-DD.md` (the day of `at`, local time).

    Returns None, writing nothing, when the bot's memory is off or no log may hold the conversation's words
    (trace_store). `conversation` is the chat or room (or its id); `speaker`, who the turn answered when their
    message is not in `conversation` as read. The journal row names the bot, during a task, from that chat (and
    `run`, an agent session's).
    """
    validate_bot_id(bot_id)
    if not load_bot_settings(home, bot_id).memory:
        return None
    if isinstance(conversation, str):
        conversation = conv.find_conversation(home, bot_id, conversation, with_messages=True)
    store = trace_store(home, bot_id, conversation, speaker)
    if store is None:
        return None
    moment = (at or clock.now()).astimezone()
    line = turn_log_line(conversation_source(conversation), said, tools, failed, moment)
    actor = Actor(WHO_BOT, HOW_TASK, chat=conversation.id, run=run)
    return append_log_line(store, moment.date(), line, actor)


def conversation_voices(conversation: conv.Conversation, speaker: str | None = None) -> set[str]:
    """Every person whose words are or may be in a conversation: its people members and every person who spoke."""
    voices = set(conversation.people())
    voices.update(m.author for m in conversation.messages if m.author_kind == "person")
    if speaker:
        voices.add(speaker)
    return voices


def trace_store(
    home: Home, bot_id: str, conversation: conv.Conversation, speaker: str | None = None
) -> MemoryStore | None:
    """Where a finished turn's line may go: the bot's log, unless a person of this Team Cloud home is in the
    conversation; then their own layer's log when they are its only voice, else no log (the module's rule)."""
    names = {person.name for person in list_people(home)}
    voices = conversation_voices(conversation, speaker)
    theirs = voices & names
    if not theirs:
        return MemoryStore(home, bot_id)
    if len(voices) == 1:
        return layer_store(home, bot_id, theirs.pop())
    return None
