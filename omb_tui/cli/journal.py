"""`omb-tui journal|undo|revert|undo-run|review`: what changed a bot's memory, and taking it back (the spec's
journal and undo; the review of what upkeep runs changed)."""

from __future__ import annotations

import argparse

from ..core.base import clock
from ..core.base.errors import EXIT_NEEDS_CONFIRMATION
from ..core.base.text import plural
from ..core.files.paths import Home
from .common import CliError, add_command, given, open_bot
from .output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers,
        "journal",
        cmd_journal,
        "Show the journal of changes, newest first (times in local time).",
        json=True,
    )
    p.add_argument("--limit", type=int, metavar="N", help="at most N rows")
    p.add_argument(
        "--filter",
        metavar="TEXT",
        help="as the app's journal filter: plain words, file:NAME, who:NAME, "
        "how:WORD, chat:NAME, day:YYYY-MM-DD (or YYYY-MM, YYYY, today, yesterday); e.g. 'who:bot day:today'",
    )
    p.add_argument(
        "--since", type=given, metavar="WHEN", help="only rows written since then: 24h, 3d, yesterday or a date"
    )
    p = add_command(subparsers, "undo", cmd_undo, "Put a file back as it was before a journal row.")
    p.add_argument("row_id", metavar="ROW_ID")
    p.add_argument("--yes", action="store_true", help="undo even when later rows changed the same file")
    p = add_command(
        subparsers,
        "revert",
        cmd_revert,
        "Take back one journal row's change alone, keeping later "
        "changes to the file (exit 3 when they touch the same lines: undo puts the whole file back "
        "instead).",
        json=True,
    )
    p.add_argument("row_id", metavar="ROW_ID")
    p = add_command(
        subparsers,
        "undo-run",
        cmd_undo_run,
        "Undo a whole upkeep run: each file it changed back as before it.",
        json=True,
    )
    p.add_argument("run_id", metavar="RUN")
    p.add_argument("--yes", action="store_true", help="undo even when later changes to those files would go too")
    p = add_command(
        subparsers,
        "review",
        cmd_review,
        "The upkeep runs to review across every bot, bot → run → "
        "change (default: what is not yet reviewed of the last three nights).",
        json=True,
        bot=False,
    )
    _window(p, "every run since then, reviewed or not", "mark the runs listed as reviewed")
    p = add_command(
        subparsers,
        "changes",
        cmd_changes,
        "Everything that changed in the bots' memory since you last looked, by every writer (upkeep runs, agent "
        "sessions, a bot's chats, you, changes outside the app, the guard), bot → who → change; the unreviewed "
        "first (default: since your last review mark or the last three nights, whichever is earlier).",
        json=True,
        bot=False,
    )
    _window(p, "every change since then", "mark every group listed as reviewed")


def _window(p: argparse.ArgumentParser, since: str, mark: str) -> None:
    """`review`'s and `changes`' options: the window, one bot, and marking what is listed."""
    p.add_argument("--since", type=given, metavar="WHEN", help=f"{since}: 24h, 3d, yesterday or a date")
    p.add_argument("--bot", type=given, metavar="ID", help="only this bot")
    p.add_argument("--mark", action="store_true", help=mark)


def cmd_journal(args: argparse.Namespace) -> int:
    from ..core.journal.filter import JournalFilter
    from ..core.journal.journal import row_writer
    from ..core.journal.when import when_text

    if args.limit is not None and args.limit < 1:
        raise CliError("--limit must be 1 or more.")
    journal_filter = JournalFilter.parse(args.filter or "")
    problem = journal_filter.problem_when_complete
    if problem:
        raise CliError(problem)
    if args.since is not None:
        from ..core.search.session_search import parse_when

        journal_filter = journal_filter.with_since(parse_when(args.since, now=clock.now_utc(), end=False))
    bot = open_bot(args)
    rows = journal_filter.rows(bot.store.journal, limit=args.limit)
    titles = chat_titles(bot.home, bot.id, [row.chat for row in rows if row.chat])
    if args.json:
        print_json([{**row.summary(), "chat_title": titles.get(row.chat or "")} for row in rows])
        return 0
    if not rows:
        print(
            f"The journal of {bot.id} is empty."
            if journal_filter.empty
            else f"No row of the journal of {bot.id} matches."
        )
    for row in rows:
        chat = f' from chat "{titles.get(row.chat, row.chat)}"' if row.chat else ""
        undo = "" if row.undoable else f"  [cannot undo: {row.not_undoable_reason}]"
        print(f"{row.id}  {when_text(row.at)}  {row.file:<24} {row_writer(row)}, {row.how}{chat}{undo}")
    return 0


