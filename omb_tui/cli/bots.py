"""`omb-tui bot BOT set KEY VALUE|duplicate|backup|restore`: a bot as a whole — its switches, a copy of it, and
every bot of a home kept in one file and put back (docs/backup.md).

Spec: memory.md, "The helper model" ("Keeping one bot off the helper": the `helperModel` switch, saved with the
bot, kept by **Duplicate**, carried by a full backup) and "Memory upkeep" ("Upkeep pauses while a backup runs").
"""

from __future__ import annotations

import argparse

from ..core.memory.text import plural
from .common import add_command, subcommands
from .output import print_json

TRUE_WORDS = ("true", "on", "yes", "1")
FALSE_WORDS = ("false", "off", "no", "0")
NULL_WORDS = ("null", "unset", "none")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "bot", None, "A bot's switches: memory, upkeep, helperModel and compaction's.")
    sub = subcommands(parser, "ACTION", required=True)
    p = add_command(
        sub,
        "set",
        cmd_bot_set,
        "Set one switch: memory, upkeep, helperModel, compactNightly (true or false) or compactProposeOnly (true, "
        "false or null: only in the first week).",
        json=True,
        bot=False,
    )
    p.add_argument("key", metavar="KEY", help="memory, upkeep, helperModel, compactNightly or compactProposeOnly")
    p.add_argument("value", metavar="VALUE", help="true or false (on/off, yes/no); null for compactProposeOnly")

    p = add_command(
        subparsers,
        "duplicate",
        cmd_duplicate,
        "Copy a bot under a new id: its settings (helperModel too) and workspace; no conversations, and a journal "
        "that starts with one import row.",
        json=True,
    )
    p.add_argument("new_id", metavar="NEW_ID", help="the copy's id (letters, numbers, dashes, underscores)")
    p.add_argument("--name", metavar="NAME", help="the copy's name (default: the bot's name and (copy))")


def switch_value(word: str) -> bool | None | str:
    """A switch's value as typed: true/false (on/off, yes/no, 1/0) or null; anything else is passed on as typed,
    so the core's check names the switch and what it takes."""
    lowered = word.strip().lower()
    if lowered in TRUE_WORDS:
        return True
    if lowered in FALSE_WORDS:
        return False
    if lowered in NULL_WORDS:
        return None
    return word


def switch_name(word: str) -> str:
    """The switch a KEY names: as the routes and the settings file spell it (helperModel), or with dashes or
    underscores (helper-model, helper_model); an unknown one is passed on for the core to refuse by name."""
    from ..core.memory.settings import BOT_SWITCHES

    folded = {name.lower(): name for name in BOT_SWITCHES}
    return folded.get(word.replace("-", "").replace("_", "").lower(), word)


def cmd_bot_set(args: argparse.Namespace) -> int:
    from ..core.memory.paths import Home
    from ..core.memory.settings import set_bot_switches

    key = switch_name(args.key)
    settings = set_bot_switches(Home(args.home), args.bot, {key: switch_value(args.value)})
    saved = settings.to_dict()
    if args.json:
        print_json({"bot": settings.id, **saved})
    else:
        print(f"{settings.id}: {key} is {_said(saved[key])}.")
    return 0


def _said(value: object) -> str:
    if value is None:
        return "null (only in the first week of nightly runs)"
    return "true" if value else "false"


def cmd_duplicate(args: argparse.Namespace) -> int:
    from ..core.backup.duplicate import duplicate_bot
    from ..core.memory.paths import Home

    copied = duplicate_bot(Home(args.home), args.bot, args.new_id, args.name)
    if args.json:
        print_json(copied.to_dict())
    else:
        helper = "" if copied.helper_model else "; it stays off the helper model, as the bot is"
        print(f"Copied {copied.source} as {copied.bot} ({copied.name}): {plural(len(copied.files), 'file')}{helper}.")
    return 0
