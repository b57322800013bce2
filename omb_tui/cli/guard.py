"""`omb-tui check|still-true`: the nightly guard's recall checks on what the person confirmed, and the
"still true?" queue with the person's answers (docs/guard.md)."""

from __future__ import annotations

import argparse

from ..core.base import clock
from .common import CliError, add_command, open_bot
from .output import one_line, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    add_command(
        subparsers,
        "check",
        cmd_check,
        "Run every recall check (probe) on what the person confirmed: does each still find its fact?",
        json=True,
    )
    p = add_command(
        subparsers,
        "still-true",
        cmd_still_true,
        "The entries to ask about (old with no until date, an until date within a week, contradicted but not "
        "struck); with an answer: keep or strike each ID, or set one's until date.",
        json=True,
        description="With no answer: list today's still-true queue (id, file, text, why). `keep ID…` marks each "
        "entry `· confirmed DATE`; `strike ID…` strikes each through as superseded; `until ID DATE` sets its until "
        "date. Each answer is one journal row, yours, that can be undone.",
    )
    p.add_argument("answer", nargs="?", choices=("keep", "strike", "until"), metavar="keep|strike|until")
    p.add_argument("items", nargs="*", metavar="ID", help="ids from the listing (until: one ID, then the DATE)")


def cmd_still_true(args: argparse.Namespace) -> int:

    from ..core.guard.still_true import UNTIL, answer_still_true, still_true_queue
    from ..core.journal.when import parse_day

    bot = open_bot(args)
    if args.answer is None:
        if args.items:
            raise CliError("Give an answer before the ids: keep, strike or until.")
        queue = still_true_queue(bot.home, bot.id)
        if args.json:
            print_json([item.to_dict() for item in queue])
        elif not queue:
            print("Nothing to ask about today: every entry is recent, confirmed or has an until date further off.")
        else:
            for item in queue:
                print(one_line(item.line()))
        return 0
    until = None
    items = list(args.items)
    if args.answer == UNTIL:
        if len(items) != 2:
            raise CliError("until takes one ID and a DATE: omb-tui still-true BOT until ID 2027-01-31.")
        try:
            until = parse_day(items.pop(), today=clock.today())
        except ValueError as exc:
            raise CliError(str(exc)) from None
    done = answer_still_true(bot.home, bot.id, args.answer, items, until=until)
    if args.json:
        print_json([item.to_dict() for item in done])
    else:
        for item in done:
            print(one_line(f"{item.id}  {item.file}  {item.answer}: {item.text}"))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from ..core.guard.probes import check_probes

    bot = open_bot(args)
    check = check_probes(bot.home, bot.id)
    if args.json:
        print_json(check.to_dict())
        return 0
    print(check.line())
    for probe in check.probes:
        state = "finds  " if probe["finds"] else "MISSING"
        print(one_line(f"  {state}  {probe['probe']} → {probe['fact']}"))
    return 0
