"""What every command group of `omb-tui` shares: how a command is declared (its parser beside its handler, the
options every command takes, the one `--json`), the one-sentence error, the bot a command names.

Nothing here imports the engine: `omb-tui --help` and the app's start load this module, and a handler opens
the core only when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..core.base.errors import EXIT_BAD_INPUT
from .output import error_line

HOME_HELP = "the home folder (default: $OMB_HOME, else ~/.openmausbot)"
JSON_HELP = "print machine-readable JSON"

Handler = Callable[[argparse.Namespace], int]


class OneSentenceParser(argparse.ArgumentParser):
    """Usage mistakes are one sentence on stderr, like every other error, pointing at --help."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sentence = error_line(message[:1].upper() + message[1:])
        self.exit(EXIT_BAD_INPUT, f"omb-tui: {sentence}. See: {self.prog} --help\n")


def given(value: str) -> str:
    """The type of an option whose value must say something: `--home ""` or `--since ""` is a mistake (a variable
    that was not set), refused in one sentence rather than read as the option left out."""
    if not value.strip():
        raise argparse.ArgumentTypeError("the value is empty; give one, or leave the option out")
    return value


def print_error(message: str) -> None:
    print(f"omb-tui: {error_line(message)}", file=sys.stderr)


class CliError(Exception):
    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def open_bot(args: argparse.Namespace):
    """The bot `BOT` names in the home `--home` names, looked at (an unknown id is one sentence, exit 2)."""
    from ..core.files.paths import Home
    from ..core.turn.bot import Bot

    bot = Bot(Home(args.home), args.bot)
    bot.look()
    return bot


def add_json(container: argparse._ActionsContainer, help_text: str = JSON_HELP) -> None:
    """The one `--json` of every command that has it. Its default is SUPPRESS, so the flag of a nested command
    never hides its parent's (`models --json test` and `models test --json` both print JSON); the top parser's
    json=False is what a namespace holds without it, so every handler reads `args.json`."""
    container.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=help_text)


def _options(*, json: bool) -> argparse.ArgumentParser:
    """A parent parser: `--home` (SUPPRESS, so `--home` before the command stays), and `--json` when asked."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--home", type=given, metavar="DIR", default=argparse.SUPPRESS, help=HOME_HELP)
    if json:
        add_json(parent)
    return parent


HOME_OPTION = _options(json=False)
HOME_AND_JSON_OPTIONS = _options(json=True)


def add_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    handler: Handler | None,
    help_text: str,
    *,
    json: bool = False,
    bot: bool = True,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """A command's parser: `--home`, `--json` when `json`, the positional BOT when `bot`; it runs `handler` (None for
    a command whose required subcommands each name their own). Its --help says `description`, else `help_text`,
    the line its parent's --help lists."""
    parser = subparsers.add_parser(
        name,
        parents=[HOME_AND_JSON_OPTIONS if json else HOME_OPTION],
        help=help_text,
        description=help_text if description is None else description,
    )
    if bot:
        parser.add_argument("bot", metavar="BOT", help="the bot's id")
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser


def subcommands(parser: argparse.ArgumentParser, metavar: str, *, required: bool = False) -> argparse._SubParsersAction:
    """The nested commands of a command (`models test`, `team create`), each a parser of its own."""
    return parser.add_subparsers(metavar=metavar, parser_class=OneSentenceParser, required=required)
