"""What a secret value looks like, shared by the token rules and the ``key = value`` scanner.

Part of credential redaction (spec "Where it lives"; see :mod:`omb_tui.core.redaction.redact`): the
«redacted N chars» mark, references that name where a secret is kept (``$VAR``,
``<your key>``), values that look generated, and the letter-or-digit boundary a secret
must not start or end inside.
"""

from __future__ import annotations

import re

from ..base.patterns import lazy

__all__ = [
    "MARK_RE",
    "REDACTION_MARK",
    "Span",
    "is_reference",
    "lazy",
    "left_ok",
    "looks_like_password",
    "mark",
    "plausible",
    "random_token",
    "right_ok",
]


REDACTION_MARK = "«redacted {n} chars»"
MARK_RE = lazy(r"«redacted \d+ chars»")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

Span = tuple[int, int]


def mark(n: int) -> str:
    """The text that stands in for a removed secret of ``n`` characters."""
    return REDACTION_MARK.format(n=n)


# Values that name where a secret is kept rather than being one.
_REFERENCE_RE = lazy(
    r"""
      \$\{?[A-Za-z_][A-Za-z0-9_]*\}?            # $VAR, ${VAR}
    | \$\{[A-Za-z_][A-Za-z0-9_.:-]*\}          # ${env.VAR} (Maven), ${VAR:-default}
    | \$\(.*\)                                 # $(command)
    | %[A-Za-z_][A-Za-z0-9_]*%                   # %VAR%
    | \{\{.*\}\}                                # {{ template }}
    | <[^<>]*>                                   # <your key here>
    | (?:os\.environ|os\.getenv|process\.env|env[:.]|ENV\[)\S*
    | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+              # OPENAI_API_KEY (a variable's name)
    | \(?(?i:none|null|nil|true|false|undefined|empty|redacted|hidden|n/?a|tbd|tba|todo)\)?
    | -+ | \?+                                    # "password: -", "password: ?"
    | \*+ | x+ | X+ | \.\.\.+ | …
    """,
    re.VERBOSE,
)


def is_reference(value: str) -> bool:
    """Whether ``value`` names where a secret is kept (``$DB_PASSWORD``, ``<your key>``, ``None``)."""
    return _REFERENCE_RE.fullmatch(value) is not None


def plausible(value: str) -> bool:
    """Whether an assigned value looks like a key rather than a word of prose.

    Needs 8+ characters and either letters and digits together, or 24+ characters
    with an upper-case letter after the first one (base64-like). Rejects URLs,
    dates, plain numbers and references such as ``$TOKEN`` or ``os.environ/KEY``.
    """
    if len(value) < 8 or "://" in value or is_reference(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    if has_alpha and has_digit:
        return True
    return len(value) >= 24 and any(c.islower() for c in value) and any(c.isupper() for c in value[1:])


_ALNUM_RUN_RE = lazy(r"[A-Za-z0-9]{16,}")


def random_token(body: str, min_len: int) -> bool:
    """Whether a key body looks generated: long, letters and digits, and at least
    one 16-character alphanumeric run (so hyphenated names like a model called
    "sk-kogptv2-kormath-causal" are not taken for keys)."""
    return (
        len(body) >= min_len
        and any(c.isalpha() for c in body)
        and any(c.isdigit() for c in body)
        and _ALNUM_RUN_RE.search(body) is not None
    )


_PROSE_SYMBOLS = "'-.,;:!?()[]{}<>|/\"`"


def looks_like_password(word: str) -> bool:
    """A single word that is not plain prose, in any language: a digit, a symbol or a capital inside."""
    return any(
        c.isdigit() or (c.isupper() and i > 0) or not (c.isalnum() or c in _PROSE_SYMBOLS) for i, c in enumerate(word)
    )


def left_ok(text: str, start: int) -> bool:
    """Whether a secret may start at ``start``: not right after a letter or digit."""
    return start == 0 or text[start - 1] not in _ALNUM


def right_ok(text: str, end: int) -> bool:
    """Whether a secret may end at ``end``: not right before a letter or digit."""
    return end >= len(text) or text[end] not in _ALNUM
