"""Vectors in the recall index: each message's and note's meaning, from the embeddings instance
(docs/recall.md, "Recall by meaning").

Kept beside the rows they belong to (`message_vectors`, `note_vectors`: index_schema.py) and dropped with them; all
made by the one model `vector_model` names: when config.json's embeddings model changes, every vector is made again.
A vector is stored as its scale (float32) then one signed byte per dimension (`pack`): 388 bytes for a 384-dimension
model, 388 KB per 1,000 messages; the rounding moves a cosine by less than 0.01.

`bring_up_to_date` makes the missing ones in batches of MAX_BATCH_TEXTS, newest first (notes, then messages), each
batch one embeddings call made outside the index's lock and written in one transaction only if its rows still say
what was sent (a message's line crc, a note's text), so a row changed meanwhile is embedded again next time. Nothing
here is ever in the way of recall: a row without its vector is found by its words as before.
"""

from __future__ import annotations

import logging
import math
import struct
import time
from array import array
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date

from ..files.paths import Home, quoted
from ..models.embeddings import MAX_BATCH_TEXTS, EmbeddingsRoute, EmbeddingsUnavailable, embed, embeddings_route

log = logging.getLogger("omb_tui.recall_index")

Progress = Callable[[int, int], None]  # (vectors made, vectors missing when the pass began)


def pack(vector: list[float]) -> bytes:
    """A vector as the index keeps it: made unit length, then its scale (float32) and one int8 per dimension."""
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    peak = max(abs(x) for x in vector) / norm or 1.0
    scale = peak / 127
    quantized = array("b", (max(-127, min(127, round(x / norm / scale))) for x in vector))
    return struct.pack("<f", scale) + quantized.tobytes()


def unpack(blob: bytes) -> list[float]:
    """The unit vector back, as near as its bytes keep it."""
    (scale,) = struct.unpack_from("<f", blob)
    return [scale * q for q in array("b", blob[4:])]


@dataclass
class VectorReport:
    """What a pass did: `made` vectors, `left` still missing, by `model`; `problem` when embeddings could not
    answer (the pass stops there); `remade` when the model changed and every vector was dropped first."""

    model: str | None = None
    made: int = 0
    left: int = 0
    remade: bool = False
    problem: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def bring_up_to_date(
    index, home: Home, bot_id: str, *, progress: Progress | None = None, most: int | None = None
) -> VectorReport:
    """Make the index's missing vectors (at most `most`), as the module says; a report, never an exception for
    what embeddings say (off: model None, nothing done)."""
    started = time.monotonic()
    report = VectorReport()
    try:
        route = embeddings_route(home)
    except EmbeddingsUnavailable as problem:
        report.problem = problem.reason
        return report
    if route is None:
        return report
    report.model = route.name
    connection = index.connection
    with connection.lock:
        report.remade = _same_model(connection, route)
        index.kept.vector_tables.clear()
        total = _missing_count(connection.db)
    width: int | None = None  # the pass's vectors' length, from its first answer
    while most is None or report.made < most:
        batch = MAX_BATCH_TEXTS if most is None else min(MAX_BATCH_TEXTS, most - report.made)
        with connection.lock:
            kind, items = _next_batch(index, batch)
        if not items:
            break
        try:
            vectors = embed(home, [text for _, text, _ in items], bot_id=bot_id, route=route)
            width = _one_width(route, width, vectors)
        except EmbeddingsUnavailable as problem:
            report.problem = problem.reason
            log.warning("%s: vectors not made: %s", bot_id, problem.reason)
            break
        with connection.lock, connection.write() as db:
            _keep(db, kind, items, vectors, route)
        index.kept.vector_tables.clear()
        report.made += len(items)
        if progress is not None:
            progress(report.made, total)
    with connection.lock:
        report.left = _missing_count(connection.db)
    report.seconds = time.monotonic() - started
    return report


