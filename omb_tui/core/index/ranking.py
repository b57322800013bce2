"""How a hit of the recall index is scored (docs/recall.md, "Ranking"); see :mod:`omb_tui.core.index.recall_index`.

A word's weight is its BM25 idf among the notes (or messages); a hit's score is the weights of the words it holds
summed (a word only its topic's name holds counts at half weight), times a recency factor. Notes, topics' openings
and messages are all scored by `hit_score`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date

# The sum of the weights is multiplied by a recency factor from 1 + RECENCY_BOOST (today) halving every
# RECENCY_HALF_LIFE_DAYS towards 1.
RECENCY_BOOST = 0.5
RECENCY_HALF_LIFE_DAYS = 60.0
NAME_ONLY_WEIGHT = 0.5  # a word matched only by the topic's name, title or aliases


def idf(total: int, found_in: int) -> float:
    """BM25's inverse document frequency, kept positive: a rarer word weighs more."""
    return math.log(1.0 + (total - found_in + 0.5) / (found_in + 0.5))


def word_weights(query_terms: list[str], total: int, found_in: dict[str, int]) -> dict[str, float]:
    """Each word's weight (its idf) among `total` notes or messages, `found_in[word]` of them holding it."""
    return {term: idf(total, min(total, found_in.get(term, 0))) for term in query_terms}


def weight_of(matched: Iterable[str], weights: dict[str, float]) -> float:
    """The weights of the words a hit holds, summed exactly: the same in every process, whatever order a set
    of words comes in (Python's hash seed orders it, and a plain sum's last bit follows the order)."""
    return math.fsum(map(weights.__getitem__, matched))


def recency_factor(day: date | None, today: date) -> float:
    """1 + RECENCY_BOOST for today's notes, halving towards 1 every RECENCY_HALF_LIFE_DAYS."""
    if day is None:
        return 1.0
    age = max(0, (today - day).days)
    return 1.0 + RECENCY_BOOST * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS)


def words_weight(own: Iterable[str], by_name: Iterable[str], weights: dict[str, float]) -> float:
    """The weights of the words a hit holds itself, and at half weight of those only its topic's name holds: a hit's
    score before its recency factor."""
    # (no name's words add 0.0: skipping them gives the same float, and most hits have none)
    by_name_weight = NAME_ONLY_WEIGHT * weight_of(by_name, weights) if by_name else 0.0
    return weight_of(own, weights) + by_name_weight


def hit_score(
    own: Iterable[str], by_name: Iterable[str], weights: dict[str, float], day: date | None, today: date
) -> float:
    """A hit's score: its words' weight (`words_weight`) times its recency factor. Notes, openings (no words of their
    own) and messages (no name) alike; a search scoring many rows keeps each day's factor and multiplies itself."""
    return words_weight(own, by_name, weights) * recency_factor(day, today)


def lowest_kept(scores: list[float], limit: int) -> float:
    """The `limit`-th best of the scores: only what scores at least it can be among the best `limit` (ties and all);
    -inf when everything may be (no limit, or no more than it)."""
    if not limit or len(scores) <= limit:
        return -math.inf
    return sorted(scores, reverse=True)[limit - 1]
