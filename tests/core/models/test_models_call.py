"""The one call path (docs/models.md): answers, tools, structured JSON, retries, timeouts, fallbacks, the key.

Every test talks to the scripted OpenAI-compatible server in tests/support/fake_llm.py on 127.0.0.1; none reaches
the network.
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import textwrap
from datetime import UTC

import pytest
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from support.repo import TESTS

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models import call
from omb_tui.core.models.call import ModelUnavailable, acomplete, complete
from omb_tui.core.models.usage import read_usage

HELLO = [{"role": "system", "content": "You are Scout."}, {"role": "user", "content": "hello"}]
SCHEMA = {
    "type": "object",
    "properties": {"notes": {"type": "array", "items": {"type": "string", "maxLength": 40}}},
    "required": ["notes"],
    "additionalProperties": False,
}
KEY = "sk-test-NOTAREALKEY0123456789abcdef"


def rows(home):
    from datetime import datetime, timezone

    return read_usage(home, clock.now_utc().strftime("%Y-%m"))


def helper_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "omb_tui.models"]


def test_a_plain_answer_through_the_helper(llm_home, fake_llm):
    fake_llm.script("Hello! How can I help?")
    answer = complete(llm_home, "scout", "chat", HELLO)
    assert answer.text == "Hello! How can I help?" and answer.tool_calls == [] and answer.data is None
    assert answer.message == {"role": "assistant", "content": "Hello! How can I help?"}
    sent = fake_llm.requests[-1].body
    assert sent["model"] == "qwen3-8b" and sent["messages"] == HELLO
    assert answer.usage_row["triggered_by"] == "Helper model" and answer.usage_row["bot"] == "scout"


def test_tool_calls_come_back_in_openai_shape(llm_home, fake_llm):
    tools = [{"type": "function", "function": {"name": "memory_update", "parameters": {"type": "object"}}}]
    fake_llm.script({"tool_calls": [("memory_update", {"action": "add", "text": "likes tea"})]})
    answer = complete(llm_home, "scout", "chat", HELLO, tools=tools)
    assert answer.text == ""
    assert answer.tool_calls == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "memory_update", "arguments": json.dumps({"action": "add", "text": "likes tea"})},
        }
    ]
    assert answer.message["tool_calls"] == answer.tool_calls and answer.message["content"] is None
    assert fake_llm.requests[-1].body["tools"] == tools


@pytest.mark.parametrize(
    "reply",
    [
        '{"notes": ["tea", "Pune"]}',
        'Here you are:\n```json\n{"notes": ["tea", "Pune"]}\n```\nAnything else?',
        'Sure. The notes are {"notes": ["tea", "Pune"]} as asked.',
        '<think>the person said {maybe}</think>\n{"notes": ["tea", "Pune"]}',
    ],
)
def test_json_with_prose_or_fences_around_it_is_read(llm_home, fake_llm, reply):
    fake_llm.script(reply)
    answer = complete(llm_home, "scout", "capture", HELLO, schema=SCHEMA)
    assert answer.data == {"notes": ["tea", "Pune"]}


def test_broken_json_fails_the_call_and_keeps_the_raw_answer(llm_home, fake_llm):
    fake_llm.script('{"notes": ["tea", ')
    with pytest.raises(ModelUnavailable) as caught:
        complete(llm_home, "scout", "capture", HELLO, schema=SCHEMA)
    assert caught.value.raw == '{"notes": ["tea", ' and "no JSON object" in caught.value.reason
    assert rows(llm_home)[-1]["ok"] is False and rows(llm_home)[-1]["prompt_tokens"] == 12  # still counted


def test_an_answer_that_breaks_the_schema_fails_with_the_reason(llm_home, fake_llm):
    fake_llm.script('{"notes": ["tea"], "mood": "happy"}', '{"notes": [42]}')
    with pytest.raises(ModelUnavailable, match="'mood', which the schema does not allow"):
        complete(llm_home, "scout", "capture", HELLO, schema=SCHEMA)
    with pytest.raises(ModelUnavailable, match=r"answer\.notes\[0\] must be text") as caught:
        complete(llm_home, "scout", "capture", HELLO, schema=SCHEMA)
    assert caught.value.raw == '{"notes": [42]}'


def test_a_server_of_ones_own_is_first_asked_for_json_schema(llm_home, fake_llm):
    fake_llm.script('{"notes": []}')
    answer = complete(llm_home, "scout", "capture", HELLO, schema=SCHEMA)
    sent = fake_llm.requests[-1].body
    assert sent["response_format"] == {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}
    assert sent["messages"] == HELLO and answer.output_mode == "json_schema"


def test_a_provider_litellm_knows_starts_where_litellm_says():
    litellm = call.litellm_module()
    assert call.json_mode(litellm, "openai/qwen3-8b") == call.JSON_MODE  # litellm: JSON mode, no schema
    assert call.json_mode(litellm, "openai/gpt-4o-mini") == call.JSON_SCHEMA


def test_429_then_success_is_retried(llm_home, fake_llm):
    fake_llm.script({"status": 429}, "at last")
    answer = complete(llm_home, "scout", "chat", HELLO)
    assert answer.text == "at last" and len(fake_llm.requests) == 2
    assert answer.usage_row["attempts"] == 2 and answer.usage_row["ok"] is True


def test_a_dropped_connection_is_retried(llm_home, fake_llm):
    fake_llm.script({"drop": True}, "back again")
    assert complete(llm_home, "scout", "chat", HELLO).text == "back again"


def test_500s_are_retried_a_bounded_number_of_times_then_the_call_gives_up(llm_home, fake_llm):
    fake_llm.script(*[{"status": 500}] * 5)
    with pytest.raises(ModelUnavailable, match=r"answered 500 \(a server error\) \(3 tries\)"):
        complete(llm_home, "scout", "chat", HELLO)
    assert len(fake_llm.requests) == 3  # the first try and two retries, no more
    row = rows(llm_home)[-1]
    assert (row["ok"], row["attempts"], row["cost"]) == (False, 3, "no answer")


@pytest.mark.parametrize(
    "status, words",
    [
        (400, "refused the request (400): bad request"),
        (401, "asks for a key (401)"),
        (404, "does not know the model 'openai/qwen3-8b', or 'api_base' is wrong"),
    ],
)
def test_what_is_not_transient_is_not_retried(llm_home, fake_llm, status, words):
    fake_llm.script({"status": status}, "never reached")
    with pytest.raises(ModelUnavailable) as caught:
        complete(llm_home, "scout", "chat", HELLO)
    assert words in caught.value.reason and len(fake_llm.requests) == 1


def test_a_slow_answer_past_the_timeout_falls_back(llm_home, fake_llm):
    fake_llm.script({"delay": 10, "content": "too late"})
    with pytest.raises(ModelUnavailable, match=r"did not answer within 0\.3 s"):
        complete(llm_home, "scout", "compaction", HELLO, timeout=0.3)
    assert len(fake_llm.requests) == 1  # a timeout is not retried: the job's wait stays bounded


def test_a_refused_connection_says_so(llm_home, fake_llm):
    import socket

    with socket.socket() as spare:  # a port nothing listens on
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    write_llm_config(
        llm_home,
        fake_llm,
        helper={"instanceId": "gone"},
        instances={"gone": {"model": "openai/x", "api_base": f"http://127.0.0.1:{port}/v1"}},
    )
    with pytest.raises(ModelUnavailable, match="refused the connection"):
        complete(llm_home, "scout", "chat", HELLO)


def test_a_missing_key_variable_sends_nothing(llm_home, fake_llm, monkeypatch):
    monkeypatch.delenv("OMB_TEST_KEY", raising=False)
    write_llm_config(
        llm_home,
        fake_llm,
        helper={"instanceId": "keyed"},
        instances={"keyed": {"model": "openai/x", "api_base": fake_llm.api_base, "api_key_env": "OMB_TEST_KEY"}},
    )
    with pytest.raises(ModelUnavailable, match="the variable OMB_TEST_KEY is not set"):
        complete(llm_home, "scout", "chat", HELLO)
    assert fake_llm.requests == []


def test_a_bot_with_its_own_instance_is_never_answered_by_the_helper(llm_home, fake_llm):
    write_llm_config(
        llm_home, fake_llm, instances={"own": {"model": "openai/own-model", "api_base": fake_llm.api_base}}
    )
    update_bot_settings(llm_home, "scout", instance="own")
    fake_llm.script({"status": 500}, {"status": 500}, {"status": 500})
    with pytest.raises(ModelUnavailable) as caught:
        complete(llm_home, "scout", "chat", HELLO)
    assert not caught.value.via_helper
    assert {r.body["model"] for r in fake_llm.requests} == {"own-model"}  # no try on the helper's model
    assert rows(llm_home)[-1]["triggered_by"] == "scout"


def test_a_missing_or_failing_helper_is_logged_once_not_at_every_call(llm_home, fake_llm, caplog):
    caplog.set_level(logging.WARNING, logger="omb_tui.models")
    write_llm_config(llm_home, fake_llm, helper=None)
    for _ in range(3):
        with pytest.raises(ModelUnavailable, match="no helper model is set"):
            complete(llm_home, "scout", "capture", HELLO)
    assert helper_lines(caplog) == [
        "the helper model is not used: no helper model is set (config.json's 'helper' or OMB_HELPER_INSTANCE)."
    ]
    write_llm_config(llm_home, fake_llm)  # the helper is back, and failing
    fake_llm.script(*[{"status": 503}] * 6)
    for _ in range(2):
        with pytest.raises(ModelUnavailable):
            complete(llm_home, "scout", "capture", HELLO)
    assert len(helper_lines(caplog)) == 2
    assert "answered 503" in helper_lines(caplog)[1]
    assert len(fake_llm.requests) == 6  # each job still tried it: the helper may be back


def test_the_key_is_sent_but_never_written_under_the_home(llm_home, fake_llm, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OMB_TEST_KEY", KEY)
    write_llm_config(
        llm_home,
        fake_llm,
        helper={"instanceId": "keyed"},
        instances={"keyed": {"model": "openai/x", "api_base": fake_llm.api_base, "api_key_env": "OMB_TEST_KEY"}},
    )
    fake_llm.script("fine", {"status": 400, "echo_key": True}, {"status": 401, "echo_key": True})
    complete(llm_home, "scout", "chat", HELLO)
    for _ in range(2):
        with pytest.raises(ModelUnavailable) as caught:
            complete(llm_home, "scout", "chat", HELLO)
        assert KEY not in caught.value.reason
    assert fake_llm.requests[0].headers["authorization"] == f"Bearer {KEY}"
    files = [p for p in llm_home.root.rglob("*") if p.is_file()]
    assert any(p.parent.name == "usage" for p in files)
    assert not [p for p in files if KEY.encode() in p.read_bytes()]
    assert KEY not in caplog.text


def test_an_instance_without_a_key_never_sends_a_providers_key(llm_home, fake_llm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the person's own key, meant for OpenAI only
    complete(llm_home, "scout", "chat", HELLO)
    assert KEY not in json.dumps(fake_llm.requests[-1].headers)


async def test_acomplete_bounds_the_calls_in_flight(llm_home, fake_llm):
    write_llm_config(  # the instance allows more than the process does: the process's bound is the one seen
        llm_home,
        fake_llm,
        instances={"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "concurrency": 8}},
    )
    fake_llm.script(*[{"delay": 0.2, "content": f"answer {n}"} for n in range(8)])
    answers = await asyncio.gather(*(acomplete(llm_home, "scout", "capture", HELLO) for _ in range(8)))
    assert sorted(a.text for a in answers) == sorted(f"answer {n}" for n in range(8))
    assert fake_llm.most_at_once <= call.MAX_CONCURRENT_CALLS


NETWORK_GUARD = textwrap.dedent("""
    import json, os, socket, sys, threading, urllib.request
    sys.path.insert(0, sys.argv[2])
    tried = []
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(self, address):
        tried.append(str(address[0] if isinstance(address, tuple) else address))
        if tried[-1] != "127.0.0.1":
            raise OSError("blocked by the test")
        return real_connect(self, address)

    def getaddrinfo(host, *args, **kwargs):
        tried.append(str(host))
        if host != "127.0.0.1":
            raise socket.gaierror("blocked by the test")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect, socket.getaddrinfo = connect, getaddrinfo
    try:  # the guard sees an outside connection
        urllib.request.urlopen("http://example.com", timeout=1)
    except OSError:
        pass
    guard_works = tried == ["example.com"]
    tried.clear()

    from support.fake_llm import FakeLLM, _Server, _handler
    fake = FakeLLM()
    server = _Server(("127.0.0.1", 0), _handler(fake))
    fake.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    fake.script('{"ok": true}')
    from omb_tui.core.models.call import ModelUnavailable, complete
    from omb_tui.core.files.paths import Home
    home = Home(sys.argv[1])
    os.environ["OMB_TEST_KEY"] = "sk-ant-test-key"
    home.config_path.write_text(json.dumps({"instances": {
        "local": {"model": "openai/gpt-4o-mini", "api_base": fake.api_base},
        "claude": {"model": "anthropic/claude-haiku-4-5", "api_base": fake.api_base, "api_key_env": "OMB_TEST_KEY"},
    }, "helper": {"instanceId": "local"}}))
    complete(home, "scout", "chat", [{"role": "user", "content": "hi"}], schema={"type": "object"})
    home.config_path.write_text(home.config_path.read_text().replace('"instanceId": "local"', '"instanceId": "claude"'))
    try:
        complete(home, "scout", "chat", [{"role": "user", "content": "hi"}])
    except ModelUnavailable:
        pass  # the fake speaks OpenAI's protocol, not Anthropic's: what matters is where litellm went
    print(json.dumps({"guard_works": guard_works, "tried": sorted(set(tried)), "requests": len(fake.requests)}))
