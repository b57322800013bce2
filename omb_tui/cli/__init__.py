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


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo.home import write_demo_home

    home = Home(args.home)
    bots = write_demo_home(home)
    print(f"Wrote a demo home with {len(bots)} bots to {home.root}.")
    print(f"Open it with: omb-tui --home {home.root}")
    return 0


def cmd_capture(args: argparse.Namespace) -> int:
    from ..core.upkeep.capture import capture

    bot = open_bot(args)
    logging.getLogger("omb_tui.models").setLevel(logging.ERROR)  # the result says itself why no model answered
    result = capture(bot.home, bot.id, chat=args.chat)
    if args.json:
        print_json(result.as_dict())
    else:
        for line in result.lines():
            print(one_line(line))
    return 0


def cmd_upkeep(args: argparse.Namespace) -> int:
    import json

    from ..core.memory.redact_data import redact_data
    from ..core.upkeep.schedule import upkeep_due

    if args.concurrency < 1:
        raise CliError("--concurrency must be 1 or more.")
    home = Home(args.home)
    logging.getLogger("omb_tui.models").setLevel(logging.ERROR)  # each bot's line says why no model answered
    on_terminal = sys.stderr.isatty() and not args.json

    def progress(done: int, total: int) -> None:
        print(f"\rupkeep: {done}/{total} bots", end="" if done < total else "\n", file=sys.stderr, flush=True)

    report = upkeep_due(home, concurrency=args.concurrency, progress=progress if on_terminal else None)
    if args.json:
        if report.busy:
            print_json(report.as_dict())
        for bot in report.bots:  # one line per bot, redacted like every message (an error may echo a key)
            print(json.dumps(redact_data(bot.as_dict()), ensure_ascii=False))
        return 0
    if report.busy:
        print(f"Nothing done: {report.busy}.", file=sys.stderr)
        return 0
    for bot in report.bots:
        print(one_line(bot.line()))
    return 0


def cmd_organize(args: argparse.Namespace) -> int:
    from ..core.upkeep.organize import organize

    bot = open_bot(args)
    result = organize(bot.home, bot.id)
    if args.json:
        print_json(result.as_dict())
        return 0
    if result.reason:
        print(result.reason)
    if result.moved:
        print(f"Filed {len(result.moved)} line(s) into topics:")
    for moved in result.moved:
        print(f"  {moved.topic}  {one_line(moved.line)}")
    if result.core:
        print(f"{result.core} line(s) judged core: they stay in MEMORY.md and are not asked about again.")
    for skipped in result.skipped:
        print(f"Skipped: {one_line(skipped.text)}  ({one_line(skipped.reason)})")
    print(f"Run {result.run}.")
    return 0


def cmd_about_me(args: argparse.Namespace) -> int:
    from ..core.upkeep.about_me import list_learned

    learned = list_learned(Home(args.home))
    if args.json:
        print_json([line.as_dict() for line in learned])
        return 0
    if not learned:
        print("No bot has added a line to About me.")
    for line in learned:
        print(f"{line.id}  {line.at or '':<10}  {line.bot:<14} {one_line(line.text)}")
    return 0


def cmd_about_me_remove(args: argparse.Namespace) -> int:
    from ..core.upkeep.about_me import remove_learned

    removed = remove_learned(Home(args.home), args.learned_id)
    if args.json:
        print_json(removed.as_dict())
    else:
        print(one_line(removed.message()))
    return 0


