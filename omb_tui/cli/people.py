"""`omb-tui people …`: the people of a Team Cloud home, each with a token of their own (docs/team-cloud.md).

A token is printed once, when it is made (`add`, `token --rotate`); the home keeps only its hash."""

from __future__ import annotations

import argparse

from ..core.base.text import plural
from .common import add_command, subcommands
from .output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "people",
        None,
        "The people of a Team Cloud home: each reaches their own layer of a bot's memory with a token of their own.",
        bot=False,
    )
    sub = subcommands(parser, "COMMAND", required=True)
    p = add_command(
        sub, "add", _add, "Add a person; prints their token once (the home keeps only its hash).", json=True, bot=False
    )
    p.add_argument("name", metavar="NAME", help="lowercase letters, numbers and single dashes: dana, sam-lee")
    add_command(sub, "list", _list, "The people of this home, and when each was added.", json=True, bot=False)
    p = add_command(
        sub,
        "remove",
        _remove,
        "Remove a person: their token stops working at once; their layers stay on disk unless --purge.",
        json=True,
        bot=False,
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument(
        "--purge",
        action="store_true",
        help="remove their layers of every bot's memory, their 1:1 chats and the indexes that held them too",
    )
    p = add_command(
        sub, "token", _token, "Make a person a new token (the old one stops working at once).", json=True, bot=False
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument("--rotate", action="store_true", required=True, help="make the new token (it is printed once)")


def _add(args: argparse.Namespace) -> int:
    from ..core.files.paths import Home
    from ..core.people.people import add_person

    person, token = add_person(Home(args.home), args.name)
    if args.json:
        print_json(person.to_dict(), unredacted={"token": token})
    else:
        print(f"Added {person.name}. Their token, shown this once (the home keeps only its hash):\n{token}")
    return 0


def _list(args: argparse.Namespace) -> int:
    from ..core.files.paths import Home
    from ..core.people.people import list_people

    people = list_people(Home(args.home))
    if args.json:
        print_json({"people": [person.to_dict() for person in people]})
        return 0
    if not people:
        print("No people: this home has its owner alone (people add NAME makes it a Team Cloud home).")
    for person in people:
        rotated = f", token made again {person.rotated}" if person.rotated else ""
        print(f"{person.name}  added {person.added}{rotated}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from ..core.files.paths import Home
    from ..core.index.purge import purge_person
    from ..core.people.people import remove_person

    chats: dict[str, list[str]] = {}
    if args.purge:
        purged = purge_person(Home(args.home), args.name)
        layers, chats = purged.layers, purged.chats
    else:
        layers = remove_person(Home(args.home), args.name)
    if args.json:
        print_json({"name": args.name, "layers": layers, "purged": args.purge, "chats": chats})
    elif args.purge:
        count = sum(len(ids) for ids in chats.values())
        print(
            f"Removed {args.name}, their {plural(len(layers), 'layer')} of the bots' memory and their "
            f"{plural(count, '1:1 chat')}."
        )
    else:
        kept = f"; their layers stay on disk ({plural(len(layers), 'layer')}) until people remove {args.name} --purge"
        kept = kept if layers else ""
        print(f"Removed {args.name}: their token no longer works{kept}.")
    return 0


def _token(args: argparse.Namespace) -> int:
    from ..core.files.paths import Home
    from ..core.people.people import rotate_token

    token = rotate_token(Home(args.home), args.name)
    if args.json:
        print_json({"name": args.name}, unredacted={"token": token})
    else:
        print(f"A new token for {args.name}, shown this once (the old one no longer works):\n{token}")
    return 0