def _one_width(route: EmbeddingsRoute, width: int | None, vectors: list[list[float]]) -> int | None:
    """The pass's vectors' length; EmbeddingsUnavailable when this answer's is another. A new length drops every
    vector (the same name, another model), so a server whose length changes from call to call would have the pass
    drop and make them for ever."""
    got = len(vectors[0]) if vectors else width
    if width is not None and got != width:
        raise EmbeddingsUnavailable(
            f"instance {quoted(route.instance.id)} changed its vectors' length between calls ({width} numbers, then "
            f"{got}): no more are made until it keeps to one"
        )
    return got


def _same_model(connection, route: EmbeddingsRoute) -> bool:
    """Make sure the index's vectors are this model's: another model's are all dropped (True: they were)."""
    db = connection.db
    row = db.execute("SELECT model FROM vector_model").fetchone()
    if row is not None and row[0] == route.name:
        return False
    with connection.write() as db:
        _drop_all(db)
        db.execute("DELETE FROM vector_model")
        db.execute("INSERT INTO vector_model(one, model, dims) VALUES(1, ?, 0)", (route.name,))
    return row is not None


def _drop_all(db) -> None:
    """Every vector, of messages and notes: another model made them."""
    db.execute("DELETE FROM message_vectors")
    db.execute("DELETE FROM note_vectors")


_MISSING_NOTES = "FROM notes WHERE id NOT IN (SELECT id FROM note_vectors)"
_MISSING_MESSAGES = "FROM messages WHERE id NOT IN (SELECT id FROM message_vectors)"


def _missing_count(db) -> int:
    return sum(db.execute(f"SELECT count(*) {part}").fetchone()[0] for part in (_MISSING_NOTES, _MISSING_MESSAGES))


