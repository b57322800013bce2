"""The front door for a bot harness: `from omb_tui import Memory`, one import for a bot's memory.

Spec: memory.md, "What loads, and the budget" (the prompt block and the gauge), "Remember and forget, in chat"
(remember, forget, prefer), "Recall before each turn" (recall), "What a bot knows about its other conversations"
(search and the recent-work brief) and "The journal" (the turn boundary: what the bot changed during a turn is
journaled as its own). Each method is what the command of the same name does (`omb-tui prompt`, `gauge`,
`remember`, …) and returns the core's own result; docs/library.md shows it whole.

    memory = Memory()                                   # --home's rule: the path, else $OMB_HOME, else ~/.openmausbot
    scout = memory.bot("scout")
    with scout.turn(chat="plans") as turn:
        system_prompt = turn.prompt()                   # the memory block, as `omb-tui prompt scout`
        turn.remember("Prefers the window seat")        # as the bot, during a task, in chat "plans"

Reading never writes: a change made outside the app since the last look is journaled, as the person's, by the
next write or turn (so a read inside a turn cannot take the bot's own edits for someone else's).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path

from .core.files.paths import Home, InvalidName, LinkRefused, MemoryInputError, NotFound, OutsideWorkspace
from .core.journal.changes import Actor, StaleHash
from .core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON, JournalRow
from .core.memory.budget import Gauge
from .core.memory.memory_update import AddResult, ForgetResult, MemoryUpdate, PreferResult
from .core.memory.preference import said_again
from .core.memory.settings import BrokenFile
from .core.memory.store import MemoryStore
from .core.people.layers import require_person
from .core.recall.recall import RecallResult, recall
from .core.search.brief import Brief, recent_work_brief
from .core.search.session_search import DEFAULT_LIMIT, SearchResult, session_search
from .core.turn.bot import Bot
from .core.turn.person_turn import update_target
from .core.turn.tools import TurnStart, note_source, turn_start
from .core.turn.turn import BotTurn, bot_turn

__all__ = [
    "Memory",
    "BotMemory",
    "Turn",
    # who wrote a change, as journal rows say it
    "Actor",
    # the core's results, returned as they are
    "AddResult",
    "ForgetResult",
    "PreferResult",
    "Gauge",
    "RecallResult",
    "SearchResult",
    "Brief",
    "JournalRow",
    # the core's errors: every one a MemoryInputError, whose message is one sentence for a person
    "MemoryInputError",
    "InvalidName",
    "NotFound",
    "OutsideWorkspace",
    "LinkRefused",
    "BrokenFile",
    "StaleHash",
]

COMMAND_LINE = Actor(WHO_PERSON, HOW_COMMAND_LINE)  # who `omb-tui remember/forget/prefer` write as
Progress = Callable[[int, int], None]  # (files read, files to read) of a long index update


class Memory:
    """A home: every bot's memory under one folder (spec "Where it lives"). Holds nothing but the path."""

    def __init__(self, home: str | os.PathLike[str] | Home | None = None) -> None:
        """`home`: the folder, else `$OMB_HOME`, else `~/.openmausbot` (as the command line's `--home`).
        Nothing is created: a bot that is not there is refused by `bot()`, naming the folder."""
        self.home = Home.of(home)

    def __repr__(self) -> str:
        return f"Memory({str(self.home.root)!r})"

    @property
    def root(self) -> Path:
        return self.home.root

    def bot_ids(self) -> list[str]:
        """Every bot of the home (a workspace or a settings file), sorted."""
        return self.home.bot_ids()

    def bot(self, bot_id: str, *, must_exist: bool = True, person: str | None = None) -> BotMemory:
        """One bot's memory. NotFound when the home has no such bot, unless `must_exist` is False (a bot whose
        first turn is still to come: the turn makes its workspace); InvalidName for an id that cannot be one.
        `person`: the bot as it works for that person of a Team Cloud home (NotFound unless the home has them):
        its prompt, recall, search and turns read their layer too (docs/team-cloud.md)."""
        return BotMemory(self.home, bot_id, must_exist=must_exist, person=person)


