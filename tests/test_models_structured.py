"""Reading a model's JSON tolerantly and checking it against the schema in code (issue 10, "One call path")."""

from __future__ import annotations

import pytest

from omb_tui.core.models.structured import NotJson, parse_json_answer, schema_problem

ITEMS = {"type": "array", "minItems": 1, "maxItems": 2,
         "items": {"type": "object", "required": ["action"],
                   "properties": {"action": {"enum": ["add", "forget"]}, "score": {"type": "number",
                                                                                "minimum": 0, "maximum": 1}}}}


def test_an_array_schema_reads_the_array_in_prose():
    assert parse_json_answer('I found these: [{"action": "add"}] and that is all.', ITEMS) == [{"action": "add"}]


def test_a_fence_without_a_language_and_a_one_line_fence():
    assert parse_json_answer("```\n{\"a\": 1}\n```") == {"a": 1}
    assert parse_json_answer('```json {"a": 2}```') == {"a": 2}


def test_prose_braces_before_the_object_are_skipped():
    assert parse_json_answer('Use {curly} braces: {"a": 3}', {"type": "object"}) == {"a": 3}


@pytest.mark.parametrize("text", ["", "no json here", '{"a": ', "[1, 2"])
def test_no_readable_json_is_not_json(text):
    with pytest.raises(NotJson):
        parse_json_answer(text, {"type": "object"})


@pytest.mark.parametrize("value, problem", [
    ([], "the answer must have at least 1 items"),
    ([{}, {}, {}], "the answer must have at most 2 items"),
    ([{"action": "add", "score": 2}], "the answer[0].score must be at most 1"),
    ([{"action": "delete"}], 'the answer[0].action must be one of "add", "forget"'),
    ([{"score": 0.5}], "the answer[0] lacks 'action'"),
    ({"action": "add"}, "the answer must be a list"),
    ([{"action": "add", "score": True}], "the answer[0].score must be a number"),
])
def test_schema_problems_name_the_place(value, problem):
    assert schema_problem(value, ITEMS) == problem


def test_a_valid_value_has_no_problem():
    assert schema_problem([{"action": "forget", "score": 0}], ITEMS) is None
    assert schema_problem({"n": 3}, {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}) is None
