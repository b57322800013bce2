"""The sample conversations of `omb-tui demo`: chats and a room over five weeks, written with the core's writer.

docs/conversations.md describes the format; the demo's conversations are there to be recalled from, searched
and briefed on, so they read like real work.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from pathlib import Path

from ..core.base import clock
from ..core.files.paths import Home, validate_bot_id
from ..core.memory.conversations import (
    KIND_CHAT,
    KIND_ROOM,
    Conversation,
    Member,
    Message,
    Starter,
    chats_dir,
    rooms_dir,
    write_conversation,
)

# Each script: (id, title, days before today, [(minutes after 09:00, author, text)]), author "p" or "b".
_SCOUT_CHATS = [
    (
        "invoice-reconciliation",
        "Invoice reconciliation",
        1,
        [
            (
                0,
                "p",
                "Can you go through the September invoices from Acme and flag anything that does not match "
                "a purchase order? Finance wants it before Friday.",
            ),
            (
                4,
                "b",
                "I went through all 42 Acme invoices for September. Three do not match a purchase order: "
                "INV-2291 (billed 18 hours, PO says 12), INV-2304 (a duplicate of INV-2299) and INV-2310 "
                "(no PO number at all). Everything else reconciles to the cent.",
            ),
            (9, "p", "Good. Send the three flagged invoices back to Acme with a short note, and copy Dana in finance."),
            (
                12,
                "b",
                "Sent the three flagged invoices back to Acme with a note for each, and copied Dana. I asked "
                "Acme for a corrected INV-2291 and a credit note for the duplicate by next Wednesday.",
            ),
        ],
    ),
    (
        "lisbon-offsite",
        "Lisbon offsite planning",
        9,
        [
            (
                0,
                "p",
                "We are doing the team offsite in Lisbon in October, 14 people, three nights. Can you find "
                "a hotel near Cais do Sodre with a meeting room?",
            ),
            (
                6,
                "b",
                "Three options with a meeting room for 14: Hotel Baixa Rio (EUR 168 a night, room for 20), "
                "LX Factory Lofts (EUR 142, room for 16, a 10 minute tram ride) and Casa do Rio (EUR 190, "
                "river view, room for 14 exactly). Baixa Rio is the only one that includes breakfast.",
            ),
            (
                15,
                "p",
                "Book Baixa Rio for the 14th to the 17th of October. Vegetarian dinner on the first night, "
                "two people are vegan.",
            ),
            (
                21,
                "b",
                "Booked Hotel Baixa Rio, 14 rooms, 14 to 17 October, confirmation BR-55812. The first "
                "night's dinner is at Ao 26 Vegan Food Project, a table for 14 at 19:30, fully vegetarian "
                "with vegan mains.",
            ),
        ],
    ),
    (
        "competitor-pricing",
        "Competitor pricing research",
        23,
        [
            (
                0,
                "p",
                "Can you compare what Northwind and Contoso charge for their team plans? I want to know if "
                "our 12 euro seat price still makes sense.",
            ),
            (
                8,
                "b",
                "Northwind charges 15 euro per seat per month on the team plan with a five seat minimum; "
                "Contoso charges 11 euro but caps storage at 50 GB and charges extra for single sign-on. "
                "At 12 euro we sit between them, and we are the only one with single sign-on included.",
            ),
            (
                14,
                "p",
                "Interesting. Keep the price, but write a short paragraph for the pricing page about "
                "single sign-on being included.",
            ),
            (
                19,
                "b",
                'Here is the paragraph: "Single sign-on is included on every team plan, at no extra '
                'cost. Connect Okta, Google Workspace or Microsoft Entra in a few minutes."',
            ),
        ],
    ),
    (
        "dentist-reminder",
        "Dentist appointment",
        37,
        [
            (0, "p", "Remind me that the dentist moved my appointment to the 3rd of next month at 08:30."),
            (1, "b", "Noted: the dentist appointment is now on the 3rd at 08:30. I will remind you the day before."),
        ],
    ),
]

_SCOUT_ROOM = (
    "launch-room",
    "Launch",
    [
        (15, 0, "p", "Morning all. Where are we with the launch checklist for the 2.0 release?"),
        (
            15,
            3,
            "b",
            "Release notes are drafted and the pricing page copy is ready for review. The only open "
            "item on my side is the screenshots for the onboarding guide.",
        ),
        (
            15,
            5,
            "o",
            "Billing is ready: the new plans are live in the staging environment and the invoices "
            "template has the new single sign-on line.",
        ),
        (6, 0, "p", "Quick standup: the launch date moved from Tuesday to Thursday because of the app store review."),
        (
            6,
            2,
            "b",
            "Understood, launch is Thursday. I moved the announcement email and the blog post to "
            "Thursday 10:00 and told the support team.",
        ),
        (0, 0, "p", "Final check for tomorrow's launch: anything blocking?"),
        (
            0,
            2,
            "b",
            "Nothing blocking. Screenshots for the onboarding guide are done, the announcement email "
            "is scheduled for 10:00, and the status page is ready.",
        ),
    ],
)

_LEDGER_CHATS = [
    (
        "quarterly-close",
        "Quarterly close",
        0,
        [
            (0, "p", "Start the Q3 close: list the accounts that still have unreconciled items."),
            (
                5,
                "b",
                "Four accounts still have unreconciled items for Q3: the Stripe clearing account (7 "
                "items), petty cash (2), the Acme receivable (3 invoices under dispute) and the corporate "
                "card (11 receipts missing).",
            ),
        ],
    ),
    (
        "vat-return",
        "VAT return",
        12,
        [
            (0, "p", "When is the next VAT return due, and do we owe anything?"),
            (
                3,
                "b",
                "The next VAT return is due on the 7th of next month. Based on the ledger we owe about "
                "EUR 4,820, mostly from the September consulting invoices.",
            ),
        ],
    ),
]

_ATLAS_CHATS = [
    (
        "office-move",
        "Office move",
        5,
        [
            (
                0,
                "p",
                "We are moving the Pune office to the new building on Baner Road in November. Make a list "
                "of what needs to happen.",
            ),
            (
                7,
                "b",
                "The move list: give notice on the old lease (three months), book movers for the second "
                "week of November, move the internet contract (ten working days' notice), order 20 desks, "
                "and update the address on invoices and the website.",
            ),
        ],
    ),
]

_QUILL_CHATS = [
    (
        "newsletter-draft",
        "October newsletter",
        3,
        [
            (0, "p", "Draft the October newsletter: the 2.0 launch, the Lisbon offsite, and a customer story."),
            (
                9,
                "b",
                "Draft ready: a lead story on the 2.0 launch and single sign-on, a short piece on the "
                "Lisbon offsite, and a customer story about how Northwind Traders cut their month-end "
                "close from five days to two.",
            ),
        ],
    ),
]


class _Clock:
    """Sample times: a given hour on a day before `today`; today's are moved earlier so they are not in the future."""

    def __init__(self, today: date, now: datetime) -> None:
        self.today = today
        self.latest_today = now.astimezone() - timedelta(hours=3)

    def at(self, days_before: int, minutes: int, start_hour: int = 9) -> datetime:
        day = self.today - timedelta(days=days_before)
        start = datetime.combine(day, time(start_hour)).astimezone()
        if days_before == 0 and start > self.latest_today:
            start = self.latest_today
        return start + timedelta(minutes=minutes)


