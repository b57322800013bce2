"""How an instance is asked for JSON, learned from what its server says and remembered beside the usage rows.

Spec: memory.md, "The helper model"; docs/models.md, "Structured output" and docs/local-models.md. Four ways, best
first: OpenAI's `json_schema`; `json_object` with the schema inside (llama.cpp's and llama-cpp-python's own form,
which constrains the answer to the schema); plain `json_object`; the prompt alone. A call starts at the mode
remembered for its instance and model, else at the first the instance may take (or its `outputMode`: a grammar
makes a small model on a CPU write several times slower, and a person may prefer the prompt alone), and steps down one way at a time
only when the server refuses the request in a way a response format can cause (400, 422, 500, 501, never a
context-length error); the way that then answers is remembered in `<home>/usage/output-modes.json` (0600), so
the next call goes straight to it, never trying the refused ways again. `omb-tui models test` learns afresh.
Whatever the mode, the answer is read and checked in code exactly as strictly.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from ..files.disk import read_text, write_private_json
from ..files.paths import Home
from ..journal.journal import now_iso
from ..memory.settings import ModelInstance
from .bounded_http import cut_in
from .structured import json_instruction

JSON_SCHEMA = "json_schema"  # {"type": "json_schema", "json_schema": {"name", "schema"}}: OpenAI's
JSON_OBJECT_SCHEMA = "json_object_schema"  # {"type": "json_object", "schema": {...}}: llama.cpp, llama-cpp-python
JSON_OBJECT = "json_object"  # {"type": "json_object"}: JSON mode, the shape said in the prompt
JSON_PROMPT = "prompt"  # no response format: the prompt alone asks for JSON (a fence around it is read too)
LADDER = (JSON_SCHEMA, JSON_OBJECT_SCHEMA, JSON_OBJECT, JSON_PROMPT)
MODES_FILE = "output-modes.json"  # in <home>/usage/, beside the month files of usage rows
REFUSED_STATUSES = frozenset({400, 422, 500, 501})  # what a server answers to a response format it cannot take
SHORT_INSTRUCTION = "Answer with one JSON object and nothing else."  # the schema itself constrains the answer


@dataclass(frozen=True)
class LearnedMode:
    """The mode an instance and model answered in, when it was learned, and the refusal that taught it (None
    when the first mode tried answered)."""

    instance: str
    model: str
    mode: str
    learned_at: str
    because: str | None = None

    def to_dict(self) -> dict:
        return {
            "instance": self.instance,
            "model": self.model,
            "mode": self.mode,
            "learned_at": self.learned_at,
            "because": self.because,
        }


def modes_path(home: Home):
    return home.root / "usage" / MODES_FILE


_lock = threading.Lock()


def read_learned(home: Home) -> dict[tuple[str, str], LearnedMode]:
    """Every learned mode of the home, by (instance, model); a damaged file is no knowledge (learned again)."""
    try:
        data = json.loads(read_text(modes_path(home)))
    except (FileNotFoundError, ValueError, OSError):
        return {}
    found = {}
    for item in data.get("modes") or [] if isinstance(data, dict) else []:
        if not isinstance(item, dict) or item.get("mode") not in LADDER:
            continue
        if not isinstance(item.get("instance"), str) or not isinstance(item.get("model"), str):
            continue
        because = item.get("because") if isinstance(item.get("because"), str) else None
        learned = LearnedMode(item["instance"], item["model"], item["mode"], str(item.get("learned_at") or ""), because)
        found[(learned.instance, learned.model)] = learned
    return found


def learned_mode(home: Home, instance: ModelInstance, model: str) -> LearnedMode | None:
    return read_learned(home).get((instance.id, model))


def remember(home: Home, instance: ModelInstance, model: str, mode: str, because: str | None) -> LearnedMode:
    """Keep the mode the instance answered in (one line per instance and model); a write that fails is only
    knowledge lost, learned again at the next call."""
    learned = LearnedMode(instance.id, model, mode, now_iso(), because)
    with _lock:
        known = read_learned(home)
        if (before := known.get((instance.id, model))) is not None and before.mode == mode:
            return before
        known[(instance.id, model)] = learned
        rows = [item.to_dict() for item in sorted(known.values(), key=lambda m: (m.instance, m.model))]
        try:
            write_private_json(modes_path(home), {"modes": rows})
        except OSError:
            pass
    return learned


def first_mode(litellm: Any, instance: ModelInstance, model: str) -> str:
    """Where the ladder starts for an instance nothing is known of. A server of one's own (`api_base`) starts at
    the top: whether it takes a schema is for it to say. A provider litellm knows starts where litellm says."""
    if instance.api_base:
        return JSON_SCHEMA
    if litellm.supports_response_schema(model=model):
        return JSON_SCHEMA
    try:
        provider_model, provider, _, _ = litellm.get_llm_provider(model=model)
        supported = litellm.get_supported_openai_params(model=provider_model, custom_llm_provider=provider) or []
    except Exception:  # an unknown provider: the call itself will say so
        supported = []
    return JSON_OBJECT if "response_format" in supported else JSON_PROMPT


def at_or_below(pinned: str | None, mode: str) -> str:
    """The instance's `outputMode`, where it says one, unless the server already refused it (a lower mode learned)."""
    if pinned is None or LADDER.index(mode) > LADDER.index(pinned):
        return mode
    return pinned


def next_mode(mode: str) -> str | None:
    """The next way down the ladder, or None below the prompt alone."""
    at = LADDER.index(mode)
    return LADDER[at + 1] if at + 1 < len(LADDER) else None


def shape_request(request: dict, mode: str, schema: dict) -> dict:
    """The request asking for JSON in `mode`: its response format, and the instruction the prompt then needs."""
    shaped = {key: value for key, value in request.items() if key != "response_format"}
    messages = request["messages"]
    if mode == JSON_SCHEMA:
        shaped["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    elif mode == JSON_OBJECT_SCHEMA:
        shaped["response_format"] = {"type": "json_object", "schema": schema}
        messages = with_instruction(messages, SHORT_INSTRUCTION)  # the word JSON, which JSON mode wants said
    else:
        if mode == JSON_OBJECT:
            shaped["response_format"] = {"type": "json_object"}
        messages = with_instruction(messages, json_instruction(schema))
    shaped["messages"] = messages
    return shaped


def with_instruction(messages: list[dict], instruction: str) -> list[dict]:
    """The JSON instruction at the end of the first system message (a new one when there is none)."""
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        first = dict(messages[0], content=f"{messages[0]['content']}\n\n{instruction}")
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def format_refused(litellm: Any, exc: BaseException, *, mode: str) -> bool:
    """Whether the server's refusal may be of the response format asked for: a status a refused format gets,
    and not a refusal that names the context (which no other format would cure)."""
    if mode == JSON_PROMPT or isinstance(exc, litellm.ContextWindowExceededError):
        return False
    if cut_in(exc) is not None:  # cut at its deadline, too large, a redirect: no format was refused
        return False
    status, said = getattr(exc, "status_code", None), str(exc)
    if "Invalid response object" in said:  # litellm could not read an answer: the server did answer
        return False
    return status in REFUSED_STATUSES and not is_context_error(said)


_CONTEXT_WORDS = ("context window", "context size", "context length", "context_length")


def is_context_error(text: str) -> bool:
    """A server's words for messages longer than its context (llama-cpp-python: "Requested tokens (5000) exceed
    context window of 2048"; llama.cpp: "the request exceeds the available context size")."""
    lowered = text.lower()
    return "exceed" in lowered and any(words in lowered for words in _CONTEXT_WORDS)
