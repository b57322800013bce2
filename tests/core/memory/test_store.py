"""The one writer: atomic 0600 writes, redaction, hash-checked saves, the journal and undo."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC

import pytest

from omb_tui.core.base import clock
from omb_tui.core.base.errors import WriteRefused, oserror_sentence
from omb_tui.core.files.disk import text_hash
from omb_tui.core.files.paths import Home, InvalidName, NotFound, OutsideWorkspace
from omb_tui.core.journal.changes import Actor, LaterChanges, NotUndoable, ReadOnly, StaleHash
from omb_tui.core.journal.journal import (
    HOW_OUTSIDE,
    HOW_SETTINGS,
    HOW_TASK,
    HOW_UNDO,
    JOURNAL_MAX_EARLIER_BYTES,
    WHO_BOT,
    WHO_PERSON,
    Journal,
)
from omb_tui.core.memory.store import MemoryStore

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)
BOT = Actor(WHO_BOT, HOW_TASK, chat="Follow-up")
FAKE_KEY = "sk-" + "a1B2c3D4" * 6


@pytest.fixture
def store(tmp_path):
    home = Home(tmp_path / "home")
    home.workspace("scout").mkdir(parents=True)
    return MemoryStore(home, "scout")


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_write_is_private_and_returns_hash(store):
    result = store.write("memory/travel.md", "# Travel\n", PERSON)
    path = store.workspace / "memory" / "travel.md"
    assert path.read_bytes() == b"# Travel\n"
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert result.hash == text_hash("# Travel\n") == store.read("memory/travel.md").hash


def test_write_leaves_no_temp_file(store):
    store.write("MEMORY.md", "- a\n", PERSON)
    assert sorted(p.name for p in store.workspace.iterdir()) == ["MEMORY.md"]


def test_credentials_never_reach_disk_or_journal(store):
    store.write("MEMORY.md", f"- the key is {FAKE_KEY}\n", BOT)
    on_disk = (store.workspace / "MEMORY.md").read_text()
    assert FAKE_KEY not in on_disk and "«redacted" in on_disk
    assert FAKE_KEY not in store.journal.path.read_text()


def test_stale_hash_is_refused_with_current_text(store):
    opened = store.write("MEMORY.md", "- first\n", PERSON)
    store.write("MEMORY.md", "- the bot wrote this\n", BOT)
    with pytest.raises(StaleHash) as caught:
        store.write("MEMORY.md", "- my draft\n", PERSON, expected_hash=opened.hash)
    assert caught.value.current_text == "- the bot wrote this\n"
    assert (store.workspace / "MEMORY.md").read_text() == "- the bot wrote this\n"


def test_memory_md_can_be_emptied_not_deleted(store):
    store.write("MEMORY.md", "- a\n", PERSON)
    with pytest.raises(ReadOnly):
        store.delete("MEMORY.md", PERSON)
    store.write("MEMORY.md", "", PERSON)
    assert (store.workspace / "MEMORY.md").read_bytes() == b""


def test_logs_are_read_only_but_deletable(store):
    store.write("memory/log/2026-09-10.md", "did things\n", BOT, allow_log=True)
    with pytest.raises(ReadOnly):
        store.write("memory/log/2026-09-10.md", "edited\n", PERSON)
    store.delete("memory/log/2026-09-10.md", PERSON)
    assert not (store.workspace / "memory/log/2026-09-10.md").exists()


def test_topics_created_renamed_deleted_with_undo(store):
    store.create_topic("travel.md", "# Travel\n", PERSON)
    with pytest.raises(ValueError):
        store.create_topic("travel.md", "again", PERSON)
    created, removed = store.rename_topic("travel.md", "trips.md", PERSON)
    assert (store.workspace / "memory/trips.md").read_text() == "# Travel\n"
    assert not (store.workspace / "memory/travel.md").exists()
    store.undo(removed.row_id)
    assert (store.workspace / "memory/travel.md").read_text() == "# Travel\n"
    result = store.delete("memory/trips.md", PERSON)
    store.undo(result.row_id)
    assert (store.workspace / "memory/trips.md").exists()


@pytest.mark.parametrize("name", ["../x.md", ".hidden.md", "a/b.md", "x.txt", "under_score.md", "archive.md"])
def test_invalid_topic_names_refused(store, name):
    with pytest.raises((InvalidName, OutsideWorkspace)):
        store.create_topic(name, "x", PERSON)
    assert not (store.workspace / "memory").exists()


def test_symlink_out_of_workspace_refused(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "travel.md").write_text("secret plans")
    (store.workspace / "memory").symlink_to(outside)
    with pytest.raises(OutsideWorkspace):
        store.read("memory/travel.md")
    with pytest.raises(OutsideWorkspace):
        store.write("memory/travel.md", "overwritten", PERSON)
    assert (outside / "travel.md").read_text() == "secret plans"


def test_every_change_is_a_journal_row_with_who_how_and_earlier_text(store):
    store.write("MEMORY.md", "- one\n", PERSON)
    store.write("MEMORY.md", "- one\n- two\n", BOT)
    rows = store.journal.rows()
    assert [r.who for r in rows] == [WHO_BOT, WHO_PERSON]
    newest = rows[0]
    assert newest.how == HOW_TASK and newest.chat == "Follow-up" and newest.file == "MEMORY.md"
    assert newest.before_text == "- one\n"
    assert newest.before_hash == text_hash("- one\n") and newest.after_hash == text_hash("- one\n- two\n")
    assert "+- two" in newest.diff


def test_unchanged_write_adds_no_row(store):
    store.write("MEMORY.md", "- one\n", PERSON)
    store.write("MEMORY.md", "- one\n", PERSON)
    assert len(store.journal.rows()) == 1


def test_undo_puts_the_file_back_and_is_itself_a_row(store):
    store.write("MEMORY.md", "- one\n", PERSON)
    second = store.write("MEMORY.md", "- two\n", BOT)
    result = store.undo(second.row_id)
    assert (store.workspace / "MEMORY.md").read_text() == "- one\n"
    newest = store.journal.rows(limit=1)[0]
    assert newest.how == HOW_UNDO and newest.undo_of == second.row_id
    store.undo(newest.id)  # an undo can be undone in turn
    assert (store.workspace / "MEMORY.md").read_text() == "- two\n"
    assert result.later == []


def test_undo_of_creation_empties_memory_md(store):
    first = store.write("MEMORY.md", "- one\n", PERSON)
    store.undo(first.row_id)
    assert (store.workspace / "MEMORY.md").read_text() == ""


def test_undo_warns_about_later_changes_and_names_them(store):
    first = store.write("MEMORY.md", "- one\n", PERSON)
    later = store.write("MEMORY.md", "- two\n", BOT)
    with pytest.raises(LaterChanges) as caught:
        store.undo(first.row_id)
    assert later.row_id in str(caught.value)
    assert (store.workspace / "MEMORY.md").read_text() == "- two\n"
    store.undo(first.row_id, force=True)
    assert (store.workspace / "MEMORY.md").read_text() == ""


def test_undo_with_confirmed_later_rows_refuses_a_row_written_meanwhile(store):
    """The person agreed to undo a row and the later rows they were shown; a row that came after the question
    is never undone unconfirmed: the core compares under the bot's lock and names the rows again."""
    first = store.write("MEMORY.md", "- one\n", PERSON).row_id
    shown = store.write("MEMORY.md", "- two\n", BOT).row_id
    meanwhile = store.write("MEMORY.md", "- three\n", BOT).row_id
    with pytest.raises(LaterChanges) as refused:
        store.undo(first, confirmed_later=[shown])
    assert [r.id for r in refused.value.later] == [meanwhile, shown]
    assert store.read("MEMORY.md").text == "- three\n"
    result = store.undo(first, confirmed_later=[meanwhile, shown])
    assert [r.id for r in result.later] == [meanwhile, shown] and store.read("MEMORY.md").text == ""