def chat_titles(home: Home, bot_id: str, chats: list[str]) -> dict[str, str]:
    """The title of each chat the rows name that is a conversation of the bot (an agent session's
    `claude-code-<id>` reads "Claude Code in trips"); a chat that is no conversation (an MCP client's session,
    named already) is left out."""
    from ..core.files.paths import MemoryInputError
    from ..core.memory import conversations as conv

    titles = {}
    for chat in dict.fromkeys(chats):
        try:
            titles[chat] = conv.find_conversation(home, bot_id, chat).title
        except (MemoryInputError, OSError):
            continue
    return titles


def cmd_undo(args: argparse.Namespace) -> int:
    from ..core.journal.changes import LaterChanges

    bot = open_bot(args)
    try:
        result = bot.store.undo(args.row_id, force=args.yes)
    except LaterChanges as exc:
        raise CliError(f"{exc} Run again with --yes to undo anyway.", EXIT_NEEDS_CONFIRMATION) from None
    which = "which is" if len(result.later) == 1 else "which are"
    later = f" (after {plural(len(result.later), 'later change')}, {which} journaled too)" if result.later else ""
    print(f"Put {result.row.file} back as it was before {result.row.id}{later}.")
    return 0


def cmd_revert(args: argparse.Namespace) -> int:
    from ..core.review.revert import revert_change

    bot = open_bot(args)
    done = revert_change(bot.home, bot.id, args.row_id)
    print_json(done.to_dict()) if args.json else print(done.message())
    return 0


def cmd_undo_run(args: argparse.Namespace) -> int:
    from ..core.review.revert import RunHasLaterChanges, undo_run

    bot = open_bot(args)
    try:
        done = undo_run(bot.home, bot.id, args.run_id, yes=args.yes)
    except RunHasLaterChanges as exc:
        raise CliError(f"{exc} Run again with --yes to undo anyway.", EXIT_NEEDS_CONFIRMATION) from None
    print_json(done.to_dict()) if args.json else print(done.message())
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from ..core.review.marks import mark_reviewed
    from ..core.review.runs import review
    from ..core.search.session_search import parse_when

    since = parse_when(args.since, now=clock.now_utc(), end=False) if args.since else None
    found = review(Home(args.home), since=since, bot_ids=[args.bot] if args.bot else None)
    marked = {bot.bot: [run.id for run in bot.runs] for bot in found.bots if bot.runs} if args.mark else {}
    for bot_id, run_ids in marked.items():
        mark_reviewed(Home(args.home), bot_id, run_ids)
    if args.json:
        print_json({**found.to_dict(), "marked": marked})
    else:
        print("\n".join(found.lines()))
        if marked:
            print(f"Marked {plural(sum(len(ids) for ids in marked.values()), 'run')} reviewed.")
    return 0


def cmd_changes(args: argparse.Namespace) -> int:
    from ..core.review.changes import changes, look_outside, mark_groups
    from ..core.search.session_search import parse_when

    since = parse_when(args.since, now=clock.now_utc(), end=False) if args.since else None
    home = Home(args.home)
    bot_ids = [args.bot] if args.bot else None
    look_outside(home, bot_ids)  # an edit made since the last look is listed now, not after another command
    found = changes(home, since=since, bot_ids=bot_ids)
    groups = [group for bot in found.bots for group in bot.groups if not group.reviewed]
    marked = mark_groups(home, groups) if args.mark else 0
    if args.json:
        print_json({**found.to_dict(), "marked": marked})
    else:
        print("\n".join(found.lines()))
        if args.mark:
            print(f"Marked {plural(len(groups), 'group')} ({plural(marked, 'change')}) reviewed.")
    return 0
