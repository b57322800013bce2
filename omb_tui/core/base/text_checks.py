"""Text a writer may keep: Unicode text with no control character but a line break or a tab.

Spec: memory.md, "Conventions inside the files" (the files are plain text a person reads, in the panel and in
Obsidian) and "The helper model"; HOUSE_STYLE, "The model proposes, code decides". A model's answer is checked with
this before anything of it is written: a lone surrogate is not text at all (UTF-8 cannot encode it, so a write that
held one would fail halfway), and a control character (NUL, ESC, a bare CR…) is no word of a note and can rewrite a
terminal that prints it. Line breaks (LF, or CR before LF) and tabs are kept. One character class: linear time.
docs/models.md, "Answers that are refused", lists the sentences.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]|\r(?!\n)")  # C0, DEL and C1; a bare CR


def text_problem(text: str, where: str = "the answer") -> str | None:
    """Why `text` may not be kept, as a phrase naming `where` ("the reason holds a control character (U+001B)"),
    else None."""
    found = _NOT_TEXT.search(text)
    if found is None:
        return None
    code = ord(found.group()[0])
    if 0xD800 <= code <= 0xDFFF:
        return f"{where} holds a lone surrogate (U+{code:04X}), which is not text"
    return f"{where} holds a control character (U+{code:04X})"


def first_text_problem(fields: Iterable[tuple[str, object]]) -> str | None:
    """The first of (where, value) whose value is text that may not be kept; a value that is not text is the
    caller's to refuse (or to leave out)."""
    for where, value in fields:
        problem = text_problem(value, where) if isinstance(value, str) else None
        if problem:
            return problem
    return None


def escaped(text: str) -> str:
    """The text with each character `text_problem` refuses written as its Python escape (`\\x1b`, `\\ud800`), so
    a log can show an answer that may not be kept."""
    return _NOT_TEXT.sub(lambda found: ascii(found.group())[1:-1], text)
