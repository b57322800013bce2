"""Bot settings, the app-wide config.json, About me and profile-learned.json.

Spec: memory.md, the opening (the memory switch), "Memory upkeep" (the upkeep switch,
`features.roomMemoryCapture`, `memory.captureQuietMs`, `memory.tidyHour`), "The helper model"
(`helper`, `OMB_HELPER_INSTANCE` / `OMB_HELPER_MODEL`, a bot's `helperModel: false`), "Recall before
each turn" (`features.autoRecall`) and "Remember and forget, in chat" (`profile-learned.json`).
A workspace with no settings file is still a bot, with defaults. config.json's `instances` (what litellm needs to
reach each connected model) and `limits.monthlySpendUsd` are read here too (docs/models.md).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from ..base import clock
from ..base.text import printable
from ..files.disk import read_text, write_private_json
from ..files.locks import home_lock
from ..files.paths import Home, MemoryInputError, quoted, refuse_links, validate_bot_id
from ..redaction.forgotten import hashed_entry
from . import environment

if TYPE_CHECKING:
    from typing_extensions import Unpack  # in typing from Python 3.12

log = logging.getLogger("omb_tui.settings")
_SHA256 = re.compile(r"[0-9a-f]{64}")

DEFAULT_CAPTURE_QUIET_MS = 120_000  # two minutes
DEFAULT_TIDY_HOUR = 3
PROPOSE_ONLY_FIRST_DAYS = 7  # with compactProposeOnly unset, nightly compaction only proposes this many days
DEFAULT_MODEL_TIMEOUT_S = 60.0  # background jobs can wait this long for a model's answer
DEFAULT_ENGINE_TIMEOUT_S = 180.0  # an engine call starts a whole agent CLI before the model answers
DEFAULT_ENGINE_CONCURRENCY = 2  # each engine call is a process of its own, on the person's plan's quota
ENGINE_CLAUDE_CODE, ENGINE_CODEX, ENGINE_ACP = "claude-code", "codex", "acp"
ENGINES = (ENGINE_CLAUDE_CODE, ENGINE_CODEX, ENGINE_ACP)
DEFAULT_IDLE_TIMEOUT_S = 30.0  # a streamed answer may pause this long between tokens
# How a model may be asked for JSON, best first (models/output_modes.py holds the same ladder).
OUTPUT_MODES = ("json_schema", "json_object_schema", "json_object", "prompt")
_INSTANCE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_ENVIRONMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


class BrokenFile(MemoryInputError):
    pass


def _read_json(path: Path) -> Any | None:
    try:
        return json.loads(read_text(path))
    except FileNotFoundError:
        return None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BrokenFile(f"{path} is not valid JSON ({exc}); fix or remove it.") from None


@dataclass
class BotSettings:
    id: str
    name: str
    engine: str | None = None
    instance: str | None = None
    memory: bool = True  # "Let this bot use memory"
    upkeep: bool = True  # "Memory upkeep"
    helper_model: bool = True  # False keeps this bot's own jobs off the helper model
    compact_nightly: bool = False  # compaction runs each night with `upkeep --due` (docs/compact.md)
    compact_propose_only: bool | None = None  # None: propose only for the first week of nightly compaction
    compact_nightly_since: str | None = None  # the day (YYYY-MM-DD) nightly compaction was last switched on

    def compact_proposes_until(self) -> date | None:
        """With compactProposeOnly unset, the day nightly runs start applying (the first week only proposes);
        None when it is set, or when the day it was switched on is unknown (then it only proposes)."""
        if self.compact_propose_only is not None or self.compact_nightly_since is None:
            return None
        return date.fromisoformat(self.compact_nightly_since) + timedelta(days=PROPOSE_ONLY_FIRST_DAYS)

    def compact_propose_only_on(self, today: date) -> bool:
        """Whether a nightly compaction on `today` only proposes (docs/compact.md)."""
        if self.compact_propose_only is not None:
            return self.compact_propose_only
        until = self.compact_proposes_until()
        return until is None or today < until

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "engine": self.engine,
            "instance": self.instance,
            "memory": self.memory,
            "upkeep": self.upkeep,
            "helperModel": self.helper_model,
            "compactNightly": self.compact_nightly,
            "compactProposeOnly": self.compact_propose_only,
            "compactNightlySince": self.compact_nightly_since,
        }


def _bool(data: dict, key: str, default: bool, path: Path) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise BrokenFile(f"{path}: '{key}' must be true or false.")
    return value


def _text_or_null(data: dict, key: str, path: Path, where: str = "") -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise BrokenFile(f"{path}: {where}'{key}' must be text.")
    return value


def _object(data: dict, key: str, path: Path) -> dict:
    """A nested object; missing or null is an empty one."""
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BrokenFile(f"{path}: '{key}' must be an object.")
    return value


def _whole_number(data: dict, key: str, default: int) -> int | None:
    """The number, or None when it is not a whole number (true and false are not numbers here)."""
    value = data.get(key, default)
    return value if type(value) is int else None


def load_bot_settings(home: Home, bot_id: str) -> BotSettings:
    validate_bot_id(bot_id)
    path = home.settings_path(bot_id)
    data = _read_json(path)
    if data is None:
        return BotSettings(id=bot_id, name=bot_id)
    if not isinstance(data, dict):
        raise BrokenFile(f"{path} must hold a JSON object.")
    name = printable(_text_or_null(data, "name", path) or bot_id)  # a name from someone's package may hold ESC
    return BotSettings(
        id=bot_id,
        name=name,
        engine=_text_or_null(data, "engine", path),
        instance=_text_or_null(data, "instance", path),
        memory=_bool(data, "memory", True, path),
        upkeep=_bool(data, "upkeep", True, path),
        helper_model=_bool(data, "helperModel", True, path),
        compact_nightly=_bool(data, "compactNightly", False, path),
        compact_propose_only=_bool_or_null(data, "compactProposeOnly", path),
        compact_nightly_since=_day_or_null(data, "compactNightlySince", path),
    )


def _bool_or_null(data: dict, key: str, path: Path) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise BrokenFile(f"{path}: '{key}' must be true, false or null.")
    return value


def _day_or_null(data: dict, key: str, path: Path) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, str) and len(value) == len("2026-12-01"):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise BrokenFile(f"{path}: '{key}' must be a day written YYYY-MM-DD, or null.")


class BotSettingsChange(TypedDict, total=False):
    """The fields of BotSettings that update_bot_settings can change, each with its type."""

    name: str
    engine: str | None
    instance: str | None
    memory: bool
    upkeep: bool
    helper_model: bool
    compact_nightly: bool
    compact_propose_only: bool | None
    compact_nightly_since: str | None


def save_bot_settings(home: Home, settings: BotSettings) -> None:
    """Write every field of `settings`, keeping keys this tool does not know.

    To change one switch, use update_bot_settings: it reads the fields it does not change under the same lock.
    """
    path = home.settings_path(settings.id)
    with home_lock(home):  # the merge with the file on disk is a read-modify-write too
        existing = _read_json(path) if path.exists() else None
        merged = dict(existing) if isinstance(existing, dict) else {}
        merged.update(settings.to_dict())
        write_private_json(path, merged, redacted=False)  # the person's own settings, kept as they wrote them


def update_bot_settings(home: Home, bot_id: str, **changes: Unpack[BotSettingsChange]) -> BotSettings:
    """Change some fields of a bot's settings (e.g. `memory=False`), keeping every other key; the saved settings.

    The read and the write hold the home lock, which other processes respect too, so two changes made at once
    to different switches both stay. A file that cannot be read raises BrokenFile and is never written.
    """
    with home_lock(home):
        settings = replace(load_bot_settings(home, bot_id), **changes)
        save_bot_settings(home, settings)
    return settings


class BadSwitch(MemoryInputError):
    """A bot switch that does not exist, or a value it cannot take; nothing was saved."""


# The switches a person sets on a bot, as the settings file and the routes name them: field, whether null is allowed.
BOT_SWITCHES: dict[str, tuple[str, bool]] = {
    "memory": ("memory", False),
    "upkeep": ("upkeep", False),
    "helperModel": ("helper_model", False),
    "compactNightly": ("compact_nightly", False),
    "compactProposeOnly": ("compact_propose_only", True),  # null: only propose in the first week of nightly runs
}
SWITCH_NAMES = ", ".join(list(BOT_SWITCHES)[:-1]) + " or " + list(BOT_SWITCHES)[-1]


def switch_changes(values: Mapping[str, object]) -> BotSettingsChange:
    """The fields `values` sets ({"helperModel": false, …}), each checked: BadSwitch names the first wrong one."""
    if not values:
        raise BadSwitch(f"Name at least one switch to set: {SWITCH_NAMES}.")
    changes: dict[str, bool | None] = {}
    for name, value in values.items():
        if name not in BOT_SWITCHES:
            raise BadSwitch(f"{quoted(name)} is not a bot switch: use {SWITCH_NAMES}.")
        field_name, nullable = BOT_SWITCHES[name]
        if not isinstance(value, bool) and not (nullable and value is None):
            raise BadSwitch(f"'{name}' must be true{', false or null' if nullable else ' or false'}.")
        changes[field_name] = value
    return changes  # type: ignore[return-value]  # each key is a BotSettingsChange field of type bool (| None)


def set_bot_switches(home: Home, bot_id: str, values: Mapping[str, object], today: date | None = None) -> BotSettings:
    """Set some of a bot's switches (`BOT_SWITCHES`), checked one by one before anything is saved, under the home
    lock (the settings lock); the saved settings. Switching nightly compaction on notes the day, so its first week
    only proposes (docs/compact.md). NotFound for a bot the home does not have."""
    changes = switch_changes(values)
    home.require_bot(bot_id)
    with home_lock(home):
        if changes.get("compact_nightly") and not load_bot_settings(home, bot_id).compact_nightly:
            changes["compact_nightly_since"] = (today or clock.today()).isoformat()
        return update_bot_settings(home, bot_id, **changes)


def update_config_features(home: Home, **features: bool) -> AppConfig:
    """Set switches of config.json's `features` (e.g. `roomMemoryCapture=True`), keeping every other key; the
    config as saved. Read and written under the home lock, like update_bot_settings; a config.json that cannot
    be read raises BrokenFile and is never written."""
    with home_lock(home):
        load_config(home)  # the whole file must read before any of it is written back
        data = _read_json(home.config_path) or {}
        data["features"] = {**_object(data, "features", home.config_path), **features}
        write_private_json(home.config_path, data, redacted=False)  # as in save_bot_settings
    return load_config(home)


@dataclass
class HelperModel:
    instance_id: str
    model: str | None = None


@dataclass
class EmbeddingsChoice:
    """config.json's `embeddings`: the instance recall's vectors come from (its `model` names the embedding
    model); None in AppConfig: off (docs/recall.md)."""

    instance_id: str


@dataclass(frozen=True)
class ModelInstance:
    """One connected model: what litellm needs to reach it. The key itself is never here: only the name of the
    environment variable it is read from, at call time."""

    id: str
    model: str  # litellm's name, provider first: "anthropic/claude-haiku-4-5", "openai/qwen3-8b"
    api_key_env: str | None = None  # None: the instance needs no key (a local server)
    api_base: str | None = None
    timeout: float = DEFAULT_MODEL_TIMEOUT_S  # a whole call; with `stream`, the wait for the first token
    stream: bool = False  # answers streamed: a slow model still producing tokens is not cut off (docs/models.md)
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S  # with `stream`: the longest silence between tokens
    context_tokens: int | None = None  # the server's context: a step cuts its input into chunks that fit
    concurrency: int | None = None  # calls in flight at once; None: 1 on this machine's own server, else no bound
    output_mode: str | None = None  # where asking for JSON starts (OUTPUT_MODES); None: learned from the server
    engine: str | None = None  # "claude-code", "codex" or "acp": a person's agent CLI, not litellm (docs/models.md)
    command: tuple[str, ...] | None = None  # an engine's program and its arguments; None: the engine's default

    @property
    def label(self) -> str:
        """What the instance runs, as a person reads it: litellm's model name, or the engine and its model."""
        if self.engine is None:
            return self.model
        return f"{self.engine}:{self.model}" if self.model else self.engine


