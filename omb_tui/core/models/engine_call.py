"""An engine instance's call: `complete()`'s contract (text, checked JSON, one usage row, ModelUnavailable with one
sentence) kept for a person's own agent CLI (engines/).

docs/models.md, "Engines". Not retried (each try starts a whole agent, and what fails is rarely transient);
bounded by the instance's timeout and the run's deadline; a schema is the CLI's own where it has one, else asked
for in the prompt and read like any other answer. A call on the person's plan costs no money per call: its row says
`cost: "plan"` with what the CLI reported in `plan_cost_usd`, and the monthly spend limit does not count it.
"""

from __future__ import annotations

import time

from ..files.paths import Home, quoted
from ..journal.journal import now_iso
from .answer import RUN_DEADLINE_PASSED, ModelAnswer, answer_problem
from .engines import EngineCall, EngineFailed, EngineReply, flatten, run_engine
from .instances import ModelUnavailable, Route
from .night_budget import night_refusal
from .output_modes import JSON_PROMPT, shape_request
from .time_limits import DeadlinePassed, call_times, instance_slot
from .usage import COST_NO_ANSWER, COST_PLAN, record_usage

ENGINE_SCHEMA_NATIVE = "engine schema"  # output_mode of a call whose CLI checked the JSON itself
# A chat turn offers the bot's tools; an engine call runs none, so it cannot take the turn (docs/models.md, "Engines").
TOOLS_REFUSED = (
    "chat turns need an API instance: instance {instance} runs on the {engine} engine, which takes only memory's "
    "background steps (capture, organize, the tidy-up, compaction), with every tool off"
)


def call_engine(
    home: Home,
    route: Route,
    job: str,
    messages: list[dict],
    *,
    schema: dict | None,
    tools: list[dict] | None,
    timeout: float | None,
    read_answer: bool = True,
):
    """The engine's answer as a ModelAnswer, or ModelUnavailable; one usage row either way once the call began."""
    instance = route.instance
    engine = instance.engine or ""
    if tools:  # a chat turn's tool loop: an isolated engine call runs no tool, so it cannot take the turn
        raise ModelUnavailable(
            TOOLS_REFUSED.format(instance=quoted(instance.id), engine=engine), via_helper=route.via_helper
        )
    if night_stop := night_refusal(home, route.bot_id):
        raise ModelUnavailable(night_stop, via_helper=route.via_helper)
    try:
        seconds = call_times(instance, timeout, streamed=False).first
    except DeadlinePassed:
        raise ModelUnavailable(RUN_DEADLINE_PASSED, via_helper=route.via_helper) from None
    native = schema is not None and engine != "acp"
    prompt_messages = messages
    if schema is not None and not native:
        prompt_messages = shape_request({"messages": list(messages)}, JSON_PROMPT, schema)["messages"]
    system, prompt = flatten(prompt_messages)
    at, started = now_iso(), time.monotonic()
    row: dict = {
        "at": at,
        "bot": route.bot_id,
        "job": job,
        "instance": instance.id,
        "model": route.model,
        "engine": engine,
        "prompt_tokens": None,
        "completion_tokens": None,
        "cost_usd": 0.0,
        "ok": False,
        "triggered_by": route.triggered_by,
        "cost": COST_NO_ANSWER,
        "duration_ms": 0,
        "attempts": 1,
        "error": None,
    }
    if schema is not None:
        row["output_mode"] = ENGINE_SCHEMA_NATIVE if native else JSON_PROMPT
    reply: EngineReply | None = None
    try:
        with instance_slot(instance):
            try:
                seconds = call_times(instance, timeout, streamed=False).first  # what is left once it holds a slot
            except DeadlinePassed:
                raise ModelUnavailable(RUN_DEADLINE_PASSED, via_helper=route.via_helper) from None
            reply = run_engine(EngineCall(instance, route.model, system, prompt, schema if native else None, seconds))
    except EngineFailed as failed:
        reply = failed.reply
        row["error"] = failed.sentence
        if failed.dropped:
            row["dropped"] = True
        _with_usage(row, reply)
        row["duration_ms"] = round((time.monotonic() - started) * 1000)
        record_usage(home, row)
        raise ModelUnavailable(failed.sentence, via_helper=route.via_helper) from None
    row["duration_ms"] = round((time.monotonic() - started) * 1000)
    _with_usage(row, reply)
    answer = ModelAnswer(
        text=reply.text,
        tool_calls=[],
        data=None,
        message={"role": "assistant", "content": reply.text or None},
        usage_row=row,
        output_mode=row.get("output_mode"),
    )
    problem = answer_problem(answer, schema if read_answer else None, checked=reply.data if native else None)
    if problem:
        failure = f"instance {quoted(instance.id)} answered, but {problem}"
        row.update(ok=False, error=failure)
        record_usage(home, row)
        raise ModelUnavailable(failure, via_helper=route.via_helper, raw=answer.text, refusal=problem)
    row["ok"] = True
    record_usage(home, row)
    return answer


def _with_usage(row: dict, reply: EngineReply | None) -> None:
    """The usage the CLI reported, on the row: tokens, the model it names, and its cost as on the person's plan."""
    if reply is None:
        return
    row["prompt_tokens"], row["completion_tokens"] = reply.prompt_tokens, reply.completion_tokens
    if reply.model:
        row["model"] = reply.model
    row["cost"] = COST_PLAN
    row["cost_usd"] = 0.0
    row["plan_cost_usd"] = reply.cost_usd
    row.update({key: value for key, value in reply.details.items() if key not in row})
