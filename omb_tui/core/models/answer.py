"""A model's answer as the project reads it, and the check every answer passes before anything uses it.

docs/models.md, "Answers that are refused". Shared by the API call (call.py) and an engine's (engine_call.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.text_checks import text_problem
from .structured import MAX_ANSWER_CHARS, UnusableAnswer, parse_json_answer, schema_problem, too_long

RUN_DEADLINE_PASSED = "the run's deadline passed before the call could be made"


@dataclass
class ModelAnswer:
    text: str  # the assistant's text ("" when it only called tools)
    tool_calls: list[dict]  # OpenAI shape: [{"id", "type": "function", "function": {"name", "arguments"}}]
    data: object | None  # the parsed JSON when a schema was asked for
    message: dict  # the assistant message to append to the conversation for the next round
    usage_row: dict  # the row written to usage
    output_mode: str | None = None  # how JSON was asked for (output_modes.LADDER), when a schema was given


def text_of(value: object) -> str:
    return value if isinstance(value, str) else ""


def answer_problem(answer: ModelAnswer, schema: dict | None, *, checked: object | None = None) -> str | None:
    """Why the answer cannot be used, as a phrase to follow "answered, but"; None when it can, and then
    answer.data holds the JSON asked for. The size is bounded before anything reads the answer; a tool call's
    arguments are checked by the tool that runs them (tools.run_tool), the text here. `checked`: JSON a CLI
    already parsed against the schema (an engine's own schema support), checked here again all the same."""
    size = len(answer.text) + sum(len(text_of(call["function"]["arguments"])) for call in answer.tool_calls)
    if size > MAX_ANSWER_CHARS:
        return too_long("the answer", size)
    if schema is None:  # an empty answer is the caller's to word (a chat turn with nothing said, `models test`)
        return text_problem(answer.text)
    if answer.tool_calls:
        return "the answer called tools instead of answering with JSON"
    if checked is not None:
        data = checked
    else:
        try:
            data = parse_json_answer(answer.text, schema)
        except UnusableAnswer as exc:
            return str(exc)
    problem = schema_problem(data, schema)
    if problem is None:
        answer.data = data
    return problem
