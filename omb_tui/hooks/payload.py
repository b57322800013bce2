"""The one JSON object Claude Code sends a hook on stdin, read and checked before anything is done.

Every event sends `session_id`, `transcript_path`, `cwd` and `hook_event_name`; UserPromptSubmit adds `prompt`,
Stop `stop_hook_active` (and, in newer versions, `last_assistant_message`), SessionStart `source`. What a hook
cannot use is one sentence (HookProblem) and nothing is written: a hook never breaks the agent's turn.
"""

from __future__ import annotations

import json
from typing import BinaryIO

MAX_PAYLOAD_BYTES = 16 * 1024 * 1024  # a prompt may be long; a payload past this is not Claude Code's

SESSION_START = "SessionStart"
USER_PROMPT_SUBMIT = "UserPromptSubmit"
STOP = "Stop"


class HookProblem(Exception):
    """Why a hook did nothing, in one sentence for stderr; the hook still exits 0."""


def read_payload(stream: BinaryIO, event: str) -> dict:
    """The JSON object on `stream`. HookProblem when it is not one, or names another event than `event`."""
    data = stream.read(MAX_PAYLOAD_BYTES + 1)
    if len(data) > MAX_PAYLOAD_BYTES:
        raise HookProblem(f"The hook's input is over {MAX_PAYLOAD_BYTES // (1024 * 1024)} MiB; nothing was done.")
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        payload = None
    if not isinstance(payload, dict):
        raise HookProblem("The hook's input is not one JSON object (Claude Code sends one on stdin); nothing was done.")
    named = payload.get("hook_event_name")
    if named is not None and named != event:
        raise HookProblem(
            f"This hook answers Claude Code's {event} event, and was sent {str(named)[:40]!r}; nothing was done."
        )
    return payload


def text_field(payload: dict, key: str, *, required: bool = False) -> str | None:
    """A field that must be a string when present; HookProblem when it is missing and `required`."""
    value = payload.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        what = "missing" if value is None else "not a string"
        raise HookProblem(f"The hook's input has its {key!r} {what}; nothing was done.")
    return value
