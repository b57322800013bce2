"""Entries in MEMORY.md and topic files, read and written byte for byte.

Implements the spec section "Conventions inside the files" (and the entry shape that
"What loads, and the budget" relies on: until dates, moved entries, owned code blocks).

The files are free-form markdown; the conventions below are recognised where they
appear and everything else is kept as it is. ``render_entries(parse_entries(t)) == t``
holds for every string ``t``.

Lines
    ``\\n`` is the only line terminator (see :func:`split_lines`). A ``\\r\\n`` line keeps
    its ``\\r`` as part of its line ending; a lone ``\\r`` inside a line is ordinary text.

Kinds of entry
    ``frontmatter``  a ``---`` line at the very start through the next ``---`` line.
    ``heading``      an ATX heading: 1-6 ``#`` then a space or the end of the line
                     (``#tag`` is text, as in Obsidian).
    ``blank``        a line of whitespace only.
    ``dated``        a bullet that follows the bot's conventions: it starts with a date
                     (``- 2026-09-10 · from chat "Follow-up" · the user prefers short replies``)
                     or is struck through with a superseded date
                     (``- ~~the office is in Pune~~ · superseded 2026-09-10``).
    ``undated``      any other ``-`` or ``*`` bullet, such as a hand-written one.
    ``text``         anything else; a fenced code block that is not under a bullet is one
                     ``text`` entry, so example lines inside it are never read as entries.

Bullets (dated or undated) may end with ``· until DATE``, ``· superseded DATE`` and
``· moved DATE`` in any order. A date that is not a real day (``2026-13-45``) is never an
error: a leading one makes the line undated, a marker with one stays part of the fact.

A bullet owns the non-blank indented lines right under it (an indented fenced block among
them is owned through its closing fence, blank lines included) or, in older entries, a
fenced block that starts on the line right below it, through its closing fence. A fence
that never closes is not owned.
"""

from __future__ import annotations

import bisect
import re
import sys
from dataclasses import dataclass, replace
from datetime import date

from ..base.patterns import lazy

SEPARATOR = " · "

