"""Compaction's own files outside the workspace: backups of MEMORY.md, the clean log, the attempts log; retention.

Spec: compact-memory.en.md ("Paths", step 5 of "The nightly run"). docs/compact-nightly.md, "Backups,
logs, report, sinks", gives the decisions. Layout, under `<home>/compact/<botId>/` (outside the workspace, so the
bot's file tools cannot rewrite them; folders 0700, files 0600, every text redacted, nothing through a link):

    backup/<YYYY-MM-DD_HHMM>_memory.backup.md    MEMORY.md before a nightly rewrite (local time; a second one in
                                                  the same minute is <YYYY-MM-DD_HHMM>-2_memory.backup.md, …)
    memory-clean.log                              one line per applied change
    attempts.log                                  each attempt: the model's answer (capped), the validator's errors
    pending.json                                  propose-only change-sets (written by compact.pending)

Public:
    compact_files(home, bot_id) -> CompactFiles (folder, backup_dir, clean_log, attempts_log, pending)
    backup_memory(home, bot_id, text, now=None) -> Path          writes a backup, then prunes old ones
    prune_backups(home, bot_id, now=None) -> list[Path]          the retention rule; the removed files
    clean_log_lines(run_id, changes, now=None) -> list[str]      the lines for memory-clean.log (no I/O)
    append_clean_log(home, bot_id, lines) -> None
    append_attempt(home, bot_id, run_id, attempt_no, answer_text, errors, now=None) -> None

Retention: backups from the last BACKUP_KEEP_DAYS days stay, and the newest BACKUP_KEEP_NEWEST always stay
(whatever their age); a log that would pass its cap is renamed to `<name>.1` (replacing the older `.1`) and a
new one started. `now` is a datetime: aware, or naive meaning local time (as the journal's clock).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from ..base import clock
from ..files.disk import encode, fsync_dir, make_private_dirs, private_temp
from ..files.paths import Home, MemoryInputError, quoted, refuse_links, validate_bot_id
from ..journal.journal import append_line, utf8_json
from ..redaction.data import redact_answer, redact_message
from ..redaction.redact import redact
from .report import change_fields, shorten

COMPACT_DIR = "compact"
BACKUP_DIR = "backup"
CLEAN_LOG = "memory-clean.log"
ATTEMPTS_LOG = "attempts.log"
PENDING_FILE = "pending.json"

BACKUP_KEEP_DAYS = 30
BACKUP_KEEP_NEWEST = 10
# ~4,000 lines of ~250 bytes: years of nightly runs before the first rotation.
CLEAN_LOG_MAX_BYTES = 1024 * 1024
# A valid change-set deletes at most half of a 24 KB MEMORY.md, so a whole answer fits well within this;
# a runaway answer (a model repeating itself) costs at most this much per attempt.
ATTEMPT_ANSWER_MAX_CHARS = 32_000
# At least 20 runs of three full-size failed attempts, in the live file and as many again in `.1`.
ATTEMPTS_LOG_MAX_BYTES = 2 * 1024 * 1024
CLEAN_LOG_TEXT_MAX_CHARS = 80  # an original or merged text as the clean log shows it

_BACKUP_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2}_\d{4})(?:-(\d+))?_memory\.backup\.md$")
_BACKUP_STAMP = "%Y-%m-%d_%H%M"
_MAX_SAME_MINUTE = 1000


@dataclass(frozen=True)
class CompactFiles:
    folder: Path
    backup_dir: Path
    clean_log: Path
    attempts_log: Path
    pending: Path


def compact_files(home: Home, bot_id: str) -> CompactFiles:
    """The paths of one bot's compaction files (nothing is created)."""
    folder = home.root / COMPACT_DIR / validate_bot_id(bot_id)
    return CompactFiles(folder, folder / BACKUP_DIR, folder / CLEAN_LOG, folder / ATTEMPTS_LOG, folder / PENDING_FILE)


def _local(now: datetime | None) -> datetime:
    """Local wall-clock time, naive; a naive `now` already is."""
    if now is None:
        return clock.now().replace(tzinfo=None)
    return now if now.tzinfo is None else now.astimezone().replace(tzinfo=None)


def _local_stamp(now: datetime | None) -> str:
    """What a log line starts with: local time with its offset, e.g. `2026-12-01 03:15:02 +0100`."""
    moment = clock.now() if now is None else now.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S %z")


def is_memory_backup_name(name: str) -> bool:
    """A name `backup_memory` gives a backup of MEMORY.md (`2026-12-01_0300_memory.backup.md`)."""
    return _BACKUP_NAME.match(name) is not None


def _backup_name(stamp: str, number: int) -> str:
    return f"{stamp}_memory.backup.md" if number == 1 else f"{stamp}-{number}_memory.backup.md"