def _next_batch(index, size: int) -> tuple[str, list[tuple[int, str, object]]]:
    """("note" or "message", [(id, text to embed, what the row must still say)]), newest first; notes before
    messages. A batch of messages none of which has text to embed is kept as empty vectors (never searched), so the
    pass goes on past them."""
    db = index.connection.db
    notes = db.execute(f"SELECT id, text {_MISSING_NOTES} ORDER BY day DESC, id DESC LIMIT ?", (size,)).fetchall()
    if notes:
        return "note", [(note_id, text, text) for note_id, text in notes]
    ids = [row[0] for row in db.execute(f"SELECT id {_MISSING_MESSAGES} ORDER BY ts DESC, id DESC LIMIT ?", (size,))]
    if not ids:
        return "message", []
    search = index.messages
    hits = search.message_texts(search._hits(search._candidate_rows(ids)))
    crcs = dict(db.execute(f"SELECT id, crc FROM messages WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall())
    # a turn as "Speaker: text": questions name people, and a turn's words rarely do (docs/recall.md)
    items = [(hit.id, f"{hit.author}: {hit.text}", crcs.get(hit.id)) for hit in hits if hit.text.strip()]
    if not items:  # none to embed (empty, a conversation the bot left, a file changed meanwhile): an empty vector
        with index.connection.write() as writing:
            writing.executemany(
                "INSERT OR REPLACE INTO message_vectors(id, vec) VALUES(?, x'')", [(message_id,) for message_id in ids]
            )
        return _next_batch(index, size)
    return "message", items


def _keep(db, kind: str, items: list[tuple[int, str, object]], vectors: list[list[float]], route) -> None:
    dims = len(vectors[0]) if vectors else 0
    known = db.execute("SELECT dims FROM vector_model").fetchone()
    if known is not None and known[0] and known[0] != dims:  # the same name, another model: all made again
        _drop_all(db)
    db.execute("UPDATE vector_model SET dims=?", (dims,))
    if kind == "note":
        db.executemany(
            "INSERT OR REPLACE INTO note_vectors(id, vec) SELECT id, ? FROM notes WHERE id=? AND text=?",
            [(pack(vector), note_id, text) for (note_id, _, text), vector in zip(items, vectors, strict=True)],
        )
    else:
        db.executemany(
            "INSERT OR REPLACE INTO message_vectors(id, vec) SELECT id, ? FROM messages WHERE id=? AND crc=?",
            [(pack(vector), message_id, crc) for (message_id, _, crc), vector in zip(items, vectors, strict=True)],
        )


# ----- scored by meaning -----
NEAR_SHARE = 0.5  # of a turn's meaning that the turn beside it gains (a quarter of it two away), as the words' rule
MIN_SPREAD = 1e-6  # below it the cosines are all alike: no turn stands out by meaning


class _Table:
    """One kind's vectors as a matrix (unit rows as float32), with each row's id and time (a message's ts, a note's
    day as an ordinal; NaN unknown) and, for messages, the rows of the turns one and two away in their conversation
    (`beside`: four rows of indices, len(ids) where there is none); kept until a vector may have changed."""

    def __init__(self, ids: list[int], matrix, times, beside) -> None:
        self.ids, self.matrix, self.times, self.beside = ids, matrix, times, beside
        self.row_of = {row_id: n for n, row_id in enumerate(ids)}


# The newest rows of each kind kept as a matrix: meaning alone finds among them; an older row is found by its words
# and then ranked by its meaning as well (MeaningScores.include). At 384 dimensions 3 MB of float32 each, and a
# query's pass over both kinds about 0.3 ms with the matrices out of the CPU's cache, however long the history:
# 4,000 took twice that, past recall's 4 ms budget at scale 1 (docs/recall.md).
MATRIX_ROWS = 2000

_TABLES = {
    "message": "SELECT v.id, v.vec, m.ts, m.conv, m.seq FROM messages m JOIN message_vectors v ON v.id = m.id"
    " WHERE length(v.vec) > 0 ORDER BY m.ts DESC LIMIT ?",
    "note": "SELECT v.id, v.vec, n.day, '', 0 FROM notes n JOIN note_vectors v ON v.id = n.id"
    " WHERE length(v.vec) > 0 ORDER BY n.day DESC LIMIT ?",
}
_VECTORS_OF = {
    "message": "SELECT id, vec FROM message_vectors WHERE id IN ",
    "note": "SELECT id, vec FROM note_vectors WHERE id IN ",
}


def _table(index, kind: str) -> _Table | None:
    """The kind's matrix, read again only after a vector may have changed (KeptLookups.vector_tables)."""
    import numpy

    kept = index.kept.vector_tables
    if kind in kept:
        return kept[kind]
    rows = index.connection.db.execute(_TABLES[kind], (MATRIX_ROWS,)).fetchall()
    width = len(rows[0][1]) - 4 if rows else 0
    rows = [row for row in rows if len(row[1]) - 4 == width]
    if not rows:
        kept[kind] = None
        return None
    matrix = _unpacked([row[1] for row in rows], width)
    times = numpy.array([_time_of(kind, row[2]) for row in rows], dtype=numpy.float64)
    beside = None
    if kind == "message":
        place = {(row[3], row[4]): n for n, row in enumerate(rows)}
        none = len(rows)
        beside = numpy.array(
            [[place.get((row[3], row[4] + step), none) for row in rows] for step in (-1, 1, -2, 2)], dtype=numpy.intp
        )
    table = kept[kind] = _Table([row[0] for row in rows], matrix, times, beside)
    return table


def _unpacked(blobs: list[bytes], width: int):
    """Packed vectors (pack's bytes, all `width` long) as the rows of a float32 matrix, as unpack reads one."""
    import numpy

    scales = numpy.frombuffer(b"".join(blob[:4] for blob in blobs), dtype="<f4")
    packed = numpy.frombuffer(b"".join(blob[4:] for blob in blobs), dtype=numpy.int8).reshape(len(blobs), width)
    return packed.astype(numpy.float32) * scales[:, None]


def _time_of(kind: str, value: object) -> float:
    if kind == "message":
        return float(value) if isinstance(value, (int, float)) else math.nan
    try:
        return float(date.fromisoformat(str(value)).toordinal())
    except ValueError:
        return math.nan


class MeaningScores:
    """How near each row of one kind is to a query in meaning (docs/recall.md, "Recall by meaning"): its cosine's
    distance above the mean of all the kind's rows, in standard deviations (0 at or below it); a message's then
    gains NEAR_SHARE of the turns beside it, as the words' scores do. `of(id)` is a row's (0.0 without a vector),
    `own(id)` the same before the turns beside it added theirs, `best(...)` the best rows."""

    def __init__(self, kind: str, table: _Table, vector, mean: float, spread: float, own, scores) -> None:
        self.kind, self.table, self.vector, self.mean, self.spread = kind, table, vector, mean, spread
        self._own, self.scores = own, scores
        self.older: dict[int, float] = {}  # rows older than the matrix's, scored on their own (include)

    def of(self, row_id: int) -> float:
        row = self.table.row_of.get(row_id)
        return self.older.get(row_id, 0.0) if row is None else float(self.scores[row])

    def own(self, row_id: int) -> float:
        row = self.table.row_of.get(row_id)
        return self.older.get(row_id, 0.0) if row is None else float(self._own[row])

    def include(self, index, row_ids) -> None:
        """Score the rows not in the matrix (older than its newest MATRIX_ROWS) too, from their stored vectors, on
        their own (no turns beside them): the words found them, meaning ranks them."""

        missing = [row_id for row_id in row_ids if row_id not in self.table.row_of and row_id not in self.older]
        if not missing or self.spread <= MIN_SPREAD:
            return
        width = self.table.matrix.shape[1]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            query = _VECTORS_OF[self.kind] + "(" + ",".join("?" * len(chunk)) + ")"
            rows = [row for row in index.connection.db.execute(query, chunk) if len(row[1]) - 4 == width]
            if not rows:
                continue
            cosines = _unpacked([blob for _, blob in rows], width) @ self.vector
            for (row_id, _), cosine in zip(rows, cosines.tolist(), strict=True):
                self.older[row_id] = max((cosine - self.mean) / self.spread, 0.0)

    def best(self, limit: int, *, low: float | None = None, high: float | None = None) -> list[tuple[int, float]]:
        """The `limit` rows scoring most (above 0), best first, as (id, score); only rows whose time is within
        [low, high] when a bound is given."""
        import numpy

        scores = self.scores
        if low is not None or high is not None:
            times = self.table.times  # (NaN, an unknown time, is never within a bound)
            keep = (times >= (-math.inf if low is None else low)) & (times <= (math.inf if high is None else high))
            scores = numpy.where(keep, scores, 0.0)
        count = min(limit, int((scores > 0).sum()))
        if count <= 0:
            return []
        best = numpy.argpartition(-scores, count - 1)[:count]
        best = best[numpy.argsort(-scores[best], kind="stable")]
        return [(self.table.ids[i], float(scores[i])) for i in best]


def meaning_scores(index, kind: str, query: list[float]) -> MeaningScores | None:
    """Every row of the kind scored against the query's vector (MeaningScores); None when the index has no vectors
    of the kind (or the query's length is not theirs)."""
    import numpy

    table = _table(index, kind)
    if table is None:
        return None
    vector = numpy.asarray(query, dtype=numpy.float64)  # made unit length before float32: a number near its top
    if vector.shape[0] != table.matrix.shape[1]:  # squared would overflow it
        return None
    vector = (vector / (numpy.linalg.norm(vector) or 1.0)).astype(numpy.float32)
    cosines = table.matrix @ vector
    mean, spread = float(cosines.mean()), float(cosines.std())
    own = numpy.maximum((cosines - mean) / spread, 0.0) if spread > MIN_SPREAD else cosines * 0.0
    scores = own
    if table.beside is not None:
        padded = numpy.append(own, 0.0)  # the row len(ids) names: no turn there
        near, far = padded[table.beside[0]] + padded[table.beside[1]], padded[table.beside[2]] + padded[table.beside[3]]
        scores = own + NEAR_SHARE * near + NEAR_SHARE / 2 * far
    return MeaningScores(kind, table, vector, mean, spread, own, scores)
