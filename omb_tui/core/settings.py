"""Bot settings, the app-wide config.json, About me and profile-learned.json.

Spec: memory.md, the opening (the memory switch), "Memory upkeep" (the upkeep switch,
`features.roomMemoryCapture`, `memory.captureQuietMs`, `memory.tidyHour`), "The helper model"
(`helper`, `OMB_HELPER_INSTANCE` / `OMB_HELPER_MODEL`, a bot's `helperModel: false`), "Recall before
each turn" (`features.autoRecall`) and "Remember and forget, in chat" (`profile-learned.json`).
A workspace with no settings file is still a bot, with defaults.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .paths import Home, MemoryInputError, validate_bot_id
from .store import read_text, write_private_json

DEFAULT_CAPTURE_QUIET_MS = 120_000  # two minutes
DEFAULT_TIDY_HOUR = 3


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

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "engine": self.engine,
            "instance": self.instance,
            "memory": self.memory,
            "upkeep": self.upkeep,
            "helperModel": self.helper_model,
        }


def _bool(data: dict, key: str, default: bool, path: Path) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise BrokenFile(f"{path}: '{key}' must be true or false.")
    return value


def load_bot_settings(home: Home, bot_id: str) -> BotSettings:
    validate_bot_id(bot_id)
    path = home.settings_path(bot_id)
    data = _read_json(path)
    if data is None:
        return BotSettings(id=bot_id, name=bot_id)
    if not isinstance(data, dict):
        raise BrokenFile(f"{path} must hold a JSON object.")
    name = data.get("name") or bot_id
    return BotSettings(
        id=bot_id,
        name=str(name),
        engine=data.get("engine"),
        instance=data.get("instance"),
        memory=_bool(data, "memory", True, path),
        upkeep=_bool(data, "upkeep", True, path),
        helper_model=_bool(data, "helperModel", True, path),
    )


def save_bot_settings(home: Home, settings: BotSettings) -> None:
    path = home.settings_path(settings.id)
    existing = _read_json(path) if path.exists() else None
    merged = dict(existing) if isinstance(existing, dict) else {}
    merged.update(settings.to_json())  # keep keys this tool does not know
    write_private_json(path, merged)


@dataclass
class HelperModel:
    instance_id: str
    model: str | None = None


@dataclass
class AppConfig:
    helper: HelperModel | None = None
    auto_recall: bool = True
    room_memory_capture: bool = False
    capture_quiet_ms: int = DEFAULT_CAPTURE_QUIET_MS
    tidy_hour: int = DEFAULT_TIDY_HOUR
    raw: dict = field(default_factory=dict)


def load_config(home: Home, environ: dict[str, str] | None = None) -> AppConfig:
    """config.json, with OMB_HELPER_INSTANCE / OMB_HELPER_MODEL winning over its helper."""
    environ = os.environ if environ is None else environ
    path = home.config_path
    data = _read_json(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise BrokenFile(f"{path} must hold a JSON object.")
    features = data.get("features") or {}
    memory = data.get("memory") or {}
    if not isinstance(features, dict) or not isinstance(memory, dict):
        raise BrokenFile(f"{path}: 'features' and 'memory' must be objects.")
    helper = None
    raw_helper = data.get("helper")
    if isinstance(raw_helper, dict) and raw_helper.get("instanceId"):
        helper = HelperModel(str(raw_helper["instanceId"]), raw_helper.get("model"))
    if "OMB_HELPER_INSTANCE" in environ:
        instance = environ["OMB_HELPER_INSTANCE"].strip()
        # An empty OMB_HELPER_INSTANCE switches a saved helper off.
        helper = HelperModel(instance, environ.get("OMB_HELPER_MODEL") or None) if instance else None
    tidy_hour = memory.get("tidyHour", DEFAULT_TIDY_HOUR)
    quiet = memory.get("captureQuietMs", DEFAULT_CAPTURE_QUIET_MS)
    if not isinstance(tidy_hour, int) or not 0 <= tidy_hour <= 23:
        raise BrokenFile(f"{path}: memory.tidyHour must be an hour from 0 to 23.")
    if not isinstance(quiet, int) or quiet < 0:
        raise BrokenFile(f"{path}: memory.captureQuietMs must be a number of milliseconds.")
    return AppConfig(
        helper=helper,
        auto_recall=_bool(features, "autoRecall", True, path),
        room_memory_capture=_bool(features, "roomMemoryCapture", False, path),
        capture_quiet_ms=quiet,
        tidy_hour=tidy_hour,
        raw=data,
    )


@dataclass
class ProfileLearned:
    """profile-learned.json: facts bots added to About me, and words the person asked to forget."""

    learned: list[dict] = field(default_factory=list)  # {id, text, bot, at, removed}
    forgotten: list[dict] = field(default_factory=list)  # {words, at}

    def to_json(self) -> dict:
        return asdict(self)


def load_profile_learned(home: Home) -> ProfileLearned:
    data = _read_json(home.profile_learned_path)
    if data is None:
        return ProfileLearned()
    if not isinstance(data, dict):
        raise BrokenFile(f"{home.profile_learned_path} must hold a JSON object.")
    return ProfileLearned(list(data.get("learned") or []), list(data.get("forgotten") or []))


def save_profile_learned(home: Home, profile: ProfileLearned) -> None:
    write_private_json(home.profile_learned_path, profile.to_json())
