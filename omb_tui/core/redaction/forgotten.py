"""Words the person asked to forget, as profile-learned.json keeps them: only a hash of each word.

Spec: memory.md, "Remember and forget, in chat" (the words are kept so no bot learns a fact that mentions them
again) and "Where it lives" (credentials never reach disk). "forget Tulip369" names a password by itself, and no
detector can tell a bare value from a word, so no forgotten word is kept as written: each is kept as the sha256 of
the word (lower case, without the punctuation around it). A later text still matches when it holds every one of
the words, each as a whole word. What a person can still see of an entry is how many words it has and the day it
was forgotten.

An entry: ``{"hashed_words": [sha256, …], "count": N, "at": "YYYY-MM-DD"}``. An entry written before this kept its
plain words in ``"words"``; it is turned into hashes when the file is read (and saved so, see
:func:`omb_tui.core.memory.settings.load_profile_learned`).
"""

from __future__ import annotations

import hashlib
import re
from datetime import date

__all__ = ["forgotten_entry", "forgotten_matches", "hashed_entry", "same_forgotten", "word_hash"]

_WORD_EDGES = "\"'`()[]{}<>.,;:!?«»“”‘’"
_WORD_PART = re.compile(r"\w+")


def word_hash(word: str) -> str:
    """The hash a forgotten word is kept as (and a text's words are compared by)."""
    return hashlib.sha256(word.strip(_WORD_EDGES).lower().encode("utf-8", "surrogateescape")).hexdigest()


def _hashed_words(words: str) -> list[str]:
    return sorted({word_hash(word) for word in words.split() if word.strip(_WORD_EDGES)})


def forgotten_entry(words: str, day: date) -> dict:
    """What profile-learned.json keeps of `forget WORDS`: each word's hash, how many, and the day."""
    hashed = _hashed_words(words)
    return {"hashed_words": hashed, "count": len(hashed), "at": day.isoformat()}


def hashed_entry(entry: dict) -> dict:
    """An entry with any plain words it still holds (written by an earlier version) turned into hashes."""
    plain = entry.get("words")
    if not isinstance(plain, str) or not plain.strip():
        return {key: value for key, value in entry.items() if key != "words"}
    hashed = sorted(set(entry.get("hashed_words") or []) | set(_hashed_words(plain)))
    kept = {key: value for key, value in entry.items() if key not in ("words", "hashed_words", "count")}
    return {"hashed_words": hashed, "count": len(hashed), **kept}


def _text_hashes(text: str) -> set[str]:
    """The hashes of every word of a text: each word between spaces (its punctuation trimmed), and each run of
    letters and digits inside it, so "Tulip369's" and "(Tulip369)" both hold "Tulip369" as a whole word."""
    words = set(text.split())
    words.update(part for word in list(words) for part in _WORD_PART.findall(word))
    return {word_hash(word) for word in words if word.strip(_WORD_EDGES)}


def forgotten_matches(forgotten: dict, text: str) -> bool:
    """Does the text mention every word of the entry, each as a whole word (compared by hash)?"""
    entry = hashed_entry(forgotten)
    hashed = [h for h in entry.get("hashed_words") or [] if isinstance(h, str)]
    if not hashed:
        return False
    found = _text_hashes(text)
    return all(h in found for h in hashed)


def same_forgotten(a: dict, b: dict) -> bool:
    """The same words forgotten twice (in any order or case): kept once."""
    return sorted(hashed_entry(a).get("hashed_words") or []) == sorted(hashed_entry(b).get("hashed_words") or [])
