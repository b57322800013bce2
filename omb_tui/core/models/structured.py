"""Structured answers: how to ask for JSON, how to read it tolerantly and safely, and a check against the schema
in code.

Spec: memory.md, "The helper model", and HOUSE_STYLE "The model proposes, code decides". A code fence or prose
around one JSON value is tolerated; anything else is an unusable answer, said in one phrase. Reading is bounded
before it starts: an answer past MAX_ANSWER_CHARS is refused unread, a value nested deeper than MAX_JSON_DEPTH is
never handed to `json.loads` (which recurses), and the search for a value in prose looks at each character at most
SCAN_BUDGET times, so no answer can make a step hang. Each step checks the texts it would write in the model's own
words with base.text_checks before it writes anything; a tool call's arguments are all such words
(`read_json_object`). The schema validator covers the subset of JSON Schema the project's jobs use (type,
properties, required, additionalProperties: false, items, enum, minLength/maxLength, minimum/maximum,
minItems/maxItems); a keyword outside it is ignored, never guessed at. docs/models.md, "Answers that are refused",
gives the bounds and the sentences.
"""

from __future__ import annotations

import json
import re

from ..base.text_checks import text_problem

# The largest answer a step needs is a change-set or an organize answer for a full MEMORY.md: some 30 KB, or
# 75 KB with every non-ASCII character escaped, plus a reasoning model's preamble. Anything longer is refused unread.
MAX_ANSWER_CHARS = 256 * 1024
MAX_JSON_DEPTH = 32  # the deepest answer a step asks for is 4 levels (capture's quotes)
SCAN_BUDGET = 4  # the search for a JSON value in prose looks at each character of the answer at most this often

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)  # a reasoning model's preamble, dropped before reading
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_FENCE = "```"
_FENCE_INFO = re.compile(r"[A-Za-z0-9_-]*[ \t]*\n")  # the language after a fence's opening backticks
# A JSON string (its closing quote may be missing: the text ended) or one bracket: what a value's nesting is made of.
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_OPENERS = {"object": re.compile(r"\{"), "array": re.compile(r"\["), None: re.compile(r"[{\[]")}
_CLOSER_OF = {"{": "}", "[": "]"}


class UnusableAnswer(ValueError):
    """The answer cannot be used; str() is the phrase saying why ("the answer holds no JSON object that can be
    read"), to follow "answered, but"."""


