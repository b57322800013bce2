"""One sentence, the right exit code, never a traceback: what the command line says when an input or the disk is
wrong, through the real entry point (`run_cli`), with the files as they were.

Spec: memory.md, "What a bot knows about its other conversations" (`since`/`until`), "The journal" and "Memory
upkeep"; docs/reliability.md, "Errors a person reads" says what was decided.
"""

from __future__ import annotations

import errno
import json
import sqlite3

import pytest
from support.disk_faults import DiskFaults
from support.home import BOT_ID, make_bot
from test_bad_inputs import assert_one_sentence, snapshot

from omb_tui import Memory, cli
from omb_tui.core.files.paths import MemoryInputError
from omb_tui.core.index.schema import disk_refusal, index_path

HUGE_SPAN = "99999999d"  # further back than the calendar's year 1


@pytest.mark.parametrize(
    "argv",
    [
        ("changes", "--since", HUGE_SPAN),
        ("review", "--since", HUGE_SPAN),
        ("journal", BOT_ID, "--since", HUGE_SPAN),
        ("search", BOT_ID, "--since", HUGE_SPAN),
        ("search", BOT_ID, "Lisbon", "--until", HUGE_SPAN),
        ("search", BOT_ID, "--since", "9" * 40 + "d"),
    ],
    ids=lambda argv: " ".join(argv)[:30],
)
def test_a_span_beyond_the_calendar_is_one_sentence_and_exit_2(run_cli, home, argv):
    before = snapshot(home.root)
    result = run_cli(*argv)
    line = assert_one_sentence(result.code, result.err)
    assert result.code == 2 and "too far from today" in line, line
    assert snapshot(home.root) == before


def test_the_library_refuses_a_span_beyond_the_calendar_with_its_input_error(home):
    scout = Memory(home.root).bot(BOT_ID)
    for window in ({"since": HUGE_SPAN}, {"until": HUGE_SPAN}, {"since": "1d", "until": HUGE_SPAN}):
        with pytest.raises(MemoryInputError, match="too far from today"):
            scout.search("Lisbon", **window)


def test_a_date_at_the_calendar_s_edge_is_still_a_window(run_cli, home):
    """The first and last days a date can name are windows like any other: everything, or nothing yet."""
    assert run_cli("search", BOT_ID, "Lisbon", "--since", "0001-01-02").code == 0
    assert run_cli("changes", "--since", "0001-01-02").code == 0
    result = run_cli("search", BOT_ID, "Lisbon", "--since", "9999-12-31")
    assert result.code == 0 and "Nothing found" in result.out, result.err


@pytest.mark.parametrize(
    "argv",
    [
        ("--home", "", "bots"),
        ("bots", "--home", ""),
        ("--home=",),
        ("--home", ""),
        ("changes", "--since", ""),
        ("changes", "--bot", ""),
        ("review", "--bot", " "),
        ("journal", BOT_ID, "--since", ""),
        ("search", BOT_ID, "Lisbon", "--until", ""),
        ("remember", BOT_ID, "a note", "--chat", ""),
    ],
    ids=lambda argv: " ".join(repr(arg) for arg in argv),
)
def test_an_empty_option_is_refused_not_taken_as_left_out(run_cli, home, argv, monkeypatch):
    monkeypatch.setattr(cli, "cmd_app", lambda args: 0)  # were the app opened (on the default home), it is seen
    before = snapshot(home.root)
    result = run_cli(*argv, with_home=argv[0] not in ("--home", "--home=") and "--home" not in argv)
    line = assert_one_sentence(result.code, result.err)
    assert result.code == 2 and "empty" in line, line
    assert snapshot(home.root) == before


PASTE = "x" * 100_000  # a 100 KB paste where a short value belongs


@pytest.mark.parametrize(
    "argv",
    [
        ("search", BOT_ID, "--since", PASTE),
        ("show", BOT_ID, PASTE),
        ("journal", BOT_ID, "--filter", f"day:{PASTE}"),
        (PASTE,),
        ("recall", BOT_ID, "where do we fly to?", "--chat", PASTE),
        ("changes", "--bot", PASTE),
        ("still-true", BOT_ID, PASTE),
    ],
    ids=lambda argv: " ".join(arg[:12] for arg in argv),
)
def test_an_error_never_repeats_a_long_input_whole(run_cli, home, argv):
    result = run_cli(*argv)
    line = assert_one_sentence(result.code, result.err)
    assert len(line) < 1200, len(line)
    assert "x" * 100 in line and "characters)" in line  # it shows the start of what it met, and how long it was


def test_the_library_s_errors_quote_a_long_input_cut(home):
    scout = Memory(home.root).bot(BOT_ID)
    with pytest.raises(MemoryInputError) as refused:
        scout.search("Lisbon", since=PASTE)
    assert len(str(refused.value)) < 400 and "(100,000 characters)" in str(refused.value)


