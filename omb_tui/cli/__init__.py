"""`omb-tui`: the command line over the core, for scripts, cron and SSH.

Every command answers --help; --json prints machine-readable output; a bad input prints one sentence to
stderr and exits non-zero, never a traceback. With no command the terminal app opens.

One module per command group, each declaring its commands' parsers (`register(subparsers)`) beside the handlers
they run, as click puts a command's options on its function (argparse here, for start-up time):

- memory.py   bots, prompt, gauge, remember, forget, prefer, show, write, rm, mv, make-room: the memory files, as
              a person reads and changes them
- bots.py     bot BOT set, duplicate, backup, restore: a bot as a whole, its switches, a copy, a backup
- journal.py  journal, undo, revert, undo-run, review, changes: what changed memory, and taking it back
- recall.py   recall, search, brief: what the bot finds before and during a turn
- models.py   chat, models (test), usage: the bot's model, talked through, checked and paid for
- upkeep.py   capture, organize, tidy, compact, proposals (accept, reject), upkeep, about-me (remove): memory
              upkeep, as docs/upkeep.md has it. Compaction stays here rather than in a module
              of its own: `upkeep --due` runs it, and --help lists these seven as one run (below)
- guard.py    check, still-true (keep, strike, until): the nightly guard's recall checks on what the person
              confirmed, and the "still true?" queue (docs/guard.md)
- team.py     team …: shared team memory
- serve.py    serve: the memory routes over HTTP
- mcp.py      mcp: one bot's memory over the Model Context Protocol
- demo.py     demo: the sample home
- hook.py     hook session-start|prompt|stop|install: a bot's memory in Claude Code, through its hooks
- common.py   how a command is declared (`add_command`, `subcommands`, the one `--json`), the one-sentence
              error, the bot a command names (the exit codes are the core's table: core/base/errors.py)
- output.py   what every group prints with: one line, JSON, file text byte for byte

The order `omb-tui --help` lists the commands in is part of the contract, and each group is one unbroken run of
it, so registering the groups in turn keeps that list as it was. A group module imports only argparse and this
package at its top; each handler imports the core when it runs, so `--help` never loads the engine
(tests/project/test_architecture.py). The app's start (`omb-tui`, `omb-tui --home DIR`) builds no parser at all.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (as omb_tui/__init__.py does)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# The standard library alone at the top: a hook the agent starts is answered by the home's service (hook_front.py)
# before the core loads; every other command imports what it uses when it runs.


def cmd_app(args: argparse.Namespace) -> int:
    from ..app.app import run_app
    from ..core.files.paths import Home

    return run_app(Home(args.home))


# ----- parser -----
def _app_only(argv: list[str]) -> argparse.Namespace | None:
    """`omb-tui`, `omb-tui --home DIR` or `--home=DIR`: the app, read without building every command's
    parser (which costs start-up time). Anything else returns None (an empty DIR too: the parser refuses it)."""
    import argparse

    if not argv:
        return argparse.Namespace(home=None, **_no_command())
    if len(argv) == 2 and argv[0] == "--home" and argv[1].strip() and not argv[1].startswith("-"):
        return argparse.Namespace(home=argv[1], **_no_command())
    if len(argv) == 1 and argv[0].startswith("--home=") and argv[0][len("--home=") :].strip():
        return argparse.Namespace(home=argv[0][len("--home=") :], **_no_command())
    return None


def _no_command() -> dict[str, object]:
    """What the namespace holds before a command's parser sets its own: the app opens, no JSON, and a home that
    --home or $OMB_HOME names must exist (only `demo` creates one)."""
    return {"handler": cmd_app, "json": False, "creates_home": False}


# Commands another program starts again and again (Claude Code runs a hook at every prompt and starts the MCP
# server with each session): their parser alone is built, as building all 66 took a sixth of a hook's time.
ALONE = ("hook", "mcp")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    from . import (  # argparse only: no core yet
        bots,
        demo,
        guard,
        hook,
        journal,
        mcp,
        memory,
        models,
        people,
        recall,
        serve,
        team,
        upkeep,
    )
    from .common import HOME_HELP, OneSentenceParser, given, subcommands

    parser = OneSentenceParser(
        prog="omb-tui",
        description="Keep and review an AI bot's long-term memory. With no command, opens the terminal app.",
    )
    parser.add_argument("--home", type=given, metavar="DIR", default=None, help=HOME_HELP)
    parser.set_defaults(**_no_command())
    sub = subcommands(parser, "COMMAND")

    # the order --help lists them in
    groups = (memory, bots, journal, recall, models, upkeep, guard, team, people, serve, mcp, demo, hook)
    for group in groups:
        if only is None or group.__name__.rsplit(".", 1)[-1] == only:
            group.register(sub)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The command `argv` names, when it is one of ALONE (after an optional --home DIR); None otherwise."""
    rest = list(argv)
    if rest[:1] == ["--home"] and len(rest) > 2:
        rest = rest[2:]
    elif rest[:1] and rest[0].startswith("--home="):
        rest = rest[1:]
    return rest[0] if rest and rest[0] in ALONE else None


