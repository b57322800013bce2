"""session_search by words and by meaning (issue 39; docs/recall.md, "Recall by meaning").

With an embeddings instance set, the query's vector (one call, 300 ms, cached: recall/meaning.py) finds the messages
and notes nearest it in meaning, under the same rules as the words' hits (the conversations the bot may see and the
person's filter, the time window, memory files only while memory is on). The two rankings are fused by reciprocal
rank (RRF: each hit scores 1/(RRF_K + its rank) in each list it is in, summed): parameter-light, blind to the scale
of either score, so a turn that shares no word with the question still enters by its meaning and one that has both
comes first. Without embeddings, or when the query's vector does not come in time, nothing here runs and the hits
are the words' alone, as before; the result says which (`by_meaning`, `meaning_skipped`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TypeVar

from ..memory import conversations as conv
from ..memory.paths import Home
from ..recall.index_notes import NoteHit
from ..recall.index_vectors import nearest
from ..recall.meaning import query_vector
from ..recall.recall_index import MessageHit, RecallIndex

log = logging.getLogger("omb_tui.search")

RRF_K = 60  # the usual constant of reciprocal-rank fusion: ranks far down a list still count a little
POOL_FACTOR = 3  # vector candidates looked at for each hit asked for (some fall to the filters)


@dataclass
class MeaningHits:
    """What meaning found: messages and notes nearest the query (score = cosine), or why nothing was looked for."""

    messages: list[MessageHit] = field(default_factory=list)
    notes: list[NoteHit] = field(default_factory=list)
    skipped: str | None = None  # why the hits are by words alone (None: meaning took part)


def meaning_hits(
    index: RecallIndex,
    home: Home,
    bot_id: str,
    query: str,
    *,
    limit: int,
    memory_on: bool,
    accept: Callable[[conv.Conversation], bool] | None,
    since_ts: float | None,
    until_ts: float | None,
    since_day: date | None,
    until_day: date | None,
) -> MeaningHits:
    """The messages and notes nearest the query in meaning, filtered as the words' hits are (see the module)."""
    asked = query_vector(home, query, bot_id=bot_id)
    if asked.vector is None:
        if asked.model is not None:  # embeddings are on, but the vector did not come: said in the log
            log.info("session_search: %s: by words alone (%s)", bot_id, asked.why_not)
        return MeaningHits(skipped=asked.why_not)
    found = MeaningHits()
    pool = max(limit, 1) * POOL_FACTOR
    with index.reading():
        near = nearest(index, "message", asked.vector, limit=pool, low=since_ts, high=until_ts)
        found.messages = _messages(index, near, accept, limit)
        if memory_on:
            low = since_day.toordinal() if since_day else None
            high = until_day.toordinal() if until_day else None
            found.notes = _notes(index, nearest(index, "note", asked.vector, limit=limit, low=low, high=high))
    return found


def _messages(index: RecallIndex, near: list[tuple[int, float]], accept, limit: int) -> list[MessageHit]:
    search = index.messages
    score = dict(near)
    hits = search._hits(search._candidate_rows(score))  # the conversations the bot may see (members only)
    kept = [hit for hit in hits if accept is None or accept(hit.conversation)]
    kept.sort(key=lambda hit: -score[hit.id])
    with_text = search.message_texts(kept[:limit])
    for hit in with_text:
        hit.score = score[hit.id]
    return with_text


def _notes(index: RecallIndex, near: list[tuple[int, float]]) -> list[NoteHit]:
    if not near:
        return []
    score = dict(near)
    marks = ",".join("?" * len(score))
    rows = index.connection.db.execute(
        f"SELECT id, file, kind, section, day, line, text FROM notes WHERE id IN ({marks})", list(score)
    ).fetchall()
    notes = []
    for note_id, file, kind, section, day, line, text in rows:
        try:
            when = date.fromisoformat(day) if day else None
        except ValueError:
            when = None
        notes.append(NoteHit(note_id, file, kind, section, when, line, text, [], score[note_id]))
    notes.sort(key=lambda hit: -hit.score)
    return notes


Item = TypeVar("Item")


def fused(
    by_words: Sequence[tuple[Hashable, Item]], by_meaning: Sequence[tuple[Hashable, Item]]
) -> list[tuple[Item, float]]:
    """Reciprocal-rank fusion of two best-first lists of (key, item): each item once (the words' when in both, it
    names the matched words), with its fused score, best first; ties keep the words' order."""
    scores: dict[Hashable, float] = {}
    items: dict[Hashable, Item] = {}
    for ranking in (by_words, by_meaning):
        for rank, (key, item) in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
            items.setdefault(key, item)
    order = {key: n for n, key in enumerate(items)}
    return [(items[key], scores[key]) for key in sorted(scores, key=lambda key: (-scores[key], order[key]))]
