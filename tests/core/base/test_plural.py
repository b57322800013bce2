"""One plural() for every message: "1 bot", "2 bots", never "bot(s)" (omb_tui/core/base/text.py), and the
messages of the core and the app that once said "(s)", in the singular and the plural."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import omb_tui
from omb_tui.app.screens.journal import undone_text
from omb_tui.core.base.text import plural
from omb_tui.core.journal.journal import WHO_PERSON, JournalRow
from omb_tui.core.memory.memory_update import AddResult, ForgetResult
from omb_tui.core.memory.store import LaterChanges, UndoResult, WriteResult
from omb_tui.core.review.revert import Reverted, RunHasLaterChanges, RunUndo


def test_plural_says_one_thing_and_any_other_number_of_things():
    assert [plural(n, "bot") for n in (0, 1, 2)] == ["0 bots", "1 bot", "2 bots"]
    assert plural(3, "later change") == "3 later changes"  # the last word takes the s
    assert [plural(n, "entry", "entries") for n in (1, 4)] == ["1 entry", "4 entries"]
    assert plural(1250, "row") == "1250 rows"  # as the command line writes a count
    assert [plural(n, "row", grouped=True) for n in (1, 1250)] == ["1 row", "1,250 rows"]  # as the app does


def a_row(number: int) -> JournalRow:
    return JournalRow(
        id=f"row{number}",
        at="2026-11-30T08:15:00.000+00:00",
        bot="scout",
        who=WHO_PERSON,
        how="command line",
        file="MEMORY.md",
        before_hash=None,
        after_hash="h",
        diff="",
        before_text=None,
        undoable=True,
    )


@pytest.mark.parametrize("count, words", [(1, "1 later change"), (2, "2 later changes")])
def test_later_changes_are_counted_in_words(count, words):
    later = [a_row(n) for n in range(2, 2 + count)]
    ids = [row.id for row in later]
    assert str(LaterChanges(a_row(1), later)).startswith(f"{words} to MEMORY.md would be undone too: row2 (")
    assert str(RunHasLaterChanges("run1", later, [])).startswith(
        f"Undoing run run1: {words} would be undone too: row2 ("
    )
    assert Reverted("row1", "MEMORY.md", "row9", ids).message().endswith(f"alone ({words} kept).")
    assert RunUndo("run1", [{"file": "MEMORY.md"}], ids).message().endswith(f"before it ({words} undone too).")
    undone = UndoResult(a_row(1), WriteResult("MEMORY.md", "h", True), later)
    assert f" and {words}. The undo is at the top" in undone_text(undone)


@pytest.mark.parametrize("count, sentence", [(1, "1 credential was redacted"), (2, "2 credentials were redacted")])
def test_redacted_credentials_are_counted_in_words(count, sentence):
    assert f"{sentence} before saving." in AddResult("- x", redactions=count).message()


@pytest.mark.parametrize("count, words", [(1, "Forgot 1 note mentioning"), (2, "Forgot 2 notes mentioning")])
def test_forgotten_notes_are_counted_in_words(count, words):
    removed = {"MEMORY.md": [f"- fact {n}" for n in range(count)]}
    assert ForgetResult("fact", removed).message().startswith(words)


def string_constants(tree: ast.AST) -> list[ast.Constant]:
    """Every string of a module's code, docstrings left out (they speak to a reader of the code, not a user)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_string_of_the_package_counts_with_s_in_brackets():
    """A message says "1 bot" or "2 bots" through plural(), never "bot(s)"."""
    package = Path(omb_tui.__file__).parent
    found = [
        f"{path.relative_to(package)}:{node.lineno}: {node.value!r}"
        for path in sorted(package.rglob("*.py"))
        for node in string_constants(ast.parse(path.read_text(encoding="utf-8")))
        if re.search(r"\w\((s|es)\)", node.value)
    ]
    assert found == []
