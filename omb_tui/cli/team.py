"""`omb-tui team …`: shared team memory from the command line (docs/team.md).

The parser is built here without importing the core; each command imports it when it runs. A stale
`--revision` exits 3 printing the current revision; a missing one exits 2 naming `--revision` (argparse).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, NamedTuple

from ..core.base.text import plural
from .bots import encryption_options, read_passphrase, said_backup, said_restore
from .common import Handler, add_command, subcommands
from .output import one_line, print_json, write_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "team",
        None,
        "Shared team memory: teams of bots, their reviewed notes and pending cards.",
        bot=False,
    )
    sub = subcommands(parser, "COMMAND", required=True)

    def add(
        name: str, handler: Handler, help_text: str, *, key: bool = False, revision: bool = False, team: bool = True
    ) -> argparse.ArgumentParser:
        p = add_command(sub, name, handler, help_text, json=True, bot=False)
        if team:
            p.add_argument("team", metavar="TEAM", help="the team's name or key")
        if key:
            p.add_argument("key", metavar="KEY", help="the note's key, such as tapa/sequence-02/colour")
        if revision:
            p.add_argument(
                "--revision",
                type=int,
                metavar="N",
                required=True,
                help="the revision you read (`team show`); a stale one exits 3",
            )
        return p

    p = add("create", _create, "Create a team of bots that share reviewed notes.", team=False)
    p.add_argument("name", metavar="NAME")
    p.add_argument("--bots", metavar="ID,ID", default="", help="the member bots' ids, separated by commas")
    p = add("rename", _rename, "Rename a team (its notes and pending cards stay).")
    p.add_argument("new_name", metavar="NEW")
    p = add(
        "members", _members, "List a team's member bots, or change them with --add and --remove (notes and cards stay)."
    )
    p.add_argument(
        "--add",
        action="append",
        default=[],
        metavar="ID[,ID]",
        help="a bot to make a member (repeat it, or separate ids with commas)",
    )
    p.add_argument(
        "--remove",
        action="append",
        default=[],
        metavar="ID[,ID]",
        help="a member bot to take out of the team (repeat it, or separate ids with commas)",
    )
    add("delete", _delete, "Delete a team: no bot loads its notes again; the file stays on disk (not a secure erase).")
    add("list", _list, "List the teams.", team=False)
    p = add(
        "propose", _propose, "Propose a note as a pending card (a person's proposal; bots use their team_note tool)."
    )
    p.add_argument("--key", required=True, metavar="KEY", help="the note's key, such as tapa/sequence-02/colour")
    p.add_argument("--title", required=True, metavar="TITLE")
    p.add_argument("text", metavar="TEXT")
    add("show", _show, "The team's accepted notes (which load), pending cards and deleted notes.")
    for name in ("accept", "reject", "edit", "delete-note", "pin", "unpin"):
        add(name, _note_change(name), NOTE_CHANGES[name].help, key=True, revision=True)
    add("history", _history, "A note's earlier versions (up to 50), newest first.", key=True)
    p = add("restore", _note_change("restore"), NOTE_CHANGES["restore"].help, key=True, revision=True)
    p.add_argument("version", type=int, metavar="VERSION", help="the earlier version's revision (`team history`)")
    add("gauge", _gauge, "Bytes of the team's block against 6,000, and how many notes load.")
    add("prompt", _prompt, "Print the team's block exactly as it loads into every member's system prompt.")
    p = add("backup", _backup, "Back up the team: its notes with their history and cards, and its bots whole.")
    p.add_argument("--to", required=True, metavar="FILE", help="the backup file to write (0600)")
    encryption_options(p, recipients=True)
    p = add(
        "package",
        _package,
        "A shared team package: the accepted notes and the bots' instructions; no personal settings, no About me, "
        "no conversations, no helperModel.",
    )
    p.add_argument("--to", required=True, metavar="FILE", help="the package file to write (0600)")
    encryption_options(p, recipients=True)
    p = add("import", _import, "Import a team backup (its bots restored) or a shared team package.", team=False)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--replace", action="store_true", help="a team backup: replace bots the home has (journaled)")
    encryption_options(p, recipients=False)
    p.set_defaults(creates_home=True)


def _team_command(run: Callable[[Any, argparse.Namespace], int]) -> Handler:
    """A team command's handler: `run` with the home. Errors go up to cli.main, which prints one sentence (a stale
    revision exits 3); with --json a stale revision prints the current one first."""

    @wraps(run)
    def handler(args: argparse.Namespace) -> int:
        from ..core.files.paths import Home
        from ..core.team.notes import StaleRevision

        try:
            return run(Home(args.home), args)
        except StaleRevision as exc:
            if args.json:  # scripts get the current revision without parsing the sentence
                print_json({"error": str(exc), "current_revision": exc.current})
            raise

    return handler


@_team_command
def _create(home, args) -> int:
    from ..core.team.storage import create_team

    bots = _bot_ids([args.bots])
    team = create_team(home, args.name, bots)
    if args.json:
        print_json(team.summary())
    else:
        members = ", ".join(team.bots) or "no bots yet"
        print(one_line(f"Created the team {team.name!r} ({team.key}) with {members}."))
    return 0


@_team_command
def _rename(home, args) -> int:
    from ..core.team.storage import rename_team

    team = rename_team(home, args.team, args.new_name)
    print_json(team.summary()) if args.json else print(one_line(f"The team {team.key} is now {team.name!r}."))
    return 0


def _bot_ids(values: list[str]) -> list[str]:
    return [bot.strip() for value in values for bot in value.split(",") if bot.strip()]


@_team_command
def _members(home, args) -> int:
    from ..core.team.storage import change_members, get_team

    add, remove = _bot_ids(args.add), _bot_ids(args.remove)
    team = change_members(home, args.team, add=add, remove=remove) if add or remove else get_team(home, args.team)
    if args.json:
        print_json(team.summary())
    else:
        members = ", ".join(team.bots) or "no bots"
        print(one_line(f"The team {team.name!r} ({team.key}): {members}."))
    return 0


@_team_command
def _delete(home, args) -> int:
    from ..core.team.storage import delete_team

    team = delete_team(home, args.team)
    if args.json:
        print_json(team.summary())
    else:
        print(
            one_line(
                f"Deleted the team {team.name!r} ({team.key}): no bot loads its notes now. Its file stays "
                "on disk for recovery (this is not a secure erase)."
            )
        )
    return 0


@_team_command
def _list(home, args) -> int:
    from ..core.team.storage import list_teams

    teams = list_teams(home)
    if args.json:
        print_json([team.summary() for team in teams])
        return 0
    if not teams:
        print("No teams. Create one: omb-tui team create NAME --bots ID,ID")
    for team in teams:
        summary = team.summary()
        print(
            one_line(
                f"{team.key}  {team.name}  bots: {', '.join(team.bots) or 'none'}  "
                f"{plural(summary['accepted'], 'note')}, {summary['pending']} pending"
            )
        )
    return 0


@_team_command
def _propose(home, args) -> int:
    from ..core.team import api

    card = api.propose(home, args.team, args.key, args.title, args.text)
    if args.json:
        print_json(card.shown())
    else:
        print(
            one_line(
                f"Proposed {card.key} as a pending card at revision {card.revision}; accept it with "
                f"--revision {card.revision}."
            )
        )
    return 0


def notes_load(gauge: dict) -> str:
    """What of a team's notes loads, from its gauge: "1 note loads, 2 do not"."""
    loaded, not_loaded = gauge["loaded"], gauge["not_loaded"]
    load = "loads" if loaded == 1 else "load"
    return f"{plural(loaded, 'note')} {load}, {not_loaded} {'does' if not_loaded == 1 else 'do'} not"


