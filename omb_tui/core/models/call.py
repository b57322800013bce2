"""The one call path: every model call of the project goes through `complete` (or `acomplete`).

Spec: memory.md, "The helper model"; docs/models.md, "The call", "Usage" and "The spend limit". A call:
picks the instance (the bot's, else the helper, else ModelUnavailable and the caller falls back); refuses
before sending when the key's variable is unset or the monthly spend limit is reached; sends with a timeout;
retries only what is transient (429, 5xx, a dropped connection) a bounded number of times with backoff;
for a schema asks for JSON the way the provider supports (json_schema, else JSON mode, else the prompt), then
reads it tolerantly and checks it in code; and writes one usage row, failed calls included. The key is read
from its variable at call time and never written anywhere: it is removed from every sentence this module
makes. See docs/models.md for each decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..memory.journal import now_iso
from ..memory.paths import Home, quoted
from ..memory.settings import ModelInstance
from ..memory.text_checks import text_problem
from .instances import (
    ModelUnavailable,
    Route,
    choose_route,
    config_for_calls,
    missing_key_sentence,
    say_once,
)
from .litellm_setup import litellm_module
from .night_budget import night_refusal
from .structured import MAX_ANSWER_CHARS, UnusableAnswer, json_instruction, parse_json_answer, schema_problem, too_long
from .usage import COST_NO_ANSWER, COST_PRICED, COST_UNKNOWN, LIMIT_REACHED, limit_reached, record_usage

__all__ = ["ModelAnswer", "ModelUnavailable", "acomplete", "check_instance", "complete"]

MAX_CONCURRENT_CALLS = 4  # by default at most this many calls in flight in the process (runs over many bots)
NO_KEY = "no-key-needed"  # sent when an instance names no key, so litellm never reads a provider's variable
TEST_PROMPT = "Reply with the single word: ok"
JSON_SCHEMA, JSON_MODE, JSON_PROMPT = "json_schema", "json_object", "prompt"


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 2  # after the first try: three tries in all
    first_backoff_s: float = 0.5  # doubled after each try
    max_backoff_s: float = 8.0

    def backoff(self, tries: int) -> float:
        return min(self.max_backoff_s, self.first_backoff_s * 2 ** (tries - 1))


RETRY_POLICY = RetryPolicy()  # read at each call, so a test can make the backoff zero
NO_RETRIES = RetryPolicy(retries=0)
_call_slots = threading.BoundedSemaphore(MAX_CONCURRENT_CALLS)


@contextlib.contextmanager
def concurrent_calls(most: int) -> Iterator[None]:
    """Let `most` calls be in flight at once while a run over many bots lasts (`upkeep --due --concurrency N`
    sets it to its own bound, so the call layer never becomes the narrower one); the bound before comes back
    after it, so a library caller's process is left as it was."""
    global _call_slots
    if most < 1:
        raise ValueError("at least one call must be allowed")
    before, _call_slots = _call_slots, threading.BoundedSemaphore(most)
    try:
        yield
    finally:
        _call_slots = before


@dataclass
class ModelAnswer:
    text: str  # the assistant's text ("" when it only called tools)
    tool_calls: list[dict]  # OpenAI shape: [{"id", "type": "function", "function": {"name", "arguments"}}]
    data: object | None  # the parsed JSON when a schema was asked for
    message: dict  # the assistant message to append to the conversation for the next round
    usage_row: dict  # the row written to usage


def complete(
    home: Home,
    bot_id: str,
    job: str,
    messages: list[dict],
    *,
    schema: dict | None = None,
    tools: list[dict] | None = None,
    timeout: float | None = None,
) -> ModelAnswer:
    """One model call for a bot's job; ModelUnavailable (logged once per reason) when there is no answer.

    `schema`: a JSON schema the answer must match (ModelAnswer.data holds it, checked). `tools`: OpenAI-format
    tool schemas. `timeout`: seconds for this job (else the instance's, 60 s by default).
    """
    home = Home.of(home)
    try:
        config = config_for_calls(home)
        route = choose_route(home, bot_id, config)
        return call_route(
            home,
            route,
            job,
            messages,
            schema=schema,
            tools=tools,
            timeout=timeout,
            monthly_spend_usd=config.monthly_spend_usd,
        )
    except ModelUnavailable as problem:
        say_once(bot_id, problem)
        raise


