"""The change-set validator: a compaction answer is accepted only when it fits MEMORY.md exactly.

Spec: compact-memory.en.md, "Validation" and "What is deleted or merged"; docs/compact.md, "The rules, and their
numbers". The model decides *what* goes; this module decides whether it may, and applies it by span. Every error
is one sentence numbered by change, written to be sent back to the model for a retry. docs/compact.md gives every
decision (what counts as a removed line, how the keep list matches, why a merge must sit under a `###` heading).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..base.text_checks import text_problem
from ..files.disk import encode, text_hash
from ..files.paths import MEMORY_FILE
from ..journal.changes import StaleHash
from ..memory.entries import Entry, is_health_or_safety, is_person_rule, line_content, parse_entries, split_lines
from ..models.structured import UnusableAnswer, parse_json_answer

CATEGORIES = ("superseded", "detail", "duplicate", "ephemeral", "stale-section", "merge")
REASON_MAX_CHARS = 200  # "one short sentence" (spec: the exact numbers live in the script's constants)
MAX_DELETED_SHARE = 0.5  # a change-set may not delete more than half of the file (spec)
SUBSECTION_LEVEL = 3  # a merge stays inside one `###` subsection (spec)

CHANGESET_SCHEMA = {
    "type": "object",
    "required": ["changes"],
    "properties": {
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["category", "original", "reason"],
                "properties": {
                    "category": {"type": "string", "enum": list(CATEGORIES)},
                    "original": {"type": "string", "minLength": 1},
                    "merged": {"type": "string"},
                    "reason": {"type": "string", "maxLength": REASON_MAX_CHARS},
                },
            },
        }
    },
}

_HEADING_MARKS = re.compile(r"(#{1,6})(?:[ \t]|\Z)")
_BULLET_MARKER = re.compile(r"[-*+][ \t]+")
_SPACES = re.compile(r"\s+")


class FileChangedMeanwhile(StaleHash):
    """MEMORY.md is no longer the text the model read; nothing is applied."""

    def __init__(self, current_text: str) -> None:
        super().__init__(
            MEMORY_FILE,
            current_text,
            text_hash(current_text),
            message=f"{MEMORY_FILE} changed since the model read it; nothing was applied.",
        )


@dataclass(frozen=True)
class Change:
    """One proposed change; `start`/`end` are its span in the file (str indices), -1 until it is found once."""

    category: str
    original: str
    reason: str
    merged: str | None = None
    start: int = -1
    end: int = -1

    @property
    def replacement(self) -> str:
        return self.merged if self.category == "merge" and self.merged is not None else ""

    def to_dict(self) -> dict:
        answer = {"category": self.category, "original": self.original, "reason": self.reason}
        if self.merged is not None:
            answer["merged"] = self.merged
        return answer | {"start": self.start, "end": self.end}


@dataclass(frozen=True)
class Validation:
    changes: list[Change]
    errors: list[str] = field(default_factory=list)
    read_hash: str = ""

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass(frozen=True)
class _Line:
    start: int  # where the line starts in the file
    content_end: int  # where its text ends (before its line ending)
    end: int  # past its line ending
    content: str
    entry: Entry
    first_of_entry: bool
    heading_level: int  # 0 unless the line is a heading
    section: int  # index of the heading (level <= 3) above it, -1 before any
    section_level: int  # that heading's level, 0 before any


# ----- the keep list -----
def keep_lines(keep_text: str) -> list[str]:
    """The lines of memory/keep.md a compaction may never remove: bullets and plain lines, headings ignored."""
    kept = []
    for line in split_lines(keep_text):
        content = line_content(line).strip()
        if not content or _HEADING_MARKS.match(content) or content.startswith(("```", "~~~", "---")):
            continue
        bullet = parse_entries(content)[0]
        text = bullet.fact if bullet.is_bullet and bullet.fact else _BULLET_MARKER.sub("", content, count=1)
        if text.strip():
            kept.append(text.strip())
    return kept


# ----- reading the answer -----
def read_changes(answer: object) -> tuple[list[Change], list[str]]:
    """The model's answer (its text, or the JSON already read) as changes, with a sentence per shape error."""
    if isinstance(answer, str):
        try:
            answer = parse_json_answer(answer, CHANGESET_SCHEMA)
        except UnusableAnswer as exc:
            return [], [unusable_answer_error(str(exc))]
    if not isinstance(answer, dict) or not isinstance(answer.get("changes"), list):
        return [], ['The answer must be one JSON object with a list under "changes".']
    changes, errors = [], []
    for number, item in enumerate(answer["changes"], 1):
        if not isinstance(item, dict):
            errors.append(f"Change {number} is not a JSON object.")
            continue
        missing = [name for name in ("category", "original", "reason") if not isinstance(item.get(name), str)]
        if "merged" in item and item["merged"] is not None and not isinstance(item["merged"], str):
            missing.append("merged")
        if missing:
            errors.append(f"Change {number} lacks {', '.join(repr(name) for name in missing)} as text.")
            continue
        changes.append(
            Change(
                category=item["category"], original=item["original"], reason=item["reason"], merged=item.get("merged")
            )
        )
    return changes, errors