@_team_command
def _show(home, args) -> int:
    from ..core.team import api

    view = api.show(home, args.team).to_dict()
    if args.json:
        print_json(view)
        return 0
    gauge = view["gauge"]
    print(
        one_line(
            f"{view['team']['name']} ({view['team']['key']}): {notes_load(gauge)}; "
            f"{gauge['bytes']:,}/{gauge['max_bytes']:,} bytes."
        )
    )
    for title, items in (("Notes", view["notes"]), ("Pending cards", view["pending"]), ("Deleted", view["deleted"])):
        if items:
            print(f"\n{title}:")
        for item in items:
            marks = [m for m, on in (("pinned", item["pinned"]), ("not loaded", item.get("loads") is False)) if on]
            if item["status"] == "proposed":
                marks.append("new" if item["based_on"] is None else f"replaces revision {item['based_on']}")
            suffix = f" ({', '.join(marks)})" if marks else ""
            print(one_line(f"[revision {item['revision']}] {item['key']} · {item['title']}{suffix}"))
            for line in item["text"].split("\n"):
                print("    " + one_line(line))
    return 0


class NoteChange(NamedTuple):
    """A change to one note (or card) of a team: its command's help, the api call that makes it, what it says."""

    help: str
    make: Callable[[Any, Any, argparse.Namespace], Any]  # (core.team.api, home, args) -> the note or card
    said: str  # formatted with the note's key and its new revision


