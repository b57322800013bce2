"""`omb-tui capture|organize|tidy|compact|proposals|upkeep|about-me`: memory upkeep, the spec's jobs that keep a
bot's memory small and true: each job on one bot now, compaction and the changes it proposed, `upkeep --due`
(which runs them all where due, nightly compaction included) and the lines upkeep learned into About me."""

from __future__ import annotations

import argparse
import logging
import sys

from ..core.base import clock
from ..core.base.errors import EXIT_FAILED, EXIT_STALE
from ..core.base.text import plural
from ..core.files.paths import Home
from .common import CliError, add_command, add_json, given, open_bot, print_error, subcommands
from .output import one_line, print_json, write_text

PERSON_HELP = "a Team Cloud person's own About me (default: the owner's)"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers,
        "capture",
        cmd_capture,
        "Memory upkeep: read the bot's unread chat turns and file the facts that pass the checks.",
        json=True,
    )
    p.add_argument("--chat", type=given, metavar="ID", help="only this chat or room")
    add_command(
        subparsers,
        "organize",
        cmd_organize,
        "Memory upkeep: file the detail in MEMORY.md into topic files (one model call).",
        json=True,
    )
    add_command(
        subparsers,
        "tidy",
        cmd_tidy,
        "Tidy up now: expired notes to the archive, exact duplicates, and (with "
        "a model) contradictions struck through.",
        json=True,
    )
    p = add_command(
        subparsers,
        "compact",
        cmd_compact,
        "Compact MEMORY.md: the model proposes deletions and merges, "
        "you answer apply, keep <numbers>, delete <numbers> or cancel (one line, from the terminal or "
        "stdin).",
        json=True,
    )
    p.add_argument(
        "--auto",
        action="store_true",
        help="the nightly run: backup, apply (or only propose), logs, report to stdout and the configured sink",
    )
    p.add_argument("--nightly", choices=("on", "off"), help="switch nightly compaction (upkeep --due) on or off")
    p.add_argument(
        "--propose-only",
        choices=("on", "off", "auto"),
        help="nightly runs only propose (on), apply "
        "(off), or propose during the first 7 days after nightly was switched on (auto, the default)",
    )
    p = add_command(
        subparsers,
        "proposals",
        cmd_proposals,
        "Changes nightly compaction proposed (propose-only), waiting for you.",
        json=True,
    )
    proposals = subcommands(p, "[accept|reject]")
    for verb, handler, what in (
        ("accept", cmd_proposals_accept, "Apply proposed changes, each checked again against MEMORY.md as it is now."),
        ("reject", cmd_proposals_reject, "Mark proposed changes rejected."),
    ):
        p = add_command(proposals, verb, handler, what, bot=False)
        p.add_argument("ids", metavar="ID", nargs="*", help="the ids `omb-tui proposals BOT` lists")
        p.add_argument("--all", action="store_true", help="every change waiting")
        add_json(p)  # after --all, where --help has always listed it
    p = add_command(
        subparsers,
        "upkeep",
        cmd_upkeep,
        "Memory upkeep for every bot: with --due, capture, organizing "
        "and the daily tidy-up where they are due (safe to run from cron every few minutes).",
        json=True,
        bot=False,
    )
    p.add_argument("--due", action="store_true", required=True, help="run what is due now (the only mode)")
    p.add_argument("--concurrency", type=int, default=8, metavar="N", help="bots at a time (default 8)")
    p = add_command(
        subparsers,
        "about-me",
        cmd_about_me,
        "The lines bots added to About me on their own (learned lines).",
        json=True,
        bot=False,
    )
    p.add_argument("--person", type=given, metavar="NAME", help=PERSON_HELP)
    p = add_command(
        subcommands(p, "[remove]"),
        "remove",
        cmd_about_me_remove,
        "Take a learned line out of About me; the fact is never added again.",
        json=True,
        bot=False,
        description="Take a learned line out of About me (journaled, undoable); the fact is never added again.",
    )
    p.add_argument("learned_id", metavar="ID", help="the id `omb-tui about-me` lists")
    # SUPPRESS: not given here, a --person given before `remove` stands (a sub-command's default would undo it)
    p.add_argument("--person", type=given, metavar="NAME", default=argparse.SUPPRESS, help=PERSON_HELP)


def cmd_capture(args: argparse.Namespace) -> int:
    from ..core.upkeep.capture import capture

    bot = open_bot(args)
    logging.getLogger("omb_tui.models").setLevel(logging.ERROR)  # the result says itself why no model answered
    result = capture(bot.home, bot.id, chat=args.chat)
    if args.json:
        print_json(result.to_dict())
    else:
        for line in result.lines():
            print(one_line(line))
    return 0


