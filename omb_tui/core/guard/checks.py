"""The checks after a guarded run (docs/guard.md, "After the run"): what loaded before still loads or was moved
by a rule that says so, and no health, allergy or rule line is lost. The recall checks (probes) are in
probes.py. Each check reads the files before the run (`MemoryBefore`) and after, and says what failed in one
sentence, naming the first line it lost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from ..files.paths import MEMORY_DIR, MEMORY_FILE
from ..journal.journal import JournalRow
from ..memory.budget import loaded_memory
from ..memory.entries import is_health_or_safety, is_person_rule, parse_entries
from ..memory.store import ABOUT_ME_REL, MemoryStore
from .loops import diff_facts, fact_key

STEP_COMPACT = "compact"  # a compaction change carries its rule: a validated category and reason


def memory_files(store: MemoryStore) -> dict[str, str]:
    """MEMORY.md, every topic and the archive, and About me: rel → text (daily logs are the bot's diary)."""
    texts = {MEMORY_FILE: store.read(MEMORY_FILE).text}
    folder = store.workspace / MEMORY_DIR
    if folder.is_dir():
        for path in sorted(folder.glob("*.md")):
            if path.is_file() and not path.is_symlink():
                rel = f"{MEMORY_DIR}/{path.name}"
                texts[rel] = store.read(rel).text
    texts[ABOUT_ME_REL] = store.read(ABOUT_ME_REL).text
    return texts


def _facts(text: str) -> dict[str, str]:
    """fact key → the fact as written, for every bullet."""
    return {fact_key(e.fact): e.fact for e in parse_entries(text) if e.is_bullet and e.fact.strip()}


def _kept(texts: Iterable[str]) -> set[str]:
    kept: set[str] = set()
    for text in texts:
        kept |= set(_facts(text))
    return kept


@dataclass
class MemoryBefore:
    loaded: dict[str, str]  # the facts MEMORY.md loaded before the run
    guarded: dict[str, str]  # health, allergy and rule lines anywhere in memory before the run

    @classmethod
    def read(cls, store: MemoryStore, today: date) -> MemoryBefore:
        texts = memory_files(store)
        guarded = {}
        for text in texts.values():
            for entry in parse_entries(text):
                if entry.is_bullet and entry.fact.strip() and not entry.struck:
                    if is_health_or_safety(entry.fact) or is_person_rule(entry):
                        guarded[fact_key(entry.fact)] = entry.fact
        return cls(_facts(loaded_memory(texts[MEMORY_FILE], today)), guarded)


def failed_check(
    before: MemoryBefore, store: MemoryStore, run_rows: list[JournalRow], today: date, others: set[str] | None = None
) -> str | None:
    """The first check the run fails, in one sentence (no full stop), or None. `others`: facts someone else took
    out while the run went on (the person in the app): their going is not the run's."""
    after = memory_files(store)
    anywhere = _kept(after.values()) | (others or set())
    for key, fact in before.guarded.items():
        if key not in anywhere:
            return f'a health, allergy or rule line was lost ("{short_fact(fact)}")'
    by_rule: set[str] = set()
    for row in run_rows:
        if row.step == STEP_COMPACT and row.file == MEMORY_FILE:
            removed, _ = diff_facts(row.diff)
            by_rule |= set(removed)
    loads = set(_facts(loaded_memory(after[MEMORY_FILE], today)))
    for key, fact in before.loaded.items():
        if key not in loads and key not in anywhere and key not in by_rule:
            return f'"{short_fact(fact)}" loaded before the run and is gone, moved by no rule'
    return None


def short_fact(fact: str, limit: int = 60) -> str:
    return fact if len(fact) <= limit else fact[: limit - 1] + "…"