def main(argv: Sequence[str] | None = None) -> int:
    here = None
    if argv is None and _command_word(sys.argv[1:]) == "hook":  # started by an agent: the home's service answers
        from .hook_front import answer_through_service, hook_here

        here = hook_here(sys.argv[1:])
        answered = answer_through_service(here) if here is not None else None
        if answered is not None:
            return answered
    import logging

    from ..core.redaction.data import redact_log_handlers

    logging.basicConfig(level=logging.WARNING, format="omb-tui: %(message)s")
    redact_log_handlers()  # every log line, ours or a library's, is redacted on its way out
    logging.getLogger("omb_tui.recall").setLevel(logging.INFO)  # the auto-recall log line
    if here is not None:  # in this process, as the hook's parser would read it: no parser, none of its imports
        from .hook_front import answer_here

        try:
            return answer_here(here.name, here.home, here.bot, here.person, here.agent)
        except KeyboardInterrupt:
            return 130
    from ..core.base.errors import EXIT_BAD_INPUT, EXIT_FAILED, oserror_sentence, outcome_of
    from ..core.files.paths import MemoryInputError
    from .common import CliError, print_error

    args = _app_only(sys.argv[1:] if argv is None else list(argv))
    if args is None:  # a command, --help or a mistake: the full parser says what to do
        given = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(_command_word(given)).parse_args(argv)
    missing = None if args.creates_home else _named_home_missing(args.home)
    if missing is not None:  # said and stopped: an empty home made by a typo would only hide the mistake
        print_error(missing)
        return EXIT_BAD_INPUT
    try:
        finish_unfinished_restore(args.home)
        return args.handler(args)
    except CliError as exc:
        print_error(str(exc))
        return exc.code
    except MemoryInputError as exc:
        print_error(str(exc))
        return outcome_of(exc).exit_code
    except BrokenPipeError:  # `omb-tui search … | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ValueError) as exc:
        print_error(oserror_sentence(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130


def finish_unfinished_restore(home_option: str | None) -> None:
    """At every start: a restore a kill stopped in this home is finished (its stage was whole) or removed (it was
    not), and stderr says which, before the command runs. One stat when there is none (docs/backup.md)."""
    from ..core.files.paths import Home
    from .common import print_error

    home = Home(home_option)
    if not home.restore_stage.is_dir():
        return
    from ..core.backup.stage import finish_at_start

    said = finish_at_start(home)
    if said:
        print_error(said)


def _named_home_missing(home_option: str | None) -> str | None:
    """A home named by --home or $OMB_HOME that is not a folder: the sentence saying so. Only `demo` creates a
    home; the default home (~/.openmausbot) is the bot's own, and a missing one just has no bots yet."""
    named = home_option or os.environ.get("OMB_HOME")
    if not named:
        return None
    from pathlib import Path

    path = Path(named).expanduser()
    if path.is_dir():
        return None
    where = "--home" if home_option else "$OMB_HOME"
    if path.exists():
        return f"The home {path} (from {where}) is not a folder."
    return (
        f"The home folder {path} (from {where}) does not exist; `omb-tui demo --home {path}` writes a sample "
        "home there."
    )
