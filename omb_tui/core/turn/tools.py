"""The tools a bot is given in a turn: `memory_update`, `session_search` and, in a team, `team_note`.

Spec: memory.md, "Remember and forget, in chat" (add, forget, prefer; the bot confirms in one plain line and
names no files), "What a bot knows about its other conversations" ("Recall by time": `session_search` with
`since` and `until`, with or without words) and the opening (memory off hides the memory tools and keeps
memory files out of `session_search`). The schemas are in OpenAI's function format, which litellm translates
for every provider. `run_tool` runs one call against the core and returns the text the model sees: short,
redacted, and never an exception (a bad argument is a sentence back to the model).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from ..base.errors import oserror_sentence
from ..files.paths import Home, MemoryInputError
from ..journal.changes import Actor
from ..journal.journal import HOW_TASK, WHO_BOT
from ..journal.when import parse_day
from ..memory import conversations as conv
from ..memory.memory_update import ENTRY_MAX_CHARS, PREFERENCE_MAX_CHARS, MemoryUpdate
from ..memory.preference import said_again
from ..memory.settings import load_bot_settings
from ..memory.store import MemoryStore
from ..models.structured import UnusableAnswer, read_json_object, strings_problem
from ..search.session_search import session_search
from ..team.proposals import propose_from_bot
from .person_turn import memory_update_tool_for, update_target

log = logging.getLogger("omb_tui.models.tools")

MEMORY_UPDATE = "memory_update"
SESSION_SEARCH = "session_search"
TEAM_NOTE = "team_note"
ACTIONS = ("add", "forget", "prefer")
SEARCH_HITS_SHOWN = 10  # what the model sees of a search: enough to answer, small enough for its context
SEARCH_HIT_CHARS = 300
CHAT_FILTER_POOL = 200  # hits looked through when the model narrows a search to one conversation
ANSWER_MAX_CHARS = 4000  # no tool answer is longer than this

MEMORY_UPDATE_TOOL = {
    "type": "function",
    "function": {
        "name": MEMORY_UPDATE,
        "description": (
            "Change your long-term memory. action 'add' saves one short dated note to MEMORY.md, which loads "
            "into every conversation (use it when the person asks you to remember something, or tells you a "
            "lasting fact or preference about how to work with them). action 'forget' removes every note that "
            "mentions all of the given words, in every memory file. action 'prefer' saves a standing "
            "preference for all of the person's bots (one line). Confirm what you did in one plain line and "
            "do not name files."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(ACTIONS), "description": "add, forget or prefer"},
                "text": {
                    "type": "string",
                    "description": (
                        f"add: the note, in plain words (at most {ENTRY_MAX_CHARS} characters). forget: a few "
                        f"words that name the note. prefer: the preference as one line of at most "
                        f"{PREFERENCE_MAX_CHARS} characters."
                    ),
                },
                "until": {
                    "type": "string",
                    "description": "add only, optional: the last day the note is true, as YYYY-MM-DD",
                },
            },
            "required": ["action", "text"],
        },
    },
}

SESSION_SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": SESSION_SEARCH,
        "description": (
            "Search your own earlier conversations (1:1 chats, tasks, rooms you are in) and your memory files, "
            "by words, by time, or both. Use it to find what was said or done before, e.g. 'what happened "
            "since yesterday' (since: 'yesterday', no query)."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "words to look for (any of them counts)"},
                "since": {
                    "type": "string",
                    "description": "only from this time on: '24h', '3d', '2w', 'today', 'yesterday' or YYYY-MM-DD",
                },
                "until": {"type": "string", "description": "only up to this time, same forms as since"},
                "chat": {
                    "type": "string",
                    "description": "only this conversation: its id, as a hit shows it in [brackets]",
                },
                "scope": {
                    "type": "string",
                    "enum": ["all", "team"],
                    "description": "'team': only your teams' shared notes, including those that did not load",
                },
            },
        },
    },
}


TEAM_NOTE_TOOL = {
    "type": "function",
    "function": {
        "name": TEAM_NOTE,
        "description": (
            "Propose a note for your team's shared memory, which every bot of the team loads once a person has "
            "accepted it. Only for a lasting fact a person stated in this conversation: quote their exact words. "
            "Every number, path and URL in the note must be in the quotes. To correct a note, use its key."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "key": {
                    "type": "string",
                    "description": "a stable key such as 'tapa/sequence-02/colour' "
                    "(lower-case parts joined by '/'); the same key replaces the note it names",
                },
                "title": {"type": "string", "description": "a short title"},
                "text": {"type": "string", "description": "the note, in plain words"},
                "quotes": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "the person's own words it rests on, exactly as they said them",
                },
                "team": {"type": "string", "description": "the team's name, when you are in more than one"},
            },
            "required": ["key", "title", "text", "quotes"],
        },
    },
}


def tools_for(memory_on: bool, *, in_team: bool = False, person: str | None = None) -> list[dict]:
    """The tool schemas a turn offers: with memory off, memory_update is hidden (spec: the opening); team_note
    only to a member of a team, memory on; memory_update with `about` in a turn acting for a person."""
    if not memory_on:
        return [SESSION_SEARCH_TOOL]
    memory_update = memory_update_tool_for(MEMORY_UPDATE_TOOL, person)
    return [memory_update, SESSION_SEARCH_TOOL] + ([TEAM_NOTE_TOOL] if in_team else [])


@dataclass(frozen=True)
class TurnStart:
    """Who began the work this turn answers, from the conversation: decides forget's and prefer's reach."""

    kind: str  # "person", "room", "routine", "bot", "webhook" or "handoff"
    person_began_it: bool  # a person's own message began it: prefer may save their preference
    own_chat: bool  # the person's own 1:1 chat: forget reaches About me too
    title: str | None = None  # the conversation's title, as a note names where it came from
    words: str | None = None  # the person's own message that began it: may ask for a removed fact once more


def turn_start(home: Home, bot_id: str, chat: str | None) -> TurnStart:
    """Read from the chat's header and its newest message (the one being answered, recorded before the turn).

    Without a chat, as the CLI's remember/forget/prefer: the person's own request.
    """
    if chat is None:
        return TurnStart("person", True, True)
    conversation = conv.find_conversation(home, bot_id, chat)
    newest = conv.newest_message(conversation.path) if conversation.path else None
    if conversation.is_room:
        began = newest is not None and newest.author_kind == "person" and newest.origin in (None, "person")
        return TurnStart("room", began, False, conversation.title, newest.text if began and newest else None)
    kind = conversation.recall_kind()
    if kind == "person" and newest is not None and newest.origin not in (None, "person"):
        kind = newest.origin  # a webhook's or a hand-off's message inside the person's chat
    words = newest.text if kind == "person" and newest is not None and newest.author_kind == "person" else None
    return TurnStart(kind, kind == "person", kind == "person", conversation.title, words)


class ToolAnswer(str):
    """The text the model sees, a str as a turn uses it; `refused` says the call was refused (a bad argument, an
    unknown tool, a failure: nothing was done), for a surface that marks a refusal apart (MCP's isError)."""

    refused: bool

    def __new__(cls, text: str, refused: bool = False) -> ToolAnswer:
        answer = super().__new__(cls, text)
        answer.refused = refused
        return answer


def run_tool(
    home: Home,
    bot_id: str,
    name: str,
    arguments: str | dict | None,
    *,
    chat: str | None,
    store: MemoryStore | None = None,
    today: date | None = None,
    actor: Actor | None = None,
    start: TurnStart | None = None,
    person: str | None = None,
) -> ToolAnswer:
    """Run one tool call and return the text the model sees; never raises.

    `arguments` is the JSON text the model sent (or it parsed); `chat` the conversation of the turn (journal
    rows and notes name it). `store`: the store of the turn the call is part of (see turn.bot_turn), so that a
    change found before a write is journaled as the bot's work in this turn. For a caller whose work is in no
    conversation of the home (an MCP client's session, `chat` None): `actor` is who its journal rows name (default:
    the bot, during a task, in `chat`), `start` who began the work (default: read from `chat`), which decides how
    far forget and prefer reach and what a note names as its source; a team note's quotes are then looked for in
    the bot's newest conversations. `person`: who the turn acts for on a Team Cloud home (person_turn.py).
    """

    def run() -> str:
        args = tool_arguments(arguments)
        if name == MEMORY_UPDATE:
            return _memory_update(
                home, bot_id, args, chat=chat, store=store, today=today, actor=actor, start=start, person=person
            )
        if name == SESSION_SEARCH:
            return _session_search(home, bot_id, args, chat=chat, person=person)
        if name == TEAM_NOTE:
            return _team_note(home, bot_id, args, chat=chat, from_outside=chat is None and start is not None)
        raise UnknownTool(
            f"There is no tool named {_clip(str(name), 60)!r}; the tools are {MEMORY_UPDATE}, "
            f"{SESSION_SEARCH} and {TEAM_NOTE}."
        )

    return safe_answer(bot_id, name, run)


class UnknownTool(Exception):
    """A call to a tool there is none of: its message is what the model is told."""


def safe_answer(bot_id: str, name: str, run: Callable[[], str]) -> ToolAnswer:
    """What the model sees of one tool's work (`run`), never an exception: a bad argument, a broken settings file
    or a stale write is one sentence (`Nothing was done: …`), any other failure is logged and said in a sentence
    that names no more than its kind; every answer is redacted and clipped. A surface's own tools (the MCP
    server's recall and memory_status) answer through it too; a `run` that hands on a tool's answer keeps its
    `refused`."""
    from ..redaction.redact import redact  # compiled when a tool first runs, not when a harness imports the library

    refused = True
    try:
        answer = run()
        refused = isinstance(answer, ToolAnswer) and answer.refused
    except UnknownTool as exc:
        answer = str(exc)
    except MemoryInputError as exc:  # a bad argument, a broken settings file, a stale write: said plainly
        answer = f"Nothing was done: {exc}"
    except OSError as exc:  # a full disk, a read-only home: one sentence, one log line, no traceback
        answer = f"The tool could not finish: {oserror_sentence(exc)}"
        log.warning("%s: the tool %s could not finish: %s", bot_id, name, oserror_sentence(exc))
    except Exception as exc:  # the tool failed; the turn goes on and the model is told
        log.warning("%s: the tool %s failed: %s", bot_id, name, exc, exc_info=True)
        answer = f"The tool failed ({type(exc).__name__}); nothing more is known. Tell the person it did not work."
    return ToolAnswer(_clip(redact(answer).text, ANSWER_MAX_CHARS), refused)


def tool_arguments(arguments: str | dict | None) -> dict:
    """The call's arguments as an object, read within an answer's bounds and with every text in them checked
    (structured.read_json_object): a bad one is a sentence back to the model, and nothing is done."""
    if arguments is None or arguments == "":
        return {}
    try:
        if isinstance(arguments, dict):
            problem = strings_problem(arguments, "the arguments")
            if problem:
                raise UnusableAnswer(problem)
            return arguments
        return read_json_object(arguments if isinstance(arguments, str) else "", "the arguments")
    except UnusableAnswer as exc:
        hint = ' (send an object such as {"action": "add", "text": "…"})' if "valid JSON" in str(exc) else ""
        raise MemoryInputError(f"{exc}{hint}.") from None


def text_argument(args: dict, key: str) -> str:
    """A text argument that must be given."""
    value = args.get(key)
    if value is None:
        raise MemoryInputError(f"'{key}' is missing.")
    if not isinstance(value, str):
        raise MemoryInputError(f"'{key}' must be text.")
    return value


def _optional_text_argument(args: dict, key: str) -> str | None:
    """A text argument that may be left out; left empty, it counts as not given."""
    if args.get(key) is None:
        return None
    value = text_argument(args, key)
    return value if value.strip() else None


def _memory_update(
    home: Home,
    bot_id: str,
    args: dict,
    *,
    chat: str | None,
    store: MemoryStore | None,
    today: date | None,
    actor: Actor | None,
    start: TurnStart | None,
    person: str | None = None,
) -> str:
    if not load_bot_settings(home, bot_id).memory:
        return "Memory is off for this bot, so nothing was saved or removed."
    action = args.get("action")
    if action not in ACTIONS:
        raise MemoryInputError(f"'action' must be one of {', '.join(ACTIONS)}.")
    text = text_argument(args, "text")
    start = start or turn_start(home, bot_id, chat)
    actor = actor or Actor(WHO_BOT, HOW_TASK, chat=chat)
    target = update_target(bot_id, person, action, args.get("about"))
    if target != bot_id:  # the person's own layer, written as the bot's work in this turn
        store = MemoryStore(home, target, changes_found_by=actor)
    update = MemoryUpdate(home, target, actor, store=store)
    if action == "add":
        until_text = _optional_text_argument(args, "until")
        until = _until(until_text) if until_text else None
        source = note_source(start.title) if start.title is not None else None
        return update.add(text, chat=source, until=until, today=today).message()
    if action == "forget":
        return update.forget(text, include_about_me=start.own_chat, today=today).message()
    if not start.person_began_it:
        return (
            "Nothing was saved: a preference is saved only when a person's own message began the work, "
            "and this one did not."
        )
    return update.prefer(text, today=today, again=said_again(text, start.words)).message()


def _team_note(home: Home, bot_id: str, args: dict, *, chat: str | None, from_outside: bool) -> str:
    if not load_bot_settings(home, bot_id).memory:
        return "Memory is off for this bot, so nothing was proposed."
    team = _optional_text_argument(args, "team")
    return propose_from_bot(
        home,
        bot_id,
        args.get("key"),
        args.get("title"),
        args.get("text"),
        args.get("quotes", []),
        chat=chat,
        team_ref=team,
        from_outside=from_outside,
    ).message()


def _until(value: str) -> date:
    try:
        return parse_day(value.strip())
    except ValueError:
        raise MemoryInputError(f"'until' must be a date as YYYY-MM-DD, not {_clip(value, 40)!r}.") from None


def note_source(title: str) -> str:
    """The chat's title as a note names it (`from chat "Plans"`): quotes and line breaks cannot be in it."""
    return " ".join(title.replace('"', "'").split()) or "chat"


def _session_search(home: Home, bot_id: str, args: dict, *, chat: str | None, person: str | None = None) -> str:
    query = _optional_text_argument(args, "query")
    since = _optional_text_argument(args, "since")
    until = _optional_text_argument(args, "until")
    only_chat = _optional_text_argument(args, "chat")
    scope = _optional_text_argument(args, "scope") or "all"
    if not (query or "").strip() and since is None and until is None:
        raise MemoryInputError("give 'query' words, or 'since' / 'until' (or both).")
    if only_chat is not None:
        only_chat = only_chat.strip()
        conv.find_conversation(home, bot_id, only_chat)  # NotFound: said back to the model
    limit = CHAT_FILTER_POOL if only_chat else SEARCH_HITS_SHOWN
    result = session_search(
        home, bot_id, query, since=since, until=until, chat_id=chat, limit=limit, scope=scope, for_person=person
    )
    hits = [hit for hit in result.hits if only_chat is None or hit.conversation == only_chat][:SEARCH_HITS_SHOWN]
    if not hits:
        where = f" in [{only_chat}]" if only_chat else ""
        memory = "" if result.memory_searched else " (memory is off: only conversations were searched)"
        return f"Nothing found{where}{memory}."
    lines = [f"{len(hits)} found, best first:" if result.words else f"{len(hits)} found, newest first:"]
    for number, hit in enumerate(hits, 1):
        lines.append(_hit_line(number, hit, bot_id))
    private = [c for c in result.disclosed_private_chats if any(h.conversation == c for h in hits)]
    if private:
        lines.append("Some of these come from private 1:1 chats; the room is told you used them.")
    if not result.memory_searched:
        lines.append("(Memory is off: only conversations were searched.)")
    return "\n".join(lines)


def _hit_line(number: int, hit, bot_id: str) -> str:
    if hit.at is not None:
        when = hit.at.astimezone().strftime("%Y-%m-%d %H:%M")
    else:
        when = hit.day.isoformat() if hit.day else "undated"
    where = f"{hit.where} [{hit.conversation}]" if hit.conversation else hit.where
    speaker = ""
    if hit.author:
        speaker = "You: " if hit.author_kind == "bot" and hit.author == bot_id else f"{hit.author}: "
    failed = " (this turn failed)" if hit.failed else ""
    return f"[{number}] {when} · {where}{failed}\n{speaker}{_clip(' '.join(hit.text.split()), SEARCH_HIT_CHARS)}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
