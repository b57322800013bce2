"""`omb-tui check|still-true`: the nightly guard's recall checks on what the person confirmed, and the
"still true?" queue with the person's answers (docs/guard.md)."""

from __future__ import annotations

import argparse

from .common import add_command, open_bot
from .output import one_line, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    add_command(
        subparsers,
        "check",
        cmd_check,
        "Run every recall check (probe) on what the person confirmed: does each still find its fact?",
        json=True,
    )


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
