"""Embeddings through litellm, any provider: the vectors recall and search use to find what was meant
(docs/recall.md, "Recall by meaning").

config.json's `embeddings: {"instanceId": …}` names one of its instances; that instance's `model` is the
embedding model (`openai/text-embedding-3-small`, `voyage/voyage-3`, `cohere/embed-english-v3.0`,
`ollama/nomic-embed-text`, `openai/<name>` on a local OpenAI-compatible server). It is read at every call, so
setting, changing or removing it applies without a restart; off unless set.

A call (`embed`): refused before sending when the instance is missing, its key's variable unset or the monthly
spend limit reached (EmbeddingsUnavailable, one sentence); each text is redacted and cut to MAX_TEXT_CHARS before it
leaves the machine, and goes only to that instance; one try with the caller's deadline (a query's vector: 300 ms,
QUERY_DEADLINE_S; a batch of the index: the instance's timeout) bounding the whole call by the wall clock, its
answer read to at most MAX_ANSWER_BYTES, no redirect followed (bounded_http); the answer is checked whole before any
vector is used (one vector per text of numbers within float32's range, all of one length, at most MAX_DIMENSIONS);
one usage row per call, failed ones included, counted in the spend limit like every other call.
"""

from __future__ import annotations

import base64
import math
import os
import struct
import time
from dataclasses import dataclass
from typing import Any

from ..base import clock
from ..files.file_stamp import FileStamp
from ..files.paths import Home, quoted
from ..journal.journal import now_iso
from ..memory import environment
from ..memory.settings import AppConfig, ModelInstance, load_config
from .bounded_http import bounded
from .instances import missing_key_sentence
from .usage import COST_NO_ANSWER, LIMIT_REACHED, limit_reached, record_usage

EMBED_JOB = "embeddings"
TRIGGERED_BY = "Embeddings"  # usage's triggered_by for every embeddings call
QUERY_DEADLINE_S = 0.3  # a query's vector: past it, recall and search answer by words alone
MAX_TEXT_CHARS = 4000  # each text is cut to this before it is sent (a chat turn, a note: far less)
MAX_BATCH_TEXTS = 64  # texts in one request
MAX_DIMENSIONS = 4096  # a longer vector is refused as no embedding model's
MAX_ANSWER_BYTES = 64 * 1024 * 1024  # what an answer may hold before it is refused unread
FLOAT32_MAX = 3.4028234663852886e38  # the index keeps float32: a number beyond it would become infinity