def unusable_answer_error(why: str) -> str:
    """The error for an answer that cannot be read at all, from the phrase that says why."""
    return f'{why[:1].upper()}{why[1:]}; answer with one JSON object {{"changes": [...]}} and nothing else.'


# ----- validating -----
def validate(text: str, answer: object, *, keep_lines: list[str], read_hash: str) -> Validation:
    """Check a change-set against `text` (MEMORY.md as it is now); `read_hash` is the sha256 the model read."""
    changes, errors = read_changes(answer)
    if text_hash(text) != read_hash:
        errors.insert(0, f"{MEMORY_FILE} changed since it was read, so none of these changes can be applied.")
    lines = _index_lines(text)
    keep = [_normal(item) for item in keep_lines if _normal(item)]
    located: list[Change] = []
    for number, change in enumerate(changes, 1):
        change, problems = _check_change(text, change, lines, keep)
        errors.extend(f"Change {number}: {problem}" for problem in problems)
        located.append(change)
    errors.extend(_overlaps(located))
    errors.extend(_too_much_deleted(text, located))
    return Validation(changes=located, errors=errors, read_hash=read_hash)


def _check_change(text: str, change: Change, lines: list[_Line], keep: list[str]) -> tuple[Change, list[str]]:
    problems = []
    if change.category not in CATEGORIES:
        problems.append(f"the category {change.category!r} is not one of {', '.join(CATEGORIES)}.")
    if change.category == "merge" and change.merged is None:
        problems.append('a merge must give the "merged" text that replaces its original.')
    if change.category != "merge" and change.merged is not None:
        problems.append(f'only a merge gives "merged"; a {change.category} change deletes its original.')
    # The model's own words are written (the journal's note, the clean log, the report, MEMORY.md): each must be
    # text that may be kept. The original is the file's own text, checked against it below.
    problems += [
        f"{problem}."
        for problem in (text_problem(change.reason, "the reason"), text_problem(change.merged or "", "the merged text"))
        if problem
    ]
    if not change.reason.strip() or "\n" in change.reason or "\r" in change.reason:
        problems.append("the reason must be one short sentence on one line.")
    elif len(change.reason) > REASON_MAX_CHARS:
        problems.append(f"the reason is {len(change.reason)} characters; keep it to {REASON_MAX_CHARS} or fewer.")
    if change.merged is not None and len(change.merged) >= len(change.original):
        problems.append("the merged text must be shorter than the original it replaces.")
    starts = _occurrences(text, change.original) if change.original else []
    if len(starts) != 1:
        found = "is not in the file" if not starts else f"occurs {len(starts)} times in the file"
        problems.append(f"the original {found}; copy one block character for character so it occurs exactly once.")
        return change, problems
    change = Change(
        change.category,
        change.original,
        change.reason,
        change.merged,
        start=starts[0],
        end=starts[0] + len(change.original),
    )
    touched = [line for line in lines if line.start < change.end and change.start < line.end]
    if change.category == "merge":
        problems.extend(_subsection_problems(change, touched))
    problems.extend(_protected_problems(change, touched, keep))
    return change, problems


def _occurrences(text: str, block: str) -> list[int]:
    """Every start of `block` in `text`, overlapping ones included (stops at two: once is all that is allowed)."""
    starts: list[int] = []
    at = text.find(block)
    while at != -1 and len(starts) < 2:
        starts.append(at)
        at = text.find(block, at + 1)
    return starts


