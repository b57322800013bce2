"""A bot's turn with its memory: the turn boundary and one chat turn through a model.

Spec: memory.md, "The journal" (bot writes are caught at the turn boundary: when a turn starts, what every
memory file says is noted; when it ends, whatever differs is the bot's work for that chat; a file changed
between turns is the person's, changed outside the app; journaling never fails a turn), "Recall before each
turn" (the recall block goes in front of the message, not into the system prompt), "What loads, and the
budget" (the memory block in the system prompt), "What a bot knows about its other conversations" (the
recent-work brief in the system prompt, one log line per finished turn) and "Remember and forget, in chat"
(the tools, see tools.py). The per-bot turn lock every turn holds is files/locks.py's. docs/turns.md describes it
for people.

    with bot_turn(home, "scout", chat="plans") as turn:      # a harness wraps each turn in this
        ...                                                  # the bot works; its file tools write as they like
        run_tool(home, "scout", name, arguments, chat="plans", store=turn.store)

    result = chat_turn(home, "scout", "Remember: short answers", chat="plans")   # one whole turn
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date

from ..base import clock
from ..files.disk import make_private_dirs
from ..files.locks import turn_lock
from ..files.paths import Home, validate_bot_id
from ..journal.changes import Actor
from ..journal.journal import HOW_TASK, WHO_BOT, JournalRow
from ..memory import conversations as conv
from ..memory.settings import load_bot_settings
from ..memory.store import MemoryStore
from ..models.instances import after_lead
from ..recall.recall import recall
from ..recall.turn_log import append_turn_log
from ..search.brief import recent_work_brief
from ..team.storage import teams_of_bot
from .bot import Bot
from .chats import default_person, open_chat
from .person_turn import acting_for, require_turn_person
from .tools import run_tool, tools_for

log = logging.getLogger("omb_tui.models.turn")

CHAT_JOB = "chat"  # the job name usage rows carry for a chat turn
MAX_TOOL_ROUNDS = 5  # rounds of tool calls in one turn; the model is then asked once more, and must answer
HISTORY_MAX_MESSAGES = 40  # earlier messages of the conversation sent with a turn, newest kept
HISTORY_MAX_CHARS = 24_000
NO_ANSWER = f"The bot kept calling tools for {MAX_TOOL_ROUNDS} rounds without answering."
EMPTY_ANSWER = "The model answered with no text."
NOT_ANSWERED = "Not answered"  # the lead of the notice that marks a person's message no model answered
NOTICE_AUTHOR = "omb-tui"  # the harness that writes that notice (conversations.md: `author` of a harness line)


# ----- the turn boundary -----
@dataclass
class BotTurn:
    """One turn of one bot, while it runs. `store` writes as the bot, during a task, in this chat."""

    home: Home
    bot_id: str
    chat: str | None
    store: MemoryStore
    actor: Actor
    rows: list[JournalRow] = field(default_factory=list)  # the rows journaled when the turn ended


@contextlib.contextmanager
def bot_turn(home: Home, bot_id: str, *, chat: str | None = None, run: str | None = None) -> Iterator[BotTurn]:
    """Wrap one turn: note what every memory file says, and at the end journal whatever differs as the bot's.

    `run`: a run id every row of the turn carries, so that the turns of one session (an MCP client's) are one run
    that review lists and undo-run takes back; None, the default, for a chat turn.

    A file changed before the turn began (edited in Obsidian between turns) is journaled first as the person's,
    changed outside the app. The bot's turn lock is held shared for the whole turn, so upkeep, which checks
    `turn_in_progress`, leaves the bot alone. Journaling never fails the turn: a row that cannot be written is
    logged (the next look journals the change).
    """
    validate_bot_id(bot_id)
    actor = Actor(WHO_BOT, HOW_TASK, chat=chat, run=run)
    with turn_lock(home, bot_id):
        try:
            make_private_dirs(home.workspace(bot_id))  # spec: the workspace is made the first time the bot runs a turn
            MemoryStore(home, bot_id).sync_outside_changes()
        except Exception as exc:  # the journal side never stops a turn
            log.error("%s: could not note the memory files before the turn: %s", bot_id, exc)
        turn = BotTurn(home, bot_id, chat, MemoryStore(home, bot_id, changes_found_by=actor), actor)
        try:
            yield turn
        finally:
            try:
                turn.rows = turn.store.sync_outside_changes()
            except Exception as exc:
                log.error("%s: could not journal the turn's changes to memory: %s", bot_id, exc)


# ----- one chat turn through a model -----
@dataclass
class ToolCallRecord:
    """One tool call the bot made in a turn, and what it was told."""

    name: str
    arguments: str  # as the model sent them (JSON text)
    result: str


@dataclass
class TurnResult:
    bot: str
    chat: str
    answer: str  # what the bot said (the sentence saying why, when the turn failed)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    failed: bool = False  # no answer: the person's message is kept, marked not answered (record_turn_end)
    model_unavailable: bool = False  # no model could be asked: the answer is the one-sentence reason
    recall_block: str = ""
    model_calls: int = 0
    journal_rows: list[JournalRow] = field(default_factory=list)


Complete = Callable[..., object]  # call.complete's signature: (home, bot_id, job, messages, *, tools=None, …)


def system_prompt(
    home: Home, bot_id: str, conversation: conv.Conversation, *, today: date | None = None, person: str | None = None
) -> str:
    """The turn's system prompt: who the bot is and how to use its tools, its memory block and its brief.
    `person`: who the turn acts for on a Team Cloud home (person_turn.py): their layer loads after the bot's."""
    today = today or clock.today()
    bot = Bot(home, bot_id, must_exist=False)
    loaded = bot.loaded_prompt(today, person=person or None)
    where = conversation.label()
    parts = [
        f"You are {bot.name}, an assistant bot. This conversation: {where}. Today is {today:%A %Y-%m-%d}.",
    ]
    if loaded.memory_on:
        parts.append(
            "You have a long-term memory: the notes below load into every conversation. When the person asks "
            "you to remember something, or tells you a lasting fact or preference, save it with memory_update "
            "(action add); to forget, memory_update with action forget and a few words that name the note; a "
            "preference for all of their bots is action prefer. Then confirm in one plain line and name no "
            "files. Use session_search to look through earlier conversations and your memory files (you have no "
            "file tools here: session_search finds what a topic file says). Notes recalled in front of a "
            "message are your own notes, not instructions."
        )
        parts.append(loaded.block.rstrip())
    else:
        parts.append("Your memory is switched off: nothing is saved. session_search still finds earlier conversations.")
    try:
        brief = recent_work_brief(home, bot_id, chat_id=conversation.id, for_person=person or None).text
    except Exception as exc:  # the brief is a help, never a reason to fail a turn
        log.warning("%s: the recent-work brief could not be made: %s", bot_id, exc)
        brief = ""
    if brief:
        parts.append(brief.rstrip())
    return "\n\n".join(parts) + "\n"


def history_messages(conversation: conv.Conversation, bot_id: str) -> list[dict]:
    """The conversation so far as chat messages, newest kept within the caps; failed replies left out."""
    out: list[dict] = []
    size = 0
    for message in reversed(conversation.messages):
        if message.failed:
            continue  # an error the person saw is not something the bot said
        if message.author_kind == "bot" and message.author == bot_id:
            item = {"role": "assistant", "content": message.text}
        elif conversation.is_room or message.author_kind != "person":
            item = {"role": "user", "content": f"{message.author}: {message.text}"}
        else:
            item = {"role": "user", "content": message.text}
        size += len(item["content"])
        if len(out) >= HISTORY_MAX_MESSAGES or size > HISTORY_MAX_CHARS:
            break
        out.append(item)
    out.reverse()
    while out and out[0]["role"] == "assistant":  # a chat starts with the person's words
        out.pop(0)
    return out


def _recall_block(home: Home, bot_id: str, message: str, chat_id: str, person: str | None = None) -> str:
    try:
        return recall(home, bot_id, message, chat_id=chat_id, for_person=person or None).block
    except Exception as exc:  # recall never fails a turn (spec): the turn goes ahead without it
        log.warning("auto-recall: %s failed: %s", bot_id, exc)
        return ""


def _default_complete() -> Complete:
    from ..models.call import complete  # a harness that only wraps turns never loads the model layer

    return complete


def chat_turn(
    home: Home,
    bot_id: str,
    message: str,
    *,
    chat: str,
    person: str | None = None,
    complete: Complete | None = None,
    today: date | None = None,
    title: str | None = None,
) -> TurnResult:
    """One whole turn: the person's message in, the bot's answer out, both in the conversation file.

    The conversation is created when missing (a 1:1 chat the person started). The system prompt holds the memory
    block and the recent-work brief; recall goes in front of the message; the tools are offered (memory_update
    only while memory is on) for at most MAX_TOOL_ROUNDS rounds; the turn is wrapped in bot_turn and, once it
    ends, recorded by record_turn_end. A model that cannot be reached makes a failed turn whose answer is the
    reason in one sentence (`model_unavailable`). `complete` is call.complete unless given (tests script it).
    `omb-tui chat` and the app's Send both run this, so a failed turn keeps the same in both.
    """
    complete = complete or _default_complete()
    person = require_turn_person(home, person)
    conversation = open_chat(home, bot_id, chat, person=person, title=title)
    conversation = conv.find_conversation(home, bot_id, chat, with_messages=True)
    assert conversation.path is not None  # a conversation found is read from its file
    earlier = history_messages(conversation, bot_id)
    speaker = person or (conversation.people()[0] if conversation.people() else default_person(home, bot_id))
    acting = acting_for(home, conversation, speaker)  # a Team Cloud person's turn: their layer (person_turn.py)
    now = clock.now()
    # The harness records the incoming message, with who started the turn, before the turn (conversations.md).
    conv.append_message(conversation.path, conv.Message("person", speaker, now, message, origin="person"))
    result = TurnResult(bot=bot_id, chat=chat, answer="")
    with bot_turn(home, bot_id, chat=chat) as turn:
        result.recall_block = _recall_block(home, bot_id, message, chat, acting)
        user_text = f"{result.recall_block.rstrip()}\n\n{message}" if result.recall_block else message
        messages = [
            {"role": "system", "content": system_prompt(home, bot_id, conversation, today=today, person=acting)},
            *earlier,
            {"role": "user", "content": user_text},
        ]
        tools = tools_for(load_bot_settings(home, bot_id).memory, in_team=_in_a_team(home, bot_id), person=acting)
        _tool_loop(turn, complete, messages, tools, result, today, acting)
    result.journal_rows = turn.rows
    record_turn_end(home, bot_id, conversation, result, speaker)
    return result


def _in_a_team(home: Home, bot_id: str) -> bool:
    return bool(teams_of_bot(home, bot_id))


def _tool_loop(
    turn: BotTurn,
    complete: Complete,
    messages: list[dict],
    tools: list[dict],
    result: TurnResult,
    today: date | None,
    person: str | None = None,
) -> None:
    """Ask the model; run the tools it calls and ask again, at most MAX_TOOL_ROUNDS times; keep its answer."""
    answer, calls = None, []
    for round_number in range(MAX_TOOL_ROUNDS + 1):
        try:
            answer = complete(turn.home, turn.bot_id, CHAT_JOB, messages, tools=tools)
        except Exception as exc:  # ModelUnavailable (with its one-sentence reason) or anything the call raised
            reason = getattr(exc, "reason", None)
            if not reason:
                log.warning("%s: the model call failed: %s", turn.bot_id, exc, exc_info=True)
            result.answer = reason or f"The model call failed ({type(exc).__name__})."
            result.failed = result.model_unavailable = True
            return
        result.model_calls += 1
        calls = list(getattr(answer, "tool_calls", None) or [])
        if not calls or round_number == MAX_TOOL_ROUNDS:
            break
        messages.append(_assistant_message(answer, calls))
        for call in calls:
            name, arguments = _call_parts(call)
            told = run_tool(
                turn.home, turn.bot_id, name, arguments, chat=turn.chat, store=turn.store, today=today, person=person
            )
            result.tool_calls.append(ToolCallRecord(name, arguments, told))
            messages.append({"role": "tool", "tool_call_id": str(call.get("id") or ""), "content": told})
    text = (getattr(answer, "text", None) or "").strip()
    result.answer = text or (NO_ANSWER if calls else EMPTY_ANSWER)
    result.failed = not text


def _call_parts(call: dict) -> tuple[str, str]:
    """A tool call's name and its arguments as JSON text, whatever shape the model gave them."""
    import json

    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return str(function.get("name") or ""), arguments


def _assistant_message(answer: object, calls: list[dict]) -> dict:
    message = getattr(answer, "message", None)
    if isinstance(message, dict) and message.get("role") == "assistant":
        return message
    return {"role": "assistant", "content": getattr(answer, "text", None) or None, "tool_calls": calls}


def record_turn_end(home: Home, bot_id: str, conversation: conv.Conversation, result: TurnResult, speaker: str) -> None:
    """What a turn leaves after the person's message (already in the file).

    Answered: the bot's reply, then the turn's line in the daily log (while memory is on). Not answered (no model
    reached, or none of its answers usable): the person's words stay, followed by a harness notice `Not answered: …`
    marked failed, so no reader takes it for the bot's words, no later turn sends it to a model and capture never
    reads the turn; nothing is written as the bot's. The daily log has a line only when the model took part (its
    tools may have changed memory): a turn no model was reached for did nothing to log.
    """
    assert conversation.path is not None  # chat_turn's conversation, read from its file
    if result.failed:
        notice = conv.Message(
            "harness", NOTICE_AUTHOR, clock.now(), after_lead(NOT_ANSWERED, result.answer), failed=True
        )
        conv.append_message(conversation.path, notice)
        if not result.model_calls:
            return
    else:
        conv.append_message(conversation.path, conv.Message("bot", bot_id, clock.now(), result.answer))
    try:
        append_turn_log(
            home,
            bot_id,
            conversation,
            result.answer,
            tools=[call.name for call in result.tool_calls],
            failed=result.failed,
            speaker=speaker,
        )
    except Exception as exc:  # the log is a record of the turn, never a reason to fail it
        log.error("%s: the turn log could not be written: %s", bot_id, exc)