def json_instruction(schema: dict) -> str:
    """What the prompt says when the provider cannot be asked for JSON by a parameter (or only for JSON mode)."""
    return (
        "Answer with one JSON value and nothing else (no prose, no code fence). It must match this JSON "
        f"schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )


# ----- bounds, and text that may be kept -----
def strings_problem(value: object, where: str = "the answer") -> str | None:
    """The first text of a JSON value (a string, or an object's key) that `text_problem` refuses, or the value's
    nesting past MAX_JSON_DEPTH; None when every text may be kept. Iterative: no value can exhaust the stack."""
    pending: list[tuple[object, str, int]] = [(value, where, 0)]
    while pending:
        item, place, depth = pending.pop()
        if isinstance(item, str):
            problem = text_problem(item, place)
            if problem:
                return problem
            continue
        if not isinstance(item, (dict, list)):
            continue
        if depth >= MAX_JSON_DEPTH:
            return nested_too_deep(where)
        if isinstance(item, dict):
            for key in item:
                problem = text_problem(str(key), f"a key of {place}")
                if problem:
                    return problem
            children = [(sub, f"{place}.{_clip(str(key))}", depth + 1) for key, sub in item.items()]
        else:
            children = [(sub, f"{place}[{number}]", depth + 1) for number, sub in enumerate(item)]
        pending.extend(reversed(children))  # the first problem in the order the answer gives them
    return None


def too_long(where: str, size: int) -> str:
    return (
        f"{where} {_be(where)} {size:,} characters long, more than the {MAX_ANSWER_CHARS:,} characters a model's "
        "answer may have"
    )


def nested_too_deep(where: str) -> str:
    return f"{where} {_be(where)} nested more than {MAX_JSON_DEPTH} levels deep"


def _be(where: str) -> str:
    return "are" if where.endswith("arguments") else "is"  # "the arguments are", "the answer is"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----- reading JSON -----
def parse_json_answer(text: object, schema: dict | None = None) -> object:
    """The JSON value in a model's answer: the whole text, a fenced block, or the first value in prose.
    UnusableAnswer, one phrase, for anything else (no text, too long, too deep, no value)."""
    want = _top_type(schema)
    if not isinstance(text, str) or not text.strip():
        raise UnusableAnswer("the answer holds no text")
    if len(text) > MAX_ANSWER_CHARS:
        raise UnusableAnswer(too_long("the answer", len(text)))
    cleaned = _without_thinking(text)
    reader = _ValueReader(cleaned, want)
    found = reader.whole(cleaned)
    blocks = _fenced_blocks(cleaned)
    while found is None and (block := next(blocks, None)) is not None:
        found = reader.whole(block)
    if found is None:
        found = reader.first(cleaned)
    if found is None:
        if reader.too_deep:
            raise UnusableAnswer(nested_too_deep("the answer"))
        raise UnusableAnswer(
            f"the answer holds no {'JSON list' if want == 'array' else 'JSON object'} that can be read"
        )
    return found


def read_json_object(text: str, where: str = "the arguments") -> dict:
    """A text that must be exactly one JSON object (a tool call's arguments), read within the same bounds as an
    answer and with its every text checked. UnusableAnswer, one phrase, otherwise."""
    if len(text) > MAX_ANSWER_CHARS:
        raise UnusableAnswer(too_long(where, len(text)))
    reader = _ValueReader(text, None)
    found = reader.whole(text)
    if found is None:
        if reader.too_deep:
            raise UnusableAnswer(nested_too_deep(where))
        raise UnusableAnswer(f"{where} are not valid JSON")
    if not isinstance(found, dict):
        raise UnusableAnswer(f"{where} must be a JSON object")
    problem = strings_problem(found, where)
    if problem:
        raise UnusableAnswer(problem)
    return found


def _without_thinking(text: str) -> str:
    """The text without its `<think>…</think>` blocks; an unclosed one stays (nothing after it would close it)."""
    kept, at = [], 0
    while (opening := _THINK_OPEN.search(text, at)) is not None:
        closing = _THINK_CLOSE.search(text, opening.end())
        if closing is None:
            break
        kept.append(text[at : opening.start()])
        at = closing.end()
    kept.append(text[at:])
    return "".join(kept).strip()


def _fenced_blocks(text: str):
    """The text between each pair of ``` fences, without the language line, in order."""
    at = text.find(_FENCE)
    while at != -1:
        end = text.find(_FENCE, at + len(_FENCE))
        if end == -1:
            return
        block = text[at + len(_FENCE) : end]
        info = _FENCE_INFO.match(block)
        yield block[info.end() :] if info else block
        at = text.find(_FENCE, end + len(_FENCE))


class _ValueReader:
    """Finds a JSON value of the wanted kind (an object or a list: never None) in linear time: a value's span is
    found by one scan over its strings and brackets (checking the nesting before `json.loads` recurses), and all
    the scans of one answer together look at no more than SCAN_BUDGET times its length."""

    def __init__(self, text: str, want: str | None) -> None:
        self.openers = _OPENERS[want]
        self.budget = SCAN_BUDGET * max(len(text), 1)
        self.too_deep = False

    def whole(self, region: str) -> object | None:
        """The value when the region, spaces aside, is exactly one value of the wanted kind."""
        region = region.strip()
        if not region or not self.openers.match(region):
            return None
        end = self._span_end(region, 0)
        return self._decoded(region, 0, end) if end == len(region) else None

    def first(self, region: str) -> object | None:
        """The value that decodes from the first opener it can, trying each opener in turn."""
        at = 0
        while self.budget > 0 and (opener := self.openers.search(region, at)) is not None:
            start = opener.start()
            found = self._decoded(region, start, self._span_end(region, start))
            if found is not None:
                return found
            at = start + 1
        return None

    @staticmethod
    def _decoded(text: str, start: int, end: int | None) -> object | None:
        if end is None:
            return None
        try:
            return json.loads(text[start:end])
        except ValueError:
            return None

    def _span_end(self, text: str, start: int) -> int | None:
        """Where the value opening at `start` closes; None when it never does, a bracket does not match, it nests
        past MAX_JSON_DEPTH, or the budget runs out."""
        closers: list[str] = []
        for token in _STRUCTURE.finditer(text, start):
            scanned = token.end() - start
            if scanned > self.budget:
                self.budget = 0
                return None
            char = text[token.start()]
            if char == '"':
                continue
            if char in _CLOSER_OF:
                closers.append(_CLOSER_OF[char])
                if len(closers) > MAX_JSON_DEPTH:
                    self.too_deep = True
                    self.budget -= scanned
                    return None
                continue
            if char != closers.pop():
                self.budget -= scanned
                return None
            if not closers:
                self.budget -= scanned
                return token.end()
        self.budget -= len(text) - start
        return None


def _top_type(schema: dict | None) -> str | None:
    kind = (schema or {}).get("type")
    return kind if kind in ("object", "array") else None


_TYPE_CHECKS = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_problem(value: object, schema: dict, where: str = "the answer") -> str | None:
    """The first way `value` breaks `schema`, as a phrase ("the answer.items[2].text must be text"), else None."""
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_TYPE_CHECKS.get(kind, lambda v: True)(value) for kind in kinds):
            return f"{where} must be {' or '.join(_TYPE_WORDS.get(k, k) for k in kinds)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {', '.join(json.dumps(item) for item in schema['enum'])}"
    if isinstance(value, str):
        return _size_problem(len(value), schema, "minLength", "maxLength", where, "characters")
    if type(value) in (int, float):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where} must be at least {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where} must be at most {schema['maximum']}"
    if isinstance(value, list):
        problem = _size_problem(len(value), schema, "minItems", "maxItems", where, "items")
        if problem or not isinstance(schema.get("items"), dict):
            return problem
        for number, item in enumerate(value):
            problem = schema_problem(item, schema["items"], f"{where}[{number}]")
            if problem:
                return problem
    if isinstance(value, dict):
        return _object_problem(value, schema, where)
    return None


_TYPE_WORDS = {
    "object": "an object",
    "array": "a list",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def _size_problem(size: int, schema: dict, low: str, high: str, where: str, unit: str) -> str | None:
    if low in schema and size < schema[low]:
        return f"{where} must have at least {schema[low]} {unit}"
    if high in schema and size > schema[high]:
        return f"{where} must have at most {schema[high]} {unit}"
    return None


def _object_problem(value: dict, schema: dict, where: str) -> str | None:
    properties = schema.get("properties") or {}
    for name in schema.get("required") or ():
        if name not in value:
            return f"{where} lacks '{name}'"
    if schema.get("additionalProperties") is False:
        extra = sorted(set(value) - set(properties))
        if extra:
            return f"{where} has '{_clip(extra[0])}', which the schema does not allow"
    for name, sub_schema in properties.items():
        if name in value and isinstance(sub_schema, dict):
            problem = schema_problem(value[name], sub_schema, f"{where}.{name}")
            if problem:
                return problem
    return None
