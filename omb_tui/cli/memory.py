"""`omb-tui bots|prompt|gauge|remember|forget|prefer|show|write|rm|mv|make-room`: a bot's memory files, read and
changed by a person (the spec's MEMORY.md and its load budget, topics, daily logs, About me)."""

from __future__ import annotations

import argparse
import sys
from datetime import date

from ..core.base.errors import EXIT_NEEDS_CONFIRMATION, EXIT_STALE
from ..core.base.text import plural
from ..core.files.paths import MEMORY_FILE, Home, MemoryInputError
from .common import CliError, add_command, given, open_bot
from .output import print_json, write_text


def register(subparsers: argparse._SubParsersAction) -> None:
    add_command(
        subparsers,
        "bots",
        cmd_bots,
        "List every bot with its memory switch, gauge level and last change.",
        json=True,
        bot=False,
    )
    p = add_command(
        subparsers, "prompt", cmd_prompt, "Print the memory block exactly as it loads into the system prompt."
    )
    p.add_argument("--as-of", type=_day, metavar="DATE", help="the day to load on (expired notes stay out)")
    add_command(subparsers, "gauge", cmd_gauge, "Lines and bytes of MEMORY.md against the load budget.", json=True)
    p = add_command(
        subparsers, "remember", cmd_remember, "Add one dated note to MEMORY.md (memory_update add).", json=True
    )
    p.add_argument("text", metavar="TEXT")
    p.add_argument("--until", type=_day, metavar="DATE", help="the last day the fact is true")
    p.add_argument("--chat", type=given, metavar="NAME", help="the chat the note came from")
    p = add_command(
        subparsers, "forget", cmd_forget, "Remove every note that mentions these words as whole words.", json=True
    )
    p.add_argument("words", metavar="WORDS", nargs="+")
    p = add_command(
        subparsers, "prefer", cmd_prefer, "Save a standing preference for all bots into About me.", json=True
    )
    p.add_argument("text", metavar="TEXT")
    p.add_argument(
        "--again", action="store_true", help="add it though you removed it from About me before (you ask once more)"
    )
    p.add_argument(
        "--person", type=given, metavar="NAME", help="into a Team Cloud person's own About me (default: the owner's)"
    )
    p = add_command(subparsers, "show", cmd_show, "Print one memory file (with --json: its text and hash).", json=True)
    p.add_argument("path", metavar="PATH", help="relative to the workspace: MEMORY.md, memory/travel.md, …")
    p = add_command(
        subparsers,
        "write",
        cmd_write,
        "Save a memory file from stdin; with --expect-hash, refuse a stale save (--expect-hash none: create only).",
        json=True,
    )
    p.add_argument("path", metavar="PATH")
    p.add_argument(
        "--expect-hash",
        metavar="H",
        help="the hash of the text you read; exit 3 if it changed. "
        "'none': the file must not exist yet; exit 3 if it does",
    )
    p = add_command(subparsers, "rm", cmd_rm, "Delete a topic or a daily log (MEMORY.md can only be emptied).")
    p.add_argument("path", metavar="PATH")
    p = add_command(
        subparsers, "mv", cmd_mv, "Rename a topic (names: letters, numbers, spaces, dots, dashes, ending in .md)."
    )
    p.add_argument("old", metavar="OLD", help="e.g. travel.md or memory/travel.md")
    p.add_argument("new", metavar="NEW", help="e.g. trips.md or memory/trips.md")
    p.add_argument(
        "--update-links",
        action="store_true",
        help="also point 'see memory/OLD' and [[OLD]] in "
        "MEMORY.md and the other topics at the new name (the archive and logs stay as they are)",
    )
    p = add_command(
        subparsers,
        "make-room",
        cmd_make_room,
        "Move entries of MEMORY.md to memory/archive.md (struck, "
        "expired, then the oldest; never undated lines or health facts) until everything loads; shows "
        "them, exit 4, without --yes.",
        json=True,
    )
    p.add_argument("--yes", action="store_true", help="move them (without it, only show what would move)")


