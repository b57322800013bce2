"""Embeddings for the speed benchmark (`benchmarks/recall.py --embeddings`): what recall and session_search cost with
a vector for every message and note, and what the vectors add to the index on disk.

Speed and size do not depend on what the vectors say, so no model runs here: every row is given a random unit
vector of DIMENSIONS, stored as the index stores any (index_vectors.pack), and a stub server on 127.0.0.1 answers
/v1/embeddings with a vector of the same kind for any text (from the text's hash: the same text, the same vector).
Each message's query vector is asked for once before the timed rounds and kept in meaning.py's cache, so the
timings are recall's and search's own, the call reported apart.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from omb_tui.core.files.paths import Home
from omb_tui.core.index.recall_index import RecallIndex
from omb_tui.core.recall import meaning

DIMENSIONS = 384  # all-MiniLM-L6-v2's, the local model's
MODEL = "bench-random-384"


def unit_vector(rng: random.Random) -> list[float]:
    vector = [rng.gauss(0.0, 1.0) for _ in range(DIMENSIONS)]
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector]


def packed_rows(count: int, seed: int) -> list[bytes]:
    """`count` random unit vectors packed as index_vectors.pack packs one (its scale as float32, then int8s), made
    with numpy in one go."""
    import numpy

    rows = numpy.random.default_rng(seed).standard_normal((count, DIMENSIONS)).astype(numpy.float32)
    rows /= numpy.linalg.norm(rows, axis=1, keepdims=True)
    scales = numpy.abs(rows).max(axis=1) / 127
    quantized = numpy.clip(numpy.rint(rows / scales[:, None]), -127, 127).astype(numpy.int8)
    return [scale.astype("<f4").tobytes() + row.tobytes() for scale, row in zip(scales, quantized, strict=True)]


def fill_vectors(index: RecallIndex) -> int:
    """A random vector for every message and note of the index, as if the model had made them; how many."""
    db = index.connection.db
    made = 0
    with index.connection.lock, index.connection.write() as writing:
        writing.execute("DELETE FROM vector_model")
        writing.execute("INSERT INTO vector_model(one, model, dims) VALUES(1, ?, ?)", (MODEL, DIMENSIONS))
        for seed, (table, rows) in enumerate((("message_vectors", "messages"), ("note_vectors", "notes"))):
            ids = [row_id for (row_id,) in db.execute(f"SELECT id FROM {rows}")]
            writing.executemany(
                f"INSERT OR REPLACE INTO {table}(id, vec) VALUES(?, ?)",
                zip(ids, packed_rows(len(ids), seed), strict=True),
            )
            made += len(ids)
    index.kept.vector_tables.clear()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the size measured is the index's, not the log's copy of it
    return made


class _Stub(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {
                "object": "embedding",
                "index": n,
                "embedding": unit_vector(random.Random(hashlib.sha256(text.encode()).digest())),
            }
            for n, text in enumerate(texts)
        ]
        answer = json.dumps(
            {"object": "list", "data": data, "model": MODEL, "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer.encode())


def start_stub(home: Home) -> ThreadingHTTPServer:
    """The stub server, and config.json pointing embeddings at it (semantic recall on, its default)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    instance = {"model": f"openai/{MODEL}", "api_base": f"http://127.0.0.1:{server.server_port}/v1", "timeout": 30}
    home.config_path.write_text(json.dumps({"instances": {"stub": instance}, "embeddings": {"instanceId": "stub"}}))
    return server


def warm_query_vectors(home: Home, bot: str, texts: list[str]) -> float:
    """Ask for each text's vector once (kept for the timed rounds); the median time of a call, in seconds."""
    meaning.QUERY_CACHE_SIZE = max(meaning.QUERY_CACHE_SIZE, 4 * len(texts))
    seconds = []
    for text in texts:
        started = time.perf_counter()
        asked = meaning.query_vector(home, text, bot_id=bot)
        seconds.append(time.perf_counter() - started)
        if asked.vector is None:
            raise SystemExit(f"the stub embeddings server did not answer: {asked.why_not}")
    return statistics.median(seconds)
