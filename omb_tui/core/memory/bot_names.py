"""Every bot's id, name and memory switch, read fast from the settings files alone (json and the paths).

For the app's first frame, which lists the bots before the engine (the store, redaction, the journal) is
imported: a few milliseconds against ~40 ms of imports. The full summary (`core.turn.bot`, `Bot.summary`) follows
and has the last word, on a broken settings file too; so here anything unreadable simply shows the id.
Spec: memory.md, "Where it lives" (each bot's settings file). On the memory floor: it reads files, and the app
imports it before anything else of the core.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..base.text import printable
from ..files.paths import Home


@dataclass(frozen=True)
class BotName:
    id: str
    name: str
    memory: bool  # "Let this bot use memory"


def bot_names(home: Home, most: int | None = None) -> list[BotName]:
    """Each bot (the first `most` of them), in the order of `Home.bot_ids`, named as its settings name it
    (as `load_bot_settings` does)."""
    return [_read_name(home, bot_id) for bot_id in home.bot_ids()[:most]]


def _read_name(home: Home, bot_id: str) -> BotName:
    try:
        data = json.loads(home.settings_path(bot_id).read_bytes())
    except (OSError, ValueError):  # no settings file (defaults), or one the full read will flag
        data = None
    if not isinstance(data, dict):
        return BotName(bot_id, bot_id, True)
    name, memory = data.get("name"), data.get("memory", True)
    return BotName(
        bot_id,
        printable(name) if isinstance(name, str) and name else bot_id,
        memory if isinstance(memory, bool) else True,
    )
