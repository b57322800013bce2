"""memory_update: add with archive overflow, forget, prefer (spec: "What loads, and the budget",
"Remember and forget, in chat")."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home, MemoryInputError
from omb_tui.core.memory.budget import MEMORY_MAX_BYTES, MEMORY_MAX_LINES, gauge
from omb_tui.core.memory.entries import parse_entries
from omb_tui.core.memory.memory_update import MemoryUpdate
from omb_tui.core.memory.settings import BotSettings, load_profile_learned, save_bot_settings

TODAY = date(2026, 11, 30)


@pytest.fixture
def home(tmp_path):
    home = Home(tmp_path / "home")
    home.workspace("scout").mkdir(parents=True)
    save_bot_settings(home, BotSettings(id="scout", name="Scout"))
    return home


def memory(home) -> str:
    return (home.workspace("scout") / "MEMORY.md").read_text()


def archive(home) -> str:
    path = home.workspace("scout") / "memory" / "archive.md"
    return path.read_text() if path.exists() else ""


def write_memory(home, text: str) -> None:
    path = home.workspace("scout") / "MEMORY.md"
    path.write_text(text)


def dated(i: int, day: date, fact: str | None = None) -> str:
    return f'- {day.isoformat()} · from chat "Old" · fact number {i}{"" if fact is None else " " + fact}\n'


def full_memory(n: int = MEMORY_MAX_LINES, start: date = date(2026, 1, 1)) -> str:
    return "".join(dated(i, start + timedelta(days=i)) for i in range(n))


def test_add_writes_a_dated_entry_with_chat_and_until(home):
    result = MemoryUpdate(home, "scout").add("Flight to Lisbon", today=TODAY, chat="Trips", until=date(2026, 12, 12))
    assert memory(home) == '- 2026-11-30 · from chat "Trips" · Flight to Lisbon · until 2026-12-12\n'
    assert result.moved == [] and not result.must_trim


def test_entry_limits_are_refused_and_nothing_written(home):
    write_memory(home, "- keep\n")
    update = MemoryUpdate(home, "scout")
    with pytest.raises(MemoryInputError, match="1,000|1000"):
        update.add("x" * 1001, today=TODAY)
    with pytest.raises(MemoryInputError, match="20"):
        update.add("\n".join(f"line {i}" for i in range(21)), today=TODAY)
    with pytest.raises(MemoryInputError, match="passed"):
        update.add("old", today=TODAY, until=TODAY - timedelta(days=1))
    assert memory(home) == "- keep\n"


def test_multiline_entry_keeps_its_lines_under_the_bullet(home):
    MemoryUpdate(home, "scout").add("Deploy steps:\nrun make\nthen push", today=TODAY)
    entries = [e for e in parse_entries(memory(home)) if e.kind == "dated"]
    assert len(entries) == 1 and entries[0].line_count == 3


def test_overflow_moves_oldest_live_entries_to_archive_marked_moved(home):
    write_memory(home, full_memory())
    result = MemoryUpdate(home, "scout").add("brand new fact", today=TODAY)
    assert result.moved == ["fact number 0"]
    assert "fact number 0" not in memory(home)
    assert "fact number 0 · moved 2026-11-30" in archive(home)
    assert memory(home).endswith("brand new fact\n")
    g = gauge(memory(home))
    assert g.lines <= MEMORY_MAX_LINES and g.bytes <= MEMORY_MAX_BYTES and g.lines_not_loaded == 0


def test_overflow_order_struck_then_expired_then_oldest(home):
    lines = [dated(i, date(2026, 1, 1) + timedelta(days=i)) for i in range(197)]
    lines.insert(50, "- ~~the office is in Pune~~ · superseded 2026-09-10\n")
    lines.insert(100, "- 2026-10-01 · trip ends · until 2026-10-05\n")
    lines.insert(150, "- 2026-10-02 · second struck~~ · superseded 2026-10-03\n".replace("second", "~~second"))
    write_memory(home, "".join(lines))
    update = MemoryUpdate(home, "scout")
    first = update.add("new one", today=TODAY)
    assert first.moved == ["the office is in Pune"]
    second = update.add("new two", today=TODAY)
    assert [m for m in second.moved] and "second struck" in second.moved[0]
    third = update.add("new three", today=TODAY)
    assert third.moved == ["trip ends"]
    fourth = update.add("new four", today=TODAY)
    assert fourth.moved == ["fact number 0"]


def test_undated_health_and_new_entry_never_move(home):
    hand = "".join(f"- hand-written line {i}\n" for i in range(150))
    health = "".join(dated(i, date(2025, 1, 1), f"is allergic to peanuts {i}") for i in range(49))
    write_memory(home, hand + health + dated(999, date(2020, 1, 1)))
    result = MemoryUpdate(home, "scout").add("newest", today=TODAY)
    assert result.moved == ["fact number 999"]
    text = memory(home)
    assert "hand-written line 0" in text and "allergic to peanuts 0" in text and "newest" in text


def test_when_unmovable_lines_fill_the_budget_entry_still_saved_and_person_asked_to_trim(home):
    write_memory(home, "".join(f"- hand-written {i}\n" for i in range(MEMORY_MAX_LINES)))
    result = MemoryUpdate(home, "scout").add("still saved", today=TODAY)
    assert "still saved" in memory(home)
    assert result.must_trim and "trim" in result.message()
    assert gauge(memory(home)).level == "red"


def test_moved_entry_takes_its_owned_lines_along(home):
    block = "- 2020-01-01 · old with code\n  ```\n  make deploy\n  ```\n"
    write_memory(home, block + full_memory(MEMORY_MAX_LINES - 4, start=date(2026, 1, 1)))
    MemoryUpdate(home, "scout").add("newer", today=TODAY)
    assert "make deploy" in archive(home) and "make deploy" not in memory(home)


def test_result_names_first_few_and_count(home):
    # 20 big hand-written lines leave little room: a long new entry pushes several dated ones out.
    big = "y" * 990
    write_memory(home, full_memory(175) + "".join(f"- hand {i} {big}\n" for i in range(20)))
    result = MemoryUpdate(home, "scout").add("z" * 900, today=TODAY)
    assert len(result.moved) > 3
    assert f"Moved {len(result.moved)} older entries" in result.message()
    assert f"and {len(result.moved) - 3} more" in result.message()


def test_archive_written_before_memory(home, monkeypatch):
    from omb_tui.core.memory import store as store_module

    order = []
    real = store_module.atomic_write_bytes

    def spy(path, data, **kwargs):
        order.append(path.name)
        real(path, data, **kwargs)

    monkeypatch.setattr(store_module, "atomic_write_bytes", spy)
    write_memory(home, full_memory())
    MemoryUpdate(home, "scout").add("another", today=TODAY)
    files = [name for name in order if name.endswith(".md")]
    assert files == ["archive.md", "MEMORY.md"]


def test_crlf_file_stays_crlf(home):
    write_memory(home, "- 2026-01-01 · one\r\n")
    MemoryUpdate(home, "scout").add("two", today=TODAY)
    on_disk = (home.workspace("scout") / "MEMORY.md").read_bytes()
    assert on_disk == "- 2026-01-01 · one\r\n- 2026-11-30 · two\r\n".encode()


# ----- forget -----
def test_forget_whole_words_every_file_keeps_headers(home):
    ws = home.workspace("scout")
    write_memory(
        home, '# Notes\n- 2026-01-01 · from chat "IST" · sees the dentist on Friday\n- 2026-01-02 · works in IST\n'
    )
    (ws / "memory").mkdir()
    (ws / "memory" / "travel.md").write_text(
        "---\ntitle: IST travel\n---\n# IST trips\n- 2026-02-01 · IST office visit\n- other\n"
    )
    (ws / "memory" / "archive.md").write_text("- 2025-01-01 · old IST note · moved 2026-01-01\n")
    home.about_me_path.write_text("# About me\n- I am in IST\n")
    result = MemoryUpdate(home, "scout").forget("IST")
    assert memory(home) == '# Notes\n- 2026-01-01 · from chat "IST" · sees the dentist on Friday\n'
    assert (ws / "memory" / "travel.md").read_text() == "---\ntitle: IST travel\n---\n# IST trips\n- other\n"
    assert (ws / "memory" / "archive.md").read_text() == ""
    assert home.about_me_path.read_text() == "# About me\n"
    assert result.count == 4
    assert [(f["count"], f["at"]) for f in load_profile_learned(home).forgotten] == [(1, clock.today().isoformat())]
    assert "IST" not in home.profile_learned_path.read_text()


def test_forget_removes_a_note_whole_never_leaving_a_date(home):
    write_memory(home, '- 2026-01-01 · from chat "X" · Bob\'s phone\n  is 555 1234\n- keep\n')
    MemoryUpdate(home, "scout").forget("phone")
    assert memory(home) == "- keep\n"


def test_forget_requires_words(home):
    with pytest.raises(MemoryInputError):
        MemoryUpdate(home, "scout").forget("   ")


def test_remember_again_lifts_the_forget(home):
    update = MemoryUpdate(home, "scout")
    update.forget("Lisbon")
    assert load_profile_learned(home).forgotten
    update.add("Moving to Lisbon in May", today=TODAY)
    assert load_profile_learned(home).forgotten == []


def test_forget_journals_each_file(home):
    write_memory(home, "- 2026-01-01 · Lisbon\n")
    from omb_tui.core.memory.store import MemoryStore

    MemoryStore(home, "scout").sync_outside_changes()
    MemoryUpdate(home, "scout").forget("Lisbon")
    rows = MemoryStore(home, "scout").journal.rows()
    assert rows[0].file == "MEMORY.md" and rows[0].undoable


# ----- prefer -----
def test_prefer_goes_once_into_about_me_as_learned_line(home):
    update = MemoryUpdate(home, "scout")
    first = update.prefer("Reminders go to my task app", today=TODAY)
    again = update.prefer("Reminders go to my task app.", today=TODAY)
    about = home.about_me_path.read_text()
    assert about.count("Reminders go to my task app") == 1
    assert "- 2026-11-30 · learned by Scout · Reminders go to my task app" in about
    assert first.added and not again.added
    learned = json.loads(home.profile_learned_path.read_text())["learned"]
    assert [item["text"] for item in learned] == ["Reminders go to my task app"]


def test_prefer_limit(home):
    with pytest.raises(MemoryInputError, match="300"):
        MemoryUpdate(home, "scout").prefer("x" * 301)
    assert not home.about_me_path.exists()


def test_live_notes_stay_when_moving_cannot_bring_the_file_within_budget(home):
    hand = "".join(f"- hand-written line {i}\n" for i in range(MEMORY_MAX_LINES))
    write_memory(home, hand + dated(1, date(2026, 1, 1)) + "- ~~old office~~ · superseded 2026-02-01\n")
    result = MemoryUpdate(home, "scout").add("newest", today=TODAY)
    assert result.moved == ["old office"]  # the struck line goes; the live note that was loading stays
    assert "fact number 1" in memory(home) and result.must_trim


def test_result_never_shows_a_credential(home):
    key = "sk-" + "a1B2c3D4" * 6
    result = MemoryUpdate(home, "scout").add(f"the staging key is {key}", today=TODAY)
    assert key not in result.entry and key not in json.dumps(result.to_dict())
    assert "«redacted" in result.entry


def test_prefer_from_many_bots_at_once_loses_nothing(home):
    import threading

    for bot_id in ("ledger", "atlas"):
        home.workspace(bot_id).mkdir(parents=True)
    texts = [f"{bot} preference {i}" for bot in ("scout", "ledger", "atlas") for i in range(6)]
    threads = [threading.Thread(target=MemoryUpdate(home, t.split()[0]).prefer, args=(t,)) for t in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    about = home.about_me_path.read_text()
    assert all(t in about for t in texts)
    assert sorted(item["text"] for item in load_profile_learned(home).learned) == sorted(texts)


def test_undo_of_about_me_refuses_when_another_bot_changed_it_since(home):
    from omb_tui.core.journal.changes import LaterChanges
    from omb_tui.core.memory.store import MemoryStore

    home.workspace("ledger").mkdir(parents=True)
    MemoryUpdate(home, "scout").prefer("Reminders go to my task app", today=TODAY)
    row = MemoryStore(home, "scout").journal.rows(limit=1)[0]
    MemoryUpdate(home, "ledger").prefer("Invoices in euros", today=TODAY)
    with pytest.raises(LaterChanges, match="changed after row"):
        MemoryStore(home, "scout").undo(row.id)
    assert "Invoices in euros" in home.about_me_path.read_text()
