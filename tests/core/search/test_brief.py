"""The recent-work brief (spec: "What a bot knows about its other conversations")."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from omb_tui.core.files.paths import Home
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.search.brief import BRIEF_HEADING, BRIEF_MAX_CHARS, BRIEF_MAX_LINES, recent_work_brief, when_label

pytestmark = pytest.mark.dates

NOW = datetime(2026, 9, 20, 15, 0).astimezone()
LINE = re.compile(r'^(today|yesterday|\w{3} \d{2} \w{3}) \d{2}:\d{2} · .+ · you said: ".+"$')


@pytest.fixture
def home(tmp_path) -> Home:
    return Home(tmp_path)


def conversation(
    home: Home,
    chat_id: str,
    messages: list[tuple[str, str, float]],
    *,
    room: bool = False,
    starter: str = "person",
    title: str | None = None,
) -> conv.Conversation:
    """Messages as (author, text, hours before NOW); author "scout", "ledger" (a bot), "failed" or a person."""
    c = conv.Conversation(
        id=chat_id,
        title=title or chat_id.replace("-", " ").capitalize(),
        kind=conv.KIND_ROOM if room else conv.KIND_CHAT,
        started_by=conv.Starter(starter, "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", "scout"), conv.Member("bot", "ledger")],
        created=NOW - timedelta(days=10),
    )
    for author, text, hours in messages:
        at = NOW - timedelta(hours=hours)
        if author in ("scout", "ledger"):
            c.messages.append(conv.Message("bot", author, at, text))
        elif author == "failed":
            c.messages.append(conv.Message("bot", "scout", at, text, failed=True))
        else:
            c.messages.append(conv.Message("person", author, at, text))
    folder = conv.rooms_dir(home) if room else conv.chats_dir(home, "scout")
    conv.write_conversation(folder / f"{chat_id}.ndjson", c)
    return c


def brief(home: Home, chat_id: str | None = None):
    return recent_work_brief(home, "scout", chat_id=chat_id, now=NOW)


def test_the_newest_thing_said_in_each_other_conversation(home):
    conversation(
        home,
        "invoices",
        [
            ("Milind", "check the invoices", 7),
            ("scout", "Checked them", 6.5),
            ("scout", "Sent the three flagged invoices back to Acme", 6),
        ],
        title="Invoice reconciliation",
    )
    conversation(home, "launch", [("scout", "Launch moved to Thursday", 26)], room=True)
    result = brief(home)
    assert result.text.splitlines()[0] == BRIEF_HEADING
    assert [line.text for line in result.lines] == [
        'today 09:00 · 1:1 with Milind · "Invoice reconciliation" · you said: '
        '"Sent the three flagged invoices back to Acme"',
        'yesterday 13:00 · room "Launch" · you said: "Launch moved to Thursday"',
    ]


def test_the_current_conversation_is_not_listed(home):
    conversation(home, "invoices", [("scout", "Sent the invoices", 6)])
    conversation(home, "launch", [("scout", "Launch moved", 26)], room=True)
    assert [line.conversation for line in brief(home, "invoices").lines] == ["launch"]
    assert [line.conversation for line in brief(home, "launch").lines] == ["invoices"]


def test_only_the_last_two_days_and_only_what_this_bot_said(home):
    conversation(home, "old", [("scout", "Long ago", 49)])
    conversation(home, "ledger-only", [("ledger", "Ledger spoke here", 1), ("Milind", "and I did", 1)], room=True)
    conversation(home, "failed", [("scout", "Worked at first", 5), ("failed", "Error: timeout", 4)])
    conversation(home, "future", [("scout", "Not yet said", -2)])
    result = brief(home)
    assert [line.said for line in result.lines] == ["Worked at first"]
    assert result.lines[0].conversation == "failed"


def test_an_empty_brief_has_no_text(home):
    assert brief(home).text == "" and brief(home).lines == []


def test_at_most_ten_lines_and_about_350_tokens(home):
    for n in range(14):
        conversation(home, f"chat-{n}", [("scout", f"Finished task {n}: " + "a long report " * 30, n + 1)])
    result = brief(home)
    assert len(result.lines) <= BRIEF_MAX_LINES
    assert len(result.text) <= BRIEF_MAX_CHARS
    assert all(LINE.match(line) for line in result.text.splitlines()[1:])
    assert [line.conversation for line in result.lines] == [f"chat-{n}" for n in range(len(result.lines))]
    short = Home(home.root / "short")
    for n in range(14):
        conversation(short, f"chat-{n}", [("scout", f"Done {n}", n + 1)])
    assert len(recent_work_brief(short, "scout", now=NOW).lines) == BRIEF_MAX_LINES


def test_a_room_gets_a_chip_for_the_private_chats_it_names(home):
    save_bot_settings(home, BotSettings(id="scout", name="Scout"))
    conversation(home, "invoices", [("scout", "Sent the invoices", 6)])
    conversation(home, "digest", [("scout", "Digest sent", 5)], starter="routine")
    conversation(home, "launch", [("scout", "Launch moved", 26)], room=True)
    in_room = brief(home, "launch")
    assert in_room.private_chats == ["invoices"]
    assert in_room.chip == "Scout's recent-work brief covers 1 private chat with you"
    assert brief(home, "invoices").chip is None  # only a room gets the chip


def test_when_labels():
    assert when_label(NOW - timedelta(hours=1), NOW) == "today 14:00"
    assert when_label(NOW - timedelta(days=1), NOW) == "yesterday 15:00"
    assert when_label(NOW - timedelta(days=2), NOW).endswith("15:00")


def test_json(home):
    conversation(home, "invoices", [("scout", "Sent the invoices", 6)])
    data = brief(home).to_dict()
    assert data["lines"][0]["conversation"] == "invoices" and data["private_chats"] == ["invoices"]
    assert data["text"].startswith(BRIEF_HEADING)
