"""The recall index: built from the files, brought up to date from changed files only, safe under change."""

from __future__ import annotations

import os
import sqlite3
import stat
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from omb_tui.core.files import file_stamp
from omb_tui.core.files.paths import Home
from omb_tui.core.index import (
    kept as index_kept,
)
from omb_tui.core.index import (
    notes as index_notes,
)
from omb_tui.core.index import (
    refresh as index_refresh,
)
from omb_tui.core.index import (
    rows as index_rows,
)
from omb_tui.core.index import (
    search as index_search,
)
from omb_tui.core.index.recall_index import RecallIndex, index_path
from omb_tui.core.index.refresh import IndexRefresh
from omb_tui.core.index.rows import IndexRows
from omb_tui.core.index.words import terms
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.store import MemoryStore

pytestmark = pytest.mark.dates  # a passage is dated by its message's local day

ACTOR = Actor(WHO_PERSON, HOW_SETTINGS)
TODAY = date(2026, 9, 20)
UTC = UTC


def write(home: Home, rel: str, text: str, bot: str = "scout") -> None:
    MemoryStore(home, bot).write(rel, text, ACTOR, allow_log=True)


def note_files(index: RecallIndex, word: str, *, topics_only: bool = True) -> list[str]:
    hits = index.search_notes(terms(word), need=1, today=TODAY, topics_only=topics_only, limit=0)
    return sorted(hit.file for hit in hits if not hit.opening)


def message_texts(index: RecallIndex, word: str) -> list[str]:
    return sorted(hit.text for hit in index.search_messages(terms(word), need=1, today=TODAY, limit=0))


def make_chat(home: Home, chat_id: str = "plans", bot: str = "scout") -> conv.Conversation:
    conversation = conv.Conversation(
        id=chat_id,
        title=chat_id.title(),
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", bot)],
        created=datetime(2026, 9, 1, tzinfo=UTC),
    )
    conv.create_conversation(home, conversation, bot)
    return conversation


def say(conversation: conv.Conversation, text: str, author_kind: str = "person", day: int = 10) -> None:
    author = "Milind" if author_kind == "person" else "scout"
    conv.append_message(
        conversation.path, conv.Message(author_kind, author, datetime(2026, 9, day, 9, 0, tzinfo=UTC), text)
    )