class BotMemory:
    """One bot's memory, as the command line reaches it. Writes are the person's from the command line unless
    an `actor` says otherwise; inside `turn()`, the turn's methods write as the bot."""

    def __init__(self, home: Home, bot_id: str, *, must_exist: bool = True, person: str | None = None) -> None:
        self.core = Bot(home, bot_id, must_exist=must_exist)  # the engine's Bot, for everything else
        self.person = require_person(home, person) if person is not None else None  # a Team Cloud person

    def __repr__(self) -> str:
        return f"BotMemory({str(self.home.root)!r}, {self.id!r})"

    @property
    def id(self) -> str:
        return self.core.id

    @property
    def home(self) -> Home:
        return self.core.home

    @property
    def memory_on(self) -> bool:
        """ "Let this bot use memory": off, nothing loads, recall is skipped and search leaves memory files out."""
        return self.core.settings.memory

    # ----- what loads -----
    def prompt(self, as_of: date | None = None) -> str:
        """The memory block exactly as `omb-tui prompt BOT [--as-of DATE]` prints it: what loads into the
        system prompt that day (today by default), the bot's teams' blocks after it; "" with memory off. For a
        person (`bot(..., person=)`): their layer after the bot's own block."""
        return self.core.loaded_prompt(as_of, person=self.person).block

    def gauge(self) -> Gauge:
        """MEMORY.md against the load budget, as `omb-tui gauge BOT --json`."""
        return self.core.gauge()

    # ----- remember, forget, prefer -----
    def remember(
        self, text: str, *, until: date | None = None, chat: str | None = None, actor: Actor | None = None
    ) -> AddResult:
        """One dated note into MEMORY.md, as `omb-tui remember BOT TEXT [--until DATE] [--chat NAME]`: older
        notes move to the archive when the budget needs it. `chat` is where the note came from (`from chat
        "NAME"`); `actor` who the journal row names (default: the person, from the command line)."""
        return self._update(actor).add(text, chat=chat, until=until)

    def forget(self, words: str, *, include_about_me: bool = True, actor: Actor | None = None) -> ForgetResult:
        """Remove every note that mentions all the words as whole words, from every memory file and About me, as
        `omb-tui forget BOT WORDS…`; the words are kept so that no bot learns them again."""
        return self._update(actor).forget(words, include_about_me=include_about_me)

    def prefer(self, text: str, *, actor: Actor | None = None, again: bool = False) -> PreferResult:
        """A standing preference (one line, at most 300 characters) into About me, once, as `omb-tui prefer`; a
        fact the person removed from About me only with `again` (`refused` says so otherwise)."""
        return self._update(actor).prefer(text, again=again)

    def _update(self, actor: Actor | None, store: MemoryStore | None = None) -> MemoryUpdate:
        return MemoryUpdate(self.home, self.id, actor or COMMAND_LINE, store=store)

    # ----- recall and search -----
    def recall(
        self, message: str, *, chat: str | None = None, kind: str | None = None, progress: Progress | None = None
    ) -> RecallResult:
        """What recall puts in front of `message`, as `omb-tui recall BOT MESSAGE [--chat ID] [--kind KIND]`:
        `.block` is that text ("" when nothing). `chat` names the conversation the message arrives in (its own
        data then decides who started the turn); without it `kind` does (default `person`, a 1:1 chat)."""
        return recall(
            self.home,
            self.id,
            message,
            chat_id=chat,
            kind=kind,
            progress=progress,
            person=self.person,
            for_person=self.person,
        )

    def search(
        self,
        words: str | None = None,
        *,
        since: str | date | datetime | None = None,
        until: str | date | datetime | None = None,
        chat: str | None = None,
        limit: int = DEFAULT_LIMIT,
        scope: str = "all",
        progress: Progress | None = None,
    ) -> SearchResult:
        """`session_search` over the bot's chats, rooms, memory files and team notes, as `omb-tui search`.
        `since`/`until`: `24h`, `3d`, `yesterday`, a date or a datetime; `chat`: the conversation searching
        (from a room, hits from private chats are marked); `scope` "team": only the teams' accepted notes."""
        if limit < 1:
            raise MemoryInputError("The limit must be 1 or more.")
        return session_search(
            self.home,
            self.id,
            words or None,
            since=since,
            until=until,
            chat_id=chat,
            limit=limit,
            scope=scope,
            progress=progress,
            for_person=self.person,
        )

    def brief(self, chat: str | None = None) -> Brief:
        """The recent-work brief for the system prompt, as `omb-tui brief BOT [--chat ID]`: the bot's other
        conversations of the last two days (`chat`, the current one, is never listed); for a person, only theirs."""
        return recent_work_brief(self.home, self.id, chat_id=chat, for_person=self.person)

    # ----- the turn boundary -----
    @contextlib.contextmanager
    def turn(self, *, chat: str | None = None, run: str | None = None, person: str | None = None) -> Iterator[Turn]:
        """Wrap one turn of the bot (the core's `bot_turn`): at its start every memory file is noted, at its end
        whatever differs is journaled as the bot's work during a task in `chat`, even when the block raises.
        The bot's turn lock is held shared meanwhile, so upkeep leaves the bot alone. `run`: an id every row of
        the turn carries, the same for each turn of a session, so review lists the session as one run. `person`:
        the person of a Team Cloud home the turn acts for (NotFound unless the home has them): their layer loads
        after the bot's, recall and search read it, and what is about them is kept there (docs/team-cloud.md)."""
        person = self.person if person is None else require_person(self.home, person)
        with bot_turn(self.home, self.id, chat=chat, run=run) as core:
            yield Turn(self, core, person)


