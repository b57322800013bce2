"""Recall and search by meaning (docs/recall.md, "Recall by meaning"): a query's vector, and words and
meaning in one score.

A query's vector is one embeddings call with a deadline (QUERY_DEADLINE_S, 300 ms); past it, or on any failure,
None, and recall and search answer by words alone (their log line says so). Vectors are kept per process by the
text's SHA-256 and the model, the newest QUERY_CACHE_SIZE, so a message asked again (a retried turn, the recall
preview, a search repeated) costs no call.

With the vector, every message and note of the index is scored by meaning (index_vectors.MeaningScores: how many
standard deviations its cosine stands above the mean of all the bot's, 0 at or below it; a turn gains half of the
turns beside it, as by words). A hit's fused score is its words' score divided by the best words' score of the
search (so the best by words counts 1.0), plus MEANING_WEIGHT times its meaning: a hit that holds the words and
means the question comes first, one that shares no word with it enters by meaning alone, and words keep their order
where meaning says nothing. Hits from outside the bot's index (a person's layer, a team's notes) have no vectors:
their words' share alone. Without embeddings nothing here runs and the hits are the words' alone, as before.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Protocol

from ..files.paths import Home
from ..index.notes import NoteHit
from ..index.ranking import lowest_kept
from ..index.recall_index import MessageHit, RecallIndex
from ..memory import conversations as conv
from ..memory.settings import AppConfig

if TYPE_CHECKING:
    from ..index.vectors import MeaningScores

# The vectors and the embeddings model are imported where they are used: without embeddings (most homes) recall
# never loads them, and a hook that recalls in its own process pays every import at every prompt.

log = logging.getLogger("omb_tui.recall")

QUERY_CACHE_SIZE = 256
_cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
_cache_lock = threading.Lock()


class QueryVector:
    """What a query's vector came to: `vector` (None: answer by words), `model`, and `why_not` in a few words."""

    def __init__(self, vector: list[float] | None, model: str | None, why_not: str | None = None) -> None:
        self.vector, self.model, self.why_not = vector, model, why_not


