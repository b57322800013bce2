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
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..files.paths import Home, quoted
from ..journal.journal import now_iso
from ..memory import environment
from ..memory.settings import ModelInstance
from .answer import RUN_DEADLINE_PASSED, ModelAnswer, answer_problem, text_of
from .bounded_http import bounded, cut_in
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
from .output_modes import (
    JSON_OBJECT,
    JSON_PROMPT,
    JSON_SCHEMA,
    at_or_below,
    first_mode,
    format_refused,
    is_context_error,
    learned_mode,
    next_mode,
    remember,
    shape_request,
)
from .time_limits import (
    CallTimes,
    DeadlinePassed,
    StreamBroken,
    StreamStopped,
    call_times,
    instance_slot,
    seconds_text,
    stream_completion,
)
from .usage import COST_NO_ANSWER, COST_PRICED, COST_UNKNOWN, LIMIT_REACHED, limit_reached, record_usage

__all__ = [
    "JSON_MODE",
    "JSON_PROMPT",
    "JSON_SCHEMA",
    "ModelAnswer",
    "ModelUnavailable",
    "acomplete",
    "check_instance",
    "complete",
]

MAX_CONCURRENT_CALLS = 4  # by default at most this many calls in flight in the process (runs over many bots)
NO_KEY = "no-key-needed"  # sent when an instance names no key, so litellm never reads a provider's variable
TEST_PROMPT = 'Reply with the JSON object {"ok": true}'
TEST_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
JSON_MODE = JSON_OBJECT  # the name before output_modes.py
# The bytes a chat answer may take on the wire: MAX_ANSWER_CHARS escaped as \uXXXX, or streamed a token an event
# (some 250 bytes of framing each), with room to spare; past it the answer is refused before it is read whole.
MAX_ANSWER_BYTES = 16 * 1024 * 1024


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
    learn_afresh: bool = False,
    read_answer: bool = True,
) -> ModelAnswer:
    """The call itself, once the route is known: refused before sending, sent, checked, recorded.

    `learn_afresh`: try the output modes from the first again instead of the one remembered (`models test`);
    `read_answer`: False when only whether the server answers matters (`models test`: the answer is not read)."""
    instance = route.instance
    if instance.engine is not None:  # a person's agent CLI on their own plan (engine_call.py)
        from .engine_call import call_engine

        return call_engine(
            home, route, job, messages, schema=schema, tools=tools, timeout=timeout, read_answer=read_answer
        )
    key = _key(instance, route)
    if limit_reached(home, monthly_spend_usd):
        raise ModelUnavailable(LIMIT_REACHED, via_helper=route.via_helper)
    if night_stop := night_refusal(home, route.bot_id):  # upkeep's budget for the night (docs/guard.md)
        raise ModelUnavailable(night_stop, via_helper=route.via_helper)
    times = functools.partial(call_times, instance, timeout, streamed=instance.stream and not tools)
    try:
        times()
    except DeadlinePassed:
        raise ModelUnavailable(RUN_DEADLINE_PASSED, via_helper=route.via_helper) from None
    litellm = litellm_module()
    request = _request(route, messages, tools, key, max_tokens)
    at, started = now_iso(), time.monotonic()
    ladder = _Ladder(home, litellm, route, schema, learn_afresh)
    sent = ladder.send(request, times, retry or RETRY_POLICY, key)
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
        "attempts": sent.tries,
        "error": sent.failure,
    }
    if ladder.mode is not None:  # a call asking for JSON: how it asked
        row["output_mode"] = ladder.mode
    if sent.response is None:
        assert sent.failure is not None  # _send gives no response only with the reason why
        record_usage(home, row)
        raise ModelUnavailable(sent.failure, via_helper=route.via_helper)
    row.update(_tokens(sent.response))
    row["cost_usd"], row["cost"] = response_cost(litellm, sent.response)
    answer = _answer(sent.response, row)
    answer.output_mode = ladder.mode
    problem = answer_problem(answer, schema if read_answer else None)
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
    output_mode: str | None = None  # how the instance takes a request for JSON, learned by this call
    engine: str | None = None  # the engine that answered, for an engine instance

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "model": self.model,
            "ok": self.ok,
            "latency_ms": self.latency_ms,
            "error": self.problem,
            "output_mode": self.output_mode,
            "engine": self.engine,
        }