def cmd_organize(args: argparse.Namespace) -> int:
    from ..core.upkeep.organize import organize

    bot = open_bot(args)
    logging.getLogger("omb_tui.models").setLevel(logging.ERROR)  # the result says itself why no model answered
    result = organize(bot.home, bot.id)
    if args.json:
        print_json(result.to_dict())
        return 0
    if result.reason:
        print(result.reason)
    if result.moved:
        print(f"Filed {plural(len(result.moved), 'line')} into topics:")
    for moved in result.moved:
        print(f"  {moved.topic}  {one_line(moved.line)}")
    if result.core:
        stays = "it stays in MEMORY.md and is" if result.core == 1 else "they stay in MEMORY.md and are"
        print(f"{plural(result.core, 'line')} judged core: {stays} not asked about again.")
    for skipped in result.skipped:
        print(f"Skipped: {one_line(skipped.text)}  ({one_line(skipped.reason)})")
    print(f"Run {result.run}.")
    return 0


def cmd_tidy(args: argparse.Namespace) -> int:
    from ..core.files.locks import no_turn_running
    from ..core.upkeep.tidy import tidy

    bot = open_bot(args)
    logging.getLogger("omb_tui.models").setLevel(logging.ERROR)  # the report says itself why no model answered
    with no_turn_running(bot.home, bot.id) as free:  # upkeep never runs while the bot is working
        if not free:
            raise CliError(f"{bot.id} is in a turn now; tidy up once it has finished.", code=1)
        report = tidy(bot.home, bot.id)
    if args.json:
        print_json(report.to_dict())
        return 0
    for line in report.message().split("\n"):  # a control character in a quoted note is escaped, not printed
        print(one_line(line))
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    """One command in three modes, which its flags choose (a flag has no parser of its own to set a handler):
    --nightly or --propose-only switch the nightly run, else --auto is that run, else a compaction now."""
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
        print_json(proposal.to_dict())
        return 1 if proposal.error else 0
    if proposal.error:
        raise CliError(proposal.error, 1)
    if not proposal.changes:
        print(f"Nothing to change in MEMORY.md of {bot.id}.")
        return 0
    count = len(proposal.changes)
    print(f"Compacting MEMORY.md of {bot.id}: {plural(count, 'change')} proposed.")
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
    print(
        f"Applied {len(outcome.applied)} of {plural(count, 'change')} to MEMORY.md; each is a "
        f"journal row you can undo (omb-tui undo {bot.id} ROW_ID): {', '.join(outcome.rows) or 'none'}."
    )
    if outcome.not_applied:
        raise CliError(
            f"MEMORY.md changed while the changes were written; {len(outcome.not_applied)} were not applied.",
            EXIT_STALE,
        )
    return 0


def _compact_nightly(bot, args: argparse.Namespace) -> int:
    """The nightly run. From cron (no terminal on stdin or stderr) it is guarded as `upkeep --due`'s; run by hand
    in a terminal it is the person's own request, and runs unguarded (docs/compact-nightly.md)."""
    from ..core.compact.nightly import compact_nightly
    from ..core.files.locks import no_turn_running
    from ..core.runs.guard_record import guard_line
    from ..core.schedule import compact_guarded

    by_hand = at_a_terminal()
    guard: dict | None = None
    with no_turn_running(bot.home, bot.id) as free:  # upkeep never runs while the bot is working
        if not free:
            raise CliError(f"{bot.id} is in a turn now; compact once it has finished.", code=1)
        if by_hand:
            outcome = compact_nightly(bot.home, bot.id)
        else:
            outcome, guard = compact_guarded(bot.home, bot.id)
    said = guard_line(guard) if guard else None
    if outcome is None:  # the guard left the compaction out tonight: its line says why
        if args.json:
            print_json({"run": guard["run"] if guard else None, "guarded": True, "guard": guard, "skipped": said})
        else:
            print(one_line(said or f"The nightly guard left {bot.id}'s compaction out tonight."))
        return 0
    if args.json:
        print_json(outcome.to_dict() | {"guarded": guard is not None, "guard": guard})
    else:
        write_text(outcome.report.text)  # guarded: the guard's line ends it (send_later), as in the report sent
        if outcome.sink and outcome.sink["error"]:
            print_error(outcome.sink["error"])
    if outcome.report.error:
        return EXIT_STALE if outcome.changed_meanwhile else 1
    return 0