def _day(value: str) -> date:
    """The core's day parser for argparse, which shows only an ArgumentTypeError's words (and adds the period)."""
    from ..core.journal.when import parse_day

    try:
        return parse_day(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).rstrip(".")) from None


def cmd_bots(args: argparse.Namespace) -> int:
    from ..core.journal.when import when_text
    from ..core.memory.settings import load_config
    from ..core.turn.bot import all_bots

    home = Home(args.home)
    load_config(home)  # a broken config.json is reported, not ignored
    summaries = []
    for bot in all_bots(home):
        bot.look()
        summaries.append(bot.summary())
    if args.json:
        print_json([s.to_dict() for s in summaries])
        return 0
    if not summaries:
        print(f"No bots in {home.root}. Try: omb-tui demo --home DIR")
        return 0
    for s in summaries:
        switch = "memory on " if s.memory else "memory off"
        last = when_text(s.last_change) if s.last_change else "never"  # local time, as the app shows it
        line = f"{s.id:<16} {s.name:<20} {switch}  {s.level:<5} {s.lines:>4} lines  last change {last}"
        print(line + (f"  ({s.error})" if s.error else ""))
    return 0


def cmd_prompt(args: argparse.Namespace) -> int:
    bot = open_bot(args)
    loaded = bot.loaded_prompt(args.as_of)
    if not loaded.memory_on:
        print(f"Memory is switched off for {bot.id}: nothing loads.", file=sys.stderr)
        return 0
    write_text(loaded.block)
    return 0


def cmd_gauge(args: argparse.Namespace) -> int:
    from ..core.memory.budget import MEMORY_MAX_LINES

    bot = open_bot(args)
    g = bot.gauge()
    if args.json:
        print_json(g.to_dict())
        return 0
    sizes = f"{g.lines}/{g.max_lines} lines, {g.bytes:,}/{g.max_bytes:,} bytes"
    if not _memory_on(bot):  # as `omb-tui prompt` says it
        print(f"{sizes}. Memory is switched off for {bot.id}: nothing loads.")
        return 0
    print(
        f"{sizes}, level {g.level}, {plural(g.lines_not_loaded, 'line')} not loaded. "
        f"Only the first {MEMORY_MAX_LINES} lines load each turn."
    )
    return 0


def _memory_on(bot) -> bool:
    """The memory switch; a broken settings file counts as on here (the gauge is about MEMORY.md)."""
    try:
        return bot.settings.memory
    except (MemoryInputError, OSError, ValueError):
        return True


def cmd_remember(args: argparse.Namespace) -> int:
    from ..core.memory.memory_update import MemoryUpdate

    bot = open_bot(args)
    result = MemoryUpdate(bot.home, bot.id).add(args.text, chat=args.chat, until=args.until)
    print_json(result.to_dict()) if args.json else print(result.message())
    _warn_if_not_journaled(result.journaled)
    return 0


def _warn_if_not_journaled(journaled: bool) -> None:
    if not journaled:
        print(
            "omb-tui: the change was saved, but the journal could not be written; the next look at this bot "
            "will journal it as a change made outside the app.",
            file=sys.stderr,
        )


def cmd_forget(args: argparse.Namespace) -> int:
    from ..core.memory.memory_update import MemoryUpdate

    bot = open_bot(args)
    result = MemoryUpdate(bot.home, bot.id).forget(" ".join(args.words))
    print_json(result.to_dict()) if args.json else print(result.message())
    _warn_if_not_journaled(result.journaled)
    return 0


def cmd_prefer(args: argparse.Namespace) -> int:
    from ..core.files.paths import layer_id
    from ..core.memory.memory_update import MemoryUpdate
    from ..core.people.layers import require_person

    bot = open_bot(args)
    target = layer_id(bot.id, require_person(bot.home, args.person)) if args.person else bot.id
    result = MemoryUpdate(bot.home, target).prefer(args.text, again=args.again)
    if result.refused:  # exit 2, as any refused input; --json still prints what was refused
        if args.json:
            print_json(result.to_dict())
        raise CliError("You removed this from About me before, so it was not added; --again adds it back.")
    print_json(result.to_dict()) if args.json else print(result.message())
    _warn_if_not_journaled(result.journaled)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    bot = open_bot(args)
    snapshot = bot.store.read(args.path)
    if not snapshot.exists:
        raise CliError(f"{snapshot.rel} does not exist for {bot.id}.")
    if args.json:
        print_json({"path": snapshot.rel, "kind": snapshot.kind.value, "hash": snapshot.hash, "text": snapshot.text})
    else:
        write_text(snapshot.text)
    return 0


