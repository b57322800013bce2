"""The journal: one ndjson row per change to a memory file, kept outside the workspace.

Spec: memory.md, "The journal". Each row says who, how, which file, when, the hashes before and after,
a short diff and the full earlier text, so undo can put the file back with nothing else. Rows whose
earlier text held a credential (the stored copy is redacted) or was too large to keep cannot be undone
and say why. Reading is newest first from the end of the file, so a 100,000-row journal pages quickly.

Every row is valid UTF-8 JSON: a byte of a memory file that is not UTF-8 is kept as its escape (\\udcff),
and reads back as the same byte. Every field of a row read back is checked; a damaged line is skipped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import MISSING, asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..base.clock import now_utc, real_time_ns
from ..files.disk import utf8_json, write_all
from ..files.paths import quoted, refuse_links
from .reader import FIRST_CHUNK, lines_backward

log = logging.getLogger("omb_tui.journal")

# Earlier texts above this are not kept; their rows cannot be undone.
JOURNAL_MAX_EARLIER_BYTES = 1024 * 1024
SHORT_DIFF_MAX_LINES = 40
SHORT_DIFF_MAX_CHARS = 4000

# who
WHO_BOT = "bot"
WHO_PERSON = "person"
WHO_IMPORT = "import"
WHO_UPKEEP = "Memory upkeep"
# how
HOW_SETTINGS = "in Settings"
HOW_TASK = "during a task"
HOW_OUTSIDE = "changed outside the app"
HOW_UNDO = "undo"
HOW_UPKEEP = "upkeep step"
HOW_COMMAND_LINE = "command line"
HOW_API = "from the API"  # `omb-tui serve`: a bot harness or a web panel on the same server

REASON_CREDENTIAL = "its earlier text held a credential, and the kept copy is redacted"
REASON_NOT_KEPT = "its earlier text was not kept"
REASON_TOO_LARGE = f"its earlier text was larger than {JOURNAL_MAX_EARLIER_BYTES // 1024} KB and was not kept"


@dataclass
class JournalRow:
    id: str
    at: str  # ISO 8601, UTC
    bot: str
    who: str
    how: str
    file: str  # workspace-relative (or about-me.md for the home's About me)
    before_hash: str | None  # None: the file did not exist
    after_hash: str | None  # None: the file was deleted
    diff: str
    before_text: str | None  # full earlier text (redacted); None when it did not exist or was too large
    undoable: bool
    not_undoable_reason: str | None = None
    chat: str | None = None
    undo_of: str | None = None
    step: str | None = None
    note: str | None = None
    run: str | None = None  # the upkeep run that made it: every row of one run carries the same id
    person: str | None = None  # who = person: the Team Cloud person who wrote it themselves (absent: the owner)

    def to_line(self) -> str:
        """The row as one JSONL line of the journal (compact, no trailing newline)."""
        return utf8_json(asdict(self), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: object) -> JournalRow:
        """A row from a parsed journal line, every field checked; ValueError says which one is wrong.

        Keys this version does not know are ignored (a newer version may add some).
        """
        if not isinstance(data, dict):
            raise ValueError("it is not a JSON object")
        values: dict[str, Any] = {}  # each value is checked against its field's type below
        for spec in fields(cls):
            if spec.name not in data:
                if spec.default is MISSING:
                    raise ValueError(f"it has no '{spec.name}'")
                continue
            value, annotation = data[spec.name], str(spec.type)  # its text: this module postpones annotations
            if not isinstance(value, _FIELD_TYPES[annotation]):
                raise ValueError(f"its '{spec.name}' is not {_FIELD_TYPE_WORDS[annotation]}")
            values[spec.name] = value
        if not values["id"]:
            raise ValueError("its 'id' is empty")
        try:
            datetime.fromisoformat(values["at"])
        except ValueError:
            raise ValueError(f"its time {values['at'][:40]!r} is not an ISO time") from None
        return cls(**values)

    def summary(self) -> dict:
        """The row without its earlier text: what listings show."""
        data = asdict(self)
        data.pop("before_text")
        return data


def row_writer(row: JournalRow) -> str:
    """Who the row says wrote it, as a listing names them: a Team Cloud person by their name, else `who`."""
    return row.person if row.who == WHO_PERSON and row.person else row.who


EMPTY_TEXT_HASH = hashlib.sha256(b"").hexdigest()  # the after_hash of a file left empty
RENAME_NOTES = ("renamed from ", "renamed to ")  # the notes of a rename's two rows (MemoryStore.rename_topic)


def row_action(row: JournalRow) -> str:
    """What the row did to its file: created, edited, emptied, deleted, or "renamed from/to <file>".

    Derived from the row as written (its hashes and a rename's note), so rows of every version say it.
    """
    if row.note and row.note.startswith(RENAME_NOTES):
        return row.note
    if row.before_hash is None:
        return "created"
    if row.after_hash is None:
        return "deleted"
    if row.after_hash == EMPTY_TEXT_HASH:
        return "emptied"
    return "edited"


# The types JournalRow's annotations name (they are strings: `from __future__ import annotations`).
_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {"str": str, "str | None": (str, type(None)), "bool": bool}
_FIELD_TYPE_WORDS = {"str": "text", "str | None": "text or null", "bool": "true or false"}


def parse_row(raw: bytes) -> JournalRow:
    """One journal line as a row; ValueError (saying what is wrong) for a damaged line.

    Lines written before rows were valid UTF-8 held raw bytes: surrogateescape still reads them.
    """
    try:
        data = json.loads(raw.decode("utf-8", "surrogateescape"))
    except ValueError:
        raise ValueError("it is not JSON") from None
    return JournalRow.from_dict(data)


@dataclass(frozen=True)
class DamagedLine:
    """A journal line that is not a readable row: shown as damaged, never undone."""

    offset: int
    size: int
    error: str


def decode_line(data: bytes, offset: int = 0) -> JournalRow | DamagedLine:
    """The row on one journal line (starting at byte `offset`), or a DamagedLine saying what is wrong with it."""
    try:
        return parse_row(data)
    except ValueError as exc:
        return DamagedLine(offset, len(data), str(exc) or exc.__class__.__name__)


_id_lock = threading.Lock()
_last_id = 0


def new_row_id() -> str:
    """Sortable and unique within this process: microseconds since the epoch, never repeated."""
    global _last_id
    with _id_lock:
        now = real_time_ns() // 1000  # an id, not a time people read: the machine's clock
        _last_id = max(now, _last_id + 1)
        return f"{_last_id:x}-{os.getpid() % 0xFFFF:04x}"


# Where a row's time comes from: None is the real time; the demo passes one that tells its simulated past.
Clock = Callable[[], datetime]


def now_iso(clock: Clock | None = None) -> str:
    """A row's `at`: now (or the clock's time) in UTC, to the millisecond. A naive clock time is local time."""
    moment = now_utc() if clock is None else clock().astimezone(UTC)
    return moment.isoformat(timespec="milliseconds")


def short_diff(before: str, after: str, file: str) -> str:
    """A unified diff cut to a readable size; the full earlier text is kept separately."""
    import difflib  # here: most processes that import the journal write no diff

    lines = list(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{file}",
            tofile=f"b/{file}",
            n=1,
        )
    )
    out = []
    size = 0
    for i, line in enumerate(lines):
        if i >= SHORT_DIFF_MAX_LINES or size + len(line) > SHORT_DIFF_MAX_CHARS:
            out.append(f"… {len(lines) - i} more diff lines\n")
            break
        if not line.endswith("\n"):
            line += "\n"
        out.append(line)
        size += len(line)
    return "".join(out)


def make_row(
    *,
    bot: str,
    who: str,
    how: str,
    file: str,
    before_text: str | None,
    after_text: str | None,
    before_hash: str | None,
    after_hash: str | None,
    before_had_credential: bool = False,
    not_kept_reason: str | None = None,
    chat: str | None = None,
    undo_of: str | None = None,
    step: str | None = None,
    note: str | None = None,
    run: str | None = None,
    person: str | None = None,
    clock: Clock | None = None,
) -> JournalRow:
    """Build a row; every text it keeps passes through redaction first (a reason in `note`, a chat's name, a
    step), the earlier text and the diff included. Its time is `clock`'s (default: now)."""
    from ..redaction.data import redact_data
    from ..redaction.redact import redact

    undoable, reason = True, None
    kept = None
    if before_text is not None:
        redaction = redact(before_text)
        kept = redaction.text
        before_had_credential = before_had_credential or redaction.changed
    if before_had_credential:
        undoable, reason = False, REASON_CREDENTIAL
    if kept is not None and len(kept.encode("utf-8", "surrogateescape")) > JOURNAL_MAX_EARLIER_BYTES:
        undoable, reason, kept = False, REASON_TOO_LARGE, None
    elif before_hash is not None and kept is None and undoable:
        undoable, reason = False, not_kept_reason or REASON_NOT_KEPT
    texts = redact_data(
        {
            "bot": bot,
            "who": who,
            "how": how,
            "file": file,
            "chat": chat,
            "undo_of": undo_of,
            "step": step,
            "note": note,
            "run": run,
            "person": person,
        }
    )
    return JournalRow(
        id=new_row_id(),
        at=now_iso(clock),
        before_hash=before_hash,
        after_hash=after_hash,
        diff=redact(short_diff(before_text or "", after_text or "", file)).text,
        before_text=kept,
        undoable=undoable,
        not_undoable_reason=reason,
        **texts,
    )