@dataclass
class AppConfig:
    helper: HelperModel | None = None
    auto_recall: bool = True
    room_memory_capture: bool = False
    capture_quiet_ms: int = DEFAULT_CAPTURE_QUIET_MS
    tidy_hour: int = DEFAULT_TIDY_HOUR
    helper_from_environment: bool = False  # OMB_HELPER_INSTANCE is set: it wins over config.json's helper
    instances: dict[str, ModelInstance] = field(default_factory=dict)
    monthly_spend_usd: float | None = None  # limits.monthlySpendUsd; None: no limit
    embeddings: EmbeddingsChoice | None = None  # recall by meaning: off unless set
    semantic_recall: bool = False  # features.semanticRecall: on by default when `embeddings` is set
    raw: dict = field(default_factory=dict)


def load_config(home: Home, environ: Mapping[str, str] | None = None) -> AppConfig:
    """config.json, with OMB_HELPER_INSTANCE / OMB_HELPER_MODEL winning over its helper."""
    environ = environment.current() if environ is None else environ
    path = home.config_path
    data = _read_json(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise BrokenFile(f"{path} must hold a JSON object.")
    features = _object(data, "features", path)
    memory = _object(data, "memory", path)
    raw_helper = _object(data, "helper", path)
    instance_id = _text_or_null(raw_helper, "instanceId", path, "helper's ")
    model = _text_or_null(raw_helper, "model", path, "helper's ")
    helper = HelperModel(instance_id, model) if instance_id else None
    helper_from_environment = "OMB_HELPER_INSTANCE" in environ
    if helper_from_environment:
        instance = environ["OMB_HELPER_INSTANCE"].strip()
        # An empty OMB_HELPER_INSTANCE switches a saved helper off.
        helper = HelperModel(instance, environ.get("OMB_HELPER_MODEL") or None) if instance else None
    tidy_hour = _whole_number(memory, "tidyHour", DEFAULT_TIDY_HOUR)
    quiet = _whole_number(memory, "captureQuietMs", DEFAULT_CAPTURE_QUIET_MS)
    if tidy_hour is None or not 0 <= tidy_hour <= 23:
        raise BrokenFile(f"{path}: memory.tidyHour must be an hour from 0 to 23.")
    if quiet is None or quiet < 0:
        raise BrokenFile(f"{path}: memory.captureQuietMs must be a number of milliseconds.")
    raw_embeddings = _object(data, "embeddings", path)
    embeddings_id = _text_or_null(raw_embeddings, "instanceId", path, "embeddings' ")
    embeddings = EmbeddingsChoice(embeddings_id.strip()) if embeddings_id and embeddings_id.strip() else None
    return AppConfig(
        embeddings=embeddings,
        semantic_recall=embeddings is not None and _bool(features, "semanticRecall", True, path),
        helper=helper,
        auto_recall=_bool(features, "autoRecall", True, path),
        room_memory_capture=_bool(features, "roomMemoryCapture", False, path),
        capture_quiet_ms=quiet,
        tidy_hour=tidy_hour,
        helper_from_environment=helper_from_environment,
        instances=_instances(data, path),
        monthly_spend_usd=_spend_limit(data, path),
        raw=data,
    )


def _instances(data: dict, path: Path) -> dict[str, ModelInstance]:
    """config.json's `instances`: id -> {model, api_key_env?, api_base?, timeout?}, each field checked.

    A key written into the file is refused rather than used: keys come only from the environment. No message
    quotes a field's value, so a key pasted in the wrong place never reaches the screen or a log.
    """
    instances = {}
    for instance_id, spec in _object(data, "instances", path).items():
        if not _INSTANCE_ID.fullmatch(instance_id):
            raise BrokenFile(
                f"{path}: {quoted(instance_id)} is not a valid instance id: use letters, numbers, "
                "dots, dashes and underscores (at most 64)."
            )
        name = f"instance {quoted(instance_id)}"
        if not isinstance(spec, dict):
            raise BrokenFile(f"{path}: {name} must be an object.")
        if {"api_key", "apiKey", "key"} & spec.keys():
            raise BrokenFile(
                f"{path}: {name} holds a key, and keys are read only from the environment: "
                "move it to a variable and name that variable in 'api_key_env'."
            )
        model = _text_or_null(spec, "model", path, f"{name}'s ")
        if "engine" in spec:
            instances[instance_id] = _engine_instance(instance_id, spec, model, path, name)
            continue
        if not model:
            raise BrokenFile(f"{path}: {name} needs a 'model', such as 'openai/gpt-4o-mini'.")
        key_env = _text_or_null(spec, "api_key_env", path, f"{name}'s ")
        if key_env is not None and not _ENVIRONMENT_NAME.fullmatch(key_env):
            raise BrokenFile(
                f"{path}: {name}'s 'api_key_env' must be the name of an environment variable "
                "(letters, digits and underscores), not the key itself."
            )
        api_base = _text_or_null(spec, "api_base", path, f"{name}'s ") or None
        if api_base is not None and not api_base.startswith(("http://", "https://")):
            raise BrokenFile(f"{path}: {name}'s 'api_base' must be an http:// or https:// address.")
        timeout = spec.get("timeout", DEFAULT_MODEL_TIMEOUT_S)
        if type(timeout) not in (int, float) or not timeout > 0:
            raise BrokenFile(f"{path}: {name}'s 'timeout' must be a number of seconds above 0.")
        instances[instance_id] = ModelInstance(
            instance_id, model, key_env or None, api_base, float(timeout), **_local_fields(spec, path, name)
        )
    return instances


def _engine_instance(instance_id: str, spec: dict, model: str | None, path: Path, name: str) -> ModelInstance:
    """An engine instance: {"engine": "claude-code" | "codex" | "acp", "command"?, "model"?, "timeout"?,
    "concurrency"?}. A person's own agent CLI runs each call (docs/models.md, "Engines"); no key, no api_base."""
    engine = spec["engine"]
    if engine not in ENGINES:
        raise BrokenFile(f"{path}: {name}'s 'engine' must be one of {', '.join(ENGINES)}.")
    if {"api_key_env", "api_base"} & spec.keys():
        raise BrokenFile(
            f"{path}: {name} runs on the {engine} engine, which uses its own sign-in: "
            "remove 'api_key_env' and 'api_base'."
        )
    command = spec.get("command")
    if command is not None and (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) and part and "\x00" not in part for part in command)
    ):
        raise BrokenFile(f"{path}: {name}'s 'command' must be a list of words: the program, then its arguments.")
    if command is None and engine == ENGINE_ACP:
        raise BrokenFile(
            f"{path}: {name} runs on the acp engine and needs a 'command', such as ['gemini', '--experimental-acp']."
        )
    timeout = spec.get("timeout", DEFAULT_ENGINE_TIMEOUT_S)
    if type(timeout) not in (int, float) or not timeout > 0:
        raise BrokenFile(f"{path}: {name}'s 'timeout' must be a number of seconds above 0.")
    concurrency = spec.get("concurrency", DEFAULT_ENGINE_CONCURRENCY)
    if type(concurrency) is not int or not 1 <= concurrency <= 64:
        raise BrokenFile(f"{path}: {name}'s 'concurrency' must be a whole number from 1 to 64.")
    return ModelInstance(
        instance_id,
        model or "",
        timeout=float(timeout),
        concurrency=concurrency,
        engine=engine,
        command=tuple(command) if command else None,
    )