class Turn:
    """One turn while it runs: what it writes is journaled as the bot's, during a task, in the turn's chat.

    `chat` names the conversation in the home (docs/conversations.md) that recall, search and the brief read;
    a harness that keeps its conversations elsewhere calls the bot's `recall(message, kind=…)` instead."""

    def __init__(self, bot: BotMemory, core: BotTurn, person: str | None = None) -> None:
        self.bot = bot
        self.core = core  # the engine's BotTurn: its store writes as the bot (for `run_tool(..., store=)`)
        self.person = person  # a Team Cloud person the turn acts for (None: the owner's, any home)

    def __repr__(self) -> str:
        return f"Turn({self.bot.id!r}, chat={self.chat!r})"

    @property
    def chat(self) -> str | None:
        return self.core.chat

    @property
    def actor(self) -> Actor:
        """Who the turn's writes are journaled as: the bot, during a task, in the turn's chat."""
        return self.core.actor

    @property
    def rows(self) -> list[JournalRow]:
        """The rows journaled when the turn ended (the bot's own edits to its files); empty until then. A write
        through remember, forget or prefer is journaled at once, by its own row."""
        return self.core.rows

    def prompt(self, as_of: date | None = None) -> str:
        """The bot's block, then (acting for a person) that person's layer."""
        return self.bot.core.loaded_prompt(as_of, person=self.person).block

    def recall(self, message: str, *, kind: str | None = None) -> RecallResult:
        """What recall puts in front of `message` in the turn's chat (NotFound when the home has no such
        conversation); acting for a person, their layer's notes too and only their conversations."""
        return recall(
            self.bot.home,
            self.bot.id,
            message,
            chat_id=self.chat,
            kind=kind,
            person=self.person,
            for_person=self.person,
        )

    def search(
        self,
        words: str | None = None,
        *,
        since: str | date | datetime | None = None,
        until: str | date | datetime | None = None,
        limit: int = DEFAULT_LIMIT,
        scope: str = "all",
    ) -> SearchResult:
        if limit < 1:
            raise MemoryInputError("The limit must be 1 or more.")
        return session_search(
            self.bot.home,
            self.bot.id,
            words or None,
            since=since,
            until=until,
            chat_id=self.chat,
            limit=limit,
            scope=scope,
            for_person=self.person,
        )

    def brief(self) -> Brief:
        return recent_work_brief(self.bot.home, self.bot.id, chat_id=self.chat, for_person=self.person)

    def remember(self, text: str, *, until: date | None = None, about: str | None = None) -> AddResult:
        """As the bot's `memory_update` add: the note says `from chat "<the conversation's title>"` (the chat's id
        when the home holds no such conversation), and its row names the bot, during a task, in this chat.
        Acting for a person: into their layer, or with `about="work"` the bot's shared memory."""
        start = self._start()
        source = note_source(start.title) if start is not None and start.title is not None else None
        return self._update("add", about).add(text, chat=source, until=until)

    def forget(self, words: str, *, include_about_me: bool | None = None, about: str | None = None) -> ForgetResult:
        """As the bot's `memory_update` forget. About me too only when `include_about_me` says so, or by default as
        the bot's own tool decides: in the person's own 1:1 chat (or a turn with no chat), never in a room, a
        routine's run or a conversation the home does not hold."""
        if include_about_me is None:
            start = self._start()
            include_about_me = start is not None and start.own_chat
        return self._update("forget", about).forget(words, include_about_me=include_about_me)

    def prefer(self, text: str) -> PreferResult:
        """As `omb-tui prefer`, journaled as the bot. (The bot's own tool saves a preference only when a person's
        message began the work: a harness that passes on the bot's request checks that first.) A fact the person
        removed from About me is saved again only when the person's message of this turn states it once more."""
        start = self._start()
        again = said_again(text, start.words if start is not None else None)
        return self._update("prefer", None).prefer(text, again=again)

    def _update(self, action: str, about: str | None) -> MemoryUpdate:
        """The update of this turn: the bot's own store, or (acting for a person) their layer's."""
        target = update_target(self.bot.id, self.person, action, about)
        if target == self.bot.id:
            return self.bot._update(self.actor, self.core.store)
        return MemoryUpdate(
            self.bot.home, target, self.actor, store=MemoryStore(self.bot.home, target, changes_found_by=self.actor)
        )

    def _start(self) -> TurnStart | None:
        """Who began the work this turn answers, read from the conversation; None when the home has no such one."""
        try:
            return turn_start(self.bot.home, self.bot.id, self.chat)
        except NotFound:
            return None