class Journal:
    """Append and read one bot's journal file. Append failures are logged, never raised.

    A damaged line (not JSON, not an object, a field of the wrong type) is skipped wherever rows are read,
    and named once in the log.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._damaged: set[int] = set()  # hashes of the damaged lines already named

    def append(self, row: JournalRow) -> int:
        """Append the row whole and durably, or not at all: the OSError (a full disk, a read-only home) leaves
        the journal as it was. Returns the byte offset the row starts at, for `take_back`. Call under the bot's
        lock: the rows of one bot are written one at a time, so a torn tail is a dead writer's, and taken away."""
        return append_line(self.path, (row.to_line() + "\n").encode("utf-8"), whole_or_nothing=True)

    def take_back(self, offset: int) -> None:
        """Remove the rows from byte `offset` on: the change they claim was not made (its file could not be
        replaced). Under the bot's lock, right after `append` returned that offset."""
        fd = os.open(self.path, os.O_WRONLY | os.O_NOFOLLOW)
        try:
            os.ftruncate(fd, offset)
            os.fsync(fd)
        finally:
            os.close(fd)

    def last_line(self) -> tuple[int, bytes] | None:
        """The newest line and the offset it starts at (a torn one included); None for an empty journal."""
        for offset, block, start, stop in self.lines_newest_first():
            return offset, block[start:stop]
        return None

    def lines_newest_first(self, chunk_size: int = FIRST_CHUNK) -> Iterator[tuple[int, bytes, int, int]]:
        """(offset, block, start, stop) for each line, newest first: the line is block[start:stop] (not yet
        parsed), starting at byte `offset` of the file. A torn last line is the newest line."""
        try:
            handle = open(self.path, "rb")
        except FileNotFoundError:
            return
        with handle:
            yield from lines_backward(
                handle, os.fstat(handle.fileno()).st_size, first_chunk=chunk_size, chunk=chunk_size
            )

    def iter_raw_newest_first(self, chunk_size: int = FIRST_CHUNK) -> Iterator[bytes]:
        """The journal's lines, newest first, as bytes (not yet parsed)."""
        for _, block, start, stop in self.lines_newest_first(chunk_size):
            yield block[start:stop]

    def iter_newest_first(self, chunk_size: int = FIRST_CHUNK) -> Iterator[JournalRow]:
        """Rows from the end of the file backwards; a damaged line is skipped and named once."""
        for raw in self.iter_raw_newest_first(chunk_size):
            row = self.decode(raw)
            if row is not None:
                yield row

    def rows(self, limit: int | None = None) -> list[JournalRow]:
        out = []
        for row in self.iter_newest_first():
            out.append(row)
            if limit is not None and len(out) >= limit:
                break
        return out

    def find(self, row_id: str) -> JournalRow | None:
        needle = field_bytes("id", row_id)
        for raw in self.iter_raw_newest_first():
            if needle in raw:  # parse only the line that can be it: fast on a 100,000-row journal
                row = self.decode(raw)
                if row is not None and row.id == row_id:
                    return row
        return None

    def newest_for_file(self, file: str) -> JournalRow | None:
        """The newest row that changed `file`: who made the file as it is (the save conflict names them)."""
        same_file = field_bytes("file", file)
        for raw in self.iter_raw_newest_first():
            if same_file in raw:  # parse only the lines that can be it
                row = self.decode(raw)
                if row is not None and row.file == file:
                    return row
        return None

    def later_rows_for_file(self, row: JournalRow) -> list[JournalRow]:
        """Rows written after `row` that changed the same file, newest first."""
        own_id, same_file = field_bytes("id", row.id), field_bytes("file", row.file)
        later: list[JournalRow] = []
        for raw in self.iter_raw_newest_first():
            if own_id in raw:
                parsed = self.decode(raw)
                if parsed is not None and parsed.id == row.id:
                    return later
            if same_file in raw:
                other = self.decode(raw)
                if other is not None and other.file == row.file and other.id != row.id:
                    later.append(other)
        return later

    def decode(self, raw: bytes) -> JournalRow | None:
        """The row on one line; None for a blank line, or a damaged one (named in the log once)."""
        raw = raw.strip()
        if not raw:
            return None
        row = decode_line(raw)
        if isinstance(row, DamagedLine):
            key = hash(raw)
            if key not in self._damaged:
                self._damaged.add(key)
                start = raw[:40].decode("utf-8", "replace")
                log.warning("skipped a damaged line in %s (it starts %r): %s.", quoted(self.path), start, row.error)
            return None
        return row


