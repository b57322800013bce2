"""Who did what, in words a person would write: the one phrase builder for the writer of journal rows.

Spec: memory.md, "The journal" (who and how). Every surface that names a writer takes its words from here: the
Review area's groups, details, questions and toasts, `omb-tui changes`, `omb-tui review`, the journal (screen and
`omb-tui journal`) and `undo-run`'s message (docs/review.md, "Who did what"). A row's `who` and `how` are the
journal's own words ("bot", "during a task"): never put after "by" as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from ..base.text import plural
from ..files.paths import split_layer
from ..journal.journal import (
    HOW_API,
    HOW_COMMAND_LINE,
    HOW_OUTSIDE,
    HOW_SETTINGS,
    HOW_TASK,
    HOW_UNDO,
    HOW_UPKEEP,
    WHO_BOT,
    WHO_IMPORT,
    WHO_PERSON,
    WHO_UPKEEP,
)
from ..memory.agents import AGENTS

KIND_UPKEEP = "upkeep"
KIND_AGENT = "agent"
KIND_CHAT = "chat"
KIND_PERSON = "person"
KIND_MEMBER = "member"  # a person of a Team Cloud home, writing their own layer themselves (never the owner)
KIND_OUTSIDE = "outside"
KIND_IMPORT = "import"
KIND_GUARD = "guard"
KINDS = (KIND_GUARD, KIND_UPKEEP, KIND_AGENT, KIND_CHAT, KIND_MEMBER, KIND_PERSON, KIND_OUTSIDE, KIND_IMPORT)
MCP_CHAT = " (MCP session "  # an MCP client's own chat: `<client> (MCP session <run>)` (mcp/session.py)

# A `how` as the words after "you" (the hows the store and the backups write; any other is said as it is)
HOW_WORDS = {
    HOW_SETTINGS: "in the app",
    HOW_COMMAND_LINE: "from the command line",
    HOW_API: "through the API",
    HOW_UNDO: "with an undo",
    HOW_UPKEEP: "in an upkeep step",
    HOW_TASK: "in a task",
    HOW_OUTSIDE: "outside the app",
    "revert": "with a revert",  # memory/store.py HOW_REVERT (the store is a floor above the journal's words)
    "restored from a backup": "restoring a backup",  # backup/restore.py HOW_RESTORE
    "duplicated": "duplicating a bot",  # backup/duplicate.py HOW_DUPLICATE
}


class Written(Protocol):
    """What the words are made of: a journal row, or a change of the Review listing."""

    @property
    def who(self) -> str: ...
    @property
    def how(self) -> str: ...
    @property
    def chat(self) -> str | None: ...
    @property
    def step(self) -> str | None: ...
    @property
    def person(self) -> str | None: ...
    @property
    def at(self) -> str: ...
    @property
    def run(self) -> str | None: ...


def kind_of(who: str, how: str, chat: str | None, person: str | None = None) -> str:
    """Which writer made a row, by what the journal says of it."""
    if who == WHO_PERSON and person:
        return KIND_MEMBER
    if who == WHO_UPKEEP:
        return KIND_GUARD if how == HOW_UNDO else KIND_UPKEEP
    if who == WHO_BOT:
        agent = chat is not None and (chat.startswith(tuple(a.prefix for a in AGENTS.values())) or MCP_CHAT in chat)
        return KIND_AGENT if agent else KIND_CHAT
    if who == WHO_IMPORT:
        return KIND_IMPORT
    return KIND_OUTSIDE if how == HOW_OUTSIDE else KIND_PERSON


@dataclass(frozen=True)
class Writer:
    """One writer of some rows, in the three places a sentence names it."""

    kind: str
    title: str  # a group's heading: "Claude Code, session 0b7e5d0c", 'scout in chat "Lisbon trip"', "You (in the app)"
    by: str  # after a count of changes: "by Claude Code in session 0b7e5d0c", "made outside the app"
    whole: str  # what undoing them all takes back: "the whole run of scout", 'everything scout wrote in chat "X"'
    one_run: bool = False  # the rows carry one run id: undone as a run (an upkeep run, a session, the guard's undo)

    def changes(self, count: int, files: Sequence[str] = ()) -> str:
        """ "2 changes to MEMORY.md by Claude Code in session 0b7e5d0c" (the files, when given, in their order)."""
        to = f" to {', '.join(files)}" if files else ""
        return f"{plural(count, 'change')}{to} {self.by}"

    def undo_button(self, count: int) -> str:
        """The button that undoes them all: "Undo run", "Undo session", "Undo 3 changes"."""
        if self.one_run:
            return "Undo session" if self.kind == KIND_AGENT else "Undo run"
        return f"Undo {plural(count, 'change')}"


def how_words(how: str) -> str:
    return HOW_WORDS.get(how, how)


def writer_of(rows: Sequence[Written], bot: str) -> Writer:
    """The writer of rows one writer made to `bot` (a bot's id, or a person's layer of it), as the first row names
    it; an upkeep run's steps and a person's hows are each said once, in the order they came."""
    first = rows[0] if rows else None
    if first is None:
        return Writer(KIND_UPKEEP, "Memory upkeep", "by Memory upkeep", f"the whole run of {bot}")
    bot_id, layer = split_layer(bot)
    kind = kind_of(first.who, first.how, first.chat, first.person)
    writer = _writer(kind, rows, bot_id, layer, _day(first.at))
    one_run = bool(first.run) and kind in (KIND_UPKEEP, KIND_GUARD, KIND_AGENT)
    if layer is None:
        return Writer(kind, writer.title, writer.by, writer.whole, one_run)
    return Writer(
        kind, f"{writer.title}, in {layer}'s layer", f"{writer.by}, in {layer}'s layer", writer.whole, one_run
    )


def row_words(row: Written, bot: str, titles: Mapping[str, str] | None = None) -> str:
    """One row's writer as a listing names it: 'scout in chat "Lisbon trip"', "You (from the command line)";
    `titles`: chat id -> the conversation's title, named instead of the id where the listing knows it."""
    writer = writer_of([row], bot)
    title = (titles or {}).get(row.chat or "")
    if not title or not row.chat:
        return writer.title
    if writer.kind == KIND_AGENT:  # the session's chat by its title ("Claude Code in trips"), not its id
        client = _session(row.chat)[0]
        # a title that names the client already ("Claude Code in trips") is not said after it a second time
        return f'chat "{title}"' if title.startswith(client) else f'{client} in chat "{title}"'
    return writer.title.replace(f'"{row.chat}"', f'"{title}"')