def _local_fields(spec: dict, path: Path, name: str) -> dict:
    """An instance's fields for a slow or small model (docs/local-models.md): stream, idleTimeout,
    contextTokens, concurrency, outputMode; each checked like the others, no value quoted."""
    stream = spec.get("stream", False)
    if type(stream) is not bool:
        raise BrokenFile(f"{path}: {name}'s 'stream' must be true or false.")
    idle = spec.get("idleTimeout", DEFAULT_IDLE_TIMEOUT_S)
    if type(idle) not in (int, float) or not idle > 0:
        raise BrokenFile(f"{path}: {name}'s 'idleTimeout' must be a number of seconds above 0.")
    context = spec.get("contextTokens")
    if context is not None and (type(context) is not int or context < 512):
        raise BrokenFile(f"{path}: {name}'s 'contextTokens' must be a whole number of tokens, 512 or more.")
    concurrency = spec.get("concurrency")
    if concurrency is not None and (type(concurrency) is not int or not 1 <= concurrency <= 64):
        raise BrokenFile(f"{path}: {name}'s 'concurrency' must be a whole number from 1 to 64.")
    mode = spec.get("outputMode")
    if mode is not None and mode not in OUTPUT_MODES:
        raise BrokenFile(f"{path}: {name}'s 'outputMode' must be one of {', '.join(OUTPUT_MODES)}.")
    return {
        "stream": stream,
        "idle_timeout": float(idle),
        "context_tokens": context,
        "concurrency": concurrency,
        "output_mode": mode,
    }


