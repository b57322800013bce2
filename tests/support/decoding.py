"""A text as any number of JSON parses could show it: the redaction and reliability tests look for a secret there
as well as in the text itself."""

from __future__ import annotations

from omb_tui.core.redaction.data import decode_escapes


def fully_decoded(text: str) -> str:
    """What any number of JSON parses of the text could show."""
    for _ in range(10):
        decoded = decode_escapes(text)
        if decoded == text:
            break
        text = decoded
    return text
