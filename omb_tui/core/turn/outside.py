"""A turn another program runs (Claude Code, through its hooks), noted at its two ends from separate processes.

Spec: memory.md, "The journal" (bot writes are caught at the turn boundary: when a turn starts, what every memory
file says is noted, and a file changed between turns is the person's, changed outside the app; when it ends,
whatever differs is the bot's work for that chat; journaling never fails a turn) and "What a bot knows about its
other conversations" (the turn recorded in a conversation of the bot, one log line per finished turn while memory
is on). docs/agents.md describes it for people.

`bot_turn` holds both ends in one `with` block; a harness that starts and ends a turn in two processes calls
`note_turn_start` when the person's message arrives and `record_turn` once the answer is given:

    note_turn_start(home, "scout")                                  # before the turn: the person's edits are theirs
    record_turn(home, "scout", "claude-code-1f2e…", exchange)       # after it: the chat, the boundary, the log

Between the two no process holds the bot's turn lock, so `turn_in_progress` does not see such a turn.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from ..base import clock
from ..files.disk import make_private_dirs
from ..files.paths import Home, NotFound, validate_bot_id
from ..journal.changes import Actor
from ..journal.journal import HOW_TASK, WHO_BOT, JournalRow
from ..memory import conversations as conv
from ..memory.store import MemoryStore
from ..recall.turn_log import append_turn_log
from .chats import default_person, open_chat

log = logging.getLogger("omb_tui.models.turn")


@dataclass(frozen=True)
class Exchange:
    """One finished turn as the other program saw it: the person's message and the bot's last answer."""

    prompt: str
    answer: str
    prompt_at: datetime | None = None  # when the person sent it (now, when unknown)
    prompt_id: str | None = None  # ids the program gives them, kept as the messages' `id`: a turn recorded
    answer_id: str | None = None  # twice (the hook ran again) is found by them and not appended again
    tools: tuple[str, ...] = ()  # the tools the bot used, by name, in order
    failed: bool = False  # the turn ended on an error, which is then the answer


@dataclass
class FinishedTurn:
    """What `record_turn` wrote."""

    chat: str
    created: bool = False  # the conversation was started by this turn
    appended: int = 0  # messages appended: 0 when the exchange was recorded already
    rows: list[JournalRow] = field(default_factory=list)  # the bot's changes to its memory, caught at the boundary
    logged: bool = False  # the turn's line went into the daily log

    def to_dict(self) -> dict:
        return {
            "chat": self.chat,
            "created": self.created,
            "appended": self.appended,
            "rows": [row.id for row in self.rows],
            "logged": self.logged,
        }


def note_turn_start(home: Home, bot_id: str) -> list[JournalRow]:
    """The start of a turn: a memory file changed since the last look is journaled as the person's (changed outside
    the app), then what every file says is noted, so that what differs at `record_turn` is the bot's work.
    As `bot_turn`'s start, the workspace is made if it is not there yet."""
    validate_bot_id(bot_id)
    make_private_dirs(home.workspace(bot_id))
    return MemoryStore(home, bot_id).sync_outside_changes()


def record_turn(
    home: Home,
    bot_id: str,
    chat_id: str,
    exchange: Exchange,
    *,
    person: str | None = None,
    title: str | None = None,
    now: datetime | None = None,
    run: str | None = None,
) -> FinishedTurn:
    """The end of a turn: the exchange into the conversation `chat_id`, the boundary, the turn log line.

    The conversation is created when missing, as a 1:1 chat the person started (`person`, else the person of the
    bot's newest such chat, else the login name; `title`, else the id). The person's message (with `origin`
    person) and the answer are appended in one write, each unless the conversation holds its id already. Then
    whatever differs in the memory files since `note_turn_start` is journaled as the bot's work, during a task, in
    this chat (each row carrying `run`, an agent session's, when given), and, when something was appended and
    memory is on, one line goes into the daily turn log. Neither
    of those two fails the call: the conversation is the record, and a row that cannot be written is logged.
    """
    validate_bot_id(bot_id)
    conv.validate_conversation_id(chat_id)
    moment = (now or clock.now()).astimezone()
    result = FinishedTurn(chat=chat_id)
    try:
        conversation = conv.find_conversation(home, bot_id, chat_id, with_messages=True)
    except NotFound:
        open_chat(home, bot_id, chat_id, person=person or default_person(home, bot_id), title=title)
        conversation = conv.find_conversation(home, bot_id, chat_id, with_messages=True)
        result.created = True
    assert conversation.path is not None  # a conversation found is read from its file
    messages = _new_messages(conversation, bot_id, exchange, person, moment)
    conv.append_messages(conversation.path, messages)
    result.appended = len(messages)
    try:
        store = MemoryStore(home, bot_id, changes_found_by=Actor(WHO_BOT, HOW_TASK, chat=chat_id, run=run))
        result.rows = store.sync_outside_changes()
    except Exception as exc:  # journaling never fails the turn: the next look journals the change
        log.error("%s: could not journal the turn's changes to memory: %s", bot_id, exc)
    if any(message.author_kind == "bot" for message in messages):
        try:
            tools = list(exchange.tools)
            speaker = next((m.author for m in messages if m.author_kind == "person"), None)
            written = append_turn_log(
                home,
                bot_id,
                conversation,
                exchange.answer,
                tools=tools,
                failed=exchange.failed,
                run=run,
                speaker=speaker,
            )
            result.logged = written is not None
        except Exception as exc:  # the log is a record of the turn, never a reason to fail it
            log.error("%s: the turn log could not be written: %s", bot_id, exc)
    return result


def _new_messages(
    conversation: conv.Conversation, bot_id: str, exchange: Exchange, person: str | None, now: datetime
) -> list[conv.Message]:
    """The person's message and the answer, each left out when the conversation holds its id already."""
    recorded = {message.id for message in conversation.messages if message.id}
    speaker = (conversation.people() or [person or "person"])[0]
    out = []
    if exchange.prompt_id is None or exchange.prompt_id not in recorded:
        at = exchange.prompt_at.astimezone() if exchange.prompt_at else now
        out.append(conv.Message("person", speaker, at, exchange.prompt, origin="person", id=exchange.prompt_id))
    if exchange.answer_id is None or exchange.answer_id not in recorded:
        out.append(conv.Message("bot", bot_id, now, exchange.answer, failed=exchange.failed, id=exchange.answer_id))
    return out
