"""A heavy bot: the person's own text it loads every turn passes 24 KB, and at least 8 KB of it is memory.

Spec: memory.md, "Memory upkeep" ("A heavy bot"): the bot's settings then show *This bot loads a lot every
turn.* with **Tidy memory**; with Memory or its upkeep off the line never shows. Of the texts the spec names
(memory, its instructions, About me, rules for every bot, a department's shared context) this project keeps
two: the memory block exactly as it loads (MEMORY.md up to its cut and the topic index) and About me.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ..files.disk import read_text
from ..memory.budget import utf8_size

HEAVY_TOTAL_BYTES = 24 * 1024  # what loads every turn passes this ...
HEAVY_MEMORY_BYTES = 8 * 1024  # ... and at least this much of it is memory


@dataclass(frozen=True)
class LoadedEveryTurn:
    """UTF-8 bytes of the person's own text a bot loads into every turn, and whether it may be called heavy."""

    memory: int  # the memory block as it loads; 0 with memory off
    about_me: int
    upkeep_on: bool  # Memory and Memory upkeep both on

    @property
    def total(self) -> int:
        return self.memory + self.about_me

    @property
    def heavy(self) -> bool:
        return self.upkeep_on and self.total > HEAVY_TOTAL_BYTES and self.memory >= HEAVY_MEMORY_BYTES


def loaded_every_turn(bot, today: date | None = None) -> LoadedEveryTurn:
    """Measure `bot` (a core.turn.bot.Bot); a settings file that cannot be read raises, as Bot.settings does."""
    settings = bot.settings
    try:
        about_me = utf8_size(read_text(bot.home.about_me_path))
    except FileNotFoundError:
        about_me = 0
    return LoadedEveryTurn(
        memory=utf8_size(bot.prompt(today)), about_me=about_me, upkeep_on=settings.memory and settings.upkeep
    )
