"""What a refused input means to each surface: one table from a core exception to the command line's exit status
and the routes' HTTP status.

Spec: memory.md, "Routes" (every error one sentence, with its status), and the exit codes docs/cli.md's table of
commands gives. Every refusal a person can fix is a `MemoryInputError` (files/paths.py); the command line prints its
sentence and exits with `outcome_of(error).exit_code`, the server answers it with `outcome_of(error).http_status`.

The table stands on the bottom floor, below most of the classes it names, so it names them by where they are
defined (`team.notes.StaleRevision`: the module under omb_tui.core, then the class) rather than importing them;
tests/core/base/test_errors.py checks that every name is a class of that family and what every class of it gets.
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from typing import NamedTuple

EXIT_FAILED = 1  # the disk refused or failed (full, read-only, no permission), or a bot's upkeep stopped on it
EXIT_BAD_INPUT = 2  # a bad name, a path that leads out, a missing bot or file, a read-only file: fix it and rerun
EXIT_STALE = 3  # the file, note or card changed since it was read: nothing was written; read it again
EXIT_NEEDS_CONFIRMATION = 4  # it would also take back later changes: rerun with --yes to agree

HTTP_BAD_REQUEST = 400  # the request is wrong as sent
HTTP_NOT_FOUND = 404  # no such bot, file or team
HTTP_CONFLICT = 409  # the request is fine, but the state it meets refuses it (changed since, later changes, off)


class Outcome(NamedTuple):
    exit_code: int
    http_status: int


# The nearest class in an exception's MRO decides; every MemoryInputError reaches the first row.
OUTCOMES: dict[str, Outcome] = {
    "files.paths.MemoryInputError": Outcome(EXIT_BAD_INPUT, HTTP_BAD_REQUEST),
    "files.paths.NotFound": Outcome(EXIT_BAD_INPUT, HTTP_NOT_FOUND),
    "journal.changes.StaleHash": Outcome(EXIT_STALE, HTTP_CONFLICT),
    "journal.changes.LaterChanges": Outcome(EXIT_BAD_INPUT, HTTP_CONFLICT),  # `undo` asks for --yes itself (exit 4)
    "journal.changes.RevertConflict": Outcome(EXIT_STALE, HTTP_BAD_REQUEST),  # no route reverts one change alone
    "team.notes.StaleRevision": Outcome(EXIT_STALE, HTTP_BAD_REQUEST),  # the team routes answer it 409 themselves
    "review.revert.RunHasLaterChanges": Outcome(EXIT_NEEDS_CONFIRMATION, HTTP_BAD_REQUEST),  # no route undoes a run
    "upkeep.tidy.UpkeepOff": Outcome(EXIT_BAD_INPUT, HTTP_CONFLICT),
}


def table_name(cls: type) -> str:
    """A class as the table names it: its module under omb_tui.core, then its name."""
    return f"{cls.__module__.removeprefix('omb_tui.core.')}.{cls.__qualname__}"


def outcome_of(error: BaseException) -> Outcome:
    """The exit status and HTTP status of a refusal: the row of the nearest class in its MRO."""
    for cls in type(error).__mro__:
        outcome = OUTCOMES.get(table_name(cls))
        if outcome is not None:
            return outcome
    raise LookupError(f"{type(error).__name__} is not a MemoryInputError; the table maps only those.")


DISK_REFUSALS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})


def disk_refused(exc: OSError) -> bool:
    """Did the disk refuse the write (full, over quota, read-only, no permission), rather than a file being amiss?"""
    return exc.errno in DISK_REFUSALS


class WriteRefused(OSError):
    """The disk refused a change (full, read-only, no permission) and it was not made: the memory files and the
    journal are as they were. `filename` is the file that could not be saved, as the person names it."""

    def __init__(self, cause: OSError, what: str, *, kept: Sequence[str] = ()) -> None:
        """`what`: the file that could not be saved. `kept`: files of the same step already changed that could not
        be put back (their rows stay in the journal, so each can be undone); then not quite nothing changed."""
        super().__init__(cause.errno, cause.strerror or str(cause), what)
        self.kept = list(kept)

    @classmethod
    def of(cls, cause: OSError, what: str) -> WriteRefused:
        """The refusal for `cause`; one already made (a step inside a larger one) stays as it is."""
        return cause if isinstance(cause, WriteRefused) else cls(cause, what)


def oserror_sentence(exc: BaseException) -> str:
    """One sentence for a failure of the disk, which every surface says instead of a traceback: a full disk, a
    read-only home, a permission, or the system's own words, with the file it met. A refused write says that
    nothing was changed."""
    if not isinstance(exc, OSError):
        return str(exc) or exc.__class__.__name__
    reason = refusal_reason(exc)
    if isinstance(exc, WriteRefused):
        if exc.kept:
            changed = ", ".join(exc.kept)
            what = f"{exc.filename} could not be saved; {changed} changed before it and stays so (undo takes it back)"
        else:
            what = f"{exc.filename} could not be saved, nothing was changed"
        advice = "; free some space and try again" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else ""
        return f"{reason or exc.strerror or 'Could not write the file'}: {what}{advice}."
    where = f": {exc.filename}" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{reason}{where}; free some space and try again."
    if exc.errno == errno.EROFS:
        return f"{reason}{where}; nothing can be written there."
    return f"{reason or exc.strerror or 'Could not use the file'}{where}."


def refusal_reason(exc: OSError) -> str | None:
    """What the disk's refusal is, in a person's words ("The disk is full"); None for another failure."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "The disk is full"
    if exc.errno == errno.EROFS:
        return "The home is on a read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM) or isinstance(exc, PermissionError):
        return "Permission denied"
    return None
