"""`omb-tui bot BOT set KEY VALUE|duplicate|backup|restore`: a bot as a whole — its switches, a copy of it, and
every bot of a home kept in one file and put back (docs/backup.md).

Spec: memory.md, "The helper model" ("Keeping one bot off the helper": the `helperModel` switch, saved with the
bot, kept by **Duplicate**, carried by a full backup) and "Memory upkeep" ("Upkeep pauses while a backup runs").
"""

from __future__ import annotations

import argparse
import os
import sys

from ..core.base.text import plural
from .common import CliError, add_command, given, print_error, subcommands
from .output import one_line, print_json

TRUE_WORDS = ("true", "on", "yes", "1")
FALSE_WORDS = ("false", "off", "no", "0")
NULL_WORDS = ("null", "unset", "none")
PASSPHRASE_VARIABLE = "OMB_BACKUP_PASSPHRASE"


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
    p.add_argument("--name", type=given, metavar="NAME", help="the copy's name (default: the bot's name and (copy))")

    p = add_command(
        subparsers,
        "backup",
        cmd_backup,
        "Back up bots (every bot, or those --bot names, each with people's layers of it; --all adds About me, "
        "each person's own files, teams and config.json without its keys, never a token) to one file, encrypted "
        "with age for --recipient or --passphrase.",
        json=True,
        bot=False,
    )
    p.add_argument(
        "--bot", dest="bots", type=given, action="extend", nargs="+", default=[], metavar="ID", help="only these bots"
    )
    p.add_argument(
        "--all", dest="everything", action="store_true", help="every bot and the home's own files (a full backup)"
    )
    p.add_argument("--to", type=given, required=True, metavar="FILE", help="the backup file to write (0600)")
    encryption_options(p, recipients=True)
    p = add_command(
        subparsers,
        "restore",
        cmd_restore,
        "Restore a backup: every hash checked before anything is written; a bot the home has is refused unless "
        "--replace (journaled, undoable) or --as.",
        json=True,
        bot=False,
    )
    p.add_argument("file", metavar="FILE", help="the backup file")
    p.add_argument(
        "--bot", dest="bots", type=given, action="extend", nargs="+", default=[], metavar="ID", help="only these bots"
    )
    p.add_argument("--as", type=given, dest="as_id", metavar="NEW_ID", help="restore the one bot chosen under this id")
    p.add_argument(
        "--replace", action="store_true", help="replace bots (and home files) the home has; what they had is journaled"
    )
    encryption_options(p, recipients=False)
    p.set_defaults(creates_home=True)  # restoring into a new home is how a bot moves to another machine


def encryption_options(parser: argparse.ArgumentParser, *, recipients: bool) -> None:
    group = parser.add_mutually_exclusive_group()
    if recipients:
        group.add_argument(
            "--recipient",
            dest="recipients",
            action="extend",
            nargs="+",
            default=[],
            metavar="AGE_PUBLIC_KEY",
            help="encrypt for this age public key (age1…) or SSH public key; repeat for more",
        )
    else:
        group.add_argument(
            "--identity", metavar="FILE", help="the age identity file (age-keygen's) to decrypt a --recipient backup"
        )
    group.add_argument(
        "--passphrase",
        action="store_true",
        help=f"{'encrypt' if recipients else 'decrypt'} with a passphrase read from ${PASSPHRASE_VARIABLE}, else stdin",
    )


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
    from ..core.files.paths import Home
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
    from ..core.files.paths import Home

    copied = duplicate_bot(Home(args.home), args.bot, args.new_id, args.name)
    if args.json:
        print_json(copied.to_dict())
    else:
        helper = "" if copied.helper_model else "; it stays off the helper model, as the bot is"
        print(f"Copied {copied.source} as {copied.bot} ({copied.name}): {plural(len(copied.files), 'file')}{helper}.")
    return 0


def read_passphrase(*, twice: bool) -> str:
    """The passphrase: $OMB_BACKUP_PASSPHRASE, else stdin (asked for, twice for a backup, when stdin is a
    terminal; else its first line)."""
    passphrase = os.environ.get(PASSPHRASE_VARIABLE)
    if passphrase is None:
        if sys.stdin.isatty():
            import getpass

            passphrase = getpass.getpass("Passphrase: ")
            if twice and getpass.getpass("The same passphrase again: ") != passphrase:
                raise CliError("The two passphrases differ; nothing was written.")
        else:
            passphrase = sys.stdin.readline().removesuffix("\n").removesuffix("\r")
    if not passphrase:
        raise CliError(f"The passphrase is empty: give it on stdin or in ${PASSPHRASE_VARIABLE}.")
    return passphrase


