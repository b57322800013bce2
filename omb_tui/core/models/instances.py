"""Which connected instance a bot's job goes to: the bot's own, else the helper model, else none.

Spec: memory.md, "The helper model"; docs/models.md, "Instances and selection". config.json is read at
every selection, so adding, changing or removing the helper applies without a restart. A bot with an
instance writes its own jobs through it (the helper never takes its place); a bot with none uses the helper
unless it has `helperModel: false`; with neither, the caller is told (ModelUnavailable) and falls back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from ..files.paths import Home, MemoryInputError, quoted
from ..memory import environment
from ..memory.settings import ENGINE_CLAUDE_CODE, AppConfig, ModelInstance, load_bot_settings, load_config

log = logging.getLogger("omb_tui.models")

HELPER_TRIGGER = "Helper model"  # usage's triggered_by for a helper call (the spec's Usage → History name)
TEST_TRIGGER = "models test"  # usage's triggered_by for `omb-tui models test`

KEY_SET, KEY_MISSING, KEY_NONE_NEEDED = "set", "missing", "none needed"
SOURCE_ENV, SOURCE_FILE, SOURCE_OFF = "env", "file", "off"
USES_INSTANCE, USES_HELPER, USES_NONE = "instance", "helper", "none"
# The spec's helper "has to be Claude or an API model": Codex and ACP agents start a whole agent for each call.
HELPER_ENGINES = (ENGINE_CLAUDE_CODE,)
# What every model action says, whole and alone, on a home whose config.json names no instance (the app, the CLI
# and the routes all show this one sentence; docs/models.md, "Connect a model").
NO_MODEL_CONNECTED = (
    'No model is connected: add an instance to config.json (docs/models.md, "Connect a model"), '
    "then try it with `omb-tui models test ID`."
)


class ModelUnavailable(Exception):
    """No model answers this job: no instance for the bot, the helper off or missing, the spend limit reached,
    or the call failed after its retries. `reason` is one sentence for the log; the caller falls back."""

    def __init__(
        self, reason: str, *, via_helper: bool = False, raw: str | None = None, refusal: str | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.via_helper = via_helper
        self.raw = raw  # the model's answer, when there was one that could not be used
        self.refusal = refusal  # then why, as a phrase: "the answer holds no JSON object that can be read"


@dataclass(frozen=True)
class Route:
    """Where one job's call goes."""

    bot_id: str | None
    instance: ModelInstance
    model: str  # the name litellm is given
    via_helper: bool

    @property
    def triggered_by(self) -> str:
        if self.via_helper:
            return HELPER_TRIGGER
        return self.bot_id or TEST_TRIGGER


def connects_no_model(config: AppConfig) -> bool:
    """config.json names no instance at all, so neither a bot's own instance nor the helper can answer."""
    return not config.instances


def is_no_model(reason: str | None) -> bool:
    """The reason is NO_MODEL_CONNECTED (with or without its full stop), which a step shows whole, never after a lead."""
    return bool(reason) and str(reason).rstrip(".") == NO_MODEL_CONNECTED.rstrip(".")


def after_lead(lead: str, reason: str) -> str:
    """`Lead: reason.`, or `Lead.` and then NO_MODEL_CONNECTED whole, so the how-to sentence reads the same everywhere."""
    if is_no_model(reason):
        return f"{lead}. {NO_MODEL_CONNECTED}"
    return f"{lead}: {reason.rstrip('.')}."


def key_state(instance: ModelInstance, environ: Mapping[str, str] | None = None) -> str:
    """`set`, `missing` or `none needed`: never the key itself."""
    environ = environment.current() if environ is None else environ
    if not instance.api_key_env:
        return KEY_NONE_NEEDED
    return KEY_SET if environ.get(instance.api_key_env) else KEY_MISSING


def missing_key_sentence(instance: ModelInstance) -> str:
    return f"the variable {instance.api_key_env} is not set, and instance {quoted(instance.id)} reads its key from it"


def helper_source(config: AppConfig) -> str:
    if config.helper is None:
        return SOURCE_OFF
    return SOURCE_ENV if config.helper_from_environment else SOURCE_FILE


