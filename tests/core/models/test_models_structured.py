"""Reading a model's JSON tolerantly and checking it against the schema in code (docs/models.md)."""

from __future__ import annotations

import pytest

from omb_tui.core.base.text_checks import escaped, text_problem
from omb_tui.core.models.structured import (
    MAX_ANSWER_CHARS,
    MAX_JSON_DEPTH,
    UnusableAnswer,
    parse_json_answer,
    read_json_object,
    schema_problem,
    strings_problem,
)

ITEMS = {
    "type": "array",
    "minItems": 1,
    "maxItems": 2,
    "items": {
        "type": "object",
        "required": ["action"],
        "properties": {"action": {"enum": ["add", "forget"]}, "score": {"type": "number", "minimum": 0, "maximum": 1}},
    },
}


def test_an_array_schema_reads_the_array_in_prose():
    assert parse_json_answer('I found these: [{"action": "add"}] and that is all.', ITEMS) == [{"action": "add"}]


def test_a_fence_without_a_language_and_a_one_line_fence():
    assert parse_json_answer('```\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_answer('```json {"a": 2}```') == {"a": 2}


def test_prose_braces_before_the_object_are_skipped():
    assert parse_json_answer('Use {curly} braces: {"a": 3}', {"type": "object"}) == {"a": 3}


@pytest.mark.parametrize("text", ["", "no json here", '{"a": ', "[1, 2"])
def test_no_readable_json_is_not_json(text):
    with pytest.raises(UnusableAnswer):
        parse_json_answer(text, {"type": "object"})


@pytest.mark.parametrize(
    "value, problem",
    [
        ([], "the answer must have at least 1 items"),
        ([{}, {}, {}], "the answer must have at most 2 items"),
        ([{"action": "add", "score": 2}], "the answer[0].score must be at most 1"),
        ([{"action": "delete"}], 'the answer[0].action must be one of "add", "forget"'),
        ([{"score": 0.5}], "the answer[0] lacks 'action'"),
        ({"action": "add"}, "the answer must be a list"),
        ([{"action": "add", "score": True}], "the answer[0].score must be a number"),
    ],
)
def test_schema_problems_name_the_place(value, problem):
    assert schema_problem(value, ITEMS) == problem


def test_a_valid_value_has_no_problem():
    assert schema_problem([{"action": "forget", "score": 0}], ITEMS) is None
    assert schema_problem({"n": 3}, {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}) is None


# ----- answers that are refused, and text that may not be kept -----
def test_an_answer_past_the_bound_is_refused_unread():
    answer = '{"facts": []}' + " " * (8 * 1024 * 1024)  # 8 MB: valid JSON, with room to spare
    with pytest.raises(UnusableAnswer) as refused:
        parse_json_answer(answer, {"type": "object"})
    assert str(refused.value) == (
        f"the answer is {len(answer):,} characters long, more than the "
        f"{MAX_ANSWER_CHARS:,} characters a model's answer may have"
    )


def test_an_answer_at_the_bound_is_read():
    answer = '{"facts": [], "pad": "' + "x" * (MAX_ANSWER_CHARS - 24) + '"}'
    assert len(answer) == MAX_ANSWER_CHARS and parse_json_answer(answer, {"type": "object"})["facts"] == []


@pytest.mark.parametrize(
    "answer",
    [
        "[{" * 5_000 + "}]" * 5_000,
        '{"facts": ' + "[" * 10_000 + "]" * 10_000 + "}",
        '{"a": ' + "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1) + "}",
    ],
)
def test_json_nested_past_the_limit_is_refused_without_recursing(answer):
    with pytest.raises(UnusableAnswer, match=f"^the answer is nested more than {MAX_JSON_DEPTH} levels deep$"):
        parse_json_answer(answer, {"type": "object"})


def test_json_nested_to_the_limit_is_read():
    answer = '{"a": ' * (MAX_JSON_DEPTH - 1) + "{}" + "}" * (MAX_JSON_DEPTH - 1)
    assert isinstance(parse_json_answer(answer, {"type": "object"}), dict)


@pytest.mark.parametrize("answer", [None, [{"type": "text", "text": "{}"}], "", "  \n"])
def test_an_answer_that_is_not_text_or_is_empty_holds_no_text(answer):
    with pytest.raises(UnusableAnswer, match="^the answer holds no text$"):
        parse_json_answer(answer, {"type": "object"})


def test_brackets_inside_strings_do_not_count():
    assert parse_json_answer('{"a": "}]{[", "b": "\\"}"}', {"type": "object"}) == {"a": "}]{[", "b": '"}'}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("fine\ttext\nand\r\nlines", None),
        ("NUL\x00", "the answer holds a control character (U+0000)"),
        ("ESC\x1b[2J", "the answer holds a control character (U+001B)"),
        ("a lone CR\rhere", "the answer holds a control character (U+000D)"),
        ("DEL\x7f", "the answer holds a control character (U+007F)"),
        ("C1\x9b", "the answer holds a control character (U+009B)"),
        ("half\ud800", "the answer holds a lone surrogate (U+D800), which is not text"),
        ("emoji \U0001f600 and accents é", None),
    ],
)
def test_text_may_have_line_breaks_and_tabs_but_no_other_control_character(text, problem):
    assert text_problem(text) == problem


def test_every_text_of_a_value_is_checked_with_its_place_named():
    value = {"facts": [{"text": "ok"}, {"text": "fine", "quotes": ["x\x1b"]}]}
    assert strings_problem(value) == "the answer.facts[1].quotes[0] holds a control character (U+001B)"
    assert strings_problem({"k\x00": 1}) == "a key of the answer holds a control character (U+0000)"
    assert strings_problem({"facts": [{"text": "ok", "n": 3, "none": None}]}) is None


def test_a_value_built_in_code_deeper_than_the_limit_is_refused_without_recursing():
    value: object = "leaf"
    for _ in range(100_000):
        value = [value]
    assert strings_problem(value, "the arguments") == f"the arguments are nested more than {MAX_JSON_DEPTH} levels deep"


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[1, 2]", "the arguments must be a JSON object"),
        ("add tea", "the arguments are not valid JSON"),
        ('{"a": 1} trailing', "the arguments are not valid JSON"),
        ('{"text": "tea\\ud800"}', "the arguments.text holds a lone surrogate (U+D800), which is not text"),
        ("[" * 10_000, f"the arguments are nested more than {MAX_JSON_DEPTH} levels deep"),
    ],
)
def test_tool_arguments_are_exactly_one_object_of_text_that_may_be_kept(text, problem):
    with pytest.raises(UnusableAnswer) as refused:
        read_json_object(text)
    assert str(refused.value) == problem


def test_an_answer_that_may_not_be_kept_is_logged_with_its_escapes():
    assert escaped("a\x00b\ud800c\r\nd\x1b") == "a\\x00b\\ud800c\r\nd\\x1b"
