"""The home the recall preview's Pilot tests and its snapshots open: Scout, a trip to Lisbon in its topics and one
chat about the hotel."""

from __future__ import annotations

from datetime import UTC, date, datetime

from omb_tui.core.files.paths import Home
from omb_tui.core.memory.conversations import (
    KIND_CHAT,
    Conversation,
    Member,
    Message,
    Starter,
    append_message,
    create_conversation,
)
from support.app_helpers import add_bot

TRAVEL = (
    "---\ntitle: Travel\naliases: [trips, flights]\n---\n# Travel\n\n"
    '- 2026-11-01 · from chat "Plans" · Lisbon flights booked with TAP, seat 14C\n'
    '- 2026-11-02 · from chat "Plans" · Hotel Baixa Rio in Lisbon for the offsite, 14 rooms\n'
)
FOOD = '---\ntitle: Food\n---\n# Food\n\n- 2026-10-20 · from chat "Plans" · Vegetarian dinner on the first night\n'
AS_OF = date(2026, 11, 30)


def memory_text(until: date) -> str:
    return (
        "# Memory\n"
        "\n"
        '- 2026-11-01 · from chat "Plans" · likes short replies\n'
        f'- 2026-11-02 · from chat "Plans" · in Lisbon this week · until {until.isoformat()}\n'
        "- lives in Pune\n"
    )


def build_home(root, *, until: date, memory: bool = True) -> Home:
    home = Home(root)
    add_bot(
        home, memory=memory, files={"MEMORY.md": memory_text(until), "memory/travel.md": TRAVEL, "memory/food.md": FOOD}
    )
    chat = Conversation(
        id="lisbon-plans",
        title="Lisbon plans",
        kind=KIND_CHAT,
        started_by=Starter("person", "Milind"),
        members=[Member("person", "Milind"), Member("bot", "scout")],
        created=datetime(2026, 11, 20, 12, 0, tzinfo=UTC),
    )
    path = create_conversation(home, chat, "scout")
    append_message(
        path,
        Message(
            "person",
            "Milind",
            datetime(2026, 11, 20, 12, 0, tzinfo=UTC),
            "Please book the Baixa Rio hotel in Lisbon for the offsite.",
            origin="person",
        ),
    )
    append_message(
        path,
        Message(
            "bot",
            "scout",
            datetime(2026, 11, 20, 12, 5, tzinfo=UTC),
            "Booked Hotel Baixa Rio in Lisbon, 14 rooms, confirmation BR-55812.",
        ),
    )
    return home
