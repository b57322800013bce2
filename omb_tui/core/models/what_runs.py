"""What runs a bot's model steps (capture, organize, the tidy-up's contradictions, compaction, the guard's checks):
its own API instance, its own engine, the helper, or nothing, said in one sentence for every place that shows it.

Spec: memory.md, "Memory upkeep" (the model steps need an engine with a one-shot text call; with none "only the
expiry and exact-duplicate steps run, unless a helper model is set") and "The helper model"; docs/models.md,
"Engines". It makes no call: the route `choose_route` would take, the key's variable and the engine's program on
PATH are looked at, nothing more. `omb-tui models` (describe_models, here), the app's Upkeep area and Settings and the
upkeep route read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..files.paths import Home, MemoryInputError, quoted
from ..memory.settings import ENGINE_CODEX, AppConfig, ModelInstance, load_bot_settings, load_config
from .engines import EngineCall, EngineFailed
from .engines.process import resolve_program
from .instances import (
    HELPER_ENGINES,
    KEY_MISSING,
    NO_MODEL_CONNECTED,
    USES_HELPER,
    USES_INSTANCE,
    USES_NONE,
    ModelUnavailable,
    Route,
    choose_route,
    config_for_calls,
    connects_no_model,
    helper_engine_refused,
    helper_problem,
    helper_source,
    is_no_model,
    key_state,
    missing_key_sentence,
)

THROUGH_INSTANCE, THROUGH_ENGINE, THROUGH_HELPER = "instance", "engine", "helper"
# What upkeep does with no model (tidy.tidy_by_rule): capture, organize and the contradiction check wait for one.
NO_MODEL = "No model can run this bot's model steps, so only the expiry and exact-duplicate steps run"
UNLESS_HELPER = ", unless a helper model is set"


@dataclass(frozen=True)
class ModelSteps:
    """Whether a bot's model steps run, through what, and the sentence that says it; `why` when they do not."""

    runs: bool
    through: str | None  # THROUGH_INSTANCE, THROUGH_ENGINE (the bot's own engine instance), THROUGH_HELPER; None
    instance: str | None = None
    engine: str | None = None  # the engine of that instance, when it is one
    model: str | None = None  # as the call asks for it ("" : the engine's own choice)
    why: str | None = None
    sentence: str = ""

    def with_why(self) -> str:
        """The sentence and why no model runs; on a home with no model at all, the one line saying how to connect one."""
        if not self.why:
            return self.sentence
        if is_no_model(self.why):
            return f"{self.sentence} {NO_MODEL_CONNECTED}"
        return f"{self.sentence} Why: {self.why}."

    def to_dict(self) -> dict:
        return {
            "run": self.runs,
            "through": self.through,
            "instance": self.instance,
            "engine": self.engine,
            "model": self.model,
            "why": self.why,
            "sentence": self.sentence,
        }


def model_steps(
    home: Home, bot_id: str, config: AppConfig | None = None, environ: Mapping[str, str] | None = None
) -> ModelSteps:
    """What runs the bot's model steps now, and the sentence; never raises for a file that cannot be read."""
    try:
        route = choose_route(home, bot_id, config)
    except ModelUnavailable as unavailable:
        return _none(home, bot_id, config, unavailable.reason)
    instance = route.instance
    if instance.engine is not None:
        cannot = program_problem(instance, environ)
    else:
        cannot = missing_key_sentence(instance) if key_state(instance, environ) == KEY_MISSING else None
    if cannot:
        return _none(home, bot_id, config, cannot, route_found=True)
    through = THROUGH_HELPER if route.via_helper else (THROUGH_ENGINE if instance.engine else THROUGH_INSTANCE)
    return ModelSteps(True, through, instance.id, instance.engine, route.model, sentence=_runs_sentence(route, through))


def program_problem(instance: ModelInstance, environ: Mapping[str, str] | None = None) -> str | None:
    """The engine's sentence when its program is not on PATH (engines/process.py says it the same way at a call)."""
    try:
        resolve_program(EngineCall(instance, instance.model, "", "", None, 0.0), environ)
    except EngineFailed as failed:
        return failed.sentence
    return None


def engine_model_words(instance: ModelInstance, model: str) -> str:
    """The model an engine call asks for, in words: the one set, else what the engine picks itself."""
    if model:
        return model
    if instance.engine == ENGINE_CODEX:
        return "its smallest model, at low effort"
    return "its default model"


