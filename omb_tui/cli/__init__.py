"""`omb-tui`: the command line over the core, for scripts, cron and SSH.

Every command answers --help; --json prints machine-readable output; a bad input prints one sentence to
stderr and exits non-zero, never a traceback. With no command the terminal app opens.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

from .common import (EXIT_BAD_INPUT, EXIT_NEEDS_CONFIRMATION, EXIT_STALE, HOME_HELP, CliError, OneSentenceParser,
                     add_command, add_json, open_bot, print_error, subcommands)
from .output import one_line, print_json, write_text
from ..core.memory.paths import Home, MemoryInputError
from ..core.memory.redact_data import redact_log_handlers


def cmd_app(args: argparse.Namespace) -> int:
    from ..app.app import run_app

    return run_app(Home(args.home))


# ----- parser -----
def _app_only(argv: list[str]) -> argparse.Namespace | None:
    """`omb-tui`, `omb-tui --home DIR` or `--home=DIR`: the app, read without building every command's
    parser (which costs start-up time). Anything else returns None."""
    if not argv:
        return argparse.Namespace(home=None, **_no_command())
    if len(argv) == 2 and argv[0] == "--home" and not argv[1].startswith("-"):
        return argparse.Namespace(home=argv[1], **_no_command())
    if len(argv) == 1 and argv[0].startswith("--home=") and len(argv[0]) > len("--home="):
        return argparse.Namespace(home=argv[0][len("--home="):], **_no_command())
    return None


def _no_command() -> dict[str, object]:
    """What the namespace holds before a command's parser sets its own: the app opens, no JSON, and a home that
    --home or $OMB_HOME names must exist (only `demo` creates one)."""
    return {"handler": cmd_app, "json": False, "creates_home": False}


def build_parser() -> argparse.ArgumentParser:
    from . import demo, journal, memory, models, recall, serve, team, upkeep  # argparse only: the core loads when a command runs

    parser = OneSentenceParser(
        prog="omb-tui",
        description="Keep and review an AI bot's long-term memory. With no command, opens the terminal app.",
    )
    parser.add_argument("--home", metavar="DIR", default=None, help=HOME_HELP)
    parser.set_defaults(**_no_command())
    sub = subcommands(parser, "COMMAND")

    memory.register(sub)
    journal.register(sub)
    recall.register(sub)
    models.register(sub)
    upkeep.register(sub)
    team.register(sub)
    serve.register(sub)
    demo.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="omb-tui: %(message)s")
    redact_log_handlers()  # every log line, ours or a library's, is redacted on its way out
    logging.getLogger("omb_tui.recall").setLevel(logging.INFO)  # the auto-recall log line
    args = _app_only(sys.argv[1:] if argv is None else list(argv))
    if args is None:  # a command, --help or a mistake: the full parser says what to do
        args = build_parser().parse_args(argv)
    missing = None if args.creates_home else _named_home_missing(args.home)
    if missing is not None:  # said and stopped: an empty home made by a typo would only hide the mistake
        print_error(missing)
        return EXIT_BAD_INPUT
    try:
        return args.handler(args)
    except CliError as exc:
        print_error(str(exc))
        return exc.code
    except MemoryInputError as exc:
        print_error(str(exc))
        return getattr(exc, "exit_code", EXIT_BAD_INPUT)
    except BrokenPipeError:  # `omb-tui search … | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ValueError) as exc:
        print_error(_oserror_sentence(exc))
        return 1
    except KeyboardInterrupt:
        return 130


def _named_home_missing(home_option: str | None) -> str | None:
    """A home named by --home or $OMB_HOME that is not a folder: the sentence saying so. Only `demo` creates a
    home; the default home (~/.openmausbot) is the bot's own, and a missing one just has no bots yet."""
    named = home_option or os.environ.get("OMB_HOME")
    if not named:
        return None
    path = Path(named).expanduser()
    if path.is_dir():
        return None
    where = "--home" if home_option else "$OMB_HOME"
    if path.exists():
        return f"The home {path} (from {where}) is not a folder."
    return (f"The home folder {path} (from {where}) does not exist; `omb-tui demo --home {path}` writes a sample "
            "home there.")


def _oserror_sentence(exc: BaseException) -> str:
    if isinstance(exc, PermissionError):
        return f"Permission denied: {exc.filename}."
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.strerror or 'Could not use the file'}: {exc.filename}."
    return str(exc) or exc.__class__.__name__

