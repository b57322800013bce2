"""Filtering the journal: the filter syntax, what a row must hold to match, and a fast read of the fields it needs.

Spec: memory.md, "The journal" (filters by file, who and day). The app's filter box and `omb-tui journal
--filter` read the same syntax (FILTER_SYNTAX); the command line adds `--since`. A 100,000-row journal is
filtered without parsing every row: `summarize` reads only the fields a filter looks at, straight from the
line's bytes, and only the rows that match are parsed.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, date, datetime, timedelta
from itertools import islice
from typing import NamedTuple

from ..base import clock
from .journal import Journal, JournalRow, decode_line
from .reader import CHUNK
from .when import RELATIVE_DAYS, local_time, parse_day

FILTER_FIELDS = ("file", "who", "how", "chat", "day")
FILTER_SYNTAX = (
    "Plain words must each appear in the file, who, how or chat. "
    "file:NAME, who:NAME (bot, person, import, upkeep), how:WORD (task, Settings, outside, undo), "
    "chat:NAME and day:YYYY-MM-DD (or day:YYYY-MM, day:today, day:yesterday) narrow it; "
    'quote values with spaces: chat:"Follow up". Case does not matter.'
)


class RowSummary(NamedTuple):
    """The fields a filter looks at, read from a line without building the whole row."""

    at: str
    who: str
    how: str
    file: str
    chat: str


# ----- reading the summary fast ------------------------------------------------------------------

_STRING_INSIDE = rb'[^"\\]*(?:\\.[^"\\]*)*'  # a JSON string's inside, unrolled so re stays fast
_SKIP_VALUE = {
    "str": b'"' + _STRING_INSIDE + b'"',
    "str | None": b'(?:null|"' + _STRING_INSIDE + b'")',
    "bool": b"(?:true|false)",
}
_HEAD_FIELDS = ("at", "who", "how", "file")  # the summary's fields that sit at the start of a row
_CHAT_VALUE = re.compile(rb'\s*(?:null|"(' + _STRING_INSIDE + rb')")')


def _head_pattern() -> tuple[re.Pattern[bytes], bool]:
    """The start of a line as JournalRow.to_line writes it, up to the last of _HEAD_FIELDS, capturing those;
    and whether the chat comes after them (so it can be looked for from the line's end).

    Built from JournalRow's own fields, so reordering or adding a field changes the pattern with it.
    """
    row_fields = fields(JournalRow)
    names = [spec.name for spec in row_fields]
    last = max(names.index(name) for name in _HEAD_FIELDS)
    parts = []
    for spec in row_fields[: last + 1]:
        name = spec.name.encode()
        value = (
            b'"(?P<' + name + b">" + _STRING_INSIDE + b')"'
            if spec.name in _HEAD_FIELDS
            else _SKIP_VALUE[str(spec.type)]
        )
        parts.append(b'"' + name + b'":' + value)
    return re.compile(rb"\s*\{" + b",".join(parts)), names.index("chat") > last


_HEAD, _CHAT_AFTER_HEAD = _head_pattern()


def _unescape(raw: bytes) -> str:
    if b"\\" in raw:
        return json.loads(b'"' + raw + b'"')
    return raw.decode("utf-8", "surrogateescape")


def summarize(data: bytes, start: int = 0, stop: int | None = None, *, chat: bool = True) -> RowSummary | None:
    """The filterable fields of the line data[start:stop], or None when it is damaged.

    Rows written by the core have a fixed key order, so the head is matched directly; `,"chat":` can
    only occur as a key because inside a JSON string every quote is escaped. Anything else falls back
    to parsing the whole line. Without `chat` the chat is not looked for (it sits at the line's end).
    """
    stop = len(data) if stop is None else stop
    head = _HEAD.match(data, start, stop) if _CHAT_AFTER_HEAD or not chat else None
    if head is not None:
        try:
            chat_text = ""
            key = data.rfind(b',"chat":', head.end(), stop) if chat else -1
            if key != -1:
                value = _CHAT_VALUE.match(data, key + 8, stop)
                if value is None:
                    raise ValueError("chat")
                if value.group(1) is not None:
                    chat_text = _unescape(value.group(1))
            at, who, how, file = (
                part.decode("utf-8", "surrogateescape") if b"\\" not in part else _unescape(part)
                for part in head.group(*_HEAD_FIELDS)
            )
            return RowSummary(at, who, how, file, chat_text)
        except ValueError:
            pass
    row = decode_line(data[start:stop])
    if not isinstance(row, JournalRow):
        return None
    return RowSummary(row.at, row.who, row.how, row.file, row.chat if isinstance(row.chat, str) else "")


# ----- the filter --------------------------------------------------------------------------------


@dataclass(frozen=True)
class JournalFilter:
    """What the filter box says: every term must match (see FILTER_SYNTAX)."""

    text: str = field(default="", compare=False)
    words: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    # day:YYYY[-MM[-DD]] as a range of UTC times "YYYY-MM-DDTHH:MM:SS.fff", so rows compare as text
    day_range: tuple[str, str] | None = field(default=None, compare=False)
    since: datetime | None = None  # only rows written at this time or later (the command line's --since)
    since_text: str = field(default="", compare=False, repr=False)  # `since` in the UTC form rows are written in

    @classmethod
    def parse(cls, text: str) -> JournalFilter:
        words: list[str] = []
        fields: list[tuple[str, str]] = []
        for token in _split(text):
            name, colon, value = token.partition(":")
            name = name.lower()
            if colon and name in FILTER_FIELDS:
                if value:
                    fields.append((name, _day_value(value) if name == "day" else value.casefold()))
            elif token:
                words.append(token.casefold())
        days = [value for name, value in fields if name == "day"]
        day_range = _utc_range(days[0]) if len(days) == 1 else None
        return cls(text.strip(), tuple(words), tuple(fields), day_range)

    def with_since(self, since: datetime | None) -> JournalFilter:
        """The same filter, keeping only rows written at `since` or later (an aware time; None: any time)."""
        return replace(self, since=since, since_text=_utc_text_rounded_up(since) if since is not None else "")

    @property
    def empty(self) -> bool:
        return not self.words and not self.fields and self.since is None

    @property
    def problem(self) -> str | None:
        """Why the filter can match nothing whatever the journal holds (a day that is no date), or None.

        The start of a date as it is typed (day:2026-1) is no problem: the filter box filters while typing.
        """
        return self._day_problem(_could_be_a_day)

    @property
    def problem_when_complete(self) -> str | None:
        """Like `problem`, for a filter given whole (the command line): half a date is not a date either."""
        return self._day_problem(lambda value: _utc_range(value) is not None)

    def _day_problem(self, is_a_day: Callable[[str], bool]) -> str | None:
        for name, value in self.fields:
            if name == "day" and not is_a_day(value):
                return f"day:{value} is not a date: use YYYY-MM-DD, YYYY-MM, YYYY, today or yesterday."
        return None

    @property
    def needs_chat(self) -> bool:
        return bool(self.words) or any(name == "chat" for name, _ in self.fields)

    def matches_line(self, data: bytes, start: int, stop: int, *, chat: bool = True) -> bool:
        """Whether the line data[start:stop] matches; pass chat=self.needs_chat when scanning many."""
        return self.matches(summarize(data, start, stop, chat=chat))

    def matches(self, summary: RowSummary | None) -> bool:
        if self.empty:
            return True
        if summary is None:
            return False
        days = []
        for name, value in self.fields:
            if name == "day":
                days.append(value)
            elif value not in getattr(summary, name).casefold():
                return False
        if self.words:
            seen = " ".join((summary.file, summary.who, summary.how, summary.chat)).casefold()
            if any(word not in seen for word in self.words):
                return False
        if self.since is not None and not self._written_since(summary.at):
            return False
        if days:
            at = summary.at
            if self.day_range is not None and len(at) == 29 and at.endswith("+00:00"):
                return self.day_range[0] <= at[:23] < self.day_range[1]
            moment = local_time(at)
            day = moment.strftime("%Y-%m-%d") if moment else str(at)[:10]
            return all(day.startswith(wanted) for wanted in days)
        return True

    def _written_since(self, at: str) -> bool:
        if len(at) == 29 and at.endswith("+00:00"):  # as the core writes it: compare as text
            return at[:23] >= self.since_text
        moment = local_time(at)
        return moment is not None and self.since is not None and moment.astimezone() >= self.since

    def rows(self, journal: Journal, limit: int | None = None) -> list[JournalRow]:
        """The journal's rows that match, newest first, at most `limit`."""
        return list(islice(self.iter_rows(journal), limit))

    def iter_rows(self, journal: Journal) -> Iterator[JournalRow]:
        """Rows that match, newest first. Only matching lines are parsed whole; a damaged line is skipped and
        named once in the log, as wherever rows are read."""
        if self.empty:
            yield from journal.iter_newest_first()
            return
        chat = self.needs_chat
        for _, block, start, stop in journal.lines_newest_first(CHUNK):
            summary = summarize(block, start, stop, chat=chat)
            if summary is None:
                journal.decode(block[start:stop])  # damaged: named in the log
            elif self.matches(summary):
                row = journal.decode(block[start:stop])
                if row is not None:
                    yield row


def _utc_text_rounded_up(moment: datetime) -> str:
    """An aware time as rows write it (UTC, to the millisecond), rounded up so `at >= text` is `at >= moment`."""
    utc = moment.astimezone(UTC)
    if utc.microsecond % 1000:
        utc += timedelta(microseconds=1000 - utc.microsecond % 1000)
    return utc.isoformat(timespec="milliseconds")[:23]


def _could_be_a_day(value: str) -> bool:
    """A whole date, or the start of one as it is typed (2026, 2026-1, 2026-11-0); not 2026-13 or 2026-02-30."""
    if re.fullmatch(r"\d{1,3}", value):
        return True
    match = re.fullmatch(r"(\d{4})(?:-(\d{0,2})(?:-(\d{0,2}))?)?", value)
    if match is None:
        return False
    month, day = match.group(2) or "", match.group(3) or ""
    if len(month) == 1:
        return month in "01"
    if len(month) == 2 and not 1 <= int(month) <= 12:
        return False
    if len(day) == 1:
        return day in "0123"
    if len(day) == 2:
        try:
            date(int(match.group(1)), int(month), int(day))
        except ValueError:
            return False
    return True


def _utc_range(day: str) -> tuple[str, str] | None:
    """Local YYYY, YYYY-MM or YYYY-MM-DD as [start, end) in the UTC form the core writes; else None."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
            first = datetime.strptime(day, "%Y-%m-%d")
            after = first + timedelta(days=1)
        elif re.fullmatch(r"\d{4}-\d{2}", day):
            first = datetime.strptime(day, "%Y-%m")
            after = first.replace(year=first.year + first.month // 12, month=first.month % 12 + 1)
        elif re.fullmatch(r"\d{4}", day):
            first = datetime.strptime(day, "%Y")
            after = first.replace(year=first.year + 1)
        else:
            return None
        utc = [moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000") for moment in (first, after)]
    except (ValueError, OverflowError, OSError):
        return None
    return utc[0], utc[1]


def _split(text: str) -> list[str]:
    """Words, with quoted values kept whole; a quote still open while typing counts as closed."""
    for ending in ("", '"', "'"):
        try:
            return shlex.split(text + ending)
        except ValueError:
            continue
    return text.replace('"', " ").replace("'", " ").split()


def _day_value(value: str) -> str:
    """day:today and day:yesterday as dates; anything else as typed (it may be a month, or half a date)."""
    value = value.casefold()
    if value in RELATIVE_DAYS:
        return parse_day(value, today=clock.today()).isoformat()
    return value
