"""What the command line prints: one-line sentences, JSON and file text byte for byte (`omb-tui` and `omb-tui team`)."""

from __future__ import annotations

import sys


def one_line(message: str) -> str:
    """A message as one line, redacted, a control character escaped (core/redaction/data.py)."""
    from ..core.redaction.data import one_line as line  # here: the app's start-up never needs it

    return line(message)


def error_line(message: str) -> str:
    """An error as `one_line` prints it, cut to one sentence's length (core/redaction/data.py)."""
    from ..core.redaction.data import error_line as line

    return line(message)


def print_json(data: object, *, unredacted: dict | None = None) -> None:
    """`data` as JSON, every text in it redacted as it would be on disk (a model's skipped fact, a name).
    `unredacted`: keys added as they are, after: a token just made for the person to copy (`people add`), which
    is the point of the output and is never stored."""
    import json  # here: the app's start-up never needs it

    from ..core.redaction.data import redact_data

    data = redact_data(data)
    if unredacted and isinstance(data, dict):
        data = {**data, **unredacted}
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if _has_surrogates(text):  # bytes that are not UTF-8 in a file: escape them so the JSON stays valid
        text = json.dumps(data, ensure_ascii=True, indent=2)
    print(text)


def _has_surrogates(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def write_text(text: str) -> None:
    """Write file text byte for byte, whatever the terminal's encoding, redacted (a file edited outside the app
    may hold what no write of the project's would keep; redacting redacted text changes nothing)."""
    from ..core.redaction.redact import redact

    text = redact(text).text
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()