def test_index_lives_outside_the_workspace_and_is_private(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/travel.md", "- Lisbon trip in October\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    assert index.path == tmp_path / "index" / "scout.sqlite" == index_path(home, "scout")
    assert home.workspace("scout") not in index.path.parents
    assert stat.S_IMODE(os.stat(index.path).st_mode) == 0o600


def test_every_memory_file_is_indexed_but_superseded_entries_never(tmp_path):
    home = Home(tmp_path)
    write(home, "MEMORY.md", "- 2026-09-01 · the person likes lisbon\n")
    write(
        home,
        "memory/travel.md",
        "# Trips\n\n- 2026-09-10 · Lisbon flights booked\n- ~~Porto trip~~ · superseded 2026-09-11\n",
    )
    write(home, "memory/archive.md", "- 2026-01-01 · Lisbon in January · moved 2026-09-01\n")
    write(home, "memory/log/2026-09-12.md", '- 09:00 · from chat "X" · said: "lisbon"\n')
    index = RecallIndex(home, "scout")
    index.refresh()
    assert note_files(index, "lisbon") == ["memory/travel.md"]
    assert note_files(index, "lisbon", topics_only=False) == [
        "MEMORY.md",
        "memory/archive.md",
        "memory/log/2026-09-12.md",
        "memory/travel.md",
    ]
    assert note_files(index, "porto", topics_only=False) == []
    log_hit = index.search_notes(terms("lisbon"), need=1, today=TODAY, topics_only=False, limit=0)
    assert {h.file: h.day for h in log_hit}["memory/log/2026-09-12.md"] == date(2026, 9, 12)


def test_a_refresh_reads_only_changed_files(tmp_path):
    home = Home(tmp_path)
    for n in range(5):
        write(home, f"memory/topic-{n}.md", f"- note {n} about apples\n")
    index = RecallIndex(home, "scout")
    assert index.refresh().files_read == 5
    assert index.refresh().files_read == 0
    write(home, "memory/topic-3.md", "- note 3 is now about pears instead\n")
    report = index.refresh()
    assert report.files_read == 1 and report.files_removed == 0
    assert note_files(index, "pear") == ["memory/topic-3.md"]
    assert note_files(index, "apple") == [f"memory/topic-{n}.md" for n in (0, 1, 2, 4)]


def test_an_edit_within_the_same_tick_and_size_is_still_seen(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- alpha\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    path = home.workspace("scout") / "memory" / "a.md"
    before = path.stat()
    path.write_text("- gamma\n")  # same size, in place
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime
    index.refresh()
    assert note_files(index, "gamma") == ["memory/a.md"]
    assert note_files(index, "alpha") == []


def test_a_deleted_file_leaves_the_index(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- banana bread recipe\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    (home.workspace("scout") / "memory" / "a.md").unlink()
    assert index.refresh().files_removed == 1
    assert note_files(index, "banana") == []
    assert index.db.execute("SELECT count(*) FROM topics").fetchone()[0] == 0


def test_a_file_deleted_between_listing_and_reading(tmp_path, monkeypatch):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- banana bread recipe\n")
    write(home, "memory/b.md", "- banana split\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    write(home, "memory/a.md", "- banana cake now\n")
    original = IndexRows._index_memory_file

    def vanish_then_read(self, db, key, path, st):
        if key == "memory/a.md":
            path.unlink()
        return original(self, db, key, path, st)

    monkeypatch.setattr(IndexRows, "_index_memory_file", vanish_then_read)
    index.refresh()
    assert note_files(index, "banana") == ["memory/b.md"]


def test_a_file_changed_while_it_is_read_is_read_again(tmp_path, monkeypatch):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- first version\n")
    index = RecallIndex(home, "scout")
    original = IndexRows._index_memory_file

    def change_right_after_reading(self, db, key, path, st):
        done = original(self, db, key, path, st)
        path.write_text("- second version, written just after the index read the file\n")
        return done

    monkeypatch.setattr(IndexRows, "_index_memory_file", change_right_after_reading)
    index.refresh()
    monkeypatch.setattr(IndexRows, "_index_memory_file", original)
    assert note_files(index, "first") == ["memory/a.md"]
    index.refresh()  # nothing else happened: the stat taken before reading no longer matches
    assert note_files(index, "second") == ["memory/a.md"]
    assert note_files(index, "first") == []


def test_invalid_names_and_symlinks_are_not_indexed(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/ok.md", "- kiwi\n")
    folder = home.workspace("scout") / "memory"
    (folder / ".hidden.md").write_text("- kiwi\n")
    (folder / "notes.txt").write_text("- kiwi\n")
    outside = tmp_path / "secret.md"
    outside.write_text("- kiwi\n")
    (folder / "link.md").symlink_to(outside)
    index = RecallIndex(home, "scout")
    index.refresh()
    assert note_files(index, "kiwi") == ["memory/ok.md"]


def test_a_daily_log_named_for_a_day_that_does_not_exist_never_breaks_search(tmp_path):
    # The index reads the files paths.classify accepts, no more: "2026-13-45.md" is not a daily log.
    home = Home(tmp_path)
    write(home, "memory/log/2026-09-10.md", "- kiwi order placed\n")
    (home.workspace("scout") / "memory" / "log" / "2026-13-45.md").write_text("- kiwi on no day at all\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    assert note_files(index, "kiwi", topics_only=False) == ["memory/log/2026-09-10.md"]


def test_a_conversation_is_read_from_where_the_index_stopped(tmp_path):
    home = Home(tmp_path)
    chat = make_chat(home)
    say(chat, "the mango delivery is on Tuesday")
    index = RecallIndex(home, "scout")
    index.refresh()
    first_id = index.db.execute("SELECT id FROM messages").fetchone()[0]
    say(chat, "the mango order doubled", "bot")
    assert index.refresh().files_read == 1
    rows = index.db.execute("SELECT id, seq FROM messages ORDER BY seq").fetchall()
    assert rows[0] == (first_id, 0) and rows[1][1] == 1  # the first message was not read again
    assert len(message_texts(index, "mango")) == 2


def test_a_rewritten_or_shortened_conversation_is_read_whole(tmp_path):
    home = Home(tmp_path)
    chat = make_chat(home)
    say(chat, "papaya one")
    say(chat, "papaya two")
    index = RecallIndex(home, "scout")
    index.refresh()
    chat.messages = [conv.Message("person", "Milind", datetime(2026, 9, 2, tzinfo=UTC), "papaya replaced")]
    conv.write_conversation(chat.path, chat)  # a new file over the old one
    index.refresh()
    assert message_texts(index, "papaya") == ["papaya replaced"]
    lines = chat.path.read_bytes().splitlines(keepends=True)
    with open(chat.path, "wb") as handle:  # the same file, cut back to its header, then one new line
        handle.write(lines[0])
    say(chat, "papaya after the cut")
    index.refresh()
    assert message_texts(index, "papaya") == ["papaya after the cut"]


def test_a_conversation_line_still_being_written_waits(tmp_path):
    home = Home(tmp_path)
    chat = make_chat(home)
    say(chat, "guava one")
    index = RecallIndex(home, "scout")
    index.refresh()
    with open(chat.path, "ab") as handle:
        handle.write(b'{"type":"message","at":"2026-09-03T09:00:00+00:00","author_kind":"person","text":"guava')
    os.utime(chat.path.parent)
    index.refresh(full=True)
    assert message_texts(index, "guava") == ["guava one"]
    with open(chat.path, "ab") as handle:
        handle.write(b' two"}\n')
    index.refresh(full=True)
    assert message_texts(index, "guava") == ["guava one", "guava two"]


def test_room_membership_decides_what_is_indexed(tmp_path):
    home = Home(tmp_path)
    room = conv.Conversation(
        id="launch",
        title="Launch",
        kind=conv.KIND_ROOM,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", "ledger")],
        created=datetime(2026, 9, 1, tzinfo=UTC),
    )
    conv.create_conversation(home, room)
    say(room, "the launch party needs lychee")
    index = RecallIndex(home, "scout")
    index.refresh()
    assert message_texts(index, "lychee") == []
    conv.set_members(room.path, [conv.Member("person", "Milind"), conv.Member("bot", "scout")])
    index.refresh()
    assert message_texts(index, "lychee") == ["the launch party needs lychee"]  # earlier messages too
    conv.set_members(room.path, [conv.Member("bot", "ledger")])
    index.refresh()
    assert message_texts(index, "lychee") == []


def test_a_deleted_conversation_leaves_the_index(tmp_path):
    home = Home(tmp_path)
    chat = make_chat(home)
    say(chat, "quince jam")
    index = RecallIndex(home, "scout")
    index.refresh()
    chat.path.unlink()
    assert index.refresh().files_removed == 1
    assert message_texts(index, "quince") == []
    assert index.conversations() == {}


def test_a_damaged_index_file_is_built_again(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- cherry pie\n")
    path = index_path(home, "scout")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    index = RecallIndex(home, "scout")
    index.refresh()
    assert note_files(index, "cherry") == ["memory/a.md"]


def test_an_index_of_another_version_is_built_again(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- cherry pie\n")
    path = index_path(home, "scout")
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=1")
    db.execute("CREATE TABLE files(key TEXT)")
    db.commit()
    db.close()
    index = RecallIndex(home, "scout")
    index.refresh()
    assert note_files(index, "cherry") == ["memory/a.md"]


def test_two_processes_share_one_index(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- fig\n")
    first, second = RecallIndex(home, "scout"), RecallIndex(home, "scout")
    first.refresh()
    assert second.refresh().files_read == 0  # the other one already read it
    write(home, "memory/a.md", "- fig and date\n")
    second.refresh()
    assert first.refresh().files_read == 0
    assert note_files(first, "date") == ["memory/a.md"]
    assert first.db.execute("SELECT count(*) FROM notes").fetchone()[0] == 1


def test_paragraphs_and_long_text_become_several_notes(tmp_path):
    home = Home(tmp_path)
    long_line = "walnut " * 400
    write(home, "memory/a.md", f"# Nuts\n\nfirst paragraph\nstill first\n\nsecond paragraph\n\n{long_line}\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    rows = index.db.execute("SELECT section, line, text FROM notes ORDER BY id").fetchall()
    assert rows[0] == ("Nuts", 3, "first paragraph\nstill first")
    assert rows[1][:2] == ("Nuts", 6)
    assert len(rows) >= 4 and all(len(text) <= index_rows.NOTE_MAX_CHARS for _, _, text in rows)


def test_topic_names_titles_and_aliases_are_searchable(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/travel-plans.md", "---\ntitle: Journeys\naliases: [trips, flights]\n---\nSee below.\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    for word in ("travel", "plan", "journey", "trip", "flight"):
        assert list(index.name_matches([word])) == ["memory/travel-plans.md"], word


def test_a_topics_opening_is_built_as_of_the_day_asked(tmp_path):
    # the opening is not stored when the file is read: which entries have expired depends on the day
    home = Home(tmp_path)
    write(
        home,
        "memory/zanzibar.md",
        "---\ndescription: the island trip\n---\n"
        "- ~~2026-09-02 · ferry from Mombasa~~ · superseded 2026-09-04\n"
        "- 2026-09-15 · ferry to Stone Town · until 2026-09-18\n"
        "- 2026-09-03 · spice tour booked\n",
    )
    index = RecallIndex(home, "scout")
    index.refresh()
    _, text, day = index.opening("memory/zanzibar.md", TODAY)
    assert (text, day) == ("the island trip\n- 2026-09-03 · spice tour booked", date(2026, 9, 3))
    assert index.refresh().files_read == 0
    _, text, day = index.opening("memory/zanzibar.md", date(2026, 9, 18))
    assert "ferry to Stone Town" in text and "Mombasa" not in text and day == date(2026, 9, 15)
    _, text, _ = index.opening("memory/zanzibar.md", None)  # history (session_search): expired kept
    assert "ferry to Stone Town" in text and "Mombasa" not in text
    assert index.opening("memory/missing.md", TODAY) is None
    [hit] = index.search_notes(terms("zanzibar"), need=1, today=TODAY, topics_only=True, limit=0)
    assert hit.opening and "Stone Town" not in hit.text
    [hit] = index.search_notes(terms("zanzibar"), need=1, today=TODAY, topics_only=False, limit=0, skip_expired=False)
    assert hit.opening and "Stone Town" in hit.text


def test_an_opening_is_at_most_600_characters_and_cut_at_a_word(tmp_path):
    home = Home(tmp_path)
    write(
        home,
        "memory/zanzibar.md",
        "".join(f"- 2026-09-0{n % 9 + 1} · island fact number {n} of many\n" for n in range(40)),
    )
    index = RecallIndex(home, "scout")
    index.refresh()
    _, text, _ = index.opening("memory/zanzibar.md", TODAY)
    assert len(text) <= index_notes.OPENING_MAX_CHARS + 1 and text.endswith("…")
    assert text.startswith("- 2026-09-01 · island fact number 0 of many\n- 2026-09-02 · island fact number 1")


# ----- knowing what changed without looking at every file -----


def quiet(*paths) -> None:
    """Date files and folders ten seconds back, as if nothing had changed lately."""
    import time

    past = time.time() - 10
    for path in paths:
        os.utime(path, (past, past))


def scanned_groups(monkeypatch) -> list[str]:
    groups: list[str] = []
    original = IndexRefresh._scan_folder

    def record(self, group, *args, **kwargs):
        groups.append(group)
        return original(self, group, *args, **kwargs)

    monkeypatch.setattr(IndexRefresh, "_scan_folder", record)
    return groups


def test_an_appended_message_is_read_without_looking_at_every_file(tmp_path, monkeypatch):
    home = Home(tmp_path)
    chats = [make_chat(home, f"chat-{n}") for n in range(5)]
    index = RecallIndex(home, "scout")
    quiet(*(c.path for c in chats), conv.chats_dir(home, "scout"))
    index.refresh(full=True)
    groups = scanned_groups(monkeypatch)
    say(chats[3], "the tamarind arrived")
    report = index.refresh()
    assert report.files_read == 1 and "chat:" not in groups
    assert message_texts(index, "tamarind") == ["the tamarind arrived"]


def test_a_replaced_changes_file_means_looking_at_every_file(tmp_path, monkeypatch):
    home = Home(tmp_path)
    chats = [make_chat(home, f"chat-{n}") for n in range(3)]
    index = RecallIndex(home, "scout")
    quiet(*(c.path for c in chats), conv.chats_dir(home, "scout"))
    index.refresh(full=True)
    monkeypatch.setattr(conv, "CHANGES_MAX_BYTES", 10)
    say(chats[0], "jackfruit one")  # .changes passes 10 bytes and is replaced by an empty file
    say(chats[1], "jackfruit two")
    index.refresh()
    assert message_texts(index, "jackfruit") == ["jackfruit one", "jackfruit two"]


def test_an_edit_in_place_is_seen_once_the_journal_names_it(tmp_path, monkeypatch):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- lime\n")
    write(home, "memory/b.md", "- lemon\n")
    memory = home.workspace("scout") / "memory"
    quiet(memory / "a.md", memory / "b.md", memory)
    index = RecallIndex(home, "scout")
    index.refresh(full=True)
    groups = scanned_groups(monkeypatch)
    with open(memory / "a.md", "a") as handle:  # another program, in place: no folder changes
        handle.write("- lime pickle\n")
    MemoryStore(home, "scout").sync_outside_changes()  # the app notices and journals it
    index.refresh()
    assert "topics" not in groups
    hits = index.search_notes(terms("pickle"), need=1, today=TODAY, topics_only=True, limit=0)
    assert [h.file for h in hits] == ["memory/a.md"]


def test_a_full_refresh_sees_an_edit_nobody_noticed(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- lime\n")
    memory = home.workspace("scout") / "memory"
    quiet(memory / "a.md", memory)
    index = RecallIndex(home, "scout")
    index.refresh(full=True)
    with open(memory / "a.md", "a") as handle:
        handle.write("- lime sorbet\n")
    index.refresh(full=True)
    assert note_files(index, "sorbet") == ["memory/a.md"]


def test_memory_md_is_looked_at_every_time(tmp_path):
    home = Home(tmp_path)
    write(home, "MEMORY.md", "- olive\n")
    quiet(home.workspace("scout") / "MEMORY.md", home.workspace("scout"))
    index = RecallIndex(home, "scout")
    index.refresh(full=True)
    with open(home.workspace("scout") / "MEMORY.md", "a") as handle:
        handle.write("- olive oil\n")
    assert index.refresh().files_read == 1


def test_bytes_that_are_not_utf8_and_lone_surrogates_never_break_the_index(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/ok.md", "- plum\n")
    (home.workspace("scout") / "memory" / "bad.md").write_bytes(b"- plum \xff\xfe broken bytes\n")
    chat = make_chat(home)
    with open(chat.path, "ab") as handle:
        handle.write(
            b'{"type":"message","at":"2026-09-03T09:00:00+00:00","author_kind":"person",'
            b'"author":"\\ud800","text":"plum \\udcff tart"}\n'
        )
    index = RecallIndex(home, "scout")
    index.refresh()
    assert note_files(index, "plum") == ["memory/bad.md", "memory/ok.md"]
    assert message_texts(index, "plum") == ["plum \ufffd tart"]


def test_counts_follow_edits_and_deletions(tmp_path):
    home = Home(tmp_path)
    write(home, "memory/a.md", "- one\n- two\n")
    write(home, "memory/log/2026-09-01.md", "- a log line\n")
    chat = make_chat(home)
    say(chat, "hello there")
    index = RecallIndex(home, "scout")
    index.refresh()
    write(home, "memory/a.md", "- one\n- two\n- three\n")
    say(chat, "and again")
    index.refresh()
    assert (index.counts()["topic"], index.counts()["memo"], index.counts()["message"]) == (3, 1, 2)
    (home.workspace("scout") / "memory" / "a.md").unlink()
    chat.path.unlink()
    index.refresh(full=True)
    assert (index.counts()["topic"], index.counts()["memo"], index.counts()["message"]) == (0, 1, 0)


def test_a_word_looked_up_before_finds_what_was_written_after(tmp_path, monkeypatch):
    """The index keeps each word's newest rows between lookups (docs/recall.md, "The index"): whatever is
    written after a lookup (appended, rewritten, written by another process) is what the next one finds."""
    monkeypatch.setattr(index_search, "POSTINGS_CAP_RECALL", 2)  # a word's newest two rows are all it looks at
    home = Home(tmp_path)
    chat, other = make_chat(home), make_chat(home, "errands")
    for text in ("kiwi one", "kiwi two", "kiwi three"):
        say(chat, text)
    index = RecallIndex(home, "scout")
    index.refresh()
    assert message_texts(index, "kiwi") == ["kiwi three", "kiwi two"]
    say(other, "kiwi four")
    index.refresh()
    assert message_texts(index, "kiwi") == ["kiwi four", "kiwi three"]
    chat.messages = [
        conv.Message("person", "Milind", datetime(2026, 9, 2, tzinfo=UTC), text)
        for text in ("kiwi replaced", "kiwi again")
    ]
    conv.write_conversation(chat.path, chat)  # read again whole: its messages are the newest rows now
    index.refresh()
    assert message_texts(index, "kiwi") == ["kiwi again", "kiwi replaced"]
    say(other, "kiwi five")
    RecallIndex(home, "scout").refresh()  # another process reads the new message first
    index.refresh()
    assert message_texts(index, "kiwi") == ["kiwi again", "kiwi five"]
    other.path.unlink()
    index.refresh()
    assert message_texts(index, "kiwi") == ["kiwi again", "kiwi replaced"]
    write(home, "memory/a.md", "- fig one\n")
    index.refresh()
    assert note_files(index, "fig") == ["memory/a.md"]
    write(home, "memory/b.md", "- fig two\n")
    index.refresh()
    assert note_files(index, "fig") == ["memory/a.md", "memory/b.md"]
    assert index.name_matches(["mango"]) == {}
    write(home, "memory/mango.md", "- ripe\n")
    index.refresh()
    assert index.name_matches(["mango"]) == {"memory/mango.md": {"mango"}}


def test_a_build_reports_its_progress_and_gives_the_logs_space_back(tmp_path, monkeypatch):
    monkeypatch.setattr(index_refresh, "WAL_KEPT_BYTES", 0)  # any log left after a large write is cut back
    home = Home(tmp_path)
    for n in range(12):
        write(home, f"memory/topic-{n}.md", f"- note {n} about plums\n")
    seen = []
    index = RecallIndex(home, "scout")
    index.refresh(full=True, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (12, 12)  # every file read, counted
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert os.path.getsize(f"{index.path}-wal") == 0
    assert len(note_files(index, "plum")) == 12


def test_a_message_is_shown_from_its_file_redacted_and_never_once_its_line_changed(tmp_path):
    """The index keeps where each message's line is, not its text (docs/recall.md, "The index")."""
    home = Home(tmp_path)
    chat = make_chat(home)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    say(chat, f"the guava order, token {token}")  # written by a tool that does not redact
    index = RecallIndex(home, "scout")
    index.refresh()
    [hit] = index.search_messages(terms("guava"), need=1, today=TODAY, limit=0)
    assert token not in hit.text and "guava order" in hit.text and "«redacted" in hit.text
    assert token.encode() not in index.path.read_bytes()
    data = chat.path.read_bytes()
    chat.path.write_bytes(data.replace(b"guava order", b"guava ORDER"))  # same size, not yet looked at again
    assert index.search_messages(terms("guava"), need=1, today=TODAY, limit=0) == []
    index.refresh(full=True)
    assert [hit.text.split(",")[0] for hit in index.search_messages(terms("guava"), need=1, today=TODAY, limit=0)] == [
        "the guava ORDER"
    ]


def _ctime_passed(path) -> None:
    """Wait until a file written now would get another ctime than `path` has (the kernel stamps files by its tick)."""
    probe = path.with_name("probe.tmp")
    before = path.stat().st_ctime_ns
    while True:
        probe.write_bytes(b"x")
        if probe.stat().st_ctime_ns > before:
            probe.unlink()
            return


def test_a_message_text_kept_from_a_settled_file_is_never_shown_once_its_line_changed(tmp_path, monkeypatch):
    """A text read is kept for the next search only while the file's stat is the same (docs/recall.md, "The index")."""
    monkeypatch.setattr(file_stamp, "SETTLED_NS", -(10**12))  # every file as if last written long ago
    home = Home(tmp_path)
    chat = make_chat(home)
    say(chat, "the guava order is in")
    index = RecallIndex(home, "scout")
    index.refresh()
    assert message_texts(index, "guava") == ["the guava order is in"]
    assert message_texts(index, "guava") == ["the guava order is in"]  # (kept now)
    _ctime_passed(chat.path)
    data = chat.path.read_bytes()
    chat.path.write_bytes(data.replace(b"guava order", b"guava ORDER"))  # same size, in place, not refreshed
    assert message_texts(index, "guava") == []
    index.refresh(full=True)
    assert message_texts(index, "guava") == ["the guava ORDER is in"]


def test_a_file_stamp_is_trusted_only_once_its_last_change_is_older_than_the_timestamps_grain():
    second = 1_000_000_000
    fine = file_stamp.FileStamp(ino=1, size=10, mtime_ns=50 * second + 123, ctime_ns=50 * second + 123)
    assert not fine.settled(50 * second + 123 + file_stamp.SETTLED_NS // 2)  # too recent: a write could keep it
    assert fine.settled(50 * second + 124 + file_stamp.SETTLED_NS)
    whole = file_stamp.FileStamp(ino=1, size=10, mtime_ns=50 * second, ctime_ns=50 * second)  # (FAT and the like)
    assert not whole.settled(51 * second)
    assert whole.settled(52 * second + 1)
    assert not fine.settled(50 * second)  # a change stamped after now (another machine's clock): never


def test_the_texts_kept_are_bounded_and_dropped_when_the_stamp_or_the_conversation_changes(monkeypatch):
    monkeypatch.setattr(index_kept.KeptLookups, "TEXTS_KEPT", 10)
    kept = index_kept.KeptLookups()
    stamp = file_stamp.FileStamp(1, 10, 5, 5)
    for number in range(4):
        kept.keep_texts(f"chat:c{number}", stamp, {n: f"text {n}" for n in range(number * 3, number * 3 + 3)})
    assert kept.texts("chat:c0", stamp) == {}  # 12 > 10: the conversations kept longest went first
    assert kept.texts("chat:c3", stamp) == {9: "text 9", 10: "text 10", 11: "text 11"}
    assert kept.texts("chat:c3", stamp._replace(ctime_ns=6)) == {}  # its file changed: dropped
    assert kept.texts("chat:c3", stamp) == {}
    kept.keep_texts("chat:c2", stamp, {1: "one"})
    kept.conversation_changed("chat:c2")  # the index read it again
    assert kept.texts("chat:c2", stamp) == {}


def _notes(index: RecallIndex, word: str) -> list[tuple]:
    hits = index.search_notes(terms(word), need=1, today=TODAY, topics_only=True, limit=0)
    return sorted(
        (hit.file, hit.day.isoformat() if hit.day else None, hit.text.split(" · ", 1)[-1], hit.opening) for hit in hits
    )


def by_name(index: RecallIndex) -> list:
    """The orchard topic's notes that hold "kiwi", found through its name (the topic's notes are looked into)."""
    hits = index.search_notes(terms("orchard kiwi"), need=2, today=TODAY, topics_only=True, limit=0)
    return [hit for hit in hits if hit.file == "memory/orchard.md"]


def test_a_row_kept_from_a_lookup_is_never_shown_once_its_file_changed(tmp_path):
    """Candidates' rows and a matched topic's notes are kept between lookups (docs/recall.md, "The index"). A file
    written again gets new rows, which may take the ids of the rows it had: the next lookup shows the new ones,
    whether this process wrote them or another one did."""
    home = Home(tmp_path)
    write(home, "memory/plants.md", "- 2026-08-01 · kiwi seedlings\n")
    index = RecallIndex(home, "scout")
    index.refresh()
    write(home, "memory/orchard.md", "- 2026-09-01 · kiwi harvest plan\n- 2026-09-02 · mango tree\n")
    index.refresh()  # indexed last: its notes have the highest ids
    ids_before = [row[0] for row in index.db.execute("SELECT id FROM notes WHERE file='memory/orchard.md' ORDER BY id")]
    assert ("memory/orchard.md", "2026-09-01", "kiwi harvest plan", False) in _notes(index, "kiwi")
    assert [hit[2] for hit in _notes(index, "mango")] == ["mango tree"]
    assert [hit.day.isoformat() for hit in by_name(index)] == ["2026-09-01"]  # the topic's notes, kept

    write(home, "memory/orchard.md", "- 2026-09-05 · kiwi export numbers\n- 2026-09-06 · papaya crate\n")
    index.refresh()
    ids_after = [row[0] for row in index.db.execute("SELECT id FROM notes WHERE file='memory/orchard.md' ORDER BY id")]
    assert ids_after == ids_before  # the same ids, other notes: what makes a kept row wrong
    assert _notes(index, "kiwi") == [
        ("memory/orchard.md", "2026-09-05", "kiwi export numbers", False),
        ("memory/plants.md", "2026-08-01", "kiwi seedlings", False),
    ]
    assert _notes(index, "mango") == []
    assert [hit[2] for hit in _notes(index, "papaya")] == ["papaya crate"]
    assert [hit.day.isoformat() for hit in by_name(index)] == ["2026-09-05"]

    write(home, "memory/orchard.md", "- 2026-09-07 · kiwi freight booked\n- 2026-09-08 · guava jam\n")
    RecallIndex(home, "scout").refresh()  # another process writes the new rows; this one looks without a refresh
    assert ("memory/orchard.md", "2026-09-07", "kiwi freight booked", False) in _notes(index, "kiwi")
    assert _notes(index, "papaya") == []


def test_a_message_row_kept_from_a_lookup_is_never_used_once_its_conversation_was_rewritten(tmp_path):
    home = Home(tmp_path)
    chat = make_chat(home)
    say(chat, "kiwi one")
    say(chat, "kiwi two", author_kind="bot")
    index = RecallIndex(home, "scout")
    index.refresh()
    assert message_texts(index, "kiwi") == ["kiwi one", "kiwi two"]
    ids_before = [row[0] for row in index.db.execute("SELECT id FROM messages ORDER BY id")]
    chat.messages = [
        conv.Message("bot", "scout", datetime(2026, 9, 12, tzinfo=UTC), "papaya one"),
        conv.Message("person", "Milind", datetime(2026, 9, 13, tzinfo=UTC), "kiwi three"),
    ]
    conv.write_conversation(chat.path, chat)  # read again whole: new rows under the same ids
    index.refresh()
    assert [row[0] for row in index.db.execute("SELECT id FROM messages ORDER BY id")] == ids_before
    found = index.search_messages(terms("papaya"), need=1, today=TODAY, limit=0)
    assert [(hit.text, hit.author_kind, hit.at.day) for hit in found] == [("papaya one", "bot", 12)]
    assert message_texts(index, "kiwi") == ["kiwi three"]


def test_keeping_more_rows_than_it_may_never_loses_a_candidate(tmp_path, monkeypatch):
    """Past ROWS_KEPT the rows kept longest are dropped: never the ones the lookup under way is using."""
    home = Home(tmp_path)
    write(
        home,
        "memory/crops.md",
        "".join(f"- 2026-09-{day:02d} · kiwi row {day}{' fig' if day % 2 else ''}\n" for day in range(1, 11)),
    )
    index = RecallIndex(home, "scout")
    index.refresh()
    everything = _notes(index, "kiwi")
    assert len(everything) == 10
    small = RecallIndex(home, "scout")
    monkeypatch.setattr(small.kept, "ROWS_KEPT", 6)
    assert len(_notes(small, "fig")) == 5  # five rows kept
    assert _notes(small, "kiwi") == everything  # five kept, five read: keeping them drops the oldest
    assert _notes(small, "kiwi") == everything


def test_a_word_looked_up_past_the_current_chat_gives_the_newest_rows_of_the_others(tmp_path):
    """Recall leaves the current chat out; when its rows fill part of a word's newest `cap`, the word is looked up
    past them: the answer is the word's newest `cap` rows of the other conversations, and its count from them."""
    home = Home(tmp_path)
    other, mine, busy = make_chat(home, "other"), make_chat(home, "mine"), make_chat(home, "busy")
    for n in range(30):
        say(other, f"durian {n}", day=1 + n % 9)
    index = RecallIndex(home, "scout")
    index.refresh()
    for n in range(40):
        say(busy, f"durian busy {n}")
    index.refresh()  # (each read in its turn: ids in this order)
    for n in range(8):
        say(mine, f"durian mine {n}")
    index.refresh()
    say(other, "durian newest")
    index.refresh()
    for chat_key, size in (("chat:mine", 8), ("chat:busy", 40)):
        leave_out = {row[0] for row in index.db.execute("SELECT id FROM messages WHERE conv=?", (chat_key,))}
        assert len(leave_out) == size
        others = [
            row[0]
            for row in index.db.execute(
                "SELECT id FROM messages WHERE conv != ? AND terms LIKE '%durian%' ORDER BY id DESC", (chat_key,)
            )
        ]
        for cap in (10, 20):  # the 8-row chat fits in the cap (looked up further), the 40-row one does not
            postings, counts = index.words.lookup(
                "message_fts", "messages", ["durian"], cap, "t.conv != ?", (chat_key,), leave_out
            )
            assert postings["durian"] == others[:cap]
            assert (
                counts == index.words.lookup("message_fts", "messages", ["durian"], cap, "t.conv != ?", (chat_key,))[1]
            )


def test_a_window_counted_from_one_kept_before_counts_as_many_rows_as_counting_them_all(tmp_path):
    """A window's count starts from the nearest count kept to the same last time (a "90d" window moves on by seconds
    between searches): the same number, later or earlier, by a second or by weeks, for messages and for notes."""
    home = Home(tmp_path)
    chat = make_chat(home)
    start = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
    for n in range(120):  # a message every 17 hours, from June to September
        conv.append_message(
            chat.path, conv.Message("person", "Milind", start + timedelta(hours=17 * n), f"the kiwi crate {n}")
        )
    write(home, "memory/crates.md", "".join(f"- 2026-0{6 + n // 30}-{1 + n % 28:02d} · crate {n}\n" for n in range(90)))
    index = RecallIndex(home, "scout")
    index.refresh()
    db = index.connection.db
    last = start + timedelta(hours=17 * 119)
    for days_back in (90, 90, 89.99999, 60, 61, 3, 75, 90.5, 0.5):
        since = last - timedelta(days=days_back)
        window = index.words.message_window(since.timestamp(), None, None)
        (expected,) = db.execute(
            "SELECT count(*) FROM messages WHERE ts BETWEEN ? AND ?", (window.first, window.last)
        ).fetchone()
        assert index.words.window_size(window) == expected, days_back
        later = window.first + 3600 * 24 * 7
        (expected,) = db.execute(
            "SELECT count(*) FROM messages WHERE ts BETWEEN ? AND ?", (later, window.last)
        ).fetchone()
        assert index.words.window_size(window, since=later) == expected, days_back
    for since_day in (date(2026, 7, 1), date(2026, 7, 2), date(2026, 6, 3), date(2026, 8, 20), date(2026, 7, 1)):
        window = index.words.note_window(since_day, None)
        (expected,) = db.execute(
            "SELECT count(*) FROM notes WHERE day BETWEEN ? AND ?", (window.first, window.last)
        ).fetchone()
        assert index.words.window_size(window) == expected, since_day
    index.close()


def test_the_index_is_read_through_a_memory_map(tmp_path):
    """A page read is a memory read, not a system call (index_schema.MMAP_BYTES)."""
    index = RecallIndex(Home(tmp_path), "scout")
    index.refresh()
    assert index.connection.db.execute("PRAGMA mmap_size").fetchone()[0] > 0
    index.close()


def test_lookups_in_one_read_see_one_state_of_the_index_whatever_another_process_writes(tmp_path):
    """recall and session_search look up notes and messages in one read transaction (IndexConnection.reading)."""
    home = Home(tmp_path)
    chat = make_chat(home)
    say(chat, "the fig delivery is late")
    index = RecallIndex(home, "scout")
    index.refresh()
    other = RecallIndex(home, "scout")  # another process's connection
    with index.reading():
        assert message_texts(index, "fig") == ["the fig delivery is late"]
        say(chat, "a fig tart for Sunday", day=11)
        other.refresh()  # committed by the other connection meanwhile
        assert message_texts(index, "fig") == ["the fig delivery is late"]
    assert message_texts(index, "fig") == ["a fig tart for Sunday", "the fig delivery is late"]
    other.close()
    index.close()


def test_an_index_removed_under_an_open_connection_is_opened_again_at_the_next_refresh(home):
    import sqlite3 as sqlite

    from omb_tui.core.index.purge import drop_index
    from omb_tui.core.index.recall_index import RecallIndex

    with RecallIndex(home, "scout") as index:
        index.refresh()
        drop_index(home, "scout")  # as a purge does, while this connection is open
        index.refresh()
        assert index.path.exists()  # not the deleted file written on: the one at the path, built again
        fresh = sqlite.connect(index.path)
        try:
            assert fresh.execute("SELECT count(*) FROM files").fetchone()[0] > 0
        finally:
            fresh.close()