def cmd_tidy(args: argparse.Namespace) -> int:
    from ..core.models.turn import no_turn_running
    from ..core.upkeep.tidy import tidy

    bot = open_bot(args)
    with no_turn_running(bot.home, bot.id) as free:  # upkeep never runs while the bot is working
        if not free:
            raise CliError(f"{bot.id} is in a turn now; tidy up once it has finished.", code=1)
        report = tidy(bot.home, bot.id)
    if args.json:
        print_json(report.as_dict())
        return 0
    for line in report.message().split("\n"):  # a control character in a quoted note is escaped, not printed
        print(one_line(line))
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    from ..core.compact.interactive import ANSWER_HELP, apply_choice, choose, proposal_lines
    from ..core.compact.session import propose

    bot = open_bot(args)
    if args.nightly is not None or args.propose_only is not None:
        return _compact_settings(bot, args)
    logging.getLogger("omb_tui.models").setLevel(logging.ERROR)  # the proposal says itself why no model answered
    if args.auto:
        return _compact_nightly(bot, args)
    proposal = propose(bot.home, bot.id)
    if args.json:
        print_json(proposal.as_dict())
        return 1 if proposal.error else 0
    if proposal.error:
        raise CliError(proposal.error, 1)
    if not proposal.changes:
        print(f"Nothing to change in MEMORY.md of {bot.id}.")
        return 0
    count = len(proposal.changes)
    print(f"Compacting MEMORY.md of {bot.id}: {count} change{'' if count == 1 else 's'} proposed.")
    for line in proposal_lines(proposal):
        print(one_line(line))
    interactive = sys.stdin.isatty()
    if interactive:
        print(f"Answer {ANSWER_HELP}: ", end="", file=sys.stderr, flush=True)
    choice = choose(proposal.changes, sys.stdin.readline())
    if choice.cancelled:
        print("Cancelled; nothing was applied.")
        return 0
    outcome = apply_choice(bot.home, bot.id, proposal, choice)
    print(f"Applied {len(outcome.applied)} of {count} change{'' if count == 1 else 's'} to MEMORY.md; each is a "
          f"journal row you can undo (omb-tui undo {bot.id} ROW_ID): {', '.join(outcome.rows) or 'none'}.")
    if outcome.not_applied:
        raise CliError(f"MEMORY.md changed while the changes were written; {len(outcome.not_applied)} were not "
                       "applied.", EXIT_STALE)
    return 0


def _compact_nightly(bot, args: argparse.Namespace) -> int:
    from ..core.compact.nightly import compact_nightly
    from ..core.models.turn import no_turn_running

    with no_turn_running(bot.home, bot.id) as free:  # upkeep never runs while the bot is working
        if not free:
            raise CliError(f"{bot.id} is in a turn now; compact once it has finished.", code=1)
        outcome = compact_nightly(bot.home, bot.id)
    if args.json:
        print_json(outcome.as_dict())
    else:
        write_text(outcome.report.text)
        if outcome.sink and outcome.sink["error"]:
            print_error(outcome.sink["error"])
    if outcome.report.error:
        return EXIT_STALE if outcome.changed_meanwhile else 1
    return 0


def _compact_settings(bot, args: argparse.Namespace) -> int:
    from ..core.compact.nightly import propose_only_now, switch_nightly

    on = None if args.nightly is None else args.nightly == "on"
    propose_only = {"on": True, "off": False, "auto": None, None: "unchanged"}[args.propose_only]
    settings = switch_nightly(bot.home, bot.id, on, propose_only)
    if args.json:
        print_json({"bot": bot.id, "compactNightly": settings.compact_nightly,
                     "compactProposeOnly": settings.compact_propose_only,
                     "compactNightlySince": settings.compact_nightly_since,
                     "propose_only_now": propose_only_now(settings, date.today())})
        return 0
    state = "on" if settings.compact_nightly else "off"
    proposes = propose_only_now(settings, date.today())
    mode = f"only proposes (see omb-tui proposals {bot.id})" if proposes else "applies its changes"
    print(f"Nightly compaction of {bot.id} is {state}; a nightly run now {mode}.")
    return 0


def cmd_proposals(args: argparse.Namespace) -> int:
    from ..core.compact.pending import pending_changes

    bot = open_bot(args)
    waiting = pending_changes(bot.home, bot.id)
    if args.json:
        print_json([item.as_dict() for item in waiting])
        return 0
    if not waiting:
        print(f"No proposed change of {bot.id} is waiting.")
    for item in waiting:
        print(f"{item.id}. {item.category}: {one_line(item.reason)}  (run {item.run})")
        print(f"   {'replace' if item.merged is not None else 'remove '}: {one_line(item.original.rstrip())}")
        if item.merged is not None:
            print(f"   with   : {one_line(item.merged.rstrip())}")
    return 0


def _chosen_proposals(bot, args: argparse.Namespace, verb: str) -> list[str]:
    """The ids `proposals BOT accept|reject` names: ID… or --all (every change waiting), never both."""
    from ..core.compact.pending import pending_changes

    if bool(args.ids) == bool(args.all):
        raise CliError(f"Give the ids of the changes to {verb}, or --all (not both).")
    return [item.id for item in pending_changes(bot.home, bot.id)] if args.all else args.ids


def cmd_proposals_reject(args: argparse.Namespace) -> int:
    from ..core.compact.pending import reject

    bot = open_bot(args)
    ids = _chosen_proposals(bot, args, "reject")
    reject(bot.home, bot.id, ids)
    if args.json:
        print_json({"rejected": list(dict.fromkeys(ids))})
    else:
        print(f"Rejected {len(ids)} proposed change{'' if len(ids) == 1 else 's'}.")
    return 0


