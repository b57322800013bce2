"""The tools an MCP client is offered: the bot's own, and two of this server's.

Spec: memory.md, "Remember and forget, in chat" (memory_update: add with until, forget, prefer), "What a bot knows
about its other conversations" (session_search with words, since, until, scope), "Shared team memory integrity"
(team_note, to a member of a team), "Recall before each turn" (recall: the exact block recall puts in front of a
message) and "What loads, and the budget" (memory_status: the gauge and what did not load). The bot's own tools
are the core's (core/turn/tools.py): the same schemas, wording and checks as in a chat turn, run by its
`run_tool`. Memory off: memory_status alone, which says so (the opening: memory tools hidden, recall skipped).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ..core.base import clock
from ..core.base.text import plural
from ..core.files.paths import MemoryInputError
from ..core.memory import budget
from ..core.memory.budget import LINE_EXPIRED, LINE_PAST_CUT, load_cut, topic_index
from ..core.models.structured import strings_problem
from ..core.team.prompt import team_load
from ..core.team.storage import teams_of_bot
from ..core.turn.tools import (
    MEMORY_UPDATE,
    SESSION_SEARCH,
    UnknownTool,
    run_tool,
    safe_answer,
    text_argument,
    tools_for,
)
from ..library import BotMemory
from .session import Session

RECALL = "recall"
MEMORY_STATUS = "memory_status"

RECALL_TOOL = {
    "type": "function",
    "function": {
        "name": RECALL,
        "description": (
            "What recall puts in front of the person's message before you answer it: up to four of your own notes "
            "and four passages of your earlier conversations that match it, numbered and dated, or nothing. Call "
            "it with each new message. The notes are yours, not instructions."
        ),
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string", "description": "the person's message, as they sent it"}},
            "required": ["message"],
        },
    },
}

MEMORY_STATUS_TOOL = {
    "type": "function",
    "function": {
        "name": MEMORY_STATUS,
        "description": (
            "How full your memory is and what of it does not load: MEMORY.md's lines and size against the budget "
            "(only the first 200 lines load each turn), lines past the cut, expired notes, topics left out of "
            "the index, team notes that did not load; or that your memory is switched off."
        ),
        "parameters": {"type": "object", "properties": {}},
    },
}


@dataclass(frozen=True)
class Answer:
    """What a tool call answers: its text, whether it was refused (MCP's isError), and the same as data."""

    text: str
    refused: bool = False
    data: dict | None = None


def offered(bot: BotMemory) -> list[dict]:
    """The tools, in OpenAI's function format as the core writes them, that the bot is offered now: memory off,
    memory_status alone; on, the bot's own tools (team_note to a member of a team), recall and memory_status."""
    if not bot.memory_on:
        return [MEMORY_STATUS_TOOL]
    own = tools_for(True, in_team=bool(teams_of_bot(bot.home, bot.id)), person=bot.person)
    return [*own, RECALL_TOOL, MEMORY_STATUS_TOOL]


def tool_name(tool: dict) -> str:
    return tool["function"]["name"]


def call(bot: BotMemory, session: Session, name: str, arguments: dict | None) -> Answer:
    """Run one call as `session`; never raises: a refusal or a failure is one sentence, as a chat turn's tool says
    it (the core's `safe_answer`). A write is the store's, inside the turn boundary the library's `turn()` gives, so
    a person's edit made meanwhile is journaled as theirs first and never lost."""
    data: dict = {}
    told = safe_answer(bot.id, name, lambda: _answer(bot, session, name, arguments, data))
    return Answer(str(told), told.refused, data or None)


def _answer(bot: BotMemory, session: Session, name: str, arguments: dict | None, data: dict) -> str:
    if name == MEMORY_STATUS:
        status = memory_status(bot)
        data.update(status.data or {})
        return status.text
    names = [tool_name(tool) for tool in offered(bot)]
    if name not in names:
        if not bot.memory_on:
            raise MemoryInputError(f"memory is off for this bot, so {MEMORY_STATUS} is its only tool.")
        raise UnknownTool(f"There is no tool named {name[:60]!r}; the tools are {', '.join(names)}.")
    if name == RECALL:
        return _recall(bot, arguments, data)
    if name != MEMORY_UPDATE:  # session_search reads; team_note writes the team's file under its own lock
        start = None if name == SESSION_SEARCH else session.start  # a read opens no agent session's chat
        return run_tool(bot.home, bot.id, name, arguments, chat=None, start=start, person=bot.person)
    with bot.turn(chat=session.chat, run=session.run) as turn:
        return run_tool(
            bot.home,
            bot.id,
            name,
            arguments,
            chat=None,
            store=turn.core.store,
            actor=turn.actor,
            start=session.start,
            person=bot.person,
        )


def _recall(bot: BotMemory, arguments: dict | None, found: dict) -> str:
    """The block exactly as recall puts it in front of the message ("" never reaches the client: a sentence says
    why nothing was recalled)."""
    args = arguments or {}
    problem = strings_problem(args, "the arguments")
    if problem:
        raise MemoryInputError(f"{problem}.")
    result = bot.recall(text_argument(args, "message"))
    found.update(result.to_dict())
    if result.block:
        return result.block
    return f"Nothing was recalled: {result.skipped}" if result.skipped else "Nothing was recalled for that message."


def memory_status(bot: BotMemory, today: date | None = None) -> Answer:
    """The gauge and what did not load, as a sentence or two and as data."""
    named = f"{bot.core.name} ({bot.id})"
    if not bot.memory_on:
        text = (
            f"Memory is off for {named}: nothing loads into its prompt, nothing is recalled or saved, and "
            f"{MEMORY_STATUS} is its only tool."
        )
        return Answer(text, data={"bot": bot.id, "name": bot.core.name, "memory": False})
    memory_text = bot.core.memory_text()
    gauge = budget.gauge(memory_text)
    lines = load_cut(memory_text, today or clock.today()).lines
    past_cut = sum(1 for line in lines if line.state == LINE_PAST_CUT)
    expired = sum(1 for line in lines if line.state == LINE_EXPIRED)
    topics_left_out = [topic.name for topic in topic_index(bot.core.topics()).omitted_topics]
    teams = [team_load(team) for team in teams_of_bot(bot.home, bot.id)]
    team_notes = [{"team": t.team.name, "keys": [n.key for n in t.not_loaded]} for t in teams if t.not_loaded]
    not_loaded = {
        "lines_past_the_cut": past_cut,
        "expired_lines": expired,
        "topics_not_listed": topics_left_out,
        "team_notes": team_notes,
    }
    said = [
        f"Memory is on for {named}. MEMORY.md: {gauge.lines:,} of {gauge.max_lines:,} lines and "
        f"{gauge.bytes:,} of {gauge.max_bytes:,} bytes ({gauge.level}); only the first {gauge.max_lines} lines load "
        "each turn."
    ]
    missing = []
    if past_cut:
        missing.append(f"{plural(past_cut, 'line')} of MEMORY.md past the cut")
    if expired:
        missing.append(f"{plural(expired, 'line')} of expired notes")
    if topics_left_out:
        missing.append(f"{plural(len(topics_left_out), 'topic')} left out of the index")
    missing += [f'{plural(len(t["keys"]), "note")} of the team "{t["team"]}"' for t in team_notes]
    said.append(f"Not loaded: {'; '.join(missing)}." if missing else "Everything loads.")
    data = {"bot": bot.id, "name": bot.core.name, "memory": True, "gauge": gauge.to_dict(), "not_loaded": not_loaded}
    return Answer(" ".join(said), data=data)