def cmd_backup(args: argparse.Namespace) -> int:
    from ..core.backup.archive import take_backup
    from ..core.files.paths import Home

    passphrase = read_passphrase(twice=True) if args.passphrase else None
    report = take_backup(
        Home(args.home),
        args.to,
        bots=args.bots,
        everything=args.everything,
        recipients=args.recipients,
        passphrase=passphrase,
    )
    return said_backup(
        report, args, plural(len(report.bots), "bot") + (" and the home's own files" if report.kind == "home" else "")
    )


def said_backup(report, args: argparse.Namespace, what: str) -> int:
    """What a backup (or a team's backup or package) wrote: a warning on stderr when it is plain, then JSON or
    lines."""
    if not report.encrypted:
        print_error(
            f"warning: {report.path} is not encrypted: whoever can read it reads everything in it; give "
            "--recipient or --passphrase to encrypt it with age."
        )
    if args.json:
        print_json(report.to_dict())
        return 0
    how = "encrypted with age" if report.encrypted else "not encrypted"
    size = plural(report.bytes, "byte", grouped=True)
    print(one_line(f"Backed up {what} ({plural(report.files, 'file')}, {size}) to {report.path}, {how}."))
    if report.layers:
        layers = ", ".join(f"{layer['person']}'s of {layer['bot']}" for layer in report.layers)
        print(one_line(f"People's own layers of the bots are in it ({layers}); never their tokens."))
    if report.redacted:
        print(f"{plural(len(report.redacted), 'file')} held a credential; the backup has it redacted.")
    for reason in report.left_out:
        print(f"Left out {reason}.")
    if report.environment:
        print(f"Keys are never in a backup: where you restore it, set {', '.join(report.environment)}.")
    return 0


def open_backup(args: argparse.Namespace):
    """The backup file FILE names, decrypted with --passphrase or --identity and checked whole."""
    from pathlib import Path

    from ..core.backup.archive import identities_in, read_backup

    passphrase = read_passphrase(twice=False) if args.passphrase else None
    identities = identities_in(Path(args.identity).read_text(encoding="utf-8")) if args.identity else []
    if args.identity and not identities:
        raise CliError(f"{args.identity} holds no age identity (AGE-SECRET-KEY-1…) or SSH private key.")
    return read_backup(Path(args.file), passphrase=passphrase, identities=identities)


def cmd_restore(args: argparse.Namespace) -> int:
    from ..core.backup.restore import restore
    from ..core.files.paths import Home

    report = restore(Home(args.home), open_backup(args), bots=args.bots, as_id=args.as_id, replace=args.replace)
    if args.json:
        print_json(report.to_dict())
    else:
        said_restore(report)
    return 0


def said_restore(report) -> None:
    if report.finished:
        print_error(report.finished)
    for bot in report.bots:
        name = bot["bot"] if bot["from"] == bot["bot"] else f"{bot['from']} as {bot['bot']}"
        verb = "Replaced" if bot["replaced"] else "Restored"
        rows = plural(bot["import_rows"], "import row")
        print(f"{verb} {name}: {plural(bot['files'], 'file')}, {rows} in its journal.")
    for layer in report.layers:
        bot = layer["bot"] if layer["from"] == layer["bot"] else f"{layer['from']} as {layer['bot']}"
        verb = "Replaced" if layer["replaced"] else "Restored"
        rows = plural(layer["import_rows"], "import row")
        print(f"{verb} {layer['person']}'s layer of {bot}: {plural(layer['files'], 'file')}, {rows} in its journal.")
    for person in report.people_to_add:
        print(
            f"{person} is not a person of this home (a backup never holds a token): `omb-tui people add {person}` "
            "gives them a new one, and their layers are theirs again."
        )
    if report.home_files:
        print(f"Restored the home's {', '.join(report.home_files)}.")
    for kept in report.kept:
        print(f"Kept {kept} as this home has it (a room other bots may be talking in).")
    if report.environment:
        print(f"Keys are never in a backup: set {', '.join(report.environment)} for the instances in config.json.")
    if report.left_out_fields:
        fields = ", ".join(report.left_out_fields)
        print(one_line(f"config.json's {fields} held a secret and were left out of the backup: set them again."))
