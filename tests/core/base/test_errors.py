"""The one table from a core refusal to the command line's exit status and the routes' HTTP status
(omb_tui/core/base/errors.py)."""

from __future__ import annotations

import errno
import importlib
import pkgutil

import pytest

import omb_tui
from omb_tui.core.base.errors import (
    EXIT_BAD_INPUT,
    EXIT_NEEDS_CONFIRMATION,
    EXIT_STALE,
    HTTP_BAD_REQUEST,
    HTTP_CONFLICT,
    HTTP_NOT_FOUND,
    OUTCOMES,
    oserror_sentence,
    outcome_of,
    table_name,
)
from omb_tui.core.files.paths import MemoryInputError

# What each refusal means, as the table documents it, by the classes' names: each class in one exit group; a
# class in neither HTTP group is a bad request (400). A new class of the family is placed here by what it means.
EXIT_GROUPS = {
    EXIT_STALE: {"StaleHash", "FileChangedMeanwhile", "RevertConflict", "StaleRevision"},  # changed since it was read
    EXIT_NEEDS_CONFIRMATION: {"RunHasLaterChanges"},  # undo's LaterChanges asks for --yes in the command itself
    EXIT_BAD_INPUT: {
        "MemoryInputError",
        "InvalidName",
        "CredentialName",
        "OutsideWorkspace",
        "LinkRefused",
        "NotFound",
        "BotGone",
        "BrokenFile",
        "ReadOnly",
        "NotUndoable",
        "LaterChanges",
        "DamagedTeamFile",
        "RevisionMissing",
        "CompactionOff",
        "BadAnswer",
        "UpkeepOff",
        "BadSwitch",
        "DuplicateRefused",
        "BackupRefused",
        "BadBackup",
        "RestoreRefused",
        "StillTrueRefused",  # an answer to "still true?" that cannot be made as asked
    },
}
HTTP_GROUPS = {
    HTTP_NOT_FOUND: {"NotFound", "BotGone"},
    HTTP_CONFLICT: {"StaleHash", "FileChangedMeanwhile", "LaterChanges", "UpkeepOff"},
}


def every_refusal() -> list[type[MemoryInputError]]:
    """MemoryInputError and every subclass of it anywhere in omb_tui (the app's too), once each module is loaded."""
    for module in pkgutil.walk_packages(omb_tui.__path__, "omb_tui."):
        if not module.name.endswith("__main__"):  # `python -m omb_tui.cli` would run the command line
            importlib.import_module(module.name)
    found, pending = [], [MemoryInputError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return sorted(found, key=table_name)


REFUSALS = every_refusal()


def test_every_refusal_has_one_documented_meaning_here():
    groups = list(EXIT_GROUPS.values())
    assert sorted(cls.__name__ for cls in REFUSALS) == sorted(name for group in groups for name in group)


@pytest.mark.parametrize("refusal", REFUSALS, ids=table_name)
def test_every_refusal_gets_the_exit_status_and_http_status_its_meaning_says(refusal):
    name = refusal.__name__
    exit_code = next(code for code, names in EXIT_GROUPS.items() if name in names)
    status = next((status for status, names in HTTP_GROUPS.items() if name in names), HTTP_BAD_REQUEST)
    outcome = outcome_of(refusal.__new__(refusal))  # the class decides; no message is needed
    assert (outcome.exit_code, outcome.http_status) == (exit_code, status)


def test_every_name_in_the_table_is_a_class_of_the_family():
    by_name = {table_name(cls): cls for cls in REFUSALS}
    assert set(OUTCOMES) <= set(by_name)


def test_the_codes_are_the_ones_the_command_reference_and_the_routes_give():
    assert (EXIT_BAD_INPUT, EXIT_STALE, EXIT_NEEDS_CONFIRMATION) == (2, 3, 4)
    assert (HTTP_BAD_REQUEST, HTTP_NOT_FOUND, HTTP_CONFLICT) == (400, 404, 409)


def test_an_exception_outside_the_family_has_no_row():
    with pytest.raises(LookupError, match="ValueError is not a MemoryInputError"):
        outcome_of(ValueError("not a refusal"))


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "/h/memory-journal/scout.ndjson"),
            "The disk is full: /h/memory-journal/scout.ndjson; free some space and try again.",
        ),
        (
            OSError(errno.EROFS, "Read-only file system", "/h/workspaces/scout/MEMORY.md"),
            "The home is on a read-only file system: /h/workspaces/scout/MEMORY.md; nothing can be written there.",
        ),
        (PermissionError(errno.EACCES, "Permission denied", "/h/config.json"), "Permission denied: /h/config.json."),
        (OSError(errno.EIO, "Input/output error"), "Input/output error."),
    ],
)
def test_a_failure_of_the_disk_is_one_sentence_naming_the_file(error, sentence):
    assert oserror_sentence(error) == sentence