def cmd_write(args: argparse.Namespace) -> int:
    from ..core.journal.changes import Actor, StaleHash
    from ..core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON

    bot = open_bot(args)
    data = sys.stdin.buffer.read()
    text = data.decode("utf-8", "surrogateescape")
    # `--expect-hash none`: create only. The store reads expected_hash=None as "the file must not exist" and
    # checks it under the bot's lock, so of two writers racing to create the same file exactly one wins.
    create_only = args.expect_hash is not None and args.expect_hash.lower() == "none"
    kwargs = {} if args.expect_hash is None else {"expected_hash": None if create_only else args.expect_hash}
    try:
        result = bot.store.write(args.path, text, Actor(WHO_PERSON, HOW_COMMAND_LINE), **kwargs)
    except StaleHash as exc:
        if args.json:
            print_json({"error": "stale", "path": exc.rel, "current_hash": exc.current_hash})
        else:
            print(exc.current_hash or "", file=sys.stdout)
        why = "already exists" if create_only else "changed since it was read"
        raise CliError(f"{exc.rel} {why}; nothing was written (current hash printed).", EXIT_STALE) from None
    if args.json:
        print_json(result.to_dict())
    else:
        note = f" ({plural(result.redactions, 'credential')} redacted)" if result.redactions else ""
        print(f"Saved {result.rel}{note}." if result.changed else f"{result.rel} is unchanged.")
    _warn_if_not_journaled(result.journaled)
    return 0


def cmd_rm(args: argparse.Namespace) -> int:
    from ..core.journal.changes import Actor
    from ..core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON

    bot = open_bot(args)
    result = bot.store.delete(args.path, Actor(WHO_PERSON, HOW_COMMAND_LINE))
    print(f"Deleted {result.rel}; undo it with: omb-tui undo {bot.id} {result.row_id}")
    return 0


def cmd_mv(args: argparse.Namespace) -> int:
    from ..core.journal.changes import Actor
    from ..core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON

    bot = open_bot(args)
    # Take topic names (travel.md) or workspace paths (memory/travel.md), like the other commands.
    old, new = (name.removeprefix("memory/") for name in (args.old, args.new))
    actor = Actor(WHO_PERSON, HOW_COMMAND_LINE)
    if not args.update_links:
        created, _ = bot.store.rename_topic(old, new, actor)
        print(f"Renamed memory/{old} to {created.rel}.")
        return 0
    from ..core.memory.topic_links import rename_topic_with_links

    created, updated = rename_topic_with_links(bot.store, old, new, actor)
    count = sum(update.count for update in updated)
    where = f"; updated {plural(count, 'pointer')} in " + ", ".join(u.rel for u in updated)
    print(f"Renamed memory/{old} to {created.rel}{where if updated else '; no pointers to update'}.")
    return 0


def cmd_make_room(args: argparse.Namespace) -> int:
    """Without --yes, shows what would move and exits 4 (as undo asks); with --yes, moves it."""
    from ..core.journal.changes import Actor
    from ..core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
    from ..core.memory.make_room import make_room, plan_room

    bot = open_bot(args)
    if args.yes:
        plan = make_room(bot.home, bot.id, Actor(WHO_PERSON, HOW_COMMAND_LINE))
    else:
        plan = plan_room(bot.store.read(MEMORY_FILE))
    if args.json:
        print_json(plan.to_dict())
    else:
        print(plan.message())
        for entry in plan.moving:
            print(f"  line {entry.line}: {entry.text}")
    if plan.moving and not plan.done:
        print("Run again with --yes to move them.", file=sys.stderr)
        return EXIT_NEEDS_CONFIRMATION
    return 0