_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_LINE_ENDING = lazy(r"\r?\n?\Z")
_BULLET = lazy(r"[-*](?:[ \t]+(?P<body>.*))?\Z", re.DOTALL)
_THEMATIC_BREAK = lazy(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*\Z")
_HEADING = lazy(r"(?P<marks>#{1,6})(?:[ \t]+(?P<title>.*))?\Z", re.DOTALL)
_FRONTMATTER_FENCE = lazy(r"(?:\ufeff)?---[ \t]*\Z")
_FRONTMATTER_CLOSE = lazy(r"---[ \t]*\Z")
_FENCE_OPEN = lazy(r"[ \t]*(?P<fence>`{3,}(?![^`]*`)|~{3,})")
_MARKER = lazy(rf"[ \t]+(?P<name>until|superseded|moved)[ \t]+(?P<day>{_DATE})")
_LEADING_DATE = lazy(rf"(?P<day>{_DATE})[ \t]+·[ \t]+")
_SOURCE = lazy(
    r"(?:from[ \t]+(?P<origin>(?:chat|room)[ \t]+\".*\"|\w[\w-]*)"
    r"|(?P<learned>learned[ \t]+by[ \t]+\S.*?(?<![ \t])))?"  # the lookbehind: one try per run of spaces
    r"(?P<noticed>[ \t]*\(noticed\))?\Z",
    re.DOTALL,
)


@dataclass
class Entry:
    """One entry of a memory file: a bullet with the lines it owns, or one other line/block."""

    kind: str  # "dated" | "undated" | "heading" | "frontmatter" | "blank" | "text"
    lines: list[str]  # raw lines with their own line endings, owned lines included
    day: date | None = None
    source: str | None = None  # 'chat "Follow-up"', 'room "Launch"', 'tidy-up', 'learned by Scout'
    noticed: bool = False
    until: date | None = None
    superseded: date | None = None
    moved: date | None = None
    fact: str = ""

    @property
    def raw(self) -> str:
        return "".join(self.lines)

    @property
    def line_count(self) -> int:
        return len(self.lines)

    @property
    def struck(self) -> bool:
        """Superseded by a newer fact: ``~~…~~ · superseded DATE`` (the date is what counts)."""
        return self.superseded is not None

    @property
    def is_bullet(self) -> bool:
        return self.kind in ("dated", "undated")

    def expired(self, today: date) -> bool:
        """True from the day after the until date: the entry still loads on that date itself."""
        return self.until is not None and today > self.until


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping each line's ending; ``"".join(result) == text``.

    ``"a\\nb"`` and ``"a\\nb\\n"`` are both two lines, ``""`` is none. ``\\r\\n`` stays whole at
    the end of its line; a lone ``\\r``, form feed or Unicode line separator is ordinary text,
    unlike :meth:`str.splitlines`, so line counts match what an editor shows for the file.
    """
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def line_ending(line: str) -> str:
    """The line's ending: ``"\\r\\n"``, ``"\\n"``, a final lone ``"\\r"``, or ``""``."""
    ending = _LINE_ENDING.search(line)
    assert ending is not None  # the pattern matches the empty string at the end of any line
    return ending.group()


def line_content(line: str) -> str:
    """The line without its ending."""
    return line[: len(line) - len(line_ending(line))]


def parse_entries(text: str) -> list[Entry]:
    """Read a memory file into entries; :func:`render_entries` gives back the exact text."""
    lines = split_lines(text)
    contents = [line_content(line) for line in lines]
    fences = _FenceIndex(contents)
    entries: list[Entry] = []
    index = 0
    frontmatter_end = _frontmatter_end(contents)
    if frontmatter_end is not None:
        entries.append(Entry(kind="frontmatter", lines=lines[: frontmatter_end + 1]))
        index = frontmatter_end + 1
    while index < len(lines):
        end = _entry_end(contents, fences, index)
        entry = _entry_fields(contents[index])
        entry.lines = lines[index:end]
        entries.append(entry)
        index = end
    return entries


def render_entries(entries: list[Entry]) -> str:
    """The file text the entries came from (or were edited into)."""
    return "".join(line for entry in entries for line in entry.lines)


def _frontmatter_end(contents: list[str]) -> int | None:
    if not contents or not _FRONTMATTER_FENCE.match(contents[0]):
        return None
    for index in range(1, len(contents)):
        if _FRONTMATTER_CLOSE.match(contents[index]):
            return index
    return None


def _is_blank(content: str) -> bool:
    return not content.strip()


def _is_indented(content: str) -> bool:
    return content[:1] in (" ", "\t")


def _bullet_match(content: str) -> re.Match[str] | None:
    return None if _THEMATIC_BREAK.match(content) else _BULLET.match(content)


def _entry_fields(content: str) -> Entry:
    """The kind and fields an entry gets from its first line."""
    if _is_blank(content):
        return Entry(kind="blank", lines=[])
    bullet = _bullet_match(content)
    if bullet:
        return _bullet_entry(bullet.group("body") or "")
    heading = _HEADING.match(content)
    if heading:
        return Entry(kind="heading", lines=[], fact=(heading.group("title") or "").strip().rstrip("#").strip())
    return Entry(kind="text", lines=[], fact=content.strip())


def _entry_end(contents: list[str], fences: _FenceIndex, index: int) -> int:
    """Index just past the entry that starts at ``index``."""
    content = contents[index]
    if _is_blank(content) or _HEADING.match(content):
        return index + 1
    if _bullet_match(content):
        return _owned_end(contents, fences, index)
    # a code block on its own is one text entry, so lines inside it are never read as entries
    close = fences.closing(index) if _FENCE_OPEN.match(content) else None
    return index + 1 if close is None else close + 1


def _owned_end(contents: list[str], fences: _FenceIndex, bullet_index: int) -> int:
    """Index just past the last line the bullet at ``bullet_index`` owns."""
    below = bullet_index + 1
    if below < len(contents) and not _is_indented(contents[below]) and _FENCE_OPEN.match(contents[below]):
        close = fences.closing(below)
        return below if close is None else close + 1
    index = below
    while index < len(contents) and _is_indented(contents[index]) and not _is_blank(contents[index]):
        close = fences.closing(index, within_indent=True) if _FENCE_OPEN.match(contents[index]) else None
        index = index + 1 if close is None else close + 1
    return index


class _FenceIndex:
    """Where fences can close, found once per file so an unclosed fence never rescans the rest."""

    def __init__(self, contents: list[str]) -> None:
        self._contents = contents
        self._closers: dict[str, list[tuple[int, int]]] = {"`": [], "~": []}
        for index, content in enumerate(contents):
            bare = content.strip(" \t")
            if len(bare) >= 3 and bare[0] in self._closers and bare == bare[0] * len(bare):
                self._closers[bare[0]].append((index, len(bare)))
        # for each line, the next line back at the margin: where an indented block must have closed
        self._next_margin = [len(contents)] * (len(contents) + 1)
        for index in range(len(contents) - 2, -1, -1):
            following = contents[index + 1]
            at_margin = not _is_blank(following) and not _is_indented(following)
            self._next_margin[index] = index + 1 if at_margin else self._next_margin[index + 1]

    def closing(self, open_index: int, *, within_indent: bool = False) -> int | None:
        """The line that closes the fence opened at ``open_index``, or None when it never closes."""
        opening = _FENCE_OPEN.match(self._contents[open_index])
        assert opening is not None  # callers ask only about lines that open a fence
        opener = opening.group("fence")
        limit = self._next_margin[open_index] if within_indent else len(self._contents)
        candidates = self._closers[opener[0]]
        for position in range(bisect.bisect_right(candidates, (open_index, sys.maxsize)), len(candidates)):
            index, length = candidates[position]
            if index >= limit:
                return None
            if length >= len(opener):
                return index
        return None


def _bullet_entry(body: str) -> Entry:
    """Fields of a bullet's first line, from the text after its ``-``/``*`` marker."""
    remaining, markers, _ = _strip_trailing_markers(body.rstrip(" \t\r"))
    if "superseded" in markers and _is_struck(remaining):
        # the struck part may carry its own until date: "~~2026-09-01 · x · until 2026-09-20~~"
        remaining, inner_markers, _ = _strip_trailing_markers(remaining[2:-2].strip(), exclude=markers)
        markers.update(inner_markers)
    entry = Entry(
        kind="undated",
        lines=[],
        until=markers.get("until"),
        superseded=markers.get("superseded"),
        moved=markers.get("moved"),
        fact=remaining.strip(),
    )
    leading = _LEADING_DATE.match(remaining)
    day = _valid_date(leading.group("day")) if leading else None
    if leading and day is not None and remaining[leading.end() :].strip():
        entry.day = day
        entry.fact = remaining[leading.end() :].strip()
        _read_source(entry)
    if entry.day is not None or entry.superseded is not None:
        entry.kind = "dated"
    return entry


def _is_struck(text: str) -> bool:
    return len(text) > 4 and text.startswith("~~") and text.endswith("~~") and bool(text[2:-2].strip())


def _split_at_separator(text: str) -> tuple[str, str] | None:
    """Split at the first ``·`` with a space or tab on each side; None when there is none."""
    position = text.find("·")
    while position != -1:
        if 0 < position < len(text) - 1 and text[position - 1] in " \t" and text[position + 1] in " \t":
            return text[:position].rstrip(" \t"), text[position + 1 :].lstrip(" \t")
        position = text.find("·", position + 1)
    return None


def _read_source(entry: Entry) -> None:
    parts = _split_at_separator(entry.fact)
    if parts is None or not parts[0].strip() or not parts[1].strip():
        return
    source = _SOURCE.match(parts[0])
    if not source:
        return
    entry.source = source.group("origin") or source.group("learned")
    entry.noticed = source.group("noticed") is not None
    entry.fact = parts[1].strip()


def _strip_trailing_markers(
    text: str, exclude: dict[str, date] | None = None
) -> tuple[str, dict[str, date], dict[str, tuple[int, int]]]:
    """Peel ``· until/superseded/moved DATE`` off the end, each at most once, in any order.

    Returns the rest, the markers found, and each marker's span in ``text``.
    """
    markers: dict[str, date] = {}
    spans: dict[str, tuple[int, int]] = {}
    end = len(text)
    while True:
        position = text.rfind("·", 0, end)
        marker = _MARKER.fullmatch(text, position + 1, end) if position != -1 else None
        if not marker or (position > 0 and text[position - 1] not in " \t"):
            return text[:end], markers, spans
        name = marker.group("name")
        day = _valid_date(marker.group("day"))
        if day is None or name in markers or name in (exclude or {}):
            return text[:end], markers, spans
        start = len(text[:position].rstrip(" \t"))
        markers[name] = day
        spans[name] = (start, end)
        end = start


def _valid_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def format_source(source: str | None) -> str:
    """The source as written in a line: ``chat "X"`` becomes ``from chat "X"``; ``learned by X`` stays."""
    if not source:
        return ""
    if source.startswith(("from ", "learned by ")):
        return source
    return f"from {source}"


def format_dated_entry(
    day: date,
    fact: str,
    source: str | None = None,
    until: date | None = None,
    noticed: bool = False,
) -> str:
    """One dated bullet line without a line ending, e.g.
    ``- 2026-09-25 · from chat "Plans" (noticed) · The person is vegetarian · until 2026-09-28``.

    ``source`` is given as :attr:`Entry.source` holds it (``chat "Plans"``, ``tidy-up``,
    ``learned by Scout``); a leading ``from `` is accepted too. Raises ``ValueError`` when the
    fact is empty or spans lines, or when the line would not read back as the same fields.
    """
    fact = fact.strip()
    source = source.strip() if source else None
    if not fact:
        raise ValueError("A memory entry needs some words to remember.")
    if any(ch in f"{fact}{source or ''}" for ch in "\r\n"):
        raise ValueError("A memory entry is one line; remove the line breaks.")
    parts = [f"- {day.isoformat()}"]
    if source or noticed:
        parts.append(" ".join(part for part in (format_source(source), "(noticed)" if noticed else "") if part))
    parts.append(fact)
    if until is not None:
        parts.append(f"until {until.isoformat()}")
    line = SEPARATOR.join(parts)
    # a fact like "x · until 2026-09-28" would read back as a different entry; refuse it rather than mangle it
    readback = _bullet_entry(line[2:])
    expected_source = source[len("from ") :] if source and source.startswith("from ") else source
    wanted = (day, expected_source, noticed, until, fact, None, None)
    got = (
        readback.day,
        readback.source,
        readback.noticed,
        readback.until,
        readback.fact,
        readback.superseded,
        readback.moved,
    )
    if got != wanted:
        raise ValueError(f"This entry would not read back as written: {line}")
    return line


def mark_moved(entry: Entry, day: date) -> Entry:
    """The entry with ``· moved DATE`` at the end of its bullet line (replacing an earlier one).

    The line ending and the owned lines are kept as they are.
    """
    if not entry.is_bullet:
        raise ValueError(f"Only a bullet can be marked moved, not a {entry.kind} line.")
    first = entry.lines[0]
    content = line_content(first)
    bullet = _BULLET.match(content)
    assert bullet is not None  # is_bullet: the first line matched _BULLET when it was parsed
    body_start = bullet.start("body") if bullet.group("body") is not None else len(content)
    body = content[body_start:].rstrip(" \t\r")
    _, _, spans = _strip_trailing_markers(body)
    if "moved" in spans:
        start, end = spans["moved"]
        body = (body[:start] + body[end:]).rstrip(" \t")
    new_content = f"{content[:body_start]}{body}{SEPARATOR}moved {day.isoformat()}"
    moved_bullet = _BULLET.match(new_content)
    assert moved_bullet is not None  # still the same bullet marker at its start
    moved = _bullet_entry(moved_bullet.group("body") or "")
    return replace(moved, lines=[new_content + line_ending(first), *entry.lines[1:]])


_HEALTH_OR_SAFETY = lazy(
    r"\b(?:"
    r"diet(?:s|ary)?|vegetarian|vegan|pescatarian|halal|kosher|gluten|coeliac|celiac|lactose|dairy[- ]free"
    r"|allerg(?:y|ies|ic)|intoleran(?:t|ce)|anaphyla\w*|epi-?pen|peanuts?|tree nuts?|shellfish"
    r"|(?:does ?n[o'’]t|do not|don[’']t|can ?not|can[’']t|never|won[’']t) eats?"
    r"|health|medical|medicat(?:ion|ions|ed)|medicines?|meds|prescriptions?|dosage|doses?"
    r"|insulin|diabet(?:es|ic)|asthma(?:tic)?|epilep(?:sy|tic)|seizures?|inhaler|blood (?:type|pressure)"
    r"|heart condition|pregnan(?:t|cy)|disabilit(?:y|ies)|disabled|wheelchair|hearing aid|deaf|blind"
    r"|migraines?|chronic|illness|surgery|doctor|physician|therapist|therapy"
    r"|emergency contacts?|in case of (?:an )?emergency|ice contact|next of kin"
    r")\b",
    re.IGNORECASE,
)


def is_health_or_safety(fact: str) -> bool:
    """Whether a fact is about diet, allergies, health needs, medication or emergency contacts.

    The spec keeps these in MEMORY.md always (never moved, never offered for moving); the
    word list errs towards keeping, since a wrongly kept line only costs budget.
    """
    return _HEALTH_OR_SAFETY.search(fact) is not None


_RULE_OPENING = lazy(r"(?:always|never|don['’]t|do not|from now on|every ?time|whenever)(?!\w)", re.IGNORECASE)


def is_person_rule(entry: Entry) -> bool:
    """A rule the person gave (spec: "Memory upkeep", organizing): the fact, after its date and source, opens
    with always, never, don't, from now on, every time or whenever. Never moved, never compacted away."""
    return _RULE_OPENING.match(entry.fact.lstrip("*_ \t")) is not None
