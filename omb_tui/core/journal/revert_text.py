"""Take one change back out of a file that changed since, as `git revert` does: a three-way merge by lines.

The change turned `before` into `after`; the file now reads `current`. Each hunk of the change (a run of
`after` lines that `before` had otherwise) is put back where those lines now are, when the changes made
since leave them alone. A change since that overlaps a hunk, or adds lines at the very point a hunk adds
lines back (which order would be a guess), is a conflict: nothing is merged. Where a file repeats a line, a
hunk next to copies of its own lines could be at any of them; a change since within that reach is a conflict
too, and the result must come out the same computed three ways (see `reverse_change`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

Span = tuple[int, int]  # [start, end) of lines; start == end is the point between two lines
Opcodes = Sequence[tuple[str, int, int, int, int]]  # SequenceMatcher.get_opcodes(): tag, i1, i2, j1, j2
HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def reverse_change(before: str, after: str, current: str) -> str | None:
    """`current` with the change from `before` to `after` taken back; None when later changes touch its lines,
    or when where they go is ambiguous.

    A file that repeats a line lets the line diff pair the wrong copies, and the merge would then put lines in
    the wrong place. So the result is computed three ways: the row's change taken out of `current`, the same on
    the lines read bottom up (the diff then pairs copies from the other end), and the later changes (`after` to
    `current`) put into `before`. Only a result all three agree on is trusted; any disagreement is a conflict."""
    before_lines, after_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    current_lines = current.splitlines(keepends=True)
    taken_out = _merge(before_lines, after_lines, current_lines)
    if taken_out is None:
        return None
    bottom_up = _merge(before_lines[::-1], after_lines[::-1], current_lines[::-1])
    put_in = _merge(current_lines, after_lines, before_lines)
    if bottom_up is None or put_in is None or taken_out != bottom_up[::-1] or taken_out != put_in:
        return None
    return "".join(taken_out)


def _merge(before_lines: list[str], after_lines: list[str], current_lines: list[str]) -> list[str] | None:
    """`current_lines` with the hunks of `before_lines` to `after_lines` taken back; None on a conflict."""
    since = SequenceMatcher(None, after_lines, current_lines, autojunk=False).get_opcodes()
    changed_since = [
        span
        for tag, i1, i2, j1, j2 in since
        if tag != "equal"
        for span in _slid(after_lines, current_lines[j1:j2], i1, i2)
    ]
    edits = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, after_lines, before_lines, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if any(
            _touch(hunk, other) for hunk in _slid(after_lines, before_lines[j1:j2], i1, i2) for other in changed_since
        ):
            return None
        if i1 < i2:  # lines the change wrote: where the first and the last of them are now
            start, last = _line_now(i1, since), _line_now(i2 - 1, since)
            end = None if last is None else last + 1
        else:  # lines the change took out go back at this point
            start = end = _point_now(i1, since)
        if start is None or end is None or current_lines[start:end] != after_lines[i1:i2]:
            return None
        edits.append((start, end, before_lines[j1:j2]))
    merged = list(current_lines)
    for start, end, lines in reversed(edits):  # from the bottom, so the positions above stay right
        merged[start:end] = lines
    return merged


def _slid(after_lines: list[str], lines_back: list[str], i1: int, i2: int) -> list[Span]:
    """The spans of `after` a hunk (`after[i1:i2]` becoming `lines_back`) is checked by: its own, widened to
    wherever it could equally be. A block of lines added or taken out next to copies of its own lines slides
    (taking out the first "a" of "a a" or the second reads the same), and two hunks whose reaches meet make
    where each goes a guess. Replacements do not slide."""
    if i1 < i2 and not lines_back:  # lines taken out of `after`: they could be any copy in reach
        low, high = i1, i2
        while low > 0 and after_lines[low - 1] == after_lines[i2 - 1 - (i1 - low)]:
            low -= 1
        while high < len(after_lines) and after_lines[high] == after_lines[i1 + (high - i2)]:
            high += 1
        return [(low, high)]
    if i1 == i2 and lines_back:  # lines put into `after` at a point, or at any point in reach
        block, low = list(lines_back), i1
        while low > 0 and after_lines[low - 1] == block[-1]:
            block, low = [block[-1], *block[:-1]], low - 1
        block, high = list(lines_back), i1
        while high < len(after_lines) and after_lines[high] == block[0]:
            block, high = [*block[1:], block[0]], high + 1
        return [(low, low), (high, high)] + ([(low, high)] if low < high else [])
    return [(i1, i2)]


def _touch(hunk: Span, other: Span) -> bool:
    """Do two spans of `after` lines conflict? Lines in common; a point strictly inside the other's lines; or
    two insertions at the same point."""
    (a1, a2), (b1, b2) = hunk, other
    if a1 == a2 and b1 == b2:
        return a1 == b1
    if a1 == a2:
        return b1 < a1 < b2
    if b1 == b2:
        return a1 < b1 < a2
    return a1 < b2 and b1 < a2


def _line_now(line: int, since: Opcodes) -> int | None:
    """Where `after` line `line` is in the current lines, when it was kept."""
    for tag, i1, i2, j1, _ in since:
        if tag == "equal" and i1 <= line < i2:
            return j1 + (line - i1)
    return None


def _point_now(point: int, since: Opcodes) -> int | None:
    """Where the point before `after` line `point` is in the current lines."""
    if not since:  # both empty
        return 0
    for tag, i1, i2, j1, _ in since:
        if tag == "equal" and i1 <= point <= i2:
            return j1 + (point - i1)
    for _, i1, i2, j1, j2 in since:  # at the edge of a change since: before it, or after it
        if point == i1:
            return j1
        if point == i2:
            return j2
    return None


def apply_diff(before: str, diff: str) -> str | None:
    """`before` with a unified diff (a journal row's `diff`) applied; None when the diff does not fit `before`
    or was cut short. The result may still be wrong (a line without its newline, a redacted diff): callers
    check it against the hash they hold."""
    before_lines = before.splitlines(keepends=True)
    diff_lines = diff.splitlines(keepends=True)[2:]  # past the "--- a/…" and "+++ b/…" lines
    result: list[str] = []
    taken = 0  # before lines used so far
    for line in diff_lines:
        header = HUNK_HEADER.match(line)
        if header:
            start, length = int(header.group(1)), header.group(2)
            start = start - 1 if length != "0" else start  # an empty range names the line before it
            if start < taken:
                return None
            result += before_lines[taken:start]
            taken = start
        elif line[:1] in (" ", "-"):
            if taken >= len(before_lines) or before_lines[taken] != line[1:]:
                return None
            if line[0] == " ":
                result.append(line[1:])
            taken += 1
        elif line[:1] == "+":
            result.append(line[1:])
        else:  # "… N more diff lines": the diff was cut for size
            return None
    return "".join(result + before_lines[taken:])