def _chat(bot_id: str, person: str, script: tuple, clock: _Clock) -> Conversation:
    conversation_id, title, days_before, turns = script
    created = clock.at(days_before, 0)
    conversation = Conversation(
        id=conversation_id,
        title=title,
        kind=KIND_CHAT,
        started_by=Starter("person", person),
        members=[Member("person", person), Member("bot", bot_id)],
        created=created,
    )
    for minutes, who, text in turns:
        author_kind, author = ("person", person) if who == "p" else ("bot", bot_id)
        conversation.messages.append(
            Message(author_kind, author, clock.at(days_before, minutes), text, origin="person" if who == "p" else None)
        )
    return conversation


def write_sample_conversations(
    home: Home,
    bot_ids: Mapping[str, str],
    today: date,
    person: str = "Milind",
    now: datetime | None = None,
) -> list[Path]:
    """Write the demo's conversations (for `omb-tui demo`); returns the files written.

    `bot_ids` maps the demo's roles to the bot ids to use: `scout` (several 1:1 chats over five weeks and
    the "Launch" room), `ledger` (1:1 chats, a member of the room), `atlas` and `quill` (one 1:1 chat
    each). A missing role is left out. Existing sample files are replaced; other conversations are not
    touched. One chat of each bot is dated today or yesterday so the recent-work brief has something;
    today's messages are placed at least three hours before `now` (default: the current time, or the
    end of `today` when it is another day), never in the future.
    """
    if now is None:
        now = clock.now() if today == clock.today() else datetime.combine(today, time(23, 59))
    sample_clock = _Clock(today, now)
    written: list[Path] = []
    plans = [
        ("scout", _SCOUT_CHATS),
        ("ledger", _LEDGER_CHATS),
        ("atlas", _ATLAS_CHATS),
        ("quill", _QUILL_CHATS),
    ]
    for role, scripts in plans:
        bot_id = bot_ids.get(role)
        if not bot_id:
            continue
        for script in scripts:
            conversation = _chat(validate_bot_id(bot_id), person, script, sample_clock)
            path = chats_dir(home, bot_id) / f"{conversation.id}.ndjson"
            write_conversation(path, conversation)
            written.append(path)
        if role == "scout":
            written.append(_write_sample_room(home, bot_id, bot_ids.get("ledger"), person, sample_clock))
    # A routine run: the harness starts it, so recall in it gives notes only.
    scout = bot_ids.get("scout")
    if scout:
        routine = Conversation(
            id="morning-digest",
            title="Morning digest",
            kind=KIND_CHAT,
            started_by=Starter("routine", "Morning digest"),
            members=[Member("person", person), Member("bot", scout)],  # the person's own routine
            created=sample_clock.at(0, -90),
        )
        routine.messages = [
            Message(
                "harness",
                "routine",
                sample_clock.at(0, -90),
                'Routine "Morning digest": summarise yesterday\'s email and calendar.',
                origin="routine",
            ),
            Message(
                "bot",
                scout,
                sample_clock.at(0, -88),
                "Yesterday: 23 emails (two need a reply: Acme about "
                "the corrected invoice, and the Baixa Rio hotel about room setup), and three meetings "
                "today, the first at 10:00.",
            ),
        ]
        path = chats_dir(home, scout) / f"{routine.id}.ndjson"
        write_conversation(path, routine)
        written.append(path)
    return written


def _write_sample_room(home: Home, scout: str, other_bot: str | None, person: str, clock: _Clock) -> Path:
    room_id, title, turns = _SCOUT_ROOM
    members = [Member("person", person), Member("person", "Dana"), Member("bot", scout)]
    if other_bot:
        members.append(Member("bot", other_bot))
    room = Conversation(
        id=room_id,
        title=title,
        kind=KIND_ROOM,
        started_by=Starter("person", person),
        members=members,
        created=clock.at(15, 0),
    )
    for days_before, minutes, who, text in turns:
        if who == "p":
            author_kind, author, origin = "person", person, "person"
        elif who == "b":
            author_kind, author, origin = "bot", scout, None
        else:
            if not other_bot:
                continue
            author_kind, author, origin = "bot", other_bot, None
        room.messages.append(Message(author_kind, author, clock.at(days_before, minutes, 10), text, origin=origin))
    path = rooms_dir(home) / f"{room.id}.ndjson"
    write_conversation(path, room)
    return path