NOTE_CHANGES = {
    "accept": NoteChange(
        "Accept the pending card for KEY: it becomes the team's note.",
        lambda api, home, a: api.accept(home, a.team, a.key, a.revision),
        "{key} accepted: now at revision {revision}.",
    ),
    "reject": NoteChange(
        "Reject the pending card for KEY.",
        lambda api, home, a: api.reject(home, a.team, a.key, a.revision),
        "Rejected the card for {key}.",
    ),
    "edit": NoteChange(
        "Replace an accepted note's text with stdin.",
        lambda api, home, a: api.edit(home, a.team, a.key, a.revision, sys.stdin.read()),
        "{key} saved: now at revision {revision}.",
    ),
    "delete-note": NoteChange(
        "Delete an accepted note (kept in its history, restorable).",
        lambda api, home, a: api.delete_note(home, a.team, a.key, a.revision),
        "{key} deleted: now at revision {revision}.",
    ),
    "pin": NoteChange(
        "Pin a note: pinned notes load first.",
        lambda api, home, a: api.set_pinned(home, a.team, a.key, a.revision, True),
        "{key} pinned: now at revision {revision}.",
    ),
    "unpin": NoteChange(
        "Unpin a note.",
        lambda api, home, a: api.set_pinned(home, a.team, a.key, a.revision, False),
        "{key} unpinned: now at revision {revision}.",
    ),
    "restore": NoteChange(
        "Bring back an earlier version of a note as a new revision.",
        lambda api, home, a: api.restore(home, a.team, a.key, a.version, a.revision),
        "{key} restored: now at revision {revision}.",
    ),
}


def _note_change(name: str) -> Handler:
    """The handler of `team accept|reject|edit|delete-note|pin|unpin|restore`: NOTE_CHANGES says what it does."""
    change = NOTE_CHANGES[name]

    @_team_command
    def run(home, args) -> int:
        from ..core.team import api

        result = change.make(api, home, args)
        if args.json:
            print_json(result.shown())
        else:
            print(one_line(change.said.format(key=result.key, revision=result.revision)))
        return 0

    return run


@_team_command
def _history(home, args) -> int:
    from ..core.team import api

    note, versions = api.history(home, args.team, args.key)
    if args.json:
        print_json({"note": note.shown(), "versions": [v.to_dict() for v in versions]})
        return 0
    print(one_line(f"{note.key} now: revision {note.revision}, {note.status} · {note.title}"))
    if not versions:
        print("No earlier versions.")
    for version in versions:
        print(
            one_line(
                f"[version {version.revision}] {version.status} {version.at[:16]} by {version.by} · {version.title}"
            )
        )
        for line in version.text.split("\n"):
            print("    " + one_line(line))
    return 0


@_team_command
def _gauge(home, args) -> int:
    from ..core.team import api

    gauge = api.gauge(home, args.team).gauge()
    if args.json:
        print_json(gauge)
        return 0
    print(
        one_line(
            f"{gauge['bytes']:,}/{gauge['max_bytes']:,} bytes; {notes_load(gauge)} "
            "(session_search with scope team finds them)."
        )
    )
    return 0


@_team_command
def _prompt(home, args) -> int:
    from ..core.team import api

    block = api.gauge(home, args.team).block
    if args.json:
        print_json({"block": block})
    else:
        write_text(block)
    return 0


@_team_command
def _backup(home, args) -> int:
    from ..core.backup.team import team_backup

    passphrase = read_passphrase(twice=True) if args.passphrase else None
    report = team_backup(home, args.team, args.to, recipients=args.recipients, passphrase=passphrase)
    return said_backup(report, args, f"the team {args.team!r}")


@_team_command
def _package(home, args) -> int:
    from ..core.backup.team import team_package

    passphrase = read_passphrase(twice=True) if args.passphrase else None
    report = team_package(home, args.team, args.to, recipients=args.recipients, passphrase=passphrase)
    return said_backup(report, args, f"the shared package of the team {args.team!r}")


@_team_command
def _import(home, args) -> int:
    from ..core.backup.team import import_team
    from .bots import open_backup

    imported = import_team(home, open_backup(args), replace_existing=args.replace)
    if args.json:
        print_json(imported.to_dict())
        return 0
    if imported.restored is not None:
        said_restore(imported.restored)
    bots = ", ".join(imported.bots) or "no bots"
    print(one_line(f"Imported the team {imported.team!r}: {plural(imported.notes, 'accepted note')}, {bots}."))
    return 0
