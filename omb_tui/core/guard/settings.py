"""config.json `upkeep.guard` (the night's budget, the share of MEMORY.md a night may change, rollback) and
`memory.reviewAfterDays` (the "still true?" queue). Every field is optional; a wrong one is one sentence
(BrokenFile) naming it. Defaults and why: docs/guard.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..files.paths import Home
from ..memory.settings import BrokenFile, load_config

DEFAULT_MAX_CALLS = 40  # a night of capture, organizing, tidy-up and compaction takes under 15 for most bots
DEFAULT_MAX_TOKENS = 200_000
DEFAULT_MAX_USD = 0.50
DEFAULT_MAX_CHANGED_SHARE = 0.25  # OpenClaw's 25% loss gate
DEFAULT_REVIEW_AFTER_DAYS = 180


@dataclass(frozen=True)
class GuardSettings:
    max_calls_per_night: int = DEFAULT_MAX_CALLS
    max_tokens_per_night: int = DEFAULT_MAX_TOKENS
    max_usd_per_night: float = DEFAULT_MAX_USD
    max_changed_share: float = DEFAULT_MAX_CHANGED_SHARE
    rollback: bool = True

    def to_dict(self) -> dict:
        return {
            "max_calls_per_night": self.max_calls_per_night,
            "max_tokens_per_night": self.max_tokens_per_night,
            "max_usd_per_night": self.max_usd_per_night,
            "max_changed_share": self.max_changed_share,
            "rollback": self.rollback,
        }

    def line(self) -> str:
        """The Upkeep area's line: what a night may spend and change."""
        return (
            f"Guard: at most {self.max_calls_per_night} calls, {self.max_tokens_per_night:,} tokens and "
            f"${self.max_usd_per_night:.2f} a night; {round(self.max_changed_share * 100)}% of MEMORY.md's entries; "
            + ("a run that fails a check is undone" if self.rollback else "a run that fails a check is flagged")
        )


def load_guard_settings(home: Home) -> GuardSettings:
    config = load_config(home)
    path = home.config_path
    upkeep = config.raw.get("upkeep", {})
    if not isinstance(upkeep, dict):
        raise BrokenFile(f"{path}: upkeep must be an object.")
    guard = upkeep.get("guard", {})
    if not isinstance(guard, dict):
        raise BrokenFile(f"{path}: upkeep.guard must be an object.")
    calls = _number(guard, "maxCallsPerNight", DEFAULT_MAX_CALLS, path, whole=True)
    tokens = _number(guard, "maxTokensPerNight", DEFAULT_MAX_TOKENS, path, whole=True)
    usd = _number(guard, "maxUsdPerNight", DEFAULT_MAX_USD, path)
    share = _number(guard, "maxChangedShare", DEFAULT_MAX_CHANGED_SHARE, path)
    if share > 1:
        raise BrokenFile(f"{path}: upkeep.guard.maxChangedShare must be a share from 0 to 1, such as 0.25.")
    rollback = guard.get("rollback", True)
    if not isinstance(rollback, bool):
        raise BrokenFile(f"{path}: upkeep.guard.rollback must be true or false.")
    return GuardSettings(int(calls), int(tokens), float(usd), float(share), rollback)


def _number(data: dict, key: str, default: float, path: object, *, whole: bool = False) -> float:
    value = data.get(key, default)
    kinds: tuple[type, ...] = (int,) if whole else (int, float)
    if type(value) not in kinds or value < 0:
        kind = "a whole number" if whole else "a number"
        raise BrokenFile(f"{path}: upkeep.guard.{key} must be {kind}, 0 or more.")
    return value


def review_after_days(home: Home) -> int:
    memory = load_config(home).raw.get("memory", {})
    value = memory.get("reviewAfterDays", DEFAULT_REVIEW_AFTER_DAYS) if isinstance(memory, dict) else None
    if type(value) is not int or value < 1:
        raise BrokenFile(f"{home.config_path}: memory.reviewAfterDays must be a whole number of days, 1 or more.")
    return value