""")


def test_nothing_but_the_configured_instance_is_contacted(home, tmp_path):
    script = tmp_path / "guard.py"
    script.write_text(NETWORK_GUARD)
    tests = str(TESTS)
    out = subprocess.run(
        [sys.executable, str(script), str(home.root), tests], capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["guard_works"] and report["requests"] == 2
    assert report["tried"] == ["127.0.0.1"]
    assert "Give Feedback" not in out.stdout + out.stderr and "LiteLLM" not in out.stdout


def test_litellms_log_lines_go_to_our_log_redacted(llm_home, fake_llm, caplog, capsys):
    from omb_tui.core.models.litellm_setup import litellm_module

    complete(llm_home, "scout", "chat", HELLO)  # litellm is set up by the first call
    litellm_module()
    caplog.set_level(logging.WARNING, logger="omb_tui.models.litellm")
    logging.getLogger("LiteLLM").warning("provider said: bad key %s", "sk-ant-api03-" + "x" * 40)
    logging.getLogger("LiteLLM").debug("a debug line nobody asked for")
    [record] = [r for r in caplog.records if r.name == "omb_tui.models.litellm"]
    assert record.getMessage().startswith("litellm: provider said: bad key ") and "xxxxxxxx" not in record.getMessage()
    captured = capsys.readouterr()
    assert "provider said" not in captured.out + captured.err  # not printed by litellm's own handler
