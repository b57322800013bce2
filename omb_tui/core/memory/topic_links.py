"""Pointers to a topic, and renaming a topic with them (spec: "Where it lives", topic files).

MEMORY.md and the topics point at a topic as `see memory/travel.md` (or any `memory/travel.md` path) or as a
wiki link, `[[travel]]`, `[[travel.md]]`, `[[travel|trips]]`, `[[travel#Flights]]`. Renaming a topic leaves
those pointing nowhere; `rename_topic_with_links` renames it and updates them in MEMORY.md and every topic in
the same locked step, each file one journal row (undoable), noted as part of the rename. The archive and the
daily logs are records of what was, so they are left as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..files.paths import MEMORY_DIR, MEMORY_FILE, validate_topic_name
from ..journal.changes import Actor, WriteResult
from .store import MemoryStore


@dataclass(frozen=True)
class LinkUpdate:
    rel: str  # the file holding pointers
    count: int  # how many pointers it holds (or held) to the old name


def _pointer_pattern(old: str) -> re.Pattern[str]:
    """`memory/old.md` as a whole path, or a wiki link to `old` (with or without .md) up to its | # or ]]."""
    stem = old.removesuffix(".md")
    path = rf"(?<![\w/.-]){re.escape(MEMORY_DIR)}/{re.escape(old)}(?![\w.-])"
    wiki = rf"(?<=\[\[){re.escape(stem)}(?P<suffix>\.md)?(?=\]\]|\||#)"
    return re.compile(f"(?P<path>{path})|(?P<wiki>{wiki})")


def _replaced(text: str, old: str, new: str) -> tuple[str, int]:
    new_stem = new.removesuffix(".md")

    def replacement(match: re.Match[str]) -> str:
        if match.group("path"):
            return f"{MEMORY_DIR}/{new}"
        return new_stem + (match.group("suffix") or "")

    return _pointer_pattern(old).subn(replacement, text)


def _linking_files(store: MemoryStore) -> list[str]:
    """MEMORY.md and every topic, as workspace-relative paths."""
    home, bot_id = store.home, store.bot_id
    topics = [f"{MEMORY_DIR}/{path.name}" for path in home.topic_paths(bot_id)]
    return [MEMORY_FILE, *topics]


def pointers_to(store: MemoryStore, topic: str) -> list[LinkUpdate]:
    """Which files point at memory/<topic>, and how many times each (files that do not, left out)."""
    validate_topic_name(topic)
    found = []
    for rel in _linking_files(store):
        count = _replaced(store.read(rel).text, topic, topic)[1]
        if count:
            found.append(LinkUpdate(rel, count))
    return found


def rename_topic_with_links(
    store: MemoryStore, old: str, new: str, actor: Actor
) -> tuple[WriteResult, list[LinkUpdate]]:
    """Rename memory/<old> to memory/<new> and point every pointer to it at the new name, in one locked step.

    Returns the new file's write and the files whose pointers were updated."""
    validate_topic_name(new)
    with store.locked():
        created, _ = store.rename_topic(old, new, actor)
        updated = []
        for rel in _linking_files(store):
            snapshot = store.read(rel)
            text, count = _replaced(snapshot.text, old, new)
            if count:
                store.write(
                    rel,
                    text,
                    actor,
                    expected_hash=snapshot.hash,
                    note=f"pointers to {MEMORY_DIR}/{old} now name {MEMORY_DIR}/{new} (rename)",
                )
                updated.append(LinkUpdate(rel, count))
    return created, updated