def _runs_sentence(route: Route, through: str) -> str:
    instance = route.instance
    if instance.engine is None:
        where = f"instance {quoted(instance.id)} · {route.model}"
        if through == THROUGH_HELPER:
            return f"The helper model runs the model steps ({where}): this bot has no instance of its own."
        return f"The bot's own {where} runs the model steps."
    engine = f"the {instance.engine} engine ({engine_model_words(instance, route.model)}, on your plan)"
    if through == THROUGH_HELPER:
        return (
            f"The helper model runs the model steps (instance {quoted(instance.id)} on {engine}): "
            "this bot has no instance of its own."
        )
    return f"The bot's own instance {quoted(instance.id)} runs the model steps on {engine}."


def _none(home: Home, bot_id: str, config: AppConfig | None, why: str, *, route_found: bool = False) -> ModelSteps:
    """No model: "unless a helper model is set" only where setting one would change that (no helper is set now,
    and the bot has no instance of its own and is not kept off the helper)."""
    unless = "" if route_found else _helper_would_serve(home, bot_id, config)
    return ModelSteps(False, None, why=why.rstrip("."), sentence=f"{NO_MODEL}{unless}.")


def _helper_would_serve(home: Home, bot_id: str, config: AppConfig | None) -> str:
    try:
        config = config_for_calls(home) if config is None else config
        settings = load_bot_settings(home, bot_id)
    except (ModelUnavailable, MemoryInputError):
        return ""
    if settings.instance or not settings.helper_model or config.helper is not None or connects_no_model(config):
        return ""  # with no instance at all, a helper alone would name nothing to run on
    return UNLESS_HELPER


# ----- what `omb-tui models` shows -----
def describe_models(home: Home, environ: Mapping[str, str] | None = None) -> dict:
    """Instances, the helper and where each bot's jobs go, as `omb-tui models --json` prints them."""
    config = load_config(home, environ)
    instances = [
        {
            "id": i.id,
            "model": i.model,
            "api_base": i.api_base,
            "key": key_state(i, environ),
            "api_key_env": i.api_key_env,
            "timeout": i.timeout,
            "stream": i.stream,
            "idle_timeout": i.idle_timeout,
            "context_tokens": i.context_tokens,
            "concurrency": i.concurrency,
            "output_mode": i.output_mode,
            "engine": i.engine,
            "command": list(i.command) if i.command else None,
        }
        for i in config.instances.values()
    ]
    helper = config.helper
    described_helper: dict = {
        "instanceId": helper.instance_id if helper else None,
        "model": helper.model if helper else None,
        "source": helper_source(config),
    }
    if problem := helper_problem(config):
        described_helper["problem"] = f"{problem}."
    return {
        "instances": instances,
        "helper": described_helper,
        "bots": [_bot_route(home, config, bot_id, environ) for bot_id in home.bot_ids()],
    }


def _bot_route(home: Home, config: AppConfig, bot_id: str, environ: Mapping[str, str] | None = None) -> dict:
    row: dict = {"id": bot_id, "uses": USES_NONE, "instance": None}
    steps = model_steps(home, bot_id, config, environ).to_dict()
    try:
        settings = load_bot_settings(home, bot_id)
    except MemoryInputError as exc:  # one broken settings file does not hide the other bots
        return {**row, "problem": str(exc), "model_steps": steps}
    if settings.instance:
        row.update(uses=USES_INSTANCE, instance=settings.instance)
        if settings.instance not in config.instances:
            row["problem"] = f"the instance {quoted(settings.instance)} is not among config.json's instances."
    elif not settings.helper_model:
        row["problem"] = "kept off the helper by helperModel: false."
    elif config.helper is not None:
        row.update(uses=USES_HELPER, instance=config.helper.instance_id)
        if config.helper.instance_id not in config.instances:
            row["problem"] = (
                f"the helper's instance {quoted(config.helper.instance_id)} is not among config.json's instances."
            )
        elif config.instances[config.helper.instance_id].engine not in (None, *HELPER_ENGINES):
            row["problem"] = f"{helper_engine_refused(config.instances[config.helper.instance_id])}."
    row["model_steps"] = steps
    return row