def backup_memory(home: Home, bot_id: str, text: str, now: datetime | None = None) -> Path:
    """Write MEMORY.md's text (redacted) as a new backup and return its path; then prune old backups.

    A backup never replaces another: the file is written whole under a temporary name and linked to the first
    free name of the minute, so two runs in one minute keep both. Refused (LinkRefused) through a link.
    """
    folder = compact_files(home, bot_id).backup_dir
    make_private_dirs(folder)
    stamp = _local(now).strftime(_BACKUP_STAMP)
    fd, temporary = private_temp(folder, ".backup.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(encode(redact(text).text))
            handle.flush()
            os.fsync(handle.fileno())
        path = _link_to_free_name(temporary, folder, stamp)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    fsync_dir(folder)
    prune_backups(home, bot_id, now)
    return path


def _link_to_free_name(temporary: str, folder: Path, stamp: str) -> Path:
    for number in range(1, _MAX_SAME_MINUTE + 1):
        path = folder / _backup_name(stamp, number)
        try:
            os.link(temporary, path)  # fails on any existing name, a link included: nothing is overwritten
        except FileExistsError:
            continue
        return path
    raise MemoryInputError(f"{quoted(folder)} already holds {_MAX_SAME_MINUTE} backups of minute {stamp}.")


def _backups(folder: Path) -> list[tuple[datetime, int, Path]]:
    """The backups in folder, oldest first, by the time in their names; other files are not backups."""
    found = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    for entry in entries:
        match = _BACKUP_NAME.fullmatch(entry.name)
        if not match or not entry.is_file(follow_symlinks=False):
            continue
        try:
            moment = datetime.strptime(match.group(1), _BACKUP_STAMP)
        except ValueError:
            continue
        found.append((moment, int(match.group(2) or 1), Path(entry.path)))
    return sorted(found)


def prune_backups(home: Home, bot_id: str, now: datetime | None = None) -> list[Path]:
    """Remove backups older than BACKUP_KEEP_DAYS days, keeping the newest BACKUP_KEEP_NEWEST whatever their
    age (so a bot compacted once a month still has its last ones); the removed paths, oldest first.

    Age comes from the name (local time), not the file's mtime, which a copy or restore would change.
    """
    folder = compact_files(home, bot_id).backup_dir
    refuse_links(folder)
    backups = _backups(folder)
    cutoff = _local(now) - timedelta(days=BACKUP_KEEP_DAYS)
    removable = backups[: max(len(backups) - BACKUP_KEEP_NEWEST, 0)]
    removed = []
    for moment, _number, path in removable:
        if moment < cutoff:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(path)
    return removed


def _append_capped(path: Path, data: bytes, max_bytes: int) -> None:
    """Append through the journal's append_line; first, a log that would pass max_bytes becomes `<name>.1`.

    Rotation rather than cutting the log in place: one rename, no line is ever rewritten, and the newer
    history stays whole in two files (at most twice the cap on disk).
    """
    make_private_dirs(path.parent)
    refuse_links(path)
    with contextlib.suppress(FileNotFoundError):
        size = os.lstat(path).st_size
        if size and size + len(data) > max_bytes:
            older = path.with_name(path.name + ".1")
            refuse_links(older)
            os.replace(path, older)
    append_line(path, data)


def _quoted_text(text: str) -> str:
    """Redacted whole first: a secret cut in two by shortening might no longer look like one."""
    return utf8_json(shorten(redact(text).text, CLEAN_LOG_TEXT_MAX_CHARS))


def clean_log_lines(run_id: str, changes: Iterable[object], now: datetime | None = None) -> list[str]:
    """One line per applied change (a dict or an object with category/original/merged/reason), redacted:

    `2026-12-01 03:15:02 +0100 · <run> · merge · "<original, shortened>" → "<merged, shortened>" · <reason>`
    (a deleted original shows `→ (deleted)`). Texts are JSON-quoted, so a ` · ` inside them cannot split a line.
    """
    stamp = _local_stamp(now)
    lines = []
    for change in changes:
        fields = change_fields(change)
        merged = "(deleted)" if fields["merged"] is None else _quoted_text(fields["merged"])
        reason = " ".join(redact(fields["reason"]).text.split())
        lines.append(
            f"{stamp} · {' '.join(run_id.split())} · {fields['category']} · "
            f"{_quoted_text(fields['original'])} → {merged} · {reason}"
        )
    return lines


def append_clean_log(home: Home, bot_id: str, lines: Iterable[str]) -> None:
    """Append lines (from clean_log_lines) to memory-clean.log in one write; a line break inside one is a space."""
    text = "".join(" ".join(line.split()) + "\n" for line in lines)
    if text:
        _append_capped(compact_files(home, bot_id).clean_log, encode(redact(text).text), CLEAN_LOG_MAX_BYTES)


def append_attempt(
    home: Home,
    bot_id: str,
    run_id: str,
    attempt_no: int,
    answer_text: str | None,
    errors: Iterable[str],
    now: datetime | None = None,
) -> None:
    """Append one attempt to attempts.log: a header line, the model's answer (redacted, its escapes decoded, at most
    ATTEMPT_ANSWER_MAX_CHARS characters) and the validator's errors, each indented four spaces so a line of
    the answer can never pass for a header. answer_text None: the model gave no answer.
    """
    errors = [" ".join(redact_message(error).split()) for error in errors]
    lines = [f"--- {_local_stamp(now)} · run {' '.join(run_id.split())} · attempt {attempt_no} ---"]
    if answer_text is None:
        lines.append("answer: none")
    else:
        answer = redact_answer(answer_text)  # escapes decoded too: `\u0041KIA…` is a key once parsed
        if len(answer) > ATTEMPT_ANSWER_MAX_CHARS:
            lines.append(f"answer ({len(answer)} characters, the first {ATTEMPT_ANSWER_MAX_CHARS} kept):")
            answer = answer[:ATTEMPT_ANSWER_MAX_CHARS]
        else:
            lines.append(f"answer ({len(answer)} characters):")
        lines += ["    " + line for line in answer.splitlines()]
    if errors:
        lines.append(f"errors ({len(errors)}):")
        lines += ["    " + error for error in errors]
    else:
        lines.append("errors: none")
    text = redact("\n".join(lines) + "\n").text
    _append_capped(compact_files(home, bot_id).attempts_log, encode(text), ATTEMPTS_LOG_MAX_BYTES)
