"""`omb-tui recall|search|brief`: what a bot finds before and during a turn (the spec's auto-recall,
session_search and the recent-work brief), shown as it would be given to the model."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable

from .common import CliError, add_command, given, open_bot, print_error
from .output import print_json, write_text

# The kinds of turn recall knows (omb_tui.core.recall.recall.RECALL_KINDS), kept here so --help never imports recall.
RECALL_KINDS_HELP = ("person", "room", "routine", "bot", "webhook", "handoff")
INDEX_PROGRESS_FROM_FILES = 200  # an index update reading this many files (a build from nothing) shows its progress


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(subparsers, "recall", cmd_recall, "The exact block recall puts in front of a message.", json=True)
    p.add_argument("message", metavar="MESSAGE")
    p.add_argument(
        "--chat", type=given, metavar="ID", help="the conversation the message is in (its data decides the kind)"
    )
    p.add_argument("--kind", choices=RECALL_KINDS_HELP, help="who started the turn (default: person, a 1:1 chat)")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the auto-recall log line on stderr (printed anyway when stderr is a terminal)",
    )
    p = add_command(
        subparsers,
        "search",
        cmd_search,
        "session_search: conversations and memory files by words and/or time.",
        json=True,
    )
    p.add_argument("words", metavar="WORDS", nargs="*")
    p.add_argument(
        "--all-bots",
        action="store_true",
        help="every bot of the home, each by session_search's rules (BOT is then the first word)",
    )
    p.add_argument("--since", type=given, metavar="WHEN", help="24h, 3d, yesterday or a date")
    p.add_argument("--until", type=given, metavar="WHEN", help="24h, 3d, yesterday or a date")
    p.add_argument(
        "--chat", type=given, metavar="ID", help="search from this conversation (a room is told of private hits)"
    )
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N hits (default 20)")
    p.add_argument(
        "--scope",
        choices=("all", "team"),
        default="all",
        help="team: only the accepted notes of the bot's teams (default: all, team notes included)",
    )
    p = add_command(
        subparsers,
        "brief",
        cmd_brief,
        "The recent-work brief: the bot's other conversations, last two days.",
        json=True,
    )
    p.add_argument("--chat", type=given, metavar="ID", help="the current conversation (never listed)")
    p = add_command(
        subparsers,
        "index",
        cmd_index,
        "Bring the bot's recall index up to date now (a build from nothing shows its progress).",
        json=True,
    )
    p.add_argument("--wait", action="store_true", help="when another process is building it, wait for that build")


def _index_progress(args: argparse.Namespace, bot_id: str) -> Callable[[int, int], None] | None:
    """On a terminal, a line on stderr while the bot's recall index reads many files (a build from nothing)."""
    if args.json or not sys.stderr.isatty():
        return None

    def progress(done: int, total: int) -> None:
        if total >= INDEX_PROGRESS_FROM_FILES:
            print(
                f"\rIndexing {bot_id}: {done:,} of {total:,} files…",
                end="\n" if done == total else "",
                file=sys.stderr,
                flush=True,
            )

    return progress


def cmd_recall(args: argparse.Namespace) -> int:
    from ..core.recall.recall import recall

    bot = open_bot(args)
    # A script reading stdout (or --json) would take the INFO line on stderr for an error: a person sees it.
    shown = args.verbose or sys.stderr.isatty()
    logging.getLogger("omb_tui.recall").setLevel(logging.INFO if shown else logging.WARNING)
    result = recall(
        bot.home, bot.id, args.message, chat_id=args.chat, kind=args.kind, progress=_index_progress(args, bot.id)
    )  # logs auto-recall: …
    if args.json:
        print_json(result.to_dict())
    elif result.block:
        write_text(result.block if result.block.endswith("\n") else result.block + "\n")
    else:
        print(f"Nothing recalled: {result.skipped}" if result.skipped else "Nothing recalled.", file=sys.stderr)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    if args.all_bots:
        return _search_all_bots(args)
    from ..core.search.session_search import session_search

    bot = open_bot(args)
    query = _search_query(args, args.words)
    result = session_search(
        bot.home,
        bot.id,
        query,
        since=args.since,
        until=args.until,
        chat_id=args.chat,
        limit=args.limit,
        scope=args.scope,
        progress=_index_progress(args, bot.id),
    )
    if result.index_not_updated:
        print_error(result.index_not_updated)
    if args.json:
        print_json(result.to_dict())
        return 0
    if result.meaning_skipped:  # embeddings on, but the query's vector did not come: said, as in the log
        print_error(f"found by words alone: {result.meaning_skipped}")
    if not result.hits:
        print("Nothing found.")
    for hit in result.hits:
        print(_hit_text(hit))
    if result.disclosed_private_chats:
        print(f"(found in private chats: {', '.join(result.disclosed_private_chats)}; the room is told)")
    return 0