async def acomplete(
    home: Home,
    bot_id: str,
    job: str,
    messages: list[dict],
    *,
    schema: dict | None = None,
    tools: list[dict] | None = None,
    timeout: float | None = None,
) -> ModelAnswer:
    """`complete` from async code. It runs in a worker thread and shares the process-wide bound of
    MAX_CONCURRENT_CALLS calls in flight; a cancelled caller's call still ends within its timeout and is
    recorded."""
    call = functools.partial(complete, home, bot_id, job, messages, schema=schema, tools=tools, timeout=timeout)
    return await asyncio.to_thread(call)


def call_route(
    home: Home,
    route: Route,
    job: str,
    messages: list[dict],
    *,
    schema: dict | None = None,
    tools: list[dict] | None = None,
    timeout: float | None = None,
    monthly_spend_usd: float | None = None,
    retry: RetryPolicy | None = None,
    max_tokens: int | None = None,
) -> ModelAnswer:
    """The call itself, once the route is known: refused before sending, sent, checked, recorded."""
    instance = route.instance
    key = _key(instance, route)
    if limit_reached(home, monthly_spend_usd):
        raise ModelUnavailable(LIMIT_REACHED, via_helper=route.via_helper)
    if night_stop := night_refusal(home, route.bot_id):  # upkeep's budget for the night (docs/guard.md)
        raise ModelUnavailable(night_stop, via_helper=route.via_helper)
    litellm = litellm_module()
    timeout = instance.timeout if timeout is None else timeout
    request = _request(litellm, route, messages, schema, tools, timeout, key, max_tokens)
    at, started = now_iso(), time.monotonic()
    response, tries, failure = _send(litellm, request, route, timeout, retry or RETRY_POLICY, key)
    row = {
        "at": at,
        "bot": route.bot_id,
        "job": job,
        "instance": instance.id,
        "model": route.model,
        "prompt_tokens": None,
        "completion_tokens": None,
        "cost_usd": 0.0,
        "ok": False,
        "triggered_by": route.triggered_by,
        "cost": COST_NO_ANSWER,
        "duration_ms": round((time.monotonic() - started) * 1000),
        "attempts": tries,
        "error": failure,
    }
    if response is None:
        assert failure is not None  # _send gives no response only with the reason why
        record_usage(home, row)
        raise ModelUnavailable(failure, via_helper=route.via_helper)
    row.update(_tokens(response))
    row["cost_usd"], row["cost"] = _cost(litellm, response)
    answer = _answer(response, row)
    problem = _answer_problem(answer, schema)
    if problem:
        failure = f"{_name(route)} answered, but {problem}"
        row.update(ok=False, error=failure)
        record_usage(home, row)
        raise ModelUnavailable(failure, via_helper=route.via_helper, raw=answer.text, refusal=problem)
    row["ok"] = True
    record_usage(home, row)
    return answer


@dataclass
class InstanceCheck:
    """What `omb-tui models test` prints for one instance."""

    id: str
    model: str
    ok: bool
    latency_ms: int | None
    problem: str | None

    def to_dict(self) -> dict:
        return {"id": self.id, "model": self.model, "ok": self.ok, "latency_ms": self.latency_ms, "error": self.problem}


def check_instance(home: Home, instance: ModelInstance, monthly_spend_usd: float | None = None) -> InstanceCheck:
    """One tiny call, no retries: the latency, or one sentence saying what is wrong. Recorded as usage."""
    route = Route(None, instance, instance.model, via_helper=False)
    messages = [{"role": "user", "content": TEST_PROMPT}]
    try:
        answer = call_route(
            home, route, "models test", messages, monthly_spend_usd=monthly_spend_usd, retry=NO_RETRIES, max_tokens=20
        )
    except ModelUnavailable as problem:
        return InstanceCheck(instance.id, instance.model, False, None, problem.reason)
    return InstanceCheck(instance.id, instance.model, True, answer.usage_row["duration_ms"], None)