def field_bytes(name: str, value: str) -> bytes:
    """How a field appears in a row written by JournalRow.to_line (compact separators, no ASCII escaping)."""
    return f'"{name}":{utf8_json(value)}'.encode()


def append_line(path: Path, line: bytes, *, whole_or_nothing: bool = False) -> int:
    """Append one whole line to an ndjson file of the project's (the journal, usage): fsynced, 0600, never
    through a link; returns the offset it starts at. After a crash mid-append, the torn line is ended first.

    `whole_or_nothing` (the journal, under its bot's lock): a line the disk refuses part way (full, or an fsync
    that fails) is cut off again, so the file holds it whole or not at all, and a torn tail left by a writer that
    died mid-append is taken away rather than kept as a damaged row (its change was never made: the store writes
    a file only after its row)."""
    refuse_links(path)  # the file, its folder, and every folder up to the home
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        start = os.fstat(fd).st_size
        if start > 0 and os.pread(fd, 1, start - 1) != b"\n":
            tail = _torn_tail_start(fd, start) if whole_or_nothing else start
            if tail < start and isinstance(decode_line(os.pread(fd, start - tail, tail)), DamagedLine):
                os.ftruncate(fd, tail)
                start = tail
            else:  # a whole row that only lacks its newline (written by hand), or a file kept as written
                line = b"\n" + line
        try:
            write_all(fd, line)
            os.fsync(fd)
        except BaseException:
            if whole_or_nothing:
                os.ftruncate(fd, start)  # frees what landed: it works on a full disk
            raise
        return start
    finally:
        os.close(fd)


def _torn_tail_start(fd: int, size: int) -> int:
    """Where the last, unended line of a file starts: just after its last newline (0 when it has none)."""
    chunk = 1 << 16
    end = size
    while end > 0:
        begin = max(0, end - chunk)
        newline = os.pread(fd, end - begin, begin).rfind(b"\n")
        if newline >= 0:
            return begin + newline + 1
        end = begin
    return 0
