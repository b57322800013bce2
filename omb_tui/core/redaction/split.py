"""Keys split by a zero-width character or a line break, for credential redaction.

Part of credential redaction (spec "Where it lives"; see :mod:`omb_tui.core.redaction.redact`). A key
pasted with a zero-width character inside it (U+200B, U+200C, U+200D, U+2060, U+FEFF), or cut in two
by a line break, is still a key: the detectors read a view of the text without those characters, and
what they find there is mapped back onto the text, the characters in between included.

* Zero-width characters are left out of the view wherever they are: they never separate words.
* A line break is left out (the two lines joined) only where a key is plainly cut: the line ends in
  8 or more token characters (letters, digits, ``_``, ``-``), the next line starts, with no space,
  with a run of 4 or more that looks generated (letters and digits, or mixed case), and that run is
  a word of its own (white space, ``.``, ``,``, ``;``, ``)`` or the end after it). A line that ends
  in a word, or a next line that starts with a word ("please", "ISBN-10:"), is never joined. What
  the joined view finds is only taken where the lines alone show no key ending at that line end, or
  where the run is the whole next line: so a complete key followed by a line starting with
  "ssh-ed25519 …" keeps that next line.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from typing import NamedTuple

from .values import Span, lazy

__all__ = ["SpanFinder", "spans_across_splits"]

SpanFinder = Callable[[str, str], Iterable[Span]]
"""A detector: ``(text, text.lower())`` to the spans of secrets in ``text``."""

_ZERO_WIDTH_RE = lazy("[\u200b\u200c\u200d\u2060\ufeff]")
# A line break before a run of 4+ token characters that is a word of its own (the 8 token characters
# before the break are checked apart: a pattern that starts with a look-behind is tried at every position).
_JOIN_RE = lazy(r"\n([A-Za-z0-9_-]{4,})(?=[\s.,;)]|\Z)")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _Join(NamedTuple):
    """A line break that cuts a key: where it is (``\\r\\n`` or ``\\n``) and where the run after it ends."""

    start: int
    end: int
    run_end: int


def _joins(text: str) -> list[_Join]:
    out: list[_Join] = []
    for m in _JOIN_RE.finditer(text):
        start = m.start() - 1 if m.start() > 0 and text[m.start() - 1] == "\r" else m.start()
        if start >= 8 and all(c in _TOKEN_CHARS for c in text[start - 8 : start]) and _generated(m.group(1)):
            out.append(_Join(start, m.start() + 1, m.end(1)))
    return out


class _View:
    """``text`` with the characters at ``removed`` (sorted positions) left out, and the way back."""

    __slots__ = ("_gaps", "removed", "text")

    def __init__(self, text: str, removed: list[int]) -> None:
        self.removed = removed
        keep = [0, *(r + 1 for r in removed)]
        stops = [*removed, len(text)]
        self.text = "".join(text[a:b] for a, b in zip(keep, stops))
        self._gaps = [r - i for i, r in enumerate(removed)]  # where each left-out character sat in the view

    def original(self, spans: Iterable[Span]) -> list[Span]:
        """``spans`` of the view as spans of the original text (left-out characters inside them included)."""
        gaps = self._gaps
        out: list[Span] = []
        for start, end in spans:
            if start >= end:
                continue
            last = end - 1
            out.append((start + bisect.bisect_right(gaps, start), last + bisect.bisect_right(gaps, last) + 1))
        return out


def _generated(run: str) -> bool:
    """Letters and digits, or upper and lower case after the first character: not a word of prose."""
    has_digit = any(c.isdigit() for c in run)
    has_alpha = any(c.isalpha() for c in run)
    if has_digit and has_alpha:
        return True
    return any(c.isupper() for c in run[1:]) and any(c.islower() for c in run)


def _finder_on(view: _View, find: SpanFinder) -> list[Span]:
    return view.original(find(view.text, view.text.lower()))


def spans_across_splits(text: str, lowered: str, find: SpanFinder, *, join_lines: bool) -> list[Span]:
    """``find``'s spans in ``text``, reading through zero-width characters and (with ``join_lines``)
    through line breaks that cut a key (see the module docstring)."""
    base: _View | None = None
    if _ZERO_WIDTH_RE.search(text) is not None:
        base = _View(text, [m.start() for m in _ZERO_WIDTH_RE.finditer(text)])
        plain = _finder_on(base, find)
        view_text = base.text
    else:
        plain = list(find(text, lowered))
        view_text = text
    if not join_lines or "\n" not in view_text:
        return plain
    joins = _joins(view_text)
    if not joins:
        return plain
    plain_view = plain if base is None else _in_view(base, plain)
    plain_ends = {end for _, end in plain_view}
    found: list[Span] = []
    for join in joins:
        run_end = join.run_end
        whole_line = run_end == len(view_text) or view_text[run_end] in "\r\n"
        if not whole_line and join.start in plain_ends or any(s < join.start < e for s, e in plain_view):
            continue  # a whole key ends at the break, or the break is inside one (a private key block)
        # Only the two lines around the break are read again, joined: a cut key lies within them.
        first = max(view_text.rfind("\n", 0, join.start), view_text.rfind("\r", 0, join.start)) + 1
        found_end = view_text.find("\n", run_end)
        last = len(view_text) if found_end < 0 else found_end
        window = _View(view_text[first:last], list(range(join.start - first, join.end - first)))
        cut = join.start - first  # where the break was, in the joined window
        found.extend(
            (first + start, first + end)
            for start, end in window.original(
                span for span in find(window.text, window.text.lower()) if span[0] < cut < span[1]
            )
        )
    if base is not None:
        found = base.original(found)
    return plain + found


def _in_view(view: _View, spans: list[Span]) -> list[Span]:
    """Spans of the original text as spans of ``view``."""
    removed = view.removed
    return [(s - bisect.bisect_left(removed, s), e - bisect.bisect_left(removed, e)) for s, e in spans]