class EmbeddingsUnavailable(Exception):
    """No vectors: embeddings are off or cannot be reached, or the answer was not usable; `reason` is one sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class EmbeddingsRoute:
    instance: ModelInstance

    @property
    def name(self) -> str:
        """What the index records vectors as made by: a change re-embeds (the instance's model, as litellm calls it)."""
        return self.instance.model


def embeddings_route(home: Home, config: AppConfig | None = None) -> EmbeddingsRoute | None:
    """The instance embeddings go to; None when they are off. EmbeddingsUnavailable when config.json names an
    instance it does not have. Without `config`, config.json is read, or its route taken from the last read while
    the file's stamp is the same and settled (FileStamp: a change within the file system's timestamp grain could
    leave the stat as it was): every search asks, most often with embeddings off."""
    if config is not None:
        return _route_of(config)
    path = str(home.config_path)
    stamp = _settled_stamp(home)
    kept = _routes.get(path)
    if stamp is not None and kept is not None and kept[0] == stamp:
        return kept[1]
    route = _route_of(load_config(home))
    if stamp is not None:
        _routes[path] = (stamp, route)
    return route


_routes: dict[str, tuple[object, EmbeddingsRoute | None]] = {}
_NO_FILE = object()


def _settled_stamp(home: Home) -> FileStamp | None | object:
    """config.json's stamp when it can be trusted, _NO_FILE when there is none (embeddings off), else None."""
    try:
        stamp = FileStamp.of(os.stat(home.config_path))
    except FileNotFoundError:
        return _NO_FILE
    except OSError:
        return None
    # (file times are the real clock's, whatever shift a run is given)
    return stamp if stamp.settled(clock.real_time_ns()) else None


def _route_of(config: AppConfig) -> EmbeddingsRoute | None:
    if config.embeddings is None:
        return None
    instance = config.instances.get(config.embeddings.instance_id)
    if instance is None:
        raise EmbeddingsUnavailable(
            f"the embeddings instance {quoted(config.embeddings.instance_id)} is not among config.json's instances"
        )
    return EmbeddingsRoute(instance)


def embed(
    home: Home,
    texts: list[str],
    *,
    bot_id: str | None = None,
    timeout: float | None = None,
    route: EmbeddingsRoute | None = None,
    config: AppConfig | None = None,
) -> list[list[float]]:
    """One vector per text, in order, from the embeddings instance in one request (at most MAX_BATCH_TEXTS texts).
    `timeout`: seconds for the whole call (the instance's by default); EmbeddingsUnavailable with the reason when
    there is no answer or the answer is not usable."""
    if not texts:
        return []
    if len(texts) > MAX_BATCH_TEXTS:
        raise ValueError(f"at most {MAX_BATCH_TEXTS} texts a call")
    home = Home.of(home)
    config = config or load_config(home)
    route = route or embeddings_route(home, config)
    if route is None:
        raise EmbeddingsUnavailable("no embeddings instance is set (config.json's 'embeddings')")
    instance = route.instance
    key = _key(instance)
    if limit_reached(home, config.monthly_spend_usd):
        raise EmbeddingsUnavailable(LIMIT_REACHED)
    from ..redaction.redact import redact

    sent = [redact(text[:MAX_TEXT_CHARS]).text or " " for text in texts]  # an empty input is refused by providers
    from .call import failure_sentence, response_cost  # the chat call's module: loaded with litellm, at the first call
    from .litellm_setup import litellm_module

    litellm = litellm_module()
    request: dict[str, Any] = {
        "model": instance.model,
        "input": sent,
        "api_key": key,
        "timeout": timeout if timeout is not None else instance.timeout,
        "max_retries": 0,  # one try: a query's deadline leaves no room for another, and the index retries later
        "num_retries": 0,
    }
    if instance.api_base:
        request["api_base"] = instance.api_base
    row: dict[str, Any] = {
        "at": now_iso(),
        "bot": bot_id,
        "job": EMBED_JOB,
        "instance": instance.id,
        "model": instance.model,
        "prompt_tokens": None,
        "completion_tokens": None,
        "cost_usd": 0.0,
        "ok": False,
        "triggered_by": TRIGGERED_BY,
        "cost": COST_NO_ANSWER,
        "duration_ms": 0,
        "attempts": 1,
        "error": None,
    }
    started = time.monotonic()
    try:
        with bounded(request["timeout"], MAX_ANSWER_BYTES):
            response = litellm.embedding(**request)
    except Exception as exc:
        failure = failure_sentence(litellm, exc, instance, request["timeout"], key)
        row.update(duration_ms=round((time.monotonic() - started) * 1000), error=failure)
        record_usage(home, row)
        raise EmbeddingsUnavailable(row["error"]) from None
    row["duration_ms"] = round((time.monotonic() - started) * 1000)
    usage = getattr(response, "usage", None)
    row["prompt_tokens"] = getattr(usage, "prompt_tokens", None)
    row["cost_usd"], row["cost"] = response_cost(litellm, response)
    try:
        vectors = read_vectors(getattr(response, "data", None), len(texts))
    except EmbeddingsUnavailable as problem:
        row["error"] = f"instance {quoted(instance.id)} answered, but {problem.reason}"
        record_usage(home, row)
        raise EmbeddingsUnavailable(row["error"]) from None
    row["ok"] = True
    record_usage(home, row)
    return vectors


def read_vectors(data: object, count: int) -> list[list[float]]:
    """The answer's vectors in input order, each checked: exactly `count`, each a list of finite numbers (or
    base64 float32, as OpenAI's `encoding_format: base64` gives), all of one length from 1 to MAX_DIMENSIONS.
    Linear in the answer's size; EmbeddingsUnavailable naming the first problem."""
    if not isinstance(data, list) or len(data) != count:
        got = len(data) if isinstance(data, list) else "no list of"
        raise EmbeddingsUnavailable(f"it gave {got} vectors for {count} texts")
    placed: list[list[float] | None] = [None] * count
    width = None
    for position, item in enumerate(data):
        item = item if isinstance(item, dict) else getattr(item, "__dict__", {})
        index = item.get("index", position)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or placed[index] is not None:
            raise EmbeddingsUnavailable("its vectors are not numbered one for each text")
        vector = _vector(item.get("embedding"))
        width = width or len(vector)
        if len(vector) != width:
            raise EmbeddingsUnavailable("its vectors are not all of one length")
        placed[index] = vector
    return [vector for vector in placed if vector is not None]


def _vector(value: object) -> list[float]:
    if isinstance(value, str):  # base64 of little-endian float32
        try:
            raw = base64.b64decode(value, validate=True)
        except ValueError:
            raise EmbeddingsUnavailable("a vector is neither numbers nor base64") from None
        if len(raw) % 4 or not 0 < len(raw) // 4 <= MAX_DIMENSIONS:
            raise EmbeddingsUnavailable(f"a vector is not 1 to {MAX_DIMENSIONS} numbers long")
        value = list(struct.unpack(f"<{len(raw) // 4}f", raw))
    if not isinstance(value, list) or not 0 < len(value) <= MAX_DIMENSIONS:
        raise EmbeddingsUnavailable(f"a vector is not a list of 1 to {MAX_DIMENSIONS} numbers")
    out = []
    for number in value:
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
            raise EmbeddingsUnavailable("a vector holds something that is not a finite number")
        if abs(number) > FLOAT32_MAX:
            raise EmbeddingsUnavailable("a vector holds a number beyond float32's range (3.4e38)")
        out.append(float(number))
    if not any(out):
        raise EmbeddingsUnavailable("a vector is all zeros")
    return out


def _key(instance: ModelInstance) -> str:
    if not instance.api_key_env:
        return "none"  # a local server: litellm's OpenAI client wants some key
    key = environment.current().get(instance.api_key_env, "")
    if not key:
        raise EmbeddingsUnavailable(missing_key_sentence(instance))
    return key