def test_the_apps_confirmed_undo_never_undoes_a_row_that_slips_in_before_the_lock(store, monkeypatch):
    from omb_tui.app.screens.journal import undo_confirmed

    first = store.journal.find(store.write("MEMORY.md", "- one\n", PERSON).row_id)
    shown = store.journal.find(store.write("MEMORY.md", "- two\n", BOT).row_id)
    real_undo = MemoryStore.undo

    def a_writer_slips_in(self, *args, **kwargs):  # between the app's check and the undo taking the lock
        MemoryStore(store.home, "scout").write("MEMORY.md", "- slipped in\n", BOT)
        return real_undo(self, *args, **kwargs)

    monkeypatch.setattr(MemoryStore, "undo", a_writer_slips_in)
    with pytest.raises(LaterChanges):
        undo_confirmed(store, first, [shown])
    assert store.read("MEMORY.md").text == "- slipped in\n"


def test_an_undo_agreed_over_another_bots_change_still_refuses_a_row_of_its_own_written_meanwhile(store):
    """About me changed through another bot: `unseen_ok` lets that go, never a later row of this journal."""
    first = store.write("about-me.md", "- tea\n", PERSON).row_id
    other = MemoryStore(store.home, "atlas")
    other.write("about-me.md", "- tea\n- jazz\n", PERSON)
    with pytest.raises(LaterChanges) as unseen:
        store.undo(first, confirmed_later=[])
    assert unseen.value.later == [] and "another bot" in str(unseen.value)
    store.write("about-me.md", "- tea\n- jazz\n- rain\n", BOT)  # while the question was open
    with pytest.raises(LaterChanges):
        store.undo(first, confirmed_later=[], unseen_ok=True)
    assert store.read("about-me.md").text == "- tea\n- jazz\n- rain\n"


