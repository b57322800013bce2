"""Redaction of what is written as data rather than as a note: decoded values, a model's raw answer, log lines.

Part of credential redaction (spec "Where it lives": credentials are redacted before they reach disk; see
:mod:`omb_tui.core.redaction.redact`). An escape hides a secret from a detector that reads the encoded text
(``\\u0041KIA…``, ``\\"`` inside a quoted AWS secret, ``\\/`` inside a key), so:

* :func:`redact_data` redacts a JSON-able value after it is decoded and before it is encoded: every string,
  keys too, each as :func:`redact_answer` does (a decoded string may still hold escapes). Every JSON file the project keeps goes through it (:func:`omb_tui.core.files.disk.write_private_json`,
  the journal's rows, conversation lines, usage rows).
* :func:`redact_answer` redacts a model's raw answer that is logged as text (it may not be JSON at all): as
  text, and again with its escapes decoded, layer after layer; where the decoded text holds a credential, the
  decoded text (redacted) is what is kept.
* :class:`RedactLogRecords` redacts every log line, and :func:`redact_message` every sentence printed or shown.

Nothing here imports the detectors until a text is redacted (they cost ~50 ms to import).
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any, TypeVar, overload

__all__ = [
    "RedactLogRecords",
    "error_line",
    "one_line",
    "redact_answer",
    "redact_data",
    "redact_log_handlers",
    "redact_message",
]

# A value under one of these keys is judged with its key, as "password: hunter2" is in a note.
_SECRET_KEY_RE = re.compile(r"pass|pwd|token|secret|auth|key", re.IGNORECASE)
# JSON's escapes and YAML's (which add \x, \U and \'); one pass decodes one layer, left to right.
_ESCAPE_RE = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|[\"\\/'bfnrt])")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "'": "'", "n": "\n", "t": "\t"}
ESCAPE_LAYERS = 4  # an answer escaped more deeply than this is not decoded further (each layer is one more pass)


def _redacted(text: str) -> str:
    return _redacted_short(text) if len(text) <= _CACHED_MAX_CHARS else _redact_text(text)


def _redact_text(text: str) -> str:
    from .redact import redact

    return redact(text).text


# A JSON state file repeats its keys and, write after write, its names and hashes (2,000 topics in seen.json are
# ~12,000 strings at ~10 µs each): short strings are remembered.
_CACHED_MAX_CHARS = 256
_redacted_short = functools.lru_cache(maxsize=16_384)(_redact_text)


_Key = TypeVar("_Key")


# What goes in comes out in the same shape: a text stays a text, an object an object, a tuple becomes a list.
@overload
def redact_data(value: str) -> str: ...
@overload
def redact_data(value: dict[_Key, Any]) -> dict[_Key, Any]: ...
@overload
def redact_data(value: list[Any] | tuple[Any, ...]) -> list[Any]: ...
@overload
def redact_data(value: object) -> object: ...
def redact_data(value: object) -> object:
    """A copy of a JSON-able value with every string redacted, dict keys too; anything else is kept as it is.

    A string under a key that may name a secret (``password``, ``api_key``, ``token``…) is judged together with
    its key, so ``{"password": "hunter2"}`` loses its value as ``password: hunter2`` does in a note.
    """
    if isinstance(value, str):
        return redact_answer(value)  # a text may itself hold escapes (a model's "\\u0041KIA…" inside a string)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, str) and isinstance(item, str) and _SECRET_KEY_RE.search(key):
                item = _value_with_its_key(key, item)
            else:
                item = redact_data(item)
            out[redact_answer(key) if isinstance(key, str) else key] = item
        return out
    if isinstance(value, (list, tuple)):
        return [redact_data(item) for item in value]
    return value


def _value_with_its_key(key: str, value: str) -> str:
    prefix = f"{key}: "
    together = _redacted(prefix + value)
    if together.startswith(prefix):
        return redact_answer(together[len(prefix) :])
    return redact_answer(value)  # the key itself was taken for a secret: the value is judged alone


def _decode_escape(found: re.Match[str]) -> str:
    """The character an escape stands for; a control character (but newline and tab), a surrogate or a
    number past Unicode stays escaped, so the decoded text is still safe to write as UTF-8."""
    escape = found.group()
    if escape[1] in "uUx":
        code = int(escape[2:], 16)
        if code < 0x20 and code not in (0x09, 0x0A) or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            return escape
        return chr(code)
    return _SIMPLE_ESCAPES.get(escape[1], escape)


def decode_escapes(text: str) -> str:
    """One layer of JSON/YAML escapes decoded wherever they stand, inside a string literal or not (an answer
    that is not valid JSON still hides a key behind them); an escape that is not valid is left as it is."""
    return _ESCAPE_RE.sub(_decode_escape, text) if "\\" in text else text


def redact_answer(text: str) -> str:
    """A model's raw answer as a log may keep it: redacted as text, unless decoding its escapes (one layer at a
    time, at most ESCAPE_LAYERS) shows a credential; then the deepest such layer, redacted, is kept instead, so
    no escape can hide one. Layers are decoded from the answer itself, not from its redacted text: a mark put
    on half a value (``\\u0063orrect`` of a pass phrase) would hide the rest of it."""
    kept = _redacted(text)
    layer = text
    for _ in range(ESCAPE_LAYERS):
        decoded = decode_escapes(layer)
        if decoded == layer:
            break
        redacted = _redacted(decoded)
        if redacted != decoded:
            kept = redacted
        layer = decoded
    return kept


def redact_message(message: str) -> str:
    """A sentence about to be printed or shown (an error, a notification): redacted, its escapes too (a
    provider's error may echo the request as JSON)."""
    return redact_answer(message)


def one_line(message: str) -> str:
    """A message as one line, redacted (a provider's error may echo a key): a newline or other control character
    in a name it holds is escaped, not printed. Every sentence the command line and the hooks print goes through
    here."""
    from ..base.text import printable

    return printable(redact_message(message))


def error_line(message: str) -> str:
    """An error as `one_line` prints it, cut to one sentence's length: a mistake that repeats what was typed (an
    unknown command, a bad choice) never repeats a 100 KB argument whole."""
    from ..base.text import SENTENCE_MAX_CHARS, cut_to

    return one_line(cut_to(message, SENTENCE_MAX_CHARS))


class RedactLogRecords(logging.Filter):
    """Put on a handler: every record it writes is redacted first (a provider's error may echo a key)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format: logging reports it itself
            return True
        clean = redact_message(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_text is None:
            # The traceback's last line repeats the exception's message: format it here, redacted.
            record.exc_text = redact_message(logging.Formatter().formatException(record.exc_info))
        return True


def redact_log_handlers(logger: logging.Logger | None = None) -> None:
    """Put RedactLogRecords on every handler of `logger` (the root logger by default), once each: what the command
    line, the server and the app set up to write log lines."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(existing, RedactLogRecords) for existing in handler.filters):
            handler.addFilter(RedactLogRecords())