def _subsection_problems(change: Change, touched: list[_Line]) -> list[str]:
    if any(line.heading_level and _content_touched(line, change) for line in touched):
        return ["a merge may not include a heading line; merge bullets within one ### subsection."]
    if len({line.section for line in touched}) > 1 or touched[0].section_level != SUBSECTION_LEVEL:
        return ["a merge must stay inside one ### subsection."]
    return []


def _protected_problems(change: Change, touched: list[_Line], keep: list[str]) -> list[str]:
    """A keep-list, health or rule line touched by the change, unless a merge carries its text over unchanged."""
    merged = _normal(change.replacement)
    for line in touched:
        if not _content_touched(line, change):
            continue
        said = line.entry.fact if line.first_of_entry and line.entry.is_bullet else line.content.strip()
        if said and _normal(said) in merged:
            continue
        quoted = _shorten(line.content.strip())
        if any(item in _normal(line.content) for item in keep):
            return [f"the line {quoted} is on the keep list and may not be removed or rewritten."]
        if is_health_or_safety(line.content):
            return [f"the line {quoted} is about health, diet or allergies and may not be removed or rewritten."]
        if line.first_of_entry and line.entry.is_bullet and is_person_rule(line.entry):
            return [f"the line {quoted} is a rule the person gave and may not be removed or rewritten."]
    return []


def _overlaps(changes: list[Change]) -> list[str]:
    numbered = sorted((c.start, c.end, number) for number, c in enumerate(changes, 1) if c.start >= 0)
    found: list[tuple[int, str]] = []  # (the change the error is about, the error): said in the changes' order
    reach, reacher = -1, 0  # the furthest end seen so far, and whose it is
    for start, end, number in numbered:
        if start < reach:
            low, high = sorted((reacher, number))
            found.append(
                (high, f"Change {high}: its original overlaps the original of change {low}; no two may overlap.")
            )
        if end > reach:
            reach, reacher = end, number
    return [error for _, error in sorted(found)]


def _too_much_deleted(text: str, changes: list[Change]) -> list[str]:
    total = len(encode(text))
    deleted = sum(len(encode(c.original)) - len(encode(c.replacement)) for c in changes if c.start >= 0)
    if total and deleted > total * MAX_DELETED_SHARE:
        return [f"The change-set deletes {deleted} of the file's {total} bytes, more than half; propose less."]
    return []


def _content_touched(line: _Line, change: Change) -> bool:
    return line.start < change.end and change.start < line.content_end


def _index_lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    at, section, section_level = 0, -1, 0
    for entry in parse_entries(text):
        for position, raw in enumerate(entry.lines):
            content = line_content(raw)
            marks = _HEADING_MARKS.match(content) if entry.kind == "heading" else None
            level = len(marks.group(1)) if marks else 0
            if level and level <= SUBSECTION_LEVEL:
                section, section_level = len(lines), level
            lines.append(
                _Line(
                    at, at + len(content), at + len(raw), content, entry, position == 0, level, section, section_level
                )
            )
            at += len(raw)
    return lines


def _normal(text: str) -> str:
    """Case and runs of whitespace ignored, so a keep line matches however the file spaces it."""
    return _SPACES.sub(" ", text).strip().casefold()


def _shorten(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


# ----- applying -----
def check_unchanged(text: str, read_hash: str) -> None:
    """Refuse when `text` is not the file the model read (its sha256 differs)."""
    if text_hash(text) != read_hash:
        raise FileChangedMeanwhile(text)


def apply_changes(text: str, changes: list[Change]) -> str:
    """`text` with each validated change applied, from the end so earlier spans stay where they were found."""
    for change in sorted(changes, key=lambda c: c.start, reverse=True):
        if change.start < 0 or text[change.start : change.end] != change.original:
            raise FileChangedMeanwhile(text)  # a span that no longer holds its original: never cut blind
        text = text[: change.start] + change.replacement + text[change.end :]
    return text


def apply_validation(text: str, validation: Validation) -> str:
    """Apply an accepted change-set to the current text, refusing when the file changed since the model read it."""
    if not validation.ok:
        raise ValueError("a change-set that did not validate is never applied")
    check_unchanged(text, validation.read_hash)
    return apply_changes(text, validation.changes)
