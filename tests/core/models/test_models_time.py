"""Time for a model call: streaming with a first-token and an idle timeout, a run's deadline, and one call at a time
on this machine's own server. The scripted server streams as a slow local model does (tests/support/fake_llm.py)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import BrokenFile, load_config
from omb_tui.core.models import time_limits
from omb_tui.core.models.call import RUN_DEADLINE_PASSED, ModelUnavailable, complete
from omb_tui.core.models.time_limits import run_deadline
from omb_tui.core.models.usage import read_usage

pytestmark = pytest.mark.dates

ASK = [{"role": "system", "content": "You keep notes."}, {"role": "user", "content": "Any notes?"}]
SCHEMA = {"type": "object", "properties": {"notes": {"type": "array", "items": {"type": "string"}}}}
ANSWER = '{"notes": ["tea with lemon", "Pune", "short replies"]}'  # 14 chunks of 4 characters


def local(home, fake, **fields):
    spec = {"model": "openai/qwen3-8b", "api_base": fake.api_base, "timeout": 0.5, **fields}
    write_llm_config(home, fake, instances={"local": spec})


def rows(home):
    return read_usage(home, clock.now_utc().strftime("%Y-%m"))


def test_a_slow_model_still_writing_is_not_cut_off_at_the_call_timeout(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True, timeout=2, idleTimeout=2)
    fake_llm.script({"content": ANSWER, "chunk_delay": 0.25})  # about 3.5 s in all, more than the 2 s timeout
    answer = complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert answer.data == {"notes": ["tea with lemon", "Pune", "short replies"]}
    assert fake_llm.requests[-1].body["stream"] is True
    row = rows(llm_home)[-1]
    assert row["ok"] is True and (row["prompt_tokens"], row["completion_tokens"]) == (12, 3)  # the server's usage
    assert row["duration_ms"] > 2000


def test_without_streaming_the_same_answer_is_lost_at_the_timeout(llm_home, fake_llm):
    local(llm_home, fake_llm)
    fake_llm.script({"content": ANSWER, "delay": 1.1})
    with pytest.raises(ModelUnavailable, match=r"did not answer within 0\.5 s"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert "stream" not in fake_llm.requests[-1].body


def test_a_stream_that_goes_silent_is_cut_at_the_idle_timeout(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True, timeout=30, idleTimeout=0.3)
    fake_llm.script({"content": ANSWER, "pause": (3, 30)})  # the whole answer would come after 30 s
    with pytest.raises(ModelUnavailable, match=r"instance 'local' stopped answering: no token for 0\.3 s") as caught:
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert caught.value.raw is None and len(fake_llm.requests) == 1  # no answer to apply, and not tried again
    assert rows(llm_home)[-1]["ok"] is False


def test_a_stream_with_no_first_token_is_cut_at_the_timeout(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True, timeout=0.3, idleTimeout=30)
    fake_llm.script({"content": ANSWER, "first_token_delay": 30})
    with pytest.raises(ModelUnavailable, match=r"did not start answering within 0\.3 s"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)


def test_the_run_deadline_bounds_a_stream_still_answering(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True, timeout=30, idleTimeout=30)
    fake_llm.script({"content": ANSWER, "chunk_delay": 0.3})  # about 4 s in all
    with run_deadline(1.5), pytest.raises(ModelUnavailable, match=r"was still answering at the end of its 1\.5 s"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)


def test_after_the_run_deadline_no_call_is_made(llm_home, fake_llm):
    with run_deadline(0), pytest.raises(ModelUnavailable) as caught:
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert caught.value.reason == RUN_DEADLINE_PASSED and fake_llm.requests == [] and rows(llm_home) == []


def test_the_run_deadline_shortens_the_call_timeout_without_streaming(llm_home, fake_llm):
    local(llm_home, fake_llm, timeout=30)
    fake_llm.script({"content": ANSWER, "delay": 30})
    with run_deadline(0.4), pytest.raises(ModelUnavailable, match=r"did not answer within 0\.4"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)


def test_a_chat_turn_with_tools_is_not_streamed(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True)
    tools = [{"type": "function", "function": {"name": "memory_update", "parameters": {"type": "object"}}}]
    complete(llm_home, "scout", "chat", ASK, tools=tools)
    assert "stream" not in fake_llm.requests[-1].body


def calls_at_once(home, fake, count: int) -> int:
    fake.script(*[{"delay": 0.3, "content": "ok"} for _ in range(count)])
    threads = [threading.Thread(target=complete, args=(home, "scout", "chat", ASK)) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return fake.most_at_once


def test_this_machines_own_server_answers_one_call_at_a_time(llm_home, fake_llm):
    local(llm_home, fake_llm, timeout=30)
    assert calls_at_once(llm_home, fake_llm, 3) == 1
    assert len(fake_llm.requests) == 3


def test_an_instance_may_say_it_takes_more_calls_at_once(llm_home, fake_llm):
    local(llm_home, fake_llm, timeout=30, concurrency=3)
    assert calls_at_once(llm_home, fake_llm, 3) >= 2  # threads start at their own pace; never held to one


def test_a_server_elsewhere_has_no_bound_of_its_own():
    from omb_tui.core.memory.settings import ModelInstance

    assert time_limits.most_in_flight(ModelInstance("x", "openai/x", api_base="https://llm.example.com/v1")) is None
    assert time_limits.most_in_flight(ModelInstance("x", "anthropic/claude")) is None
    assert time_limits.most_in_flight(ModelInstance("x", "openai/x", api_base="http://localhost:11434/v1")) == 1


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("stream", "yes", "'stream' must be true or false"),
        ("idleTimeout", 0, "'idleTimeout' must be a number of seconds above 0"),
        ("contextTokens", 100, "'contextTokens' must be a whole number of tokens, 512 or more"),
        ("contextTokens", 4096.5, "'contextTokens' must be a whole number"),
        ("concurrency", 0, "'concurrency' must be a whole number from 1 to 64"),
    ],
)
def test_a_wrong_time_field_is_one_sentence(llm_home, fake_llm, field, value, words):
    local(llm_home, fake_llm, **{field: value})
    with pytest.raises(BrokenFile, match=words):
        load_config(llm_home)


def test_the_fields_are_read(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True, idleTimeout=45, contextTokens=8192, concurrency=2)
    instance = load_config(llm_home).instances["local"]
    assert (instance.stream, instance.idle_timeout, instance.context_tokens, instance.concurrency) == (
        True,
        45.0,
        8192,
        2,
    )


def test_a_stream_that_ends_unfinished_is_tried_again_in_the_same_output_mode(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True, timeout=30)
    fake_llm.behave_like("llama-cpp-python")  # a server that ends a stream when another request comes
    fake_llm.script({"content": ANSWER, "cut_after": 3}, {"content": ANSWER})
    answer = complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    assert answer.data["notes"][1] == "Pune" and answer.output_mode == "json_object_schema"
    assert fake_llm.formats == ["json_schema", "json_object_schema", "json_object_schema"]  # not stepped down
    assert rows(llm_home)[-1]["attempts"] == 3


def test_a_stream_that_keeps_ending_unfinished_fails_in_one_sentence(llm_home, fake_llm):
    local(llm_home, fake_llm, stream=True, timeout=30)
    fake_llm.script(*[{"content": ANSWER, "cut_after": 2}] * 3)
    with pytest.raises(ModelUnavailable, match=r"broke off its answer before it was done .* \(3 tries\)"):
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)


def test_a_call_that_waited_for_a_busy_local_server_past_the_deadline_is_not_sent(llm_home, fake_llm):
    local(llm_home, fake_llm, timeout=30)
    fake_llm.script({"delay": 1.5, "content": "the first call's answer"})
    first = threading.Thread(target=complete, args=(llm_home, "scout", "chat", ASK))
    first.start()
    while fake_llm.in_flight == 0 and first.is_alive():  # the first call holds the server's one slot
        threading.Event().wait(0.01)
    with run_deadline(0.3), pytest.raises(ModelUnavailable) as caught:
        complete(llm_home, "scout", "capture", ASK, schema=SCHEMA)
    first.join()
    assert caught.value.reason == RUN_DEADLINE_PASSED and len(fake_llm.requests) == 1