def helper_model_name(instance: ModelInstance, model: str | None) -> str:
    """The helper's `model` on its instance: a bare name ("claude-haiku-4-5") keeps the instance's provider
    ("anthropic/"); a name with a provider is used as written; none means the instance's own model."""
    if not model:
        return instance.model
    if "/" in model or "/" not in instance.model:
        return model
    return f"{instance.model.split('/', 1)[0]}/{model}"


def _helper_route(config: AppConfig, bot_id: str) -> Route:
    helper = config.helper
    if helper is None:
        if config.helper_from_environment:
            raise ModelUnavailable("the helper is switched off (OMB_HELPER_INSTANCE is empty)", via_helper=True)
        raise ModelUnavailable(
            "no helper model is set (config.json's 'helper' or OMB_HELPER_INSTANCE)", via_helper=True
        )
    instance = config.instances.get(helper.instance_id)
    if instance is None:
        raise ModelUnavailable(
            f"the helper's instance {quoted(helper.instance_id)} is not among config.json's instances", via_helper=True
        )
    if instance.engine is not None and instance.engine not in HELPER_ENGINES:
        raise ModelUnavailable(helper_engine_refused(instance), via_helper=True)
    return Route(bot_id, instance, helper_model_name(instance, helper.model), via_helper=True)


def helper_engine_refused(instance: ModelInstance) -> str:
    """Why an engine instance named as the helper is not used, as one phrase."""
    return (
        f"the helper's instance {quoted(instance.id)} runs on the {instance.engine} engine, "
        f"and the helper must be Claude ({ENGINE_CLAUDE_CODE}) or an API model"
    )


def helper_problem(config: AppConfig) -> str | None:
    """Why the helper named in config.json or OMB_HELPER_INSTANCE is not used (an unknown instance, or Codex or an
    ACP agent), as one phrase; None when it is used or none is named."""
    if config.helper is None:
        return None
    try:
        _helper_route(config, "")
    except ModelUnavailable as problem:
        return problem.reason
    return None


def config_for_calls(home: Home) -> AppConfig:
    """config.json as it is now; a broken one makes no call (the job falls back) rather than failing it."""
    try:
        return load_config(home)
    except MemoryInputError as exc:
        raise ModelUnavailable(str(exc).rstrip(".")) from None


def choose_route(home: Home, bot_id: str, config: AppConfig | None = None) -> Route:
    """The bot's own instance, else the helper; ModelUnavailable when neither may take the job."""
    config = config_for_calls(home) if config is None else config
    if connects_no_model(config):  # before the bot's settings: no setting of it could reach a model
        raise ModelUnavailable(NO_MODEL_CONNECTED)
    try:
        settings = load_bot_settings(home, bot_id)
    except MemoryInputError as exc:  # a broken bots/<id>.json: no call, the job falls back
        raise ModelUnavailable(str(exc).rstrip(".")) from None
    if settings.instance:
        instance = config.instances.get(settings.instance)
        if instance is None:
            raise ModelUnavailable(
                f"the instance {quoted(settings.instance)} of {quoted(bot_id)} is not among config.json's instances"
            )
        return Route(bot_id, instance, instance.model, via_helper=False)
    if not settings.helper_model:
        raise ModelUnavailable(
            f"{quoted(bot_id)} has no instance of its own and is kept off the helper (helperModel: false)",
            via_helper=True,
        )
    return _helper_route(config, bot_id)


# ----- the once-only log line -----
_said: set[str] = set()
_said_lock = threading.Lock()


def say_once(bot_id: str | None, problem: ModelUnavailable) -> None:
    """Log why a job gets no model, once per process for each distinct sentence (not at every call); a home with no
    model at all logs the sentence that says how to connect one."""
    if is_no_model(problem.reason):
        line = NO_MODEL_CONNECTED
    elif problem.via_helper:
        line = f"the helper model is not used: {problem.reason}."
    else:
        line = f"model calls for {quoted(bot_id)} fall back: {problem.reason}."
    with _said_lock:
        if line in _said:
            return
        _said.add(line)
    log.warning("%s", line)


def forget_said() -> None:
    """Start the once-only log lines afresh (for tests, and for a long-running process that wants to)."""
    with _said_lock:
        _said.clear()
