"""A query's vector for recall and session_search (issue 39; docs/recall.md, "Recall by meaning").

One embeddings call with a deadline (QUERY_DEADLINE_S, 300 ms); past it, or on any failure, None, and recall and
search answer by words alone (their log line says so). Vectors are kept per process by the text's SHA-256 and the
model, the newest QUERY_CACHE_SIZE, so a message asked again (a retried turn, the recall preview, a search repeated)
costs no call.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict

from ..memory.paths import Home
from ..models.embeddings import QUERY_DEADLINE_S, EmbeddingsUnavailable, embed, embeddings_route

log = logging.getLogger("omb_tui.recall")

QUERY_CACHE_SIZE = 256
_cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
_cache_lock = threading.Lock()


class QueryVector:
    """What a query's vector came to: `vector` (None: answer by words), `model`, and `why_not` in a few words."""

    def __init__(self, vector: list[float] | None, model: str | None, why_not: str | None = None) -> None:
        self.vector, self.model, self.why_not = vector, model, why_not


def query_vector(home: Home, text: str, *, bot_id: str | None = None) -> QueryVector:
    """The text's vector from the embeddings instance, cached; never raises for what embeddings say."""
    try:
        route = embeddings_route(home)
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