def check_instance(home: Home, instance: ModelInstance, monthly_spend_usd: float | None = None) -> InstanceCheck:
    """One tiny call asking for JSON, no retries: the latency and the output mode the server takes (learned
    afresh and remembered), or one sentence saying what is wrong. Recorded as usage. The answer's words are
    not judged: this tests the connection, not the model."""
    route = Route(None, instance, instance.model, via_helper=False)
    messages = [{"role": "user", "content": TEST_PROMPT}]
    try:
        answer = call_route(
            home,
            route,
            "models test",
            messages,
            schema=TEST_SCHEMA,
            monthly_spend_usd=monthly_spend_usd,
            retry=NO_RETRIES,
            max_tokens=20,
            learn_afresh=True,
            read_answer=False,
        )
    except ModelUnavailable as problem:
        return InstanceCheck(instance.id, instance.label, False, None, problem.reason, engine=instance.engine)
    model = instance.model if instance.engine is None else answer.usage_row.get("model") or instance.label
    return InstanceCheck(
        instance.id, model, True, answer.usage_row["duration_ms"], None, answer.output_mode, engine=instance.engine
    )


# ----- the request -----
def _key(instance: ModelInstance, route: Route) -> str:
    """The key from the variable the instance names, read now; never stored."""
    if not instance.api_key_env:
        return NO_KEY
    key = environment.current().get(instance.api_key_env, "")
    if not key:
        raise ModelUnavailable(missing_key_sentence(instance), via_helper=route.via_helper)
    return key


