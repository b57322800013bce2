"""The person's own settings for omb-tui, kept per user and never in a home: today the app's theme.

`$XDG_CONFIG_HOME/omb-tui/settings.json` (else `~/.config/omb-tui/settings.json`): JSON, 0600 in a 0700
folder, written atomically; keys this version does not know are kept. A missing or unreadable file reads as
no settings, so a damaged one never stops the app (the next change writes a good one). On the memory floor beside
the home's settings: written through the private writer (`disk.py`), and read by the app before the engine loads.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

USER_SETTINGS_FILE = "settings.json"


def user_settings_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    # Resolved once, as the home is: a linked ~/.config (dotfiles) is the person's choice, not a planted link.
    return Path(os.path.realpath(config)) / "omb-tui" / USER_SETTINGS_FILE


def load_user_settings(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_user_setting(path: Path, key: str, value: object) -> None:
    """Set one key, keeping the others (atomic, 0600)."""
    from ..files.disk import write_private_json  # the app reads the theme at start, before the engine loads

    settings = load_user_settings(path)
    if settings.get(key) == value:
        return
    settings[key] = value
    write_private_json(path, settings, durable=False, redacted=False)  # the person's own choices (a theme)