def _spend_limit(data: dict, path: Path) -> float | None:
    limit = _object(data, "limits", path).get("monthlySpendUsd")
    if limit is None:
        return None
    if type(limit) not in (int, float) or limit < 0:
        raise BrokenFile(f"{path}: limits.monthlySpendUsd must be a number of US dollars, 0 or more.")
    return float(limit)


@dataclass
class ProfileLearned:
    """profile-learned.json: facts bots added to About me, and words the person asked to forget."""

    learned: list[dict] = field(default_factory=list)  # {id, text, bot, at, removed}
    forgotten: list[dict] = field(default_factory=list)  # {hashed_words, count, at}: see forgotten.py

    def to_dict(self) -> dict:
        return asdict(self)


# Each list of profile-learned.json: the field every item must have, its other text fields, its flags.
_LEARNED_FIELDS = ("text", ("id", "bot", "at"), ("removed",))


def load_profile_learned(home: Home, person: str | None = None) -> ProfileLearned:
    """The file, every item checked: a wrong one is refused with a sentence, never dropped (it is saved back).
    `person`: a Team Cloud person's own list (None: the owner's, the home's).

    A linked file is refused here too: every caller saves it later in the same step, after other writes.
    """
    path = home.profile_learned_of(person)
    refuse_links(path)
    data = _read_json(path)
    if data is None:
        return ProfileLearned()
    if not isinstance(data, dict):
        raise BrokenFile(f"{path} must hold a JSON object.")
    profile = ProfileLearned(_items(data, "learned", _LEARNED_FIELDS, path), _forgotten_items(data, path))
    if any("words" in entry for entry in profile.forgotten):
        _hash_plain_forgotten_words(home, path)
        profile.forgotten = [hashed_entry(entry) for entry in profile.forgotten]
    return profile