def query_vector(home: Home, text: str, *, bot_id: str | None = None, config: AppConfig | None = None) -> QueryVector:
    """The text's vector from the embeddings instance, cached; never raises for what embeddings say. (`config`:
    config.json as the caller just read it.)"""
    from ..models.embeddings import QUERY_DEADLINE_S, EmbeddingsUnavailable, embed, embeddings_route

    try:
        route = embeddings_route(home, config)
    except EmbeddingsUnavailable as problem:
        return QueryVector(None, None, problem.reason)
    if route is None:
        return QueryVector(None, None, "embeddings are off")
    key = (route.name, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return QueryVector(_cache[key], route.name)
    try:
        (vector,) = embed(home, [text], bot_id=bot_id, route=route, timeout=QUERY_DEADLINE_S)
    except EmbeddingsUnavailable as problem:
        return QueryVector(None, route.name, problem.reason)
    with _cache_lock:
        _cache[key] = vector
        while len(_cache) > QUERY_CACHE_SIZE:
            _cache.popitem(last=False)
    return QueryVector(vector, route.name)


def forget_query_vectors() -> None:
    """Empty the cache (tests; a model change makes its keys miss anyway)."""
    with _cache_lock:
        _cache.clear()


# What one standard deviation of meaning above the mean adds to a hit's score, where the best hit by words scores
# 1.0: a turn as near the question as the nearest usually are (4 to 6) weighs about as much as the best by words.
# Measured on the LoCoMo dev half at 0.1 to 0.25 (docs/recall.md): flat from 0.125 to 0.2; the middle is taken.
MEANING_WEIGHT = 0.15
# Recall's block shows only what matches the message: a reply found by meaning alone, sharing no word with it, enters
# only when its own meaning stands this many standard deviations above the mean of all the bot's turns.
MEANING_MATCH = 3.0


@dataclass
class Meaning:
    """A query's meaning against the index's messages and notes (None: no vectors of the kind)."""

    messages: MeaningScores | None
    notes: MeaningScores | None


def ask(home: Home, bot_id: str, query: str, log_name: str, config: AppConfig | None = None) -> QueryVector | None:
    """The query's vector (QueryVector: `vector` None with `why_not` when it did not come), or None when
    embeddings are off; a vector that did not come is said in the caller's log line (`log_name`). Embeddings on, a
    long-lived process makes the bot's missing vectors meanwhile (vectors_background)."""
    asked = query_vector(home, query, bot_id=bot_id, config=config)
    if asked.vector is None and asked.model is None and asked.why_not == "embeddings are off":
        return None
    from ..index import background as vectors_background

    vectors_background.poke(home, bot_id)
    if asked.vector is None:
        log.info("%s: %s: by words alone (%s)", log_name, bot_id, asked.why_not)
    return asked


def meaning_in(index: RecallIndex, vector: list[float], *, notes: bool, messages: bool = True) -> Meaning:
    """Every message's (with `messages`) and note's (with `notes`) meaning for the vector; call within the index's
    read."""
    from ..index.vectors import meaning_scores

    index.connection.see_other_writers()  # another process's vectors: the kept matrices are read again
    return Meaning(
        meaning_scores(index, "message", vector) if messages else None,
        meaning_scores(index, "note", vector) if notes else None,
    )


class Scored(Protocol):
    score: float


def with_meaning(
    index: RecallIndex,
    meaning: Meaning,
    messages: list[MessageHit],
    notes: list[NoteHit],
    others: Sequence[Scored],
    limit: int,
    *,
    accept: Callable[[conv.Conversation], bool] | None = None,
    keep: Callable[[MessageHit], bool] | None = None,
    since_ts: float | None = None,
    until_ts: float | None = None,
    since_day: date | None = None,
    until_day: date | None = None,
    min_own: float = 0.0,
    current_on: date | None = None,
) -> tuple[list[MessageHit], list[NoteHit]]:
    """The words' hits (messages, notes, and `others` without vectors: a layer's notes, a team's) with their fused
    scores, in place, and the messages and notes found by meaning alone that can be among the best `limit`: of
    meaning's best `limit`, those the words did not find, from the conversations the bot may see and `accept`
    allows, in the window, as `keep` says (recall: replies), their own meaning at least `min_own`, scoring above the
    `limit`-th best fused score; with `current_on` (recall), only topics' notes still current that day. Messages
    have no text yet. (Looking deeper than the best `limit` of either changed little on LoCoMo and cost time:
    docs/recall.md.)"""
    best = max(
        [hit.score for hit in messages] + [hit.score for hit in notes] + [hit.score for hit in others], default=1.0
    )
    for scores, hits in ((meaning.messages, messages), (meaning.notes, notes)):
        if scores is not None:  # words' hits older than the matrix: ranked by their meaning too
            scores.include(index, [hit.id for hit in hits])
    fuse(meaning, messages, notes, best)
    for other in others:  # no vectors: their words' share alone
        other.score /= best if best > 0 else 1.0
    floor = lowest_kept(
        [hit.score for hit in messages] + [hit.score for hit in notes] + [o.score for o in others], limit
    )
    more_messages = _meaning_only_messages(
        index, meaning, messages, limit, (floor, min_own), accept, keep, since_ts, until_ts
    )
    more_notes = _meaning_only_notes(index, meaning, notes, limit, (floor, min_own), since_day, until_day, current_on)
    fuse(meaning, more_messages, more_notes, best)
    return messages + more_messages, notes + more_notes


def _above(scores: MeaningScores | None, known: list, limit: int, bounds: tuple[float, float], low, high) -> list[int]:
    """The ids of meaning's best `limit` that the words did not find, scoring above the floor by meaning and their
    own meaning at least the least asked (`bounds`)."""
    if scores is None:
        return []
    floor, least = bounds
    found = {hit.id for hit in known}
    best = scores.best(limit, low=low, high=high)
    return [
        row_id
        for row_id, score in best
        if row_id not in found and MEANING_WEIGHT * score > floor and scores.own(row_id) >= least
    ]


def _meaning_only_messages(
    index: RecallIndex, meaning: Meaning, known, limit, bounds, accept, keep, since_ts, until_ts
) -> list[MessageHit]:
    ids = _above(meaning.messages, known, limit, bounds, since_ts, until_ts)
    if not ids:
        return []
    search = index.messages
    hits = search._hits(search._candidate_rows(ids))
    return [hit for hit in hits if (accept is None or accept(hit.conversation)) and (keep is None or keep(hit))]


def _meaning_only_notes(
    index: RecallIndex, meaning: Meaning, known, limit, bounds, since: date | None, until: date | None, current_on
) -> list[NoteHit]:
    low = since.toordinal() if since else None
    high = until.toordinal() if until else None
    ids = _above(meaning.notes, known, limit, bounds, low, high)
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    current = "" if current_on is None else " AND kind = 'topic' AND (until IS NULL OR until >= ?)"
    rows = index.connection.db.execute(
        f"SELECT id, file, kind, section, day, line, text FROM notes WHERE id IN ({marks}){current}",
        [*ids, *([] if current_on is None else [current_on.isoformat()])],
    ).fetchall()
    notes = []
    for note_id, file, kind, section, day, line, text in rows:
        try:
            when = date.fromisoformat(day) if day else None
        except ValueError:
            when = None
        notes.append(NoteHit(note_id, file, kind, section, when, line, text, [], 0.0))
    return notes


def fuse(meaning: Meaning, messages: list[MessageHit], notes: list[NoteHit], best_by_words: float) -> None:
    """Each hit's score made its fused one (the module's rule), in place; `best_by_words` is the search's best
    words' score (of every source)."""
    scale = best_by_words if best_by_words > 0 else 1.0
    for hits, scores in ((messages, meaning.messages), (notes, meaning.notes)):
        for hit in hits:
            hit.score = hit.score / scale + (MEANING_WEIGHT * scores.of(hit.id) if scores is not None else 0.0)