def test_row_with_credential_in_earlier_text_cannot_be_undone(store, tmp_path):
    path = store.workspace / "MEMORY.md"
    store.write("MEMORY.md", "- plain\n", PERSON)
    path.write_text(f"- key {FAKE_KEY}\n")  # another editor wrote a key
    store.sync_outside_changes()
    row = store.write("MEMORY.md", "- cleaned\n", PERSON)
    journaled = store.journal.find(row.row_id)
    assert not journaled.undoable and "credential" in journaled.not_undoable_reason
    with pytest.raises(NotUndoable, match="credential"):
        store.undo(row.row_id)


def test_too_large_earlier_text_cannot_be_undone(store):
    big = "- " + "x" * (JOURNAL_MAX_EARLIER_BYTES + 10) + "\n"
    store.write("memory/big.md", big, PERSON)
    row = store.write("memory/big.md", "- small\n", PERSON)
    journaled = store.journal.find(row.row_id)
    assert not journaled.undoable and "1024 KB" in journaled.not_undoable_reason
    assert journaled.before_text is None


def test_outside_edit_is_journaled_with_undo(store):
    store.write("MEMORY.md", "- mine\n", PERSON)
    (store.workspace / "MEMORY.md").write_text("- edited in Obsidian\n")
    rows = store.sync_outside_changes()
    assert [(r.how, r.file) for r in rows] == [(HOW_OUTSIDE, "MEMORY.md")]
    assert rows[0].undoable and rows[0].before_text == "- mine\n"
    store.undo(rows[0].id)
    assert (store.workspace / "MEMORY.md").read_text() == "- mine\n"


def test_outside_edit_while_nothing_ran_is_caught_by_a_new_store(store):
    store.write("memory/travel.md", "# Travel\n", PERSON)
    (store.workspace / "memory/travel.md").unlink()
    (store.workspace / "memory/new.md").write_text("# New\n")
    fresh = MemoryStore(store.home, "scout")  # a later run of the program
    rows = fresh.sync_outside_changes()
    assert sorted((r.file, r.after_hash is None) for r in rows) == [
        ("memory/new.md", False),
        ("memory/travel.md", True),
    ]
    deleted = next(r for r in rows if r.file == "memory/travel.md")
    fresh.undo(deleted.id)
    assert (store.workspace / "memory/travel.md").read_text() == "# Travel\n"


def test_first_look_records_no_rows(store):
    (store.workspace / "MEMORY.md").write_text("- already here\n")
    assert store.sync_outside_changes() == []
    assert store.journal.rows() == []


def test_touch_without_change_is_not_a_row(store):
    store.write("MEMORY.md", "- one\n", PERSON)
    os.utime(store.workspace / "MEMORY.md", ns=(1, 1))
    assert store.sync_outside_changes() == []


