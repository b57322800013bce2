"""`omb-tui demo`: write the sample home (omb_tui/demo), the one command that creates the home it is given."""

from __future__ import annotations

import argparse
import shlex

from ..core.files.paths import Home
from .common import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(subparsers, "demo", cmd_demo, "Write a realistic sample home to try everything on.", bot=False)
    p.set_defaults(creates_home=True)  # cli.main refuses a home that does not exist to every other command


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo.home import write_demo_home

    home = Home(args.home)
    bots = write_demo_home(home)
    print(f"Wrote a demo home with {len(bots)} bots to {home.root}.")
    print(f"Open it with: {open_command(home)}")
    return 0


def open_command(home: Home) -> str:
    """The command that opens the app on `home`, as a person can type it here: `omb-tui` when the one on PATH is
    this one, else this one's full path (a fresh set-up's .venv/bin is not on PATH)."""
    from ..hooks.install import program

    return shlex.join([*program(None, project=True), "--home", str(home.root)])