def cmd_proposals_accept(args: argparse.Namespace) -> int:
    from ..core.compact.pending import accept

    bot = open_bot(args)
    outcome = accept(bot.home, bot.id, _chosen_proposals(bot, args, "accept"))
    if args.json:
        print_json(outcome.as_dict())
    else:
        if outcome.applied:
            print(f"Applied {', '.join(outcome.applied)} to MEMORY.md (run {outcome.run}; rows "
                  f"{', '.join(outcome.rows)}).")
        for refused_id, why in outcome.refused:
            print(f"Not applied {refused_id}: {one_line(why)}")
    return 1 if outcome.refused else 0


def cmd_serve(args: argparse.Namespace) -> int:
    from ..server.run import serve

    return serve(Home(args.home), host=args.host, port=args.port, allow_remote=args.allow_remote,
                 allow_hosts=args.allow_host, show_token=args.show_token)


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
    from . import journal, memory, models, recall, team  # argparse only: the core loads when a command runs

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
    p = add_command(sub, "capture", cmd_capture, "Memory upkeep: read the bot's unread chat turns and file the facts that pass "
            "the checks.", json=True)
    p.add_argument("--chat", metavar="ID", help="only this chat or room")
    add_command(sub, "organize", cmd_organize, "Memory upkeep: file the detail in MEMORY.md into topic files (one model call).",
        json=True)
    add_command(sub, "tidy", cmd_tidy, "Tidy up now: expired notes to the archive, exact duplicates, and (with a model) "
        "contradictions struck through.", json=True)
    p = add_command(sub, "compact", cmd_compact, "Compact MEMORY.md: the model proposes deletions and merges, you answer "
            "apply, keep <numbers>, delete <numbers> or cancel (one line, from the terminal or stdin).", json=True)
    p.add_argument("--auto", action="store_true", help="the nightly run: backup, apply (or only propose), logs, "
                   "report to stdout and the configured sink")
    p.add_argument("--nightly", choices=("on", "off"), help="switch nightly compaction (upkeep --due) on or off")
    p.add_argument("--propose-only", choices=("on", "off", "auto"), help="nightly runs only propose (on), apply "
                   "(off), or propose during the first 7 days after nightly was switched on (auto, the default)")
    p = add_command(sub, "proposals", cmd_proposals, "Changes nightly compaction proposed (propose-only), waiting for you.",
            json=True)
    proposals_sub = subcommands(p, "[accept|reject]")
    for verb, handler, what in (
            ("accept", cmd_proposals_accept, "Apply proposed changes, each checked again against MEMORY.md as it is now."),
            ("reject", cmd_proposals_reject, "Mark proposed changes rejected.")):
        p = add_command(proposals_sub, verb, handler, what, bot=False)
        p.add_argument("ids", metavar="ID", nargs="*", help="the ids `omb-tui proposals BOT` lists")
        p.add_argument("--all", action="store_true", help="every change waiting")
        add_json(p)  # after --all, where --help has always listed it
    p = add_command(sub, "upkeep", cmd_upkeep, "Memory upkeep for every bot: with --due, capture, organizing and the daily "
            "tidy-up where they are due (safe to run from cron every few minutes).", json=True, bot=False)
    p.add_argument("--due", action="store_true", required=True, help="run what is due now (the only mode)")
    p.add_argument("--concurrency", type=int, default=8, metavar="N", help="bots at a time (default 8)")
    p = add_command(sub, "about-me", cmd_about_me, "The lines bots added to About me on their own (learned lines).", json=True,
            bot=False)
    p = add_command(subcommands(p, "[remove]"), "remove", cmd_about_me_remove, "Take a learned line out of About me; "
                    "the fact is never added again.", json=True, bot=False, description="Take a learned line out of "
                    "About me (journaled, undoable); the fact is never added again.")
    p.add_argument("learned_id", metavar="ID", help="the id `omb-tui about-me` lists")
    team.register(sub)
    p = add_command(sub, "serve", cmd_serve, "Serve the memory routes over HTTP under /api (JSON, the owner's bearer token; "
            "docs/serve.md).", bot=False)
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this computer "
                   "only)")
    p.add_argument("--port", type=int, default=8767, metavar="N", help="the port (default 8767; 0: any free port)")
    p.add_argument("--allow-remote", action="store_true", help="allow a --host other computers can reach")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                   help="answer requests whose Host header is NAME (a proxy's or a LAN name; any port unless given), "
                   "besides this server's own address; repeatable")
    p.add_argument("--show-token", action="store_true", help="print the token (made on first use) and exit")
    p = add_command(sub, "demo", cmd_demo, "Write a realistic sample home to try everything on.", bot=False)
    p.set_defaults(creates_home=True)
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

