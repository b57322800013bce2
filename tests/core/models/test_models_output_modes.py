"""Output modes that fall back by what the server says, learned once per instance and model, and remembered.

The scripted server behaves like each kind of local server (tests/support/fake_llm.py, SERVER_KINDS): llama-cpp-python
answers 500 to `json_schema` and takes the schema inside `json_object`; some take only JSON mode; some take no
response format, and then a small model fences its JSON.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime

import pytest
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.base import clock
from omb_tui.core.models import output_modes
from omb_tui.core.models.call import ModelUnavailable, complete
from omb_tui.core.models.usage import read_usage

ASK = [{"role": "system", "content": "You keep notes."}, {"role": "user", "content": "Any notes?"}]
SCHEMA = {
    "type": "object",
    "properties": {"notes": {"type": "array", "items": {"type": "string", "maxLength": 40}}},
    "required": ["notes"],
    "additionalProperties": False,
}


def rows(home):
    return read_usage(home, clock.now_utc().strftime("%Y-%m"))


def learned(home) -> list[dict]:
    return json.loads(output_modes.modes_path(home).read_text(encoding="utf-8"))["modes"]


@pytest.mark.parametrize(
    "kind, formats, mode",
    [
        ("openai", ["json_schema"], "json_schema"),
        ("llama-cpp-python", ["json_schema", "json_object_schema"], "json_object_schema"),
        ("json-object-only", ["json_schema", "json_object_schema", "json_object"], "json_object"),
        ("no-response-format", ["json_schema", "json_object_schema", "json_object", "none"], "prompt"),
    ],
)
def test_each_kind_of_server_is_asked_down_the_ladder_until_one_way_answers(llm_home, fake_llm, kind, formats, mode):
    fake_llm.behave_like(kind)
    fake_llm.script('{"notes": ["tea"]}')
    answer = complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert answer.data == {"notes": ["tea"]} and answer.output_mode == mode
    assert fake_llm.formats == formats  # each refused way once, no retry of it, no backoff
    [row] = rows(llm_home)
    assert row["ok"] is True and row["output_mode"] == mode and row["attempts"] == len(formats)
    [memory] = learned(llm_home)
    assert (memory["instance"], memory["model"], memory["mode"]) == ("local", "openai/qwen3-8b", mode)


def test_the_learned_mode_is_used_at_once_by_every_later_call(llm_home, fake_llm):
    fake_llm.behave_like("llama-cpp-python")
    fake_llm.script('{"notes": []}', '{"notes": ["a"]}', '{"notes": ["b"]}')
    for _ in range(3):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert fake_llm.formats == ["json_schema", "json_object_schema", "json_object_schema", "json_object_schema"]
    [memory] = learned(llm_home)
    assert memory["because"].startswith("json_schema refused: instance 'local' answered 500")


def test_the_schema_goes_inside_json_object_and_the_prompt_says_json_without_repeating_it(llm_home, fake_llm):
    fake_llm.behave_like("llama-cpp-python")
    fake_llm.script('{"notes": []}')
    complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    sent = fake_llm.requests[-1].body
    assert sent["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert sent["messages"][0]["content"] == "You keep notes.\n\nAnswer with one JSON object and nothing else."
    assert json.dumps(SCHEMA) not in json.dumps(sent["messages"])  # the grammar holds it: no prompt tokens spent


def test_json_mode_and_the_prompt_alone_carry_the_schema_in_the_prompt(llm_home, fake_llm):
    fake_llm.behave_like("no-response-format")
    fake_llm.script('{"notes": []}')
    complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    by_kind = {kind: request.body for kind, request in zip(fake_llm.formats, fake_llm.requests, strict=True)}
    for kind in ("json_object", "none"):
        assert json.dumps(SCHEMA) in by_kind[kind]["messages"][0]["content"]
    assert "response_format" not in by_kind["none"]


def test_fenced_json_from_the_prompt_alone_is_read_and_checked_as_strictly(llm_home, fake_llm):
    fake_llm.behave_like("no-response-format")
    fake_llm.script('{"notes": ["tea"]}')
    assert complete(llm_home, "scout", "capture", ASK, schema=SCHEMA).data == {"notes": ["tea"]}
    assert fake_llm.requests[-1].body["messages"][0]["role"] == "system"
    fake_llm.script('{"notes": ["a note far longer than the forty characters it may have"]}')
    with pytest.raises(ModelUnavailable, match=r"the answer.notes\[0\] must have at most 40 characters"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert fake_llm.formats[-1] == "none"  # a bad answer is no reason to change the mode


def test_a_context_length_error_is_not_taken_for_a_refused_format(llm_home, fake_llm):
    fake_llm.script({"status": 400, "message": "Requested tokens (5000) exceed context window of 2048"})
    with pytest.raises(ModelUnavailable, match="longer than the context window"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert fake_llm.formats == ["json_schema"]  # no other way is tried: none would make the messages fit
    assert not output_modes.modes_path(llm_home).exists()


def test_a_server_that_refuses_every_way_teaches_nothing(llm_home, fake_llm):
    fake_llm.script(*[{"status": 500}] * 6)
    with pytest.raises(ModelUnavailable, match=r"answered 500 \(a server error\) \(3 tries\)"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    # One try for each way with a response format, then the prompt alone with its usual retries.
    assert fake_llm.formats == ["json_schema", "json_object_schema", "json_object", "none", "none", "none"]
    assert not output_modes.modes_path(llm_home).exists()
    assert rows(llm_home)[-1]["attempts"] == 6


def test_a_call_without_a_schema_sends_no_response_format_and_learns_nothing(llm_home, fake_llm):
    fake_llm.behave_like("llama-cpp-python")
    complete(llm_home, "scout", "chat", ASK)
    assert fake_llm.formats == ["none"] and not output_modes.modes_path(llm_home).exists()


def test_the_modes_are_kept_privately_beside_the_usage_rows_per_instance_and_model(llm_home, fake_llm):
    write_llm_config(llm_home, fake_llm, instances={"other": {"model": "openai/small", "api_base": fake_llm.api_base}})
    fake_llm.behave_like("llama-cpp-python")
    fake_llm.script('{"notes": []}')
    complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    path = output_modes.modes_path(llm_home)
    assert path.parent == llm_home.root / "usage" and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    other = output_modes.learned_mode(llm_home, output_modes_instance(llm_home, "other"), "openai/small")
    assert other is None  # another instance is still to learn its own


def output_modes_instance(home, instance_id):
    from omb_tui.core.memory.settings import load_config

    return load_config(home).instances[instance_id]


def test_a_damaged_modes_file_is_learned_again(llm_home, fake_llm):
    path = output_modes.modes_path(llm_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    fake_llm.behave_like("llama-cpp-python")
    fake_llm.script('{"notes": []}')
    assert complete(llm_home, "scout", "capture", ASK, schema=SCHEMA).output_mode == "json_object_schema"
    assert learned(llm_home)[0]["mode"] == "json_object_schema"


def test_models_test_reports_the_mode_and_learns_it_afresh(run_cli, llm_home, fake_llm):
    fake_llm.behave_like("json-object-only")
    result = run_cli("models", "test", "local")
    assert result.code == 0
    assert result.out.rstrip().endswith("(openai/qwen3-8b); it takes JSON as json_object.")
    assert learned(llm_home)[0]["mode"] == "json_object"
    fake_llm.behave_like("openai")  # the server was upgraded: the test asks from the top again
    [check] = json.loads(run_cli("models", "test", "local", "--json").out)
    assert check["output_mode"] == "json_schema" and learned(llm_home)[0]["mode"] == "json_schema"


def test_an_instance_may_say_where_asking_starts_and_a_refusal_still_steps_down(llm_home, fake_llm):
    write_llm_config(
        llm_home,
        fake_llm,
        instances={"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "outputMode": "json_object"}},
    )
    fake_llm.script('{"notes": []}', '{"notes": []}')
    assert complete(llm_home, "scout", "capture", ASK, schema=SCHEMA).output_mode == "json_object"
    fake_llm.behave_like("no-response-format")
    assert complete(llm_home, "scout", "capture", ASK, schema=SCHEMA).output_mode == "prompt"
    assert fake_llm.formats == ["json_object", "json_object", "none"]
    fake_llm.script('{"notes": []}')  # the refusal was learned: the pinned mode is not asked again
    complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert fake_llm.formats[-1] == "none" and len(fake_llm.formats) == 4


def test_the_settings_know_the_same_ladder_and_refuse_another_mode(llm_home, fake_llm):
    from omb_tui.core.memory.settings import OUTPUT_MODES, BrokenFile, load_config

    assert OUTPUT_MODES == output_modes.LADDER
    write_llm_config(llm_home, fake_llm, instances={"local": {"model": "openai/x", "outputMode": "grammar"}})
    with pytest.raises(BrokenFile, match="'outputMode' must be one of json_schema, json_object_schema"):
        load_config(llm_home)
