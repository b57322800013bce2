"""One bot seen whole: its settings, files, gauge, prompt block and journal, for the CLI and the app.

Spec: memory.md, "What loads, and the budget" (the gauge and what loads) and "The journal" (every look
at a bot first journals what changed outside the app since the last look).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ..base import clock
from ..files.paths import MEMORY_FILE, Home, MemoryInputError, validate_bot_id
from ..journal.when import parse_day  # noqa: F401 (the recall screen's as-of day is read here)
from ..memory.budget import Gauge, TopicInfo, gauge, prompt_block_if_enabled, read_topics
from ..memory.settings import BotSettings, load_bot_settings
from ..memory.store import MemoryStore
from ..people.layers import person_block
from ..team.prompt import team_blocks


@dataclass(frozen=True)
class BotSummary:
    id: str
    name: str
    memory: bool
    upkeep: bool
    level: str
    lines: int
    bytes: int
    last_change: str | None  # ISO time of the newest journal row
    error: str | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class LoadedPrompt:
    memory_on: bool  # "Let this bot use memory"; off, nothing loads
    block: str  # the memory block as it goes into the system prompt; empty when memory is off


class Bot:
    def __init__(self, home: Home, bot_id: str, *, must_exist: bool = True) -> None:
        validate_bot_id(bot_id)
        if must_exist:
            home.require_bot(bot_id)
        self.home = home
        self.id = bot_id
        self.store = MemoryStore(home, bot_id)

    @property
    def settings(self) -> BotSettings:
        return load_bot_settings(self.home, self.id)

    @property
    def name(self) -> str:
        """The bot's name; its id when its settings file cannot be read (the screens that show settings
        say why), so a broken settings file never hides the bot's memory."""
        try:
            return self.settings.name
        except (MemoryInputError, OSError, ValueError):
            return self.id

    def look(self) -> None:
        """Journal changes made outside the app since the project last looked at this bot."""
        self.store.sync_outside_changes()

    def memory_text(self) -> str:
        return self.store.read(MEMORY_FILE).text

    def gauge(self) -> Gauge:
        return gauge(self.memory_text())

    def topics(self) -> list[TopicInfo]:
        return read_topics(self.home, self.id)

    def loaded_prompt(
        self,
        as_of: date | None = None,
        *,
        memory_text: str | None = None,
        topics: list[TopicInfo] | None = None,
        person: str | None = None,
    ) -> LoadedPrompt:
        """What loads into the system prompt on that date, with the memory switch read once to decide it.
        `memory_text` and `topics`: MEMORY.md and the topics when the caller has read them already. `person`: the
        person of a Team Cloud home the turn acts for; their layer loads after the bot's own block (layers.py)."""
        memory_on = self.settings.memory
        memory_text = self.memory_text() if memory_text is None else memory_text
        topics = self.topics() if topics is None else topics
        block = prompt_block_if_enabled(memory_on, memory_text, topics, as_of or clock.today())
        if memory_on and person is not None:
            block = f"{block}\n{person_block(self.home, self.id, person, as_of)}"
        if memory_on:  # the blocks of the teams the bot is a member of load after its own memory
            teams = team_blocks(self.home, self.id)
            block = f"{block}\n{teams}" if teams else block
        return LoadedPrompt(memory_on, block)

    def prompt(self, as_of: date | None = None, *, person: str | None = None) -> str:
        """The memory block exactly as it loads into the system prompt on that date (for `person`: with their
        layer); empty when memory is off."""
        return self.loaded_prompt(as_of, person=person).block

    def summary(self) -> BotSummary:
        try:
            settings = self.settings
            error = None
        except MemoryInputError as exc:  # a broken settings file still lists the bot, with why
            settings, error = BotSettings(id=self.id, name=self.id), str(exc)
        try:
            g = self.gauge()
        except (MemoryInputError, OSError) as exc:  # a MEMORY.md that leads out, or is a folder
            g, error = gauge(""), error or str(exc)
        newest = self.store.journal.rows(limit=1)
        return BotSummary(
            id=self.id,
            name=settings.name,
            memory=settings.memory,
            upkeep=settings.upkeep,
            level=g.level,
            lines=g.lines,
            bytes=g.bytes,
            last_change=newest[0].at if newest else None,
            error=error,
        )


def all_bots(home: Home) -> list[Bot]:
    return [Bot(home, bot_id, must_exist=False) for bot_id in home.bot_ids()]
