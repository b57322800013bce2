"""`omb-tui review`, `revert` and `undo-run` (docs/review.md): what a script sees, and the exit codes."""

from __future__ import annotations

import json

import pytest
from support.home import MEMORY_TEXT

from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.runs.run import UpkeepRun

pytestmark = pytest.mark.dates

PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)


def a_run(home):
    """A capture run with one MEMORY.md row noting its quotes; returns (run id, row id)."""
    run = UpkeepRun("scout")
    store = MemoryStore(home, "scout")
    row = store.write(
        "MEMORY.md", MEMORY_TEXT + "- vegetarian\n", run.actor("capture"), note='quotes: "I\'m vegetarian"'
    ).row_id
    return run.id, row


def test_review_lists_runs_as_json_and_lines_and_mark_leaves_nothing_new(home, run_cli):
    run, row = a_run(home)
    out = run_cli("review", "--json")
    data = json.loads(out.out)
    assert out.code == 0 and data["only_new"] is True and data["marked"] == {}
    change = data["bots"][0]["runs"][0]["changes"][0]
    assert (data["bots"][0]["bot"], change["id"], change["quotes"], change["undone"]) == (
        "scout",
        row,
        ["I'm vegetarian"],
        False,
    )

    plain = run_cli("review", "--mark").out.splitlines()
    assert plain[0] == "scout: 1 change in 1 run (1 new)"
    assert plain[1].startswith(f"  run {run}  ") and plain[1].endswith("  capture")
    assert plain[2].startswith(f"    {row}  ") and plain[2].endswith('  MEMORY.md  capture: "I\'m vegetarian"')
    assert plain[-1] == "Marked 1 run reviewed."

    assert run_cli("review").out.startswith("Nothing new to review since ")
    again = json.loads(run_cli("review", "--since", "24h", "--bot", "scout", "--json").out)
    assert again["only_new"] is False and again["bots"][0]["runs"][0]["reviewed"] is True


def test_review_refuses_an_unknown_bot_and_a_bad_time_in_one_sentence(run_cli):
    ghost = run_cli("review", "--bot", "ghost")
    assert (ghost.code, ghost.err) == (2, "omb-tui: There is no bot 'ghost'.\n")
    bad = run_cli("review", "--since", "soon")
    assert bad.code == 2 and bad.err.startswith("omb-tui: 'soon' is not a time") and bad.err.count("\n") == 1


def test_revert_keeps_later_changes_and_a_conflict_exits_3(home, run_cli):
    run, row = a_run(home)
    store = MemoryStore(home, "scout")
    store.write("MEMORY.md", store.read("MEMORY.md").text + "- tea\n", PERSON)
    out = run_cli("revert", "scout", row, "--json")
    assert out.code == 0 and json.loads(out.out)["row"] == row
    assert (home.workspace("scout") / "MEMORY.md").read_text() == MEMORY_TEXT + "- tea\n"

    changed = store.write("MEMORY.md", MEMORY_TEXT.replace("Pune", "Delhi"), UpkeepRun("scout").actor("tidy-up"))
    store.write("MEMORY.md", MEMORY_TEXT.replace("Pune", "New Delhi"), PERSON)
    conflict = run_cli("revert", "scout", changed.row_id)
    assert conflict.code == 3 and conflict.out == ""
    assert conflict.err.startswith(f"omb-tui: Row {changed.row_id} cannot be reverted alone: 1 later change (")
    assert "undo puts the whole file back" in conflict.err and conflict.err.count("\n") == 1


def test_undo_run_asks_for_yes_naming_later_changes_then_goes(home, run_cli):
    run, row = a_run(home)
    store = MemoryStore(home, "scout")
    later = store.write("MEMORY.md", store.read("MEMORY.md").text + "- tea\n", PERSON).row_id
    refused = run_cli("undo-run", "scout", run)
    assert refused.code == 4 and later in refused.err and refused.err.rstrip().endswith("with --yes to undo anyway.")
    assert (home.workspace("scout") / "MEMORY.md").read_text() == MEMORY_TEXT + "- vegetarian\n- tea\n"
    done = run_cli("undo-run", "scout", run, "--yes", "--json")
    data = json.loads(done.out)
    assert done.code == 0 and data["later"] == [later] and data["files"][0]["undo_of"] == row
    assert (home.workspace("scout") / "MEMORY.md").read_text() == MEMORY_TEXT
    assert run_cli("undo-run", "scout", "20200101T000000-000000").code == 2


def test_a_token_in_a_rows_note_chat_or_step_is_never_kept_nor_printed_by_review(home, run_cli):
    # Compaction writes the model's reason into `note`: a key in a reason is a key on disk.
    key = "gh" + "p_" + "FAKE0example1NOT2real3token4FAKE0exa"
    run = UpkeepRun("scout")
    MemoryStore(home, "scout").write(
        "MEMORY.md",
        MEMORY_TEXT + "- tea\n",
        run.actor(f"compact {key}", f"deploy {key}"),
        note=f"merged: the old one said {key}",
    )
    on_disk = home.journal_path("scout").read_text(encoding="utf-8")
    assert key not in on_disk and "merged: the old one said «redacted" in on_disk
    for argv in (("review",), ("review", "--json"), ("journal", "scout"), ("journal", "scout", "--json")):
        out = run_cli(*argv)
        assert out.code == 0 and key not in out.out + out.err, argv


def test_a_note_that_names_its_step_is_said_once(home, run_cli):
    """`review` once printed "tidy-up: tidy-up: 1 expired entry …"."""
    run = UpkeepRun("scout")
    store = MemoryStore(home, "scout")
    store.write("MEMORY.md", MEMORY_TEXT + "- kept\n", run.actor("tidy-up"), note="tidy-up: 1 expired entry moved")
    lines = run_cli("review").out.splitlines()
    assert any(line.endswith("  MEMORY.md  tidy-up: 1 expired entry moved") for line in lines), lines
    assert not any("tidy-up: tidy-up:" in line for line in lines)