def test_a_write_whose_journal_row_cannot_be_written_is_not_made(store):
    store.write("MEMORY.md", "- one\n", PERSON)
    kept = store.journal.path.read_bytes()
    store.journal.path.unlink()
    store.journal.path.mkdir()  # a folder where the journal file should be: appends fail
    with pytest.raises(WriteRefused) as refused:
        store.write("MEMORY.md", "- not saved\n", PERSON)
    assert (store.workspace / "MEMORY.md").read_text() == "- one\n"
    assert oserror_sentence(refused.value) == "Is a directory: MEMORY.md could not be saved, nothing was changed."
    store.journal.path.rmdir()
    store.journal.path.write_bytes(kept)
    assert store.sync_outside_changes() == []  # nothing changed outside the journal's knowledge


def test_journal_is_outside_the_workspace_and_private(store):
    store.write("MEMORY.md", "- one\n", PERSON)
    assert store.workspace not in store.journal.path.parents
    assert mode(store.journal.path) == 0o600


def test_damaged_journal_line_is_skipped(store):
    store.write("MEMORY.md", "- one\n", PERSON)
    with open(store.journal.path, "a") as handle:
        handle.write("{not json\n")
    store.write("MEMORY.md", "- two\n", PERSON)
    assert len(store.journal.rows()) == 2


def test_journal_reads_newest_first_across_chunks(tmp_path):
    from omb_tui.core.journal.journal import make_row

    journal = Journal(tmp_path / "j.ndjson")
    ids = []
    for i in range(300):
        row = make_row(
            bot="b",
            who="bot",
            how="x",
            file="MEMORY.md",
            before_text=f"{i}\n" * 50,
            after_text="",
            before_hash=None,
            after_hash=None,
        )
        journal.append(row)
        ids.append(row.id)
    got = [r.id for r in journal.iter_newest_first(chunk_size=97)]
    assert got == ids[::-1]
    assert [json.loads(line)["id"] for line in journal.path.read_text().splitlines()] == ids


def test_unknown_row_is_a_clear_error(store):
    with pytest.raises(NotFound):
        store.undo("nope")


def test_bytes_that_are_not_utf8_survive_a_round_trip(store):
    path = store.workspace / "MEMORY.md"
    path.write_bytes(b"- caf\xe9 \xff\r\n- ok")
    snapshot = store.read("MEMORY.md")
    store.write("MEMORY.md", snapshot.text + "\n- more\n", PERSON, expected_hash=snapshot.hash)
    assert path.read_bytes() == b"- caf\xe9 \xff\r\n- ok\n- more\n"


def test_an_unusable_seen_state_never_fails_the_write(store, caplog):
    store.write("MEMORY.md", "- one\n", PERSON)
    blobs = store.journal.path.parent / "scout.seen"
    import shutil

    shutil.rmtree(blobs)
    blobs.write_text("not a folder")
    result = store.write("MEMORY.md", "- two\n", PERSON)
    assert (store.workspace / "MEMORY.md").read_text() == "- two\n" and result.changed
    assert "could not record" in caplog.text


def test_an_unusable_lock_never_fails_the_write(store, caplog):
    lock = store.journal.path.parent / "scout.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.mkdir()  # a folder where the lock file should be
    store.write("MEMORY.md", "- still saved\n", PERSON)
    assert (store.workspace / "MEMORY.md").read_text() == "- still saved\n"
    assert "could not take the lock" in caplog.text


def test_outside_edit_of_a_too_large_file_states_the_limit(store):
    big = "- " + "x" * (JOURNAL_MAX_EARLIER_BYTES + 10) + "\n"
    store.write("memory/big.md", big, PERSON)
    with open(store.workspace / "memory/big.md", "a") as handle:
        handle.write("- one more\n")
    row = store.sync_outside_changes()[0]
    assert not row.undoable and "1024 KB" in row.not_undoable_reason


def test_expected_hash_none_creates_only_when_the_file_is_missing(store):
    """expected_hash=None is "must not exist yet": it creates, and refuses (StaleHash) once the file is there."""
    created = store.write("memory/clients.md", "# Clients\n", PERSON, expected_hash=None)
    assert created.changed and created.hash == text_hash("# Clients\n")
    with pytest.raises(StaleHash) as refused:
        store.write("memory/clients.md", "# Mine\n", PERSON, expected_hash=None)
    assert refused.value.current_hash == created.hash and refused.value.current_text == "# Clients\n"
    assert (store.workspace / "memory/clients.md").read_text() == "# Clients\n"
    assert [row.file for row in store.journal.rows()] == ["memory/clients.md"]
    store.write("MEMORY.md", "", PERSON)  # an empty file exists too
    with pytest.raises(StaleHash):
        store.write("MEMORY.md", "- mine\n", PERSON, expected_hash=None)


