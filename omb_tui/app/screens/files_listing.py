"""The Files screen's list: which of a bot's memory files it shows, in which order, how each is labelled, which
of them the person may edit, and what one read of them found.

Spec: memory.md, "Where it lives" (MEMORY.md, topics under memory/, the archive and daily logs; the folder's
path is shown), "Editing" (daily logs are read-only) and "What loads, and the budget" (MEMORY.md's text for
the gauge, and whether the bot uses memory at all). The reads here run in the screen's worker thread. Under the
bot's own files, each person's layer of it (files_layers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.widgets.option_list import Option

from ...core.files.paths import MEMORY_FILE, FileKind, Home, MemoryInputError, layer_id
from ...core.journal.changes import FileSnapshot
from ...core.memory.drafts import Draft
from ...core.people.layers import bot_layers
from ..widgets.row_list import has_undecodable_bytes
from .files_layers import file_key, heading, split_key, store_of

LISTED_KINDS = (FileKind.MEMORY, FileKind.TOPIC, FileKind.ARCHIVE, FileKind.LOG)  # in the list's order
EDITABLE_KINDS = tuple(kind for kind in LISTED_KINDS if not kind.read_only)


@dataclass(frozen=True)
class BotFiles:
    """A bot's memory files as one read found them: the list, the file to show, and what is said around them."""

    files: list[tuple[str, FileKind]]  # (path, kind) in the list's order
    snapshot: FileSnapshot  # the file to show
    memory_text: str  # MEMORY.md's text, for the gauge
    bot_name: str
    folder: str  # the workspace's path, shown under the editor
    draft: Draft | None  # the shown file's recovery draft, if one is kept
    memory_on: bool  # "Let this bot use memory"
    broken_topics: frozenset[str]  # topics whose frontmatter the index cannot read, marked in the list
    workspace_exists: bool
    layers: dict[str, list[tuple[str, FileKind]]]  # each person's layer of the bot: its files, as `files`
    person: str | None  # whose layer the shown file is of (None: the bot's own)


Layers = dict[str, list[tuple[str, FileKind]]]


def listed_files(home: Home, bot_id: str) -> list[tuple[str, FileKind]]:
    """(In a thread) the bot's memory files in the list's order, MEMORY.md first even before it exists, the
    newest daily log first."""
    files = [(mp.rel, mp.kind) for mp in home.memory_files(bot_id)]
    if not any(rel == MEMORY_FILE for rel, _ in files):
        files.insert(0, (MEMORY_FILE, FileKind.MEMORY))
    order = {kind: position for position, kind in enumerate(LISTED_KINDS)}
    files.sort(key=lambda item: (order[item[1]], item[0] if item[1] is not FileKind.LOG else ""))
    logs = sorted((f for f in files if f[1] is FileKind.LOG), reverse=True)
    return [f for f in files if f[1] is not FileKind.LOG] + logs


def listed_layers(home: Home, bot_id: str) -> Layers:
    """(In a thread) each person's layer of the bot on disk, by name, with its files in the list's order."""
    return {person: listed_files(home, layer_id(bot_id, person)) for person in bot_layers(home, bot_id)}


def read_bot_files(
    bot,
    files: list[tuple[str, FileKind]],
    layers: Layers,
    target: str,
    draft_of: Callable[[FileSnapshot, str | None], Draft | None],
    cancelled: Callable[[], bool],
) -> BotFiles | None:
    """(In a thread) what one read of the listed files finds: the file to show (target, a list key, or the bot's
    MEMORY.md when target is not listed), its MEMORY.md's text for the gauge, its recovery draft (`draft_of`), and
    what is said around them; None once `cancelled` says a newer read supersedes this one."""
    person, rel = split_key(target)
    if not any(listed == rel for listed, _ in (files if person is None else layers.get(person, []))):
        person, rel = None, MEMORY_FILE
    store = store_of(bot, person)
    snapshot = store.read(rel)
    memory_text = snapshot.text if snapshot.rel == MEMORY_FILE else store.read(MEMORY_FILE).text
    draft = draft_of(snapshot, person)
    if cancelled():
        return None
    return BotFiles(
        files=files,
        snapshot=snapshot,
        memory_text=memory_text,
        bot_name=bot.name,
        folder=str(bot.store.workspace),
        draft=draft,
        memory_on=memory_switch(bot),
        broken_topics=broken_topics(bot),
        workspace_exists=bot.store.workspace.is_dir(),
        layers=layers,
        person=person,
    )


def list_options(read: BotFiles) -> list[Option]:
    """The list: the bot's files, then under a heading each person's layer's (a heading is never highlighted)."""
    options = [Option(list_label(rel, kind, rel in read.broken_topics), id=rel) for rel, kind in read.files]
    for person, files in read.layers.items():
        options.append(Option(heading(person), disabled=True))
        options += [Option(f"  {list_label(rel, kind)}", id=file_key(person, rel)) for rel, kind in files]
    return options


def list_label(rel: str, kind: FileKind, broken: bool = False) -> str:
    if kind is FileKind.TOPIC:
        return f"  {rel.removeprefix('memory/')}{' ⚠' if broken else ''}"
    if kind is FileKind.LOG:
        return f"  log {rel.removeprefix('memory/log/').removesuffix('.md')}"
    return rel.removeprefix("memory/")


def memory_switch(bot) -> bool:
    """(In a thread) "Let this bot use memory"; a settings file that cannot be read counts as on (Settings says
    why), so the gauge never claims nothing loads without knowing."""
    try:
        return bot.settings.memory
    except (MemoryInputError, OSError, ValueError):
        return True


def broken_topics(bot) -> frozenset[str]:
    """(In a thread) the topics whose frontmatter the index cannot read, to mark in the list; a topic folder
    that cannot be read marks none (the topic index says why), and never stops the files showing."""
    try:
        return frozenset(f"memory/{topic.name}" for topic in bot.topics() if not topic.frontmatter_ok)
    except (OSError, MemoryInputError):
        return frozenset()


def editable_text(text: str) -> bool:
    """Bytes that are not UTF-8 (kept as surrogate escapes) cannot be edited here without loss."""
    return not has_undecodable_bytes(text)
