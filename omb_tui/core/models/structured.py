"""Structured answers: how to ask for JSON, how to read it tolerantly, and a check against the schema in code.

Spec: issue 10, "One call path", and HOUSE_STYLE "The model proposes, code decides". A code fence or prose
around one JSON value is tolerated; anything else is a failed answer. The validator covers the subset of JSON
Schema the project's jobs use (type, properties, required, additionalProperties: false, items, enum,
minLength/maxLength, minimum/maximum, minItems/maxItems); a keyword outside it is ignored, never guessed at.
"""

from __future__ import annotations

import json
import re

_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)  # reasoning models' preamble
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```", re.DOTALL)


class NotJson(ValueError):
    """The answer holds no JSON value of the kind asked for."""


def json_instruction(schema: dict) -> str:
    """What the prompt says when the provider cannot be asked for JSON by a parameter (or only for JSON mode)."""
    return ("Answer with one JSON value and nothing else (no prose, no code fence). It must match this JSON "
            f"schema:\n{json.dumps(schema, ensure_ascii=False)}")


def parse_json_answer(text: str, schema: dict | None = None) -> object:
    """The JSON value in a model's answer: the whole text, a fenced block, or the first value in prose."""
    want = _top_type(schema)
    cleaned = _THINKING.sub("", text or "").strip()
    candidates = [cleaned] + [block.strip() for block in _FENCE.findall(cleaned)]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if _is_kind(value, want):
            return value
    decoder = json.JSONDecoder()
    openers = "{[" if want is None else ("[" if want == "array" else "{")
    for at, char in enumerate(cleaned):
        if char in openers:
            try:
                value, _ = decoder.raw_decode(cleaned, at)
            except ValueError:
                continue
            if _is_kind(value, want):
                return value
    kind = "JSON list" if want == "array" else "JSON object"
    raise NotJson(f"the answer holds no {kind} that can be read")


def _top_type(schema: dict | None) -> str | None:
    kind = (schema or {}).get("type")
    return kind if kind in ("object", "array") else None


def _is_kind(value: object, want: str | None) -> bool:
    if want == "array":
        return isinstance(value, list)
    if want == "object":
        return isinstance(value, dict)
    return isinstance(value, (dict, list))


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


_TYPE_WORDS = {"object": "an object", "array": "a list", "string": "text", "integer": "a whole number",
               "number": "a number", "boolean": "true or false", "null": "null"}


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
            return f"{where} has '{extra[0]}', which the schema does not allow"
    for name, sub_schema in properties.items():
        if name in value and isinstance(sub_schema, dict):
            problem = schema_problem(value[name], sub_schema, f"{where}.{name}")
            if problem:
                return problem
    return None