def _forgotten_items(data: dict, path: Path) -> list[dict]:
    """The forgotten entries, each checked: hashes (and, written by an earlier version, plain words), a day."""
    items = _list_of(data, "forgotten", path)
    for number, item in enumerate(items, 1):
        where = f"forgotten item {number}: "
        hashed = item.get("hashed_words", []) if isinstance(item, dict) else None
        if not isinstance(hashed, list) or not all(isinstance(h, str) and _SHA256.fullmatch(h) for h in hashed):
            raise BrokenFile(f"{path}: {where}must be an object whose 'hashed_words' is a list of sha256 hashes.")
        _text_or_null(item, "words", path, where)
        _text_or_null(item, "at", path, where)
        if not hashed and not (item.get("words") or "").strip():
            raise BrokenFile(f"{path}: {where}names no words (no 'hashed_words').")
    return items


def _list_of(data: dict, key: str, path: Path) -> list:
    """A list of profile-learned.json (a copy); missing or null is an empty one."""
    items = data.get(key)
    if items is None:
        return []
    if not isinstance(items, list):
        raise BrokenFile(f"{path}: '{key}' must be a list.")
    return list(items)


def _hash_plain_forgotten_words(home: Home, path: Path) -> None:
    """Save profile-learned.json with the plain forgotten words an earlier version kept turned into hashes. Read
    again under the home lock (re-entrant: a caller may hold it), so no change made meanwhile is lost."""
    try:
        with home_lock(home):
            data = _read_json(path)
            if isinstance(data, dict) and isinstance(data.get("forgotten"), list):
                data["forgotten"] = [hashed_entry(e) if isinstance(e, dict) else e for e in data["forgotten"]]
                write_private_json(path, data)
    except OSError as exc:  # a home that cannot be written: the words are hashed in memory, and at the next save
        log.warning("could not hash the forgotten words kept in %s: %s", quoted(path), exc)


def _items(data: dict, key: str, shape: tuple, path: Path) -> list[dict]:
    required, texts, flags = shape
    items = _list_of(data, key, path)
    for number, item in enumerate(items, 1):
        where = f"{key} item {number}: "
        if not isinstance(item, dict) or not isinstance(item.get(required), str):
            raise BrokenFile(f"{path}: {where}must be an object with its '{required}' as text.")
        for name in texts:
            _text_or_null(item, name, path, where)
        for name in flags:
            if not isinstance(item.get(name, False), bool):
                raise BrokenFile(f"{path}: {where}'{name}' must be true or false.")
    return list(items)


def save_profile_learned(home: Home, profile: ProfileLearned, person: str | None = None) -> None:
    write_private_json(home.profile_learned_of(person), profile.to_dict())  # its folder made 0700 when missing