# ----- the request -----
def _key(instance: ModelInstance, route: Route) -> str:
    """The key from the variable the instance names, read now; never stored."""
    if not instance.api_key_env:
        return NO_KEY
    key = os.environ.get(instance.api_key_env, "")
    if not key:
        raise ModelUnavailable(missing_key_sentence(instance), via_helper=route.via_helper)
    return key


def _request(
    litellm: Any,
    route: Route,
    messages: list[dict],
    schema: dict | None,
    tools: list[dict] | None,
    timeout: float,
    key: str,
    max_tokens: int | None,
) -> dict:
    request: dict = {
        "model": route.model,
        "messages": list(messages),
        "timeout": timeout,
        "api_key": key,
        "max_retries": 0,
        "num_retries": 0,
    }  # the retries are ours, below
    if route.instance.api_base:
        request["api_base"] = route.instance.api_base
    if tools:
        request["tools"] = tools
    if max_tokens:
        request["max_tokens"] = max_tokens
    if schema is not None:
        mode = json_mode(litellm, route.model)
        if mode == JSON_SCHEMA:
            request["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
        else:
            if mode == JSON_MODE:
                request["response_format"] = {"type": "json_object"}
            request["messages"] = _with_instruction(request["messages"], json_instruction(schema))
    return request


def json_mode(litellm: Any, model: str) -> str:
    """How to ask this model for JSON: a schema where litellm says it is supported, else JSON mode where the
    provider takes `response_format`, else only the prompt."""
    if litellm.supports_response_schema(model=model):
        return JSON_SCHEMA
    try:
        provider_model, provider, _, _ = litellm.get_llm_provider(model=model)
        supported = litellm.get_supported_openai_params(model=provider_model, custom_llm_provider=provider) or []
    except Exception:  # an unknown provider: the call itself will say so
        supported = []
    return JSON_MODE if "response_format" in supported else JSON_PROMPT


def _with_instruction(messages: list[dict], instruction: str) -> list[dict]:
    """The JSON instruction at the end of the first system message (a new one when there is none)."""
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        first = dict(messages[0], content=f"{messages[0]['content']}\n\n{instruction}")
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


# ----- sending, with retries -----
def _send(
    litellm: Any, request: dict, route: Route, timeout: float, policy: RetryPolicy, key: str
) -> tuple[Any, int, str | None]:
    """(response, tries, None), or (None, tries, the sentence saying why there is no answer)."""
    tries = 0
    while True:
        tries += 1
        try:
            with _call_slots:
                return litellm.completion(**request), tries, None
        except Exception as exc:  # litellm maps every provider's error; anything else is a failure too
            transient, what = _explain(litellm, exc, route, timeout, key)
            if not transient or tries > policy.retries:
                return None, tries, what + (f" ({tries} tries)" if tries > 1 else "")
        time.sleep(policy.backoff(tries))


def _name(route: Route) -> str:
    return f"instance {quoted(route.instance.id)}"


def _explain(litellm: Any, exc: BaseException, route: Route, timeout: float, key: str) -> tuple[bool, str]:
    """(transient?, one sentence): what went wrong, in words a person can act on, with no key in it."""
    import openai

    name, instance = _name(route), route.instance
    status = getattr(exc, "status_code", None)
    chain = _causes(exc)
    where = instance.api_base or "its provider"
    if any(isinstance(link, ConnectionRefusedError) for link in chain):
        return False, f"{name} refused the connection at {where} (is the server running?)"
    if isinstance(exc, litellm.Timeout) or any(isinstance(link, TimeoutError) for link in chain):
        return False, f"{name} did not answer within {timeout:g} s"
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return True, f"{name} answered 429 (too many requests)"
    if isinstance(exc, litellm.AuthenticationError) or status == 401:
        if instance.api_key_env:
            return False, f"{name} refused the key (401): check the key in {instance.api_key_env}"
        return False, f"{name} asks for a key (401): name the variable that holds it in 'api_key_env'"
    if isinstance(exc, litellm.PermissionDeniedError) or status == 403:
        return False, f"{name} refused access (403): the key may not be allowed to use {quoted(route.model)}"
    if isinstance(exc, litellm.NotFoundError) or status == 404:
        return False, f"{name} answered 404: it does not know the model {quoted(route.model)}, or 'api_base' is wrong"
    if isinstance(exc, litellm.ContextWindowExceededError):
        return False, f"the messages are longer than the context window of {quoted(route.model)}"
    if "Invalid response object" in str(exc):  # litellm could not read the answer (content or tool calls)
        return False, f"{name} answered, but the answer is not in the shape of an OpenAI chat answer"
    if any(isinstance(link, openai.APIConnectionError) for link in chain):
        return True, f"the connection to {name} at {where} dropped before an answer"
    if isinstance(status, int) and status >= 500:
        return True, f"{name} answered {status} (a server error)"
    message = _provider_message(exc, key)
    if "LLM Provider NOT provided" in message:
        return False, (
            f"litellm does not know the provider of {quoted(route.model)}: write the model as "
            "provider/name, such as openai/qwen3-8b"
        )
    if isinstance(exc, litellm.BadRequestError) or status == 400:
        return False, f"{name} refused the request (400): {message}"
    return False, f"{name} failed ({type(exc).__name__}): {message}"


def _causes(exc: BaseException) -> list[BaseException]:
    chain, seen = [], set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        chain.append(link)
        link = link.__cause__ or link.__context__
    return chain


def _provider_message(exc: BaseException, key: str) -> str:
    """The provider's own words, short, on one line, without the key (the usage row redacts the rest)."""
    text = str(getattr(exc, "message", None) or exc)
    text = text.split(" - ", 1)[-1] if "Exception - " in text else text
    text = " ".join(text.split())
    if key and key != NO_KEY:
        text = text.replace(key, "«key»")
    from ..memory.redact_data import redact_message

    # Redacted whole before it is cut: a provider may echo the request, any key in it; a cut key may not look like one.
    return redact_message(text)[:200].rstrip(".") or type(exc).__name__


# ----- the answer -----
def _tokens(response: Any) -> dict:
    usage = getattr(response, "usage", None)
    return {
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "completion_tokens": getattr(usage, "completion_tokens", None),
    }


def _cost(litellm: Any, response: Any) -> tuple[float | None, str]:
    """litellm's cost from its bundled price list; (None, unknown) for a model it has no price for."""
    try:
        return float(litellm.completion_cost(completion_response=response)), COST_PRICED
    except Exception:
        return None, COST_UNKNOWN


def _answer(response: Any, row: dict) -> ModelAnswer:
    message = response.choices[0].message
    content = _text(message.content)  # a list of parts, or anything else but text, is no text
    tool_calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.function.name, "arguments": call.function.arguments or "{}"},
        }
        for call in (message.tool_calls or [])
    ]
    assistant: dict = {"role": "assistant", "content": content or None}
    if tool_calls:
        assistant["tool_calls"] = tool_calls
    return ModelAnswer(text=content, tool_calls=tool_calls, data=None, message=assistant, usage_row=row)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _answer_problem(answer: ModelAnswer, schema: dict | None) -> str | None:
    """Why the answer cannot be used, as a phrase to follow "answered, but"; None when it can, and then
    answer.data holds the JSON asked for. The size is bounded before anything reads the answer; a tool call's
    arguments are checked by the tool that runs them (tools.run_tool), the text here."""
    size = len(answer.text) + sum(len(_text(call["function"]["arguments"])) for call in answer.tool_calls)
    if size > MAX_ANSWER_CHARS:
        return too_long("the answer", size)
    if schema is None:  # an empty answer is the caller's to word (a chat turn with nothing said, `models test`)
        return text_problem(answer.text)
    if answer.tool_calls:
        return "the answer called tools instead of answering with JSON"
    try:
        data = parse_json_answer(answer.text, schema)
    except UnusableAnswer as exc:
        return str(exc)
    problem = schema_problem(data, schema)
    if problem is None:
        answer.data = data
    return problem
