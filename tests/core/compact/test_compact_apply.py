"""Applying a validated change-set (omb_tui/core/compact/apply.py): one journal row per change with its run id and
note, hash-checked against what the model read, each row undoable. Spec: compact-memory.en.md; docs/compact.md."""

from __future__ import annotations

import json

import pytest
from support.compact_helpers import (
    ADA,
    ADA_MERGED,
    AFTER_VALID,
    BOT,
    DEPLOY,
    LAUNCH_OLD,
    MEMORY,
    VALID,
    compact_rows,
    read_memory,
    write_memory,
)

from omb_tui.core.base.errors import EXIT_STALE, outcome_of
from omb_tui.core.compact.apply import apply_change_set
from omb_tui.core.compact.validator import FileChangedMeanwhile, validate
from omb_tui.core.files.disk import text_hash
from omb_tui.core.journal.journal import HOW_UPKEEP, WHO_UPKEEP
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.runs.run import UpkeepRun


def validated(text: str = MEMORY, answer: str = VALID):
    validation = validate(text, answer, keep_lines=[], read_hash=text_hash(text))
    assert validation.ok, validation.errors
    return validation


def test_each_change_is_one_row_with_the_run_id_and_its_category_and_reason(home):
    write_memory(home)
    run = UpkeepRun(BOT)

    outcome = apply_change_set(MemoryStore(home, BOT), text_hash(MEMORY), validated().changes, run.actor("compact"))

    assert read_memory(home) == AFTER_VALID
    rows = compact_rows(home)
    assert [row.note for row in rows] == [
        "superseded: The launch date is now set.",
        "detail: A command belongs in a skill.",
        "merge: Two lines say the same of Ada.",
    ]
    assert {(row.who, row.how, row.run, row.file) for row in rows} == {(WHO_UPKEEP, HOW_UPKEEP, run.id, "MEMORY.md")}
    assert outcome.rows == [row.id for row in rows]
    # each row's texts are the file's real states, one after another
    assert rows[0].before_text == MEMORY and LAUNCH_OLD not in rows[1].before_text and DEPLOY in rows[1].before_text
    assert all(row.undoable for row in rows)


def test_the_last_change_undone_puts_back_only_that_change(home):
    write_memory(home)
    store = MemoryStore(home, BOT)
    outcome = apply_change_set(store, text_hash(MEMORY), validated().changes, UpkeepRun(BOT).actor("compact"))

    store.undo(outcome.rows[-1])

    assert read_memory(home) == MEMORY.replace(LAUNCH_OLD, "").replace(DEPLOY, "")
    assert ADA in read_memory(home) and ADA_MERGED not in read_memory(home)


def test_a_file_changed_since_the_model_read_it_gets_nothing_applied(home):
    write_memory(home)
    changes = validated().changes
    edited = MEMORY + "- 2026-03-01 · from chat · a new fact\n"
    write_memory(home, edited)

    with pytest.raises(FileChangedMeanwhile) as refused:
        apply_change_set(MemoryStore(home, BOT), text_hash(MEMORY), changes, UpkeepRun(BOT).actor("compact"))

    assert outcome_of(refused.value).exit_code == EXIT_STALE
    assert read_memory(home) == edited and compact_rows(home) == []


def test_an_empty_change_set_writes_nothing(home):
    write_memory(home)
    empty = validated(answer=json.dumps({"changes": []}))
    outcome = apply_change_set(MemoryStore(home, BOT), text_hash(MEMORY), empty.changes, UpkeepRun(BOT).actor("c"))
    assert outcome.applied == [] and read_memory(home) == MEMORY