def test_of_writers_racing_to_create_one_file_exactly_one_wins(store):
    import threading

    start = threading.Barrier(8)
    outcomes: list[str] = []

    def create(n: int) -> None:
        writer = MemoryStore(store.home, "scout")  # each its own store, like separate callers
        start.wait()
        try:
            writer.write("memory/race.md", f"writer {n}\n", PERSON, expected_hash=None)
            outcomes.append(f"writer {n}\n")
        except StaleHash:
            outcomes.append("refused")

    threads = [threading.Thread(target=create, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (winner,) = [outcome for outcome in outcomes if outcome != "refused"]
    assert outcomes.count("refused") == 7
    assert (store.workspace / "memory/race.md").read_text() == winner
    assert len(store.journal.rows()) == 1


def test_a_store_with_a_clock_stamps_every_row_with_its_time(store):
    """Write, delete, undo and a change found outside the app: each row carries the clock's time, in UTC."""
    from datetime import datetime, timedelta, timezone

    moments = iter(
        datetime(2026, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=1))) + timedelta(minutes=m) for m in range(100)
    )
    store.clock = lambda: next(moments)
    store.write("MEMORY.md", "- one\n", PERSON)
    store.write("memory/travel.md", "# Travel\n", BOT)
    store.delete("memory/travel.md", PERSON)
    (store.workspace / "MEMORY.md").write_text("- edited in Obsidian\n")
    (outside,) = store.sync_outside_changes()
    undone = store.undo(outside.id)
    rows = store.journal.rows()[::-1]
    assert [(r.how, r.after_hash is None) for r in rows] == [
        (HOW_SETTINGS, False),
        (HOW_TASK, False),
        (HOW_SETTINGS, True),
        (HOW_OUTSIDE, False),
        (HOW_UNDO, False),
    ]
    assert undone.write.row_id == rows[-1].id
    assert [r.at for r in rows] == [f"2026-03-01T08:0{m}:00.000+00:00" for m in range(5)]  # 09:0m at UTC+1


def test_a_clock_given_to_the_store_names_the_rows_time(tmp_path):
    from datetime import datetime, timezone

    home = Home(tmp_path / "home")
    home.workspace("scout").mkdir(parents=True)
    clocked = MemoryStore(home, "scout", clock=lambda: datetime(2025, 12, 31, 23, 59, 59, 999_999, UTC))
    clocked.write("MEMORY.md", "- one\n", PERSON)
    assert clocked.journal.rows()[0].at == "2025-12-31T23:59:59.999+00:00"


def test_a_store_without_a_clock_uses_the_real_time(store):
    from datetime import datetime, timezone

    assert store.clock is None
    before = clock.now_utc()
    store.write("MEMORY.md", "- one\n", PERSON)
    (store.workspace / "MEMORY.md").write_text("- two\n")
    store.sync_outside_changes()
    after = clock.now_utc()
    for row in store.journal.rows():
        at = datetime.fromisoformat(row.at)
        assert at.utcoffset().total_seconds() == 0 and len(row.at) == 29
        assert before.replace(microsecond=before.microsecond // 1000 * 1000) <= at <= after


def test_an_upkeep_runs_rows_carry_its_run_id(store):
    from omb_tui.core.runs.run import UpkeepRun

    run = UpkeepRun("scout")
    store.write("MEMORY.md", "- one\n", run.actor("capture"))
    store.write("memory/work-log.md", "- two\n", run.actor("organize"))
    rows = store.journal.rows()
    assert [r.run for r in rows] == [run.id, run.id]
    assert {(r.who, r.how) for r in rows} == {("Memory upkeep", "upkeep step")}
    assert [r.step for r in rows] == ["organize", "capture"]
    assert store.journal.rows()[0].run == json.loads(store.journal.path.read_text().splitlines()[-1])["run"]