def _search_all_bots(args: argparse.Namespace) -> int:
    """`search --all-bots WORDS…`: session_search in each bot of the home, by its own rules (its chats, the rooms
    it is in, its memory files, its teams' notes), each hit naming its bot; the bots in their order, each bot's
    hits as session_search ranks them."""
    from ..core.files.paths import Home
    from ..core.search.session_search import session_search

    if args.chat:
        raise CliError("--chat names one bot's conversation: leave it out with --all-bots.")
    query = _search_query(args, [args.bot, *args.words] if args.bot else args.words)  # BOT is the first word here
    home = Home(args.home)
    found = []
    for bot_id in home.bot_ids():
        result = session_search(
            home, bot_id, query, since=args.since, until=args.until, limit=args.limit, scope=args.scope
        )
        if result.index_not_updated:
            print_error(f"{bot_id}: {result.index_not_updated}")
        found.append((bot_id, result))
    if args.json:
        print_json({"query": query, "bots": [{"bot": bot_id, **result.to_dict()} for bot_id, result in found]})
        return 0
    if not any(result.hits for _, result in found):
        print("Nothing found.")
    for bot_id, result in found:
        for hit in result.hits:
            print(f"{bot_id}  {_hit_text(hit)}")
    return 0


def _search_query(args: argparse.Namespace, words: list[str]) -> str | None:
    """The words searched for (None: a search by time alone); a search of nothing, or --limit under 1, is refused."""
    query = " ".join(words) or None
    if query is None and args.since is None and args.until is None:
        raise CliError("Give words to search for, or --since / --until (or both).")
    if args.limit < 1:
        raise CliError("--limit must be 1 or more.")
    return query


def _hit_text(hit) -> str:
    """A hit as `search` prints it: when and where, then who said what (300 characters at most)."""
    when = hit.at.strftime("%Y-%m-%d %H:%M") if hit.at else (hit.day.isoformat() if hit.day else "undated")
    who = f"{hit.author}: " if hit.author else ""
    return f"{when:<16}  {hit.where}\n    {who}{' '.join(hit.text.split())[:300]}"


def cmd_brief(args: argparse.Namespace) -> int:
    from ..core.search.brief import recent_work_brief

    bot = open_bot(args)
    brief = recent_work_brief(bot.home, bot.id, chat_id=args.chat)
    if args.json:
        print_json(brief.to_dict())
    elif brief.text:
        write_text(brief.text if brief.text.endswith("\n") else brief.text + "\n")
        if brief.chip:
            print(f"({brief.chip})", file=sys.stderr)
    else:
        print("Nothing in the last two days outside this conversation.", file=sys.stderr)
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    from ..core.base.errors import EXIT_FAILED, disk_refused
    from ..core.index.build import build_lock
    from ..core.index.recall_index import open_index
    from ..core.index.vectors import bring_up_to_date

    bot = open_bot(args)
    try:
        with build_lock(bot.home, bot.id, wait=args.wait) as held:
            if not held:
                message = f"{bot.id}'s index is being built by another process now; --wait waits for that build."
                if args.json:
                    print_json({"bot": bot.id, "built": False, "reason": message})
                else:
                    print(message)
                return 0
            index = open_index(bot.home, bot.id)
            report = index.refresh(progress=_index_progress(args, bot.id))
            if index.connection.in_memory is not None:  # built, but in memory only: nothing could be saved
                raise index.connection.in_memory
            counts = index.counts()
            vectors = bring_up_to_date(index, bot.home, bot.id, progress=_vector_progress(args, bot.id))
    except OSError as exc:
        if not disk_refused(exc):
            raise
        raise CliError(_index_refused(bot.id, exc), EXIT_FAILED) from None
    if args.json:
        print_json(
            {
                "bot": bot.id,
                "built": True,
                "files_read": report.files_read,
                "files_removed": report.files_removed,
                "seconds": round(report.seconds, 3),
                "counts": counts,
                "vectors": vectors.to_dict(),
            }
        )
        return 0
    print(
        f"{bot.id}'s index is up to date: {report.files_read:,} files read, {report.files_removed:,} removed "
        f"in {report.seconds:.1f} s."
    )
    if vectors.model is not None:
        print(_vectors_line(vectors))
    return 0 if vectors.problem is None else 1


def _index_refused(bot_id: str, refusal: OSError) -> str:
    """Why `index` could not build on a home the disk refuses, and that search still answers."""
    from ..core.base.errors import refusal_reason

    reason = refusal_reason(refusal) or "The disk refused the write"
    where = f" ({refusal.filename})" if refusal.filename else ""
    return (
        f"{reason}{where}: {bot_id}'s search index cannot be saved there; search still answers, from the index as "
        "it was or by reading every file."
    )


def _vectors_line(vectors) -> str:
    made = f"{vectors.made:,} vectors made by {vectors.model} in {vectors.seconds:.1f} s"
    if vectors.problem:
        return f"{made}; {vectors.left:,} still to make: {vectors.problem}."
    return f"{made}{'; the model changed, so every vector was made again' if vectors.remade else ''}."


def _vector_progress(args: argparse.Namespace, bot_id: str) -> Callable[[int, int], None] | None:
    """On a terminal, a line on stderr while the vectors are made (a build from nothing, a model change)."""
    if args.json or not sys.stderr.isatty():
        return None

    def progress(done: int, total: int) -> None:
        sys.stderr.write(f"\r{bot_id}: vectors {done:,} of {total:,}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return progress