def _request(route: Route, messages: list[dict], tools: list[dict] | None, key: str, max_tokens: int | None) -> dict:
    request: dict = {  # its timeout is set at each try, from what is left then (_send)
        "model": route.model,
        "messages": list(messages),
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
    return request


def json_mode(litellm: Any, model: str) -> str:
    """How a provider litellm knows is first asked for JSON (output_modes.first_mode, without an `api_base`)."""
    return first_mode(litellm, ModelInstance("", model), model)


# ----- sending, with retries and output modes -----
@dataclass
class _Sent:
    response: Any  # None when there is no answer
    tries: int
    failure: str | None  # the sentence saying why there is no answer
    error: BaseException | None = None  # what the last try raised


class _Ladder:
    """Sends a request asking for JSON in the mode known for the instance and model, stepping down the output
    modes while the server refuses one (output_modes.py), and remembers the mode that answered."""

    def __init__(self, home: Home, litellm: Any, route: Route, schema: dict | None, learn_afresh: bool) -> None:
        self.home, self.litellm, self.route, self.schema = home, litellm, route, schema
        self.known = None if schema is None or learn_afresh else learned_mode(home, route.instance, route.model)
        self.mode: str | None = None
        if schema is not None:
            self.mode = self.known.mode if self.known else first_mode(litellm, route.instance, route.model)
            self.mode = at_or_below(route.instance.output_mode, self.mode)

    def send(self, request: dict, times: Callable[[], CallTimes], policy: RetryPolicy, key: str) -> _Sent:
        if self.schema is None or self.mode is None:
            return _send(self.litellm, request, self.route, times, policy, key)
        tries, because = 0, None
        while True:
            shaped = shape_request(request, self.mode, self.schema)
            lower = next_mode(self.mode)
            mode = self.mode
            step_down = functools.partial(format_refused, self.litellm, mode=mode) if lower else None
            sent = _send(self.litellm, shaped, self.route, times, policy, key, step_down=step_down)
            tries += sent.tries
            if sent.response is not None:
                if self.known is None or self.known.mode != self.mode:
                    remember(self.home, self.route.instance, self.route.model, self.mode, because)
                return _Sent(sent.response, tries, None)
            if lower is None or sent.error is None or not format_refused(self.litellm, sent.error, mode=mode):
                return _Sent(None, tries, sent.failure, sent.error)
            because = because or f"{mode} refused: {sent.failure}"
            self.mode = lower


def _send(
    litellm: Any,
    request: dict,
    route: Route,
    times: Callable[[], CallTimes],
    policy: RetryPolicy,
    key: str,
    *,
    step_down: Callable[[BaseException], bool] | None = None,
) -> _Sent:
    """The answer, or no answer and the sentence saying why. `step_down`: a refusal for which another output mode
    is tried at once rather than this request again. Each try's bounds are what is left once it holds its slots:
    a call that waited for a busy local server still ends by the run's deadline."""
    tries, first, failed = 0, 0.0, None
    while True:
        tries += 1
        try:
            with instance_slot(route.instance), _call_slots:
                bounds = times()
                first = bounds.first
                return _Sent(_one_try(litellm, {**request, "timeout": first}, route, bounds), tries, None)
        except DeadlinePassed:  # it passed while the call waited: this try sent nothing
            if failed is None:
                raise ModelUnavailable(RUN_DEADLINE_PASSED, via_helper=route.via_helper) from None
            return _Sent(None, tries - 1, f"{failed.failure} ({tries - 1} tries); {RUN_DEADLINE_PASSED}", failed.error)
        except Exception as exc:  # litellm maps every provider's error; anything else is a failure too
            transient, what = _explain(litellm, exc, route, first, key)
            if step_down is not None and step_down(exc):
                return _Sent(None, tries, what, exc)
            if not transient or tries > policy.retries:
                return _Sent(None, tries, what + (f" ({tries} tries)" if tries > 1 else ""), exc)
            failed = _Sent(None, tries, what, exc)
        time.sleep(policy.backoff(tries))


def _one_try(litellm: Any, request: dict, route: Route, times: CallTimes) -> Any:
    """One request: streamed when the instance says so and no tools are offered (a chat turn waits whole); a whole
    answer within `times.first` by the wall clock, however slowly the server sends it (bounded_http)."""
    if route.instance.stream and "tools" not in request:
        return stream_completion(litellm, request, times, MAX_ANSWER_BYTES)
    with bounded(times.first, MAX_ANSWER_BYTES):
        return litellm.completion(**request)


def _name(route: Route) -> str:
    return f"instance {quoted(route.instance.id)}"


def _explain(litellm: Any, exc: BaseException, route: Route, timeout: float, key: str) -> tuple[bool, str]:
    """(transient?, one sentence): what went wrong, in words a person can act on, with no key in it."""
    import openai

    name, instance = _name(route), route.instance
    status = getattr(exc, "status_code", None)
    chain = _causes(exc)
    where = instance.api_base or "its provider"
    if isinstance(exc, StreamStopped):
        return isinstance(exc, StreamBroken), f"{name} {exc.why}"
    if cut := cut_in(exc):  # the call's whole time, its answer's size, a redirect: never tried again
        return False, f"{name} {cut.why}"
    if any(isinstance(link, ConnectionRefusedError) for link in chain):
        return False, f"{name} refused the connection at {where} (is the server running?)"
    if isinstance(exc, litellm.Timeout) or any(isinstance(link, TimeoutError) for link in chain):
        return False, f"{name} did not answer within {seconds_text(timeout)} s"
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
    if isinstance(exc, litellm.ContextWindowExceededError) or is_context_error(str(exc)):
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


def failure_sentence(litellm: Any, exc: BaseException, instance: ModelInstance, timeout: float, key: str) -> str:
    """What went wrong with a call to `instance` (any kind of call: embeddings.py's too), in one sentence, no key."""
    return _explain(litellm, exc, Route(None, instance, instance.model, via_helper=False), timeout, key)[1]


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
    from ..redaction.data import redact_message

    # Redacted whole before it is cut: a provider may echo the request, any key in it; a cut key may not look like one.
    return redact_message(text)[:200].rstrip(".") or type(exc).__name__


# ----- the answer -----
def _tokens(response: Any) -> dict:
    usage = getattr(response, "usage", None)
    return {
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "completion_tokens": getattr(usage, "completion_tokens", None),
    }


def response_cost(litellm: Any, response: Any) -> tuple[float | None, str]:
    """litellm's cost from its bundled price list; (None, unknown) for a model it has no price for."""
    try:
        return float(litellm.completion_cost(completion_response=response)), COST_PRICED
    except Exception:
        return None, COST_UNKNOWN


def _answer(response: Any, row: dict) -> ModelAnswer:
    message = response.choices[0].message
    content = text_of(message.content)  # a list of parts, or anything else but text, is no text
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