def at_a_terminal() -> bool:
    """Run by a person at a terminal (stdin or stderr is one), not by cron."""
    return sys.stdin.isatty() or sys.stderr.isatty()


def _compact_settings(bot, args: argparse.Namespace) -> int:
    from ..core.compact.nightly import propose_only_now, switch_nightly

    on = None if args.nightly is None else args.nightly == "on"
    propose_only = {"on": True, "off": False, "auto": None, None: "unchanged"}[args.propose_only]
    settings = switch_nightly(bot.home, bot.id, on, propose_only)
    if args.json:
        print_json(
            {
                "bot": bot.id,
                "compactNightly": settings.compact_nightly,
                "compactProposeOnly": settings.compact_propose_only,
                "compactNightlySince": settings.compact_nightly_since,
                "propose_only_now": propose_only_now(settings, clock.today()),
            }
        )
        return 0
    state = "on" if settings.compact_nightly else "off"
    proposes = propose_only_now(settings, clock.today())
    mode = f"only proposes (see omb-tui proposals {bot.id})" if proposes else "applies its changes"
    print(f"Nightly compaction of {bot.id} is {state}; a nightly run now {mode}.")
    return 0


def cmd_proposals(args: argparse.Namespace) -> int:
    from ..core.compact.pending import pending_changes

    bot = open_bot(args)
    waiting = pending_changes(bot.home, bot.id)
    if args.json:
        print_json([item.to_dict() for item in waiting])
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


def cmd_proposals_accept(args: argparse.Namespace) -> int:
    from ..core.compact.pending import accept

    bot = open_bot(args)
    outcome = accept(bot.home, bot.id, _chosen_proposals(bot, args, "accept"))
    if args.json:
        print_json(outcome.to_dict())
    else:
        if outcome.applied:
            print(
                f"Applied {', '.join(outcome.applied)} to MEMORY.md (run {outcome.run}; rows "
                f"{', '.join(outcome.rows)})."
            )
        for refused_id, why in outcome.refused:
            print(f"Not applied {refused_id}: {one_line(why)}")
    return 1 if outcome.refused else 0


def cmd_proposals_reject(args: argparse.Namespace) -> int:
    from ..core.compact.pending import reject

    bot = open_bot(args)
    ids = _chosen_proposals(bot, args, "reject")
    reject(bot.home, bot.id, ids)
    if args.json:
        print_json({"rejected": list(dict.fromkeys(ids))})
    else:
        print(f"Rejected {plural(len(ids), 'proposed change')}.")
    return 0


def cmd_upkeep(args: argparse.Namespace) -> int:
    import json

    from ..core.redaction.data import redact_data
    from ..core.schedule import upkeep_due

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
            print_json(report.to_dict())
        for bot in report.bots:  # one line per bot, redacted like every message (an error may echo a key)
            print(json.dumps(redact_data(bot.to_dict()), ensure_ascii=False))
        return EXIT_FAILED if report.failed else 0
    if report.busy:
        print(f"Nothing done: {report.busy}.", file=sys.stderr)
        return 0
    for bot in report.bots:
        print(one_line(bot.line()))
    if report.no_model:
        print(report.no_model)
    if report.failed:  # cron mails what a job prints on stderr, and notices the exit code
        print_error(f"Upkeep failed for {plural(len(report.failed), 'bot')}: {', '.join(report.failed)}.")
        return EXIT_FAILED
    return 0


def _about_me_person(args: argparse.Namespace) -> str | None:
    """--person (given before or after `remove`): that person of the home, or None for the owner's About me."""
    from ..core.people.layers import require_person

    person = getattr(args, "person", None)
    return require_person(Home(args.home), person) if person else None


def cmd_about_me(args: argparse.Namespace) -> int:
    from ..core.upkeep.about_me import list_learned

    learned = list_learned(Home(args.home), _about_me_person(args))
    if args.json:
        print_json([line.to_dict() for line in learned])
        return 0
    if not learned:
        print("No bot has added a line to About me.")
    for line in learned:
        print(f"{line.id}  {line.at or '':<10}  {line.bot:<14} {one_line(line.text)}")
    return 0


def cmd_about_me_remove(args: argparse.Namespace) -> int:
    from ..core.upkeep.about_me import remove_learned

    removed = remove_learned(Home(args.home), args.learned_id, person=_about_me_person(args))
    if args.json:
        print_json(removed.to_dict())
    else:
        print(one_line(removed.message()))
    return 0
