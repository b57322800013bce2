"""Credential redaction: every memory, journal and archive write passes through here.

Implements the credentials part of the spec section "Where it lives" (memory files
are written 0600, atomically, and credentials are redacted before they reach disk):
anything that looks like a credential -- API keys, tokens, ``password: ...`` lines,
private key blocks, URLs with a password in them -- is replaced with
``«redacted N chars»``, where N is the number of characters removed. A bot that
helpfully "remembers" a key it read from a ``.env`` does not get to keep it.

Guarantees:

* Everything that is not a secret is kept exactly (line endings, tabs, unicode,
  a missing final newline). Only the secret value is replaced; the key name stays
  visible: ``password: hunter2`` -> ``password: «redacted 7 chars»``,
  ``https://bob:s3cret@example.com`` -> ``https://bob:«redacted 6 chars»@example.com``.
* Idempotent: redacting redacted text changes nothing; the marker itself is never
  taken for a secret.
* Conservative on prose: no entropy guessing, no IP-address detection. A dated
  note, a commit sha in a sentence or "the password reset flow" stays as written.
* Memory lines keep their shape (spec "Conventions inside the files"): no value
  runs past a `` · `` separator, a table cell's `` |`` (any unescaped ``|`` in a
  row that starts with ``|``), the ``~~`` that closes a strikethrough opened
  earlier on the line, or a «redacted N chars» mark. So
  ``- 2026-11-30 · wifi password: Tulip77 · until 2026-12-05`` keeps its until
  date and ``- ~~password: Tulip77~~ · superseded 2026-11-01`` stays struck.
* Fast: every rule is gated on a cheap literal check, so ordinary notes cost a
  handful of C-level substring scans. detect-secrets (~0.2 s to import) is only
  imported the first time a text actually needs its patterns.

How: :mod:`.redact_tokens` finds keys by their shape (prefixed tokens, detect-secrets'
patterns, URLs with a password, private key blocks; :mod:`.redact_vendors` holds the table of
vendor prefixes), :mod:`.redact_pasted` finds secrets by where they sit (headers, pasted files,
command lines), :mod:`.redact_assignments` finds the
values of ``key = value`` assignments and "password is X" phrases, and this module merges
what they find and replaces it, pass after pass until nothing changes.

Which detector covers what is listed once, in :data:`DETECTORS` (docs/redaction.md shows it too).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from .assignments import assignment_spans
from .pasted import pasted_spans
from .split import spans_across_splits
from .tokens import DETECTORS, token_spans
from .values import MARK_RE, REDACTION_MARK, Span, mark

__all__ = [
    "DETECTORS",
    "REDACTION_MARK",
    "Redaction",
    "contains_credential",
    "mark",
    "redact",
]


@dataclass(frozen=True)
class Redaction:
    """The result of :func:`redact`."""

    text: str
    """The redacted text."""
    count: int
    """How many secrets were replaced."""

    @property
    def changed(self) -> bool:
        return self.count > 0


# ---------------------------------------------------------------------------- redact


def _candidate_spans(text: str) -> list[Span]:
    lowered = text.lower()
    # A key cut by a zero-width character or a line break is read whole (see redact_split).
    spans = spans_across_splits(text, lowered, token_spans, join_lines=True)
    spans.extend(spans_across_splits(text, lowered, assignment_spans, join_lines=False))
    spans.extend(spans_across_splits(text, lowered, pasted_spans, join_lines=False))
    return spans


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _without_marks(text: str, spans: list[Span]) -> list[Span]:
    """Cut existing «redacted N chars» marks out of the spans.

    A value that is only a mark (``password: «redacted 7 chars»``) is left alone,
    which keeps :func:`redact` idempotent. Whitespace next to a cut is trimmed.
    """
    if "«redacted " not in text:
        return spans
    marks = [m.span() for m in MARK_RE.finditer(text)]
    if not marks:
        return spans
    mark_ends = [m_end for _, m_end in marks]  # marks never overlap: sorted like the starts
    out: list[Span] = []
    for start, end in spans:
        pieces = [(start, end)]
        for index in range(bisect.bisect_right(mark_ends, start), len(marks)):
            m_start, m_end = marks[index]
            if m_start >= end:
                break
            cut: list[Span] = []
            for p_start, p_end in pieces:
                if m_end <= p_start or m_start >= p_end:
                    cut.append((p_start, p_end))
                    continue
                if p_start < m_start:
                    cut.append((p_start, m_start))
                if m_end < p_end:
                    cut.append((m_end, p_end))
            pieces = cut
        for p_start, p_end in pieces:
            if p_start != start:
                while p_start < p_end and text[p_start].isspace():
                    p_start += 1
            if p_end != end:
                while p_end > p_start and text[p_end - 1].isspace():
                    p_end -= 1
            if p_start < p_end:
                out.append((p_start, p_end))
    return out


def _redact_once(text: str) -> tuple[str, int]:
    spans = _without_marks(text, _merge(_candidate_spans(text)))
    if not spans:
        return text, 0
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        parts.append(text[pos:start])
        parts.append(mark(end - start))
        pos = end
    parts.append(text[pos:])
    return "".join(parts), len(spans)


def redact(text: str) -> Redaction:
    """Replace every credential in ``text`` with ``«redacted N chars»``.

    One pass normally suffices; the result is passed again until nothing changes,
    so that a secret which only became recognisable once its neighbour was
    redacted is caught too (this is what makes ``redact`` idempotent). Marks are
    never redacted again, so every extra pass strictly shrinks the unredacted
    text and the loop ends after at most one pass per character.
    """
    total = 0
    for _ in range(len(text) + 1):  # the bound is never reached (see above)
        text, count = _redact_once(text)
        if not count:
            break
        total += count
    return Redaction(text, total)


def contains_credential(text: str) -> bool:
    """True when :func:`redact` would change ``text``."""
    return redact(text).changed