# ----- a home the disk refuses: upkeep, search, index -----


@pytest.mark.parametrize(
    ("refusal", "words"),
    [(errno.EROFS, "The home is on a read-only file system: /"), (errno.EACCES, "Permission denied: /")],
)
def test_upkeep_on_a_home_it_cannot_write_exits_1_and_says_why_for_each_bot_in_words(
    run_cli, home, monkeypatch, refusal, words
):
    make_bot(home, "atlas", "Atlas")
    before = snapshot(home.root)
    faults = DiskFaults(home.root, monkeypatch)
    faults.read_only = refusal  # as a read-only mount or a chmod would (the tests may run as root, whom chmod spares)
    result = run_cli("upkeep", "--due")
    as_json = run_cli("upkeep", "--due", "--json")
    faults.read_only = None
    assert result.code == 1 and as_json.code == 1, result.err
    lines = result.out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["atlas", BOT_ID]
    assert all(f"left alone: failed: {words}" in line for line in lines), lines
    assert "Errno" not in result.out + result.err + as_json.out + as_json.err
    assert ".tmp" not in result.out  # the file it could not save, never a temp name
    assert result.err.splitlines() == [f"omb-tui: Upkeep failed for 2 bots: atlas, {BOT_ID}."]
    assert [json.loads(line)["failed"] for line in as_json.out.splitlines()] == [True, True]
    assert snapshot(home.root) == before


def test_upkeep_that_fails_for_no_bot_still_exits_0(run_cli, home):
    result = run_cli("upkeep", "--due")
    assert result.code == 0 and result.err == "", result.err


def test_search_on_a_read_only_home_with_no_index_yet_answers_from_the_files(run_cli, home, monkeypatch):
    assert not index_path(home, BOT_ID).exists()
    before = snapshot(home.root)
    faults = DiskFaults(home.root, monkeypatch)
    faults.read_only = errno.EROFS
    result = run_cli("search", BOT_ID, "Pune", "--json")
    faults.read_only = None
    assert result.code == 0, result.err
    found = json.loads(result.out)
    assert [hit["where"] for hit in found["hits"]] == ["MEMORY.md:3"] and "Pune" in found["hits"][0]["text"]
    said = (
        "The home is on a read-only file system: the search index could not be saved, so this search read every file."
    )
    assert found["index_not_updated"] == said
    assert result.err == f"omb-tui: {said}\n"
    assert snapshot(home.root) == before


def test_index_on_a_read_only_home_says_why_in_one_sentence(run_cli, home, monkeypatch):
    before = snapshot(home.root)
    faults = DiskFaults(home.root, monkeypatch)
    faults.read_only = errno.EROFS
    result = run_cli("index", BOT_ID)
    faults.read_only = None
    line = assert_one_sentence(result.code, result.err)
    assert result.code == 1 and line.startswith("omb-tui: The home is on a read-only file system ("), line
    assert f"{BOT_ID}'s search index cannot be saved there; search still answers" in line
    assert snapshot(home.root) == before


def test_sqlite_s_read_only_answer_is_a_permission_where_the_file_system_takes_writes(tmp_path):
    refused = sqlite3.OperationalError("attempt to write a readonly database")
    refused.sqlite_errorcode = sqlite3.SQLITE_READONLY  # type: ignore[attr-defined]
    as_oserror = disk_refusal(refused, tmp_path / "scout.sqlite")
    assert as_oserror is not None and as_oserror.errno == errno.EACCES  # a chmod, not a read-only mount


# ----- `changes` looks before it lists -----


def test_changes_lists_an_edit_made_outside_since_the_last_look_at_once(run_cli, home):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "- added in an editor\n", encoding="utf-8")
    result = run_cli("changes", "--json")
    assert result.code == 0, result.err
    (bot,) = json.loads(result.out)["bots"]
    (group,) = [group for group in bot["groups"] if group["kind"] == "outside"]
    assert group["who"] == "Changed outside the app" and [c["file"] for c in group["changes"]] == ["MEMORY.md"]
    again = json.loads(run_cli("changes", "--json").out)  # journaled once: a second look finds nothing new
    assert again["bots"][0]["changes"] == bot["changes"]


def test_changes_on_a_read_only_home_lists_the_journal_as_it_is(run_cli, home, monkeypatch):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "- added in an editor\n", encoding="utf-8")
    before = snapshot(home.root)
    faults = DiskFaults(home.root, monkeypatch)
    faults.read_only = errno.EROFS
    result = run_cli("changes")
    faults.read_only = None
    assert result.code == 0 and "Traceback" not in result.err, result.err
    assert snapshot(home.root) == before
