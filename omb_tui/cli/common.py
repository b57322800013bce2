"""What every command group of `omb-tui` shares: the exit codes, the one-sentence error, the bot a command names.

Nothing here imports the engine: `omb-tui --help` and the app's start load this module, and a handler opens
the core only when it runs.
"""

from __future__ import annotations

import argparse
import sys

from .output import one_line

EXIT_BAD_INPUT = 2
EXIT_STALE = 3
EXIT_NEEDS_CONFIRMATION = 4


class OneSentenceParser(argparse.ArgumentParser):
    """Usage mistakes are one sentence on stderr, like every other error, pointing at --help."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sentence = one_line(message[:1].upper() + message[1:])
        self.exit(EXIT_BAD_INPUT, f"omb-tui: {sentence}. See: {self.prog} --help\n")


def print_error(message: str) -> None:
    print(f"omb-tui: {one_line(message)}", file=sys.stderr)


class CliError(Exception):
    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def open_bot(args: argparse.Namespace):
    """The bot `BOT` names in the home `--home` names, looked at (an unknown id is one sentence, exit 2)."""
    from ..core.bot import Bot
    from ..core.memory.paths import Home

    bot = Bot(Home(args.home), args.bot)
    bot.look()
    return bot