def _writer(kind: str, rows: Sequence[Written], bot_id: str, layer: str | None, day: str) -> Writer:
    """`layer`: whose layer of the bot the rows changed (None: the bot's own); `day`: the first row's local day."""
    space = bot_id if layer is None else f"{layer}'s layer of {bot_id}"  # people/layers.workspace_words
    chat = rows[0].chat
    if kind == KIND_UPKEEP:
        steps = ", ".join(dict.fromkeys(row.step or how_words(row.how) for row in rows))
        # rows of no run (an earlier version's) are undone as a day's rows, as the person's are
        whole = f"the whole run of {space}" if rows[0].run else f"Memory upkeep's changes to {space} on {day}"
        return Writer(kind, f"Memory upkeep ({steps})", f"by Memory upkeep ({steps})", whole)
    if kind == KIND_GUARD:
        guard = "the nightly guard (an undo)"
        whole = (
            f"the nightly guard's undo on {space}" if rows[0].run else f"the nightly guard's undos on {space} on {day}"
        )
        return Writer(kind, guard[:1].upper() + guard[1:], f"by {guard}", whole)
    if kind == KIND_AGENT and chat:
        client, session = _session(chat)
        whole = f"the whole session of {client} on {space}" if rows[0].run else f"what {client} wrote to {space}"
        return Writer(kind, f"{client}, {session}", f"by {client} in {session}", whole)
    if chat:
        where = f'in chat "{chat}"'
        whole = f"everything {bot_id} wrote {where}" + (f" in {layer}'s layer" if layer else "")
        return Writer(kind, f"{bot_id} {where}", f"by {bot_id} {where}", whole)
    if kind in (KIND_CHAT, KIND_AGENT):
        whole = f"everything {space} wrote in tasks on {day}"
        return Writer(kind, f"{bot_id}, in a task", f"by {bot_id} in a task", whole)
    if kind == KIND_OUTSIDE:
        whole = f"the edits made outside the app to {space} on {day}"
        return Writer(kind, "Changed outside the app", "made outside the app", whole)
    if kind == KIND_IMPORT:
        whole = f"what an import copied into {space} on {day}"
        return Writer(kind, "Copied in (import)", "copied in by an import", whole)
    hows = ", ".join(dict.fromkeys(how_words(row.how) for row in rows))
    if kind == KIND_MEMBER:
        name = rows[0].person or "a person"
        return Writer(kind, f"{name} ({hows})", f"by {name} ({hows})", f"{name}'s edits to {space} on {day}")
    return Writer(kind, f"You ({hows})", f"by you ({hows})", f"your edits to {space} on {day}")


def _session(chat: str) -> tuple[str, str]:
    """An agent's chat as (who, which session): ("Claude Code", "session 0b7e5d0c"), ("Zed", "MCP session …")."""
    for agent in AGENTS.values():
        if chat.startswith(agent.prefix):
            return agent.name, f"session {chat.removeprefix(agent.prefix)[:8]}"
    client, _, session = chat.partition(MCP_CHAT)
    return client, f"MCP session {session.removesuffix(')')}"


def _day(at: str) -> str:
    """A row's local day, as the groups of no run are dated."""
    try:
        return datetime.fromisoformat(at).astimezone().date().isoformat()
    except (TypeError, ValueError):
        return at[:10]
