"""What a refused input means to each surface: one table from a core exception to the command line's exit status
and the routes' HTTP status.

Spec: memory.md, "Routes" (every error one sentence, with its status), and the exit codes the README's table of
commands gives. Every refusal a person can fix is a `MemoryInputError` (memory/paths.py); the command line prints its
sentence and exits with `outcome_of(error).exit_code`, the server answers it with `outcome_of(error).http_status`.

The table stands on the bottom floor, below most of the classes it names, so it names them by where they are
defined (`team.notes.StaleRevision`: the module under omb_tui.core, then the class) rather than importing them;
tests/test_errors.py checks that every name is a class of that family and what every class of it gets.
"""

from __future__ import annotations

import errno
from typing import NamedTuple

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
    "memory.paths.MemoryInputError": Outcome(EXIT_BAD_INPUT, HTTP_BAD_REQUEST),
    "memory.paths.NotFound": Outcome(EXIT_BAD_INPUT, HTTP_NOT_FOUND),
    "memory.changes.StaleHash": Outcome(EXIT_STALE, HTTP_CONFLICT),
    "memory.changes.LaterChanges": Outcome(EXIT_BAD_INPUT, HTTP_CONFLICT),  # `undo` asks for --yes itself (exit 4)
    "memory.changes.RevertConflict": Outcome(EXIT_STALE, HTTP_BAD_REQUEST),  # no route reverts one change alone
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


def oserror_sentence(exc: BaseException) -> str:
    """One sentence for a failure of the disk, which every surface says instead of a traceback: a full disk, a
    read-only home, a permission, or the system's own words, with the file it met."""
    if not isinstance(exc, OSError):
        return str(exc) or exc.__class__.__name__
    where = f": {exc.filename}" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"The disk is full{where}; free some space and try again."
    if exc.errno == errno.EROFS:
        return f"The home is on a read-only file system{where}; nothing can be written there."
    if isinstance(exc, PermissionError):
        return f"Permission denied{where}."
    return f"{exc.strerror or 'Could not use the file'}{where}."
