"""One log line per finished turn, while memory is on, through the store (journaled, redacted)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from omb_tui.core.files.paths import Home, NotFound
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.recall.turn_log import (
    append_log_line,
    append_turn_log,
    conversation_source,
    turn_log_heading,
    turn_log_line,
    turn_log_rel,
    turn_log_source,
)

AT = datetime(2026, 9, 20, 9, 5).astimezone()


@pytest.fixture
def home(tmp_path) -> Home:
    home = Home(tmp_path)
    for chat_id, title, room in (("invoices", "Invoice reconciliation", False), ("launch", "Launch", True)):
        c = conv.Conversation(
            id=chat_id,
            title=title,
            kind=conv.KIND_ROOM if room else conv.KIND_CHAT,
            started_by=conv.Starter("person", "Milind"),
            members=[conv.Member("person", "Milind"), conv.Member("bot", "scout")],
            created=datetime(2026, 9, 1, tzinfo=UTC),
        )
        conv.create_conversation(home, c, None if room else "scout")
    return home


def log_text(home: Home, day: str = "2026-09-20") -> str:
    return MemoryStore(home, "scout").read(f"memory/log/{day}.md").text


def test_a_finished_turn_appends_one_line_to_the_days_log(home):
    result = append_turn_log(
        home,
        "scout",
        "invoices",
        "Sent the three flagged invoices back to Acme.",
        tools=["read_file", "send_email"],
        at=AT,
    )
    assert result is not None and result.rel == "memory/log/2026-09-20.md"
    assert log_text(home) == (
        "# 2026-09-20\n\n"
        '- 09:05 · from chat "Invoice reconciliation" · tools: read_file, send_email · '
        'said: "Sent the three flagged invoices back to Acme."\n'
    )


def test_later_turns_append_below_and_rooms_are_named(home):
    append_turn_log(home, "scout", "invoices", "First.", at=AT)
    append_turn_log(home, "scout", "launch", "The calendar API timed out.", failed=True, at=AT + timedelta(minutes=10))
    lines = log_text(home).splitlines()
    assert lines[2].startswith("- 09:05 · from chat")
    assert lines[3] == '- 09:15 · from room "Launch" · the turn failed · no tools · said: "The calendar API timed out."'


def test_each_day_has_its_own_file(home):
    append_turn_log(home, "scout", "invoices", "Today.", at=AT)
    append_turn_log(home, "scout", "invoices", "Tomorrow.", at=AT + timedelta(days=1))
    assert "Today." in log_text(home) and "Tomorrow." in log_text(home, "2026-09-21")


def test_the_write_is_journaled_as_the_bots_work_in_that_chat(home):
    append_turn_log(home, "scout", "invoices", "Done.", at=AT)
    row = MemoryStore(home, "scout").journal.rows(limit=1)[0]
    assert (row.who, row.how, row.chat, row.file) == (WHO_BOT, HOW_TASK, "invoices", "memory/log/2026-09-20.md")


def test_nothing_is_written_while_memory_is_off(home):
    save_bot_settings(home, BotSettings(id="scout", name="Scout", memory=False))
    assert append_turn_log(home, "scout", "invoices", "Done.", at=AT) is None
    assert not (home.workspace("scout") / "memory" / "log").exists()
    assert MemoryStore(home, "scout").journal.rows() == []


def test_credentials_are_redacted_and_long_replies_cut(home):
    append_turn_log(home, "scout", "invoices", "Your key is sk-ant-api03-" + "A1b2C3d4" * 8 + " keep it safe", at=AT)
    assert "A1b2C3d4A1b2" not in log_text(home) and "redacted" in log_text(home)
    line = turn_log_line('chat "X"', "word " * 200 + "\nsecond line", tools=["t"] * 3, at=AT)
    assert "\n" not in line and len(line) < 400 and line.endswith('…"') and "tools: t ·" in line


def test_an_unknown_chat_is_refused(home):
    with pytest.raises(NotFound):
        append_turn_log(home, "scout", "missing", "Done.", at=AT)


def test_the_low_level_append_writes_the_same_file_as_a_turn(home):
    """append_log_line is what append_turn_log writes through: same heading, same path, the caller's actor."""
    line = turn_log_line(turn_log_source("Launch", is_room=True), "Standup notes posted.", ["post"], at=AT)
    result = append_log_line(MemoryStore(home, "scout"), AT.date(), line, Actor(WHO_BOT, HOW_TASK, "launch"))
    assert result.rel == turn_log_rel(AT.date()) == "memory/log/2026-09-20.md"
    append_turn_log(home, "scout", "invoices", "Done.", at=AT + timedelta(minutes=1))
    assert log_text(home) == (
        turn_log_heading(AT.date())
        + '- 09:05 · from room "Launch" · tools: post · said: "Standup notes posted."\n'
        + '- 09:06 · from chat "Invoice reconciliation" · no tools · said: "Done."\n'
    )
    assert [row.chat for row in MemoryStore(home, "scout").journal.rows()] == ["invoices", "launch"]


def test_a_file_without_a_final_newline_still_gets_its_own_line(home):
    (home.workspace("scout") / "memory" / "log").mkdir(parents=True)
    (home.workspace("scout") / "memory" / "log" / "2026-09-20.md").write_text("# 2026-09-20\n\n- by hand")
    append_turn_log(home, "scout", "invoices", "Done.", at=AT)
    assert log_text(home).splitlines()[-2:] == [
        "- by hand",
        '- 09:05 · from chat "Invoice reconciliation" · no tools · said: "Done."',
    ]


def test_sources_flatten_quotes_and_whitespace(home):
    assert turn_log_source('The "big"\n launch', is_room=True) == "room \"The 'big' launch\""
    assert conversation_source(conv.find_conversation(home, "scout", "invoices")) == 'chat "Invoice reconciliation"'
