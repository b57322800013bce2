"""Scout's history in the demo home: Nadia's personal assistant, over three months (sample data, not core).

Spec: memory.md, "Where it lives" and "The journal". Dated, noticed, until, struck and hand-written lines; topics
(one with a broken header, one with a [[wikilink]]) that Memory upkeep files details into; an archive the nightly
tidy-up fills; About me; daily logs of the last four weeks (the last fortnight written out turn by turn, the one
before it routine turns from a fixed seed); and a journal of over two hundred rows: the bot during tasks, the person
in Settings and in another editor, an import, a deleted log, an undo, and a row that cannot be undone because its
earlier text held a credential. Last night's pass (demo/night.py) closes the story.
"""

from __future__ import annotations

import random

from ..core.memory.paths import MEMORY_FILE
from ..core.memory.store import ABOUT_ME_REL
from ..core.memory.text import plural
from .night import scout_night
from .story import (
    AUTO_LOG_DAYS,
    EVENING,
    IMPORT,
    MORNING,
    ROOMS,
    Story,
    Topic,
    is_weekend,
    short,
    topic_header,
    with_line,
)

_SCOUT_TOPICS = {
    "travel.md": Topic(
        "Travel",
        "Trips, bookings and how Nadia likes to travel",
        ("trips", "flights", "trains", "hotels", "Lisbon", "London"),
    ),
    "clients.md": Topic(
        "Clients",
        "Rahman Studio's clients, their people and how they like to work",
        ("customers", "Hollandia", "Kroonfiets", "Delft", "proposals"),
    ),
    "projects.md": Topic(
        "Projects",
        "Studio work beyond client projects, such as the portfolio site, talks and workshops",
        ("portfolio", "talk", "workshops", "website"),
    ),
    "people.md": Topic(
        "People",
        "Family, friends and collaborators",
        ("family", "friends", "Tom", "Lina", "Joost", "birthdays", "gifts"),
    ),
    "home.md": Topic(
        "Home",
        "The flat, the kitchen renovation and the studio desk",
        ("flat", "apartment", "renovation", "builders", "Hofplein"),
    ),
    "work-log.md": Topic(
        "Work log", "Finished and stale status notes, filed by Memory upkeep", ("done", "status", "history")
    ),
}

_SCOUT_MEMORY_START = """# Scout's memory

## About Nadia
- Nadia Rahman, independent service designer (Rahman Studio), lives in Rotterdam.
- Short replies in plain words, no emoji. Times in Amsterdam time.
- Works Monday to Thursday; Friday is for admin and Lina's swimming.
- Always ask before sending anything to a client in Nadia's name.

## Notes
"""

_ABOUT_ME = """# About me

- I'm Nadia. Rotterdam, Europe/Amsterdam time.
- Independent service designer; my studio is Rahman Studio.
- English with me; Dutch is fine for drafts to Dutch clients.
- My partner is Tom, our daughter Lina is eight.
"""

_FOOD_IMPORT = (
    topic_header(
        "Food",
        "Restaurants, cooking and what Nadia likes to eat",
        ("restaurants", "dinner", "recipes", "lunch", "cooking"),
    )
    + """## Places
- Héroine on Witte de Withstraat: client dinners, ask for the window table
- Ayam Lemongrass: Indonesian, Tom's favourite, good for birthdays
- Markthal on Saturday mornings for fish and bread

## Cooking
- Weeknight staples: dal with spinach, roast salmon with potatoes, shakshuka
- Lina won't eat mushrooms; hide them or skip them
"""
)

_BOOKS = """---
title: Books & reading
aliases: [reading list, novels
description: What I'm reading and what's next
---
# Reading

Written by hand in Obsidian; Scout reads it when I ask for a book.

- Now: The Design of Everyday Things (again, for the workshop series)
- Next: Tomorrow, and Tomorrow, and Tomorrow
- Next: Braiding Sweetgrass
- Lina: the Dolfje Weerwolfje books, she is on number six
"""


def scout_history(s: Story) -> None:
    s.topics = dict(_SCOUT_TOPICS)
    lisbon, back = s.day(-10), s.day(-13)

    s.write(95, MEMORY_FILE, _SCOUT_MEMORY_START)
    s.write(95, ABOUT_ME_REL, _ABOUT_ME)

    s.remember(94, "First week", "Nadia's studio is at Schiekade 189, second floor")
    s.remember(93, "First week", "Invoices go out on the last working day of the month; Ledger does the bookkeeping")
    s.remember(90, "Weekly planning", "Weekly plan every Monday at 09:00: deadlines first, then meetings, then errands")
    s.remember(86, "Hollandia kickoff", "Hollandia Ferries: booking-app redesign, product lead Marieke de Vries")
    s.remember(
        86, "Hollandia kickoff", "Hollandia workshops are at their Hoek van Holland office; Nadia takes the 08:12 train"
    )
    s.remember(88, "Hollandia kickoff", "Marieke is on holiday; Joris covers the product side of Hollandia", until=80)
    s.tidy(79)
    s.note(
        85,
        "Hollandia kickoff",
        "clients.md",
        "Hollandia: sprint reviews every second Thursday; Nadia presents the design track",
    )
    s.note(
        85,
        "London",
        "travel.md",
        "Rotterdam to London by Eurostar from Rotterdam Centraal, about 3h40; Standard Premier for work trips",
    )
    s.note(
        84, "London", "travel.md", "In London Nadia stays at the Hoxton Holborn and asks for a room away from the lift"
    )
    s.remember(
        82, "Dentist", "Dentist: Tandartspraktijk Blaak, check-ups every six months, the practice books the next one"
    )
    s.remember(
        80, "Kroonfiets pitch", "Kroonfiets (bike subscription start-up) asked for a proposal; budget around €18,000"
    )
    s.note(
        79,
        "Kroonfiets pitch",
        "clients.md",
        "Kroonfiets founders are Sem and Aylin; they want the subscription flow ready to test by spring",
    )
    s.notice(78, "Dinner ideas", "Nadia is pescatarian: fish yes, meat no")
    s.write(76, "memory/food.md", _FOOD_IMPORT, IMPORT)
    s.remember(75, "Lina's school", "Lina's school, De Klimop, finishes at 14:00 on Wednesdays")
    s.note(
        74, "Lina's school", "people.md", "Lina's teacher this year is Mr de Wit; the parent portal is Social Schools"
    )
    s.remember(
        72,
        "Old clients",
        "Hendrik Bos (Bos Interiors) still owes €2,400 from the showroom project; Nadia won't take his work again",
    )
    s.note(
        71,
        "Old clients",
        "clients.md",
        "Hendrik Bos: last invoice reminder sent, no answer; do not chase before asking Nadia",
    )
    s.remember(70, "Summer plans", "Lina stays with her grandparents in Leeds for the summer", until=41)
    s.remember(68, "Workshop series", "Nadia is rereading The Design of Everyday Things for the workshop series")
    s.notice(66, "Client dinner", "Allergic to cashews: check the menu before booking a client dinner")
    s.remember(
        64, "Delft kickoff", "Gemeente Delft permit-service project: weekly check-in on Tuesdays at 10:00 on Teams"
    )
    s.note(63, "Hamburg", "travel.md", "Rotterdam to Hamburg by train is about five and a half hours with one change")
    s.note(62, "Delft kickoff", "clients.md", "Delft wants everything for residents in plain Dutch (B1 level)")
    s.remember(
        60,
        "Museum invoice",
        "The last Museum Rotterdam invoice waits for their PO number; Ledger has the draft",
        until=50,
    )
    s.tidy(49)
    s.supersede(
        61,
        "Office move",
        "Schiekade 189",
        "Studio moved to the Hofplein co-working space, desk 4.12 on the fourth floor",
    )
    s.note(
        60, "Leeds", "people.md", "Nadia's parents, Farida and Karim, live in Leeds; she calls them on Sunday evenings"
    )
    s.remember(
        58,
        "Portfolio site",
        "Portfolio site rebuild with Joost on the front end; launch planned for the end of the quarter",
    )
    s.remember(57, "Getting around", "No car: Nadia cycles or takes the train; taxis only for flights before 08:00")
    s.note(
        57,
        "Portfolio site",
        "projects.md",
        "Case studies planned: Hollandia (after the NDA check), Delft, and the 2025 museum wayfinding",
    )
    s.remember(55, "Travel habits", "Aisle seat near the front; no flights before 07:00 unless Nadia asks")
    s.note(
        54,
        "Travel habits",
        "travel.md",
        "Flying Blue and NS numbers are in 1Password under Travel; never paste them into a chat",
    )
    s.note(
        53, "Portfolio site", "projects.md", "The portfolio runs on Astro, hosted on Netlify; Joost owns the repository"
    )
    s.prefer(52, "Reminders", "Reminders go to my Todoist inbox, not the calendar")
    s.edit(
        50,
        MEMORY_FILE,
        lambda t: t.replace(
            "- Always ask before sending anything to a client in Nadia's name.\n",
            "- Always ask before sending anything to a client in Nadia's name.\n"
            "- Partner Tom works for the port authority and is often in Hamburg; daughter Lina is eight.\n"
            "- Longer notes live in memory/: see memory/clients.md for clients and memory/travel.md for trips.\n",
        ),
    )
    s.remember(47, "Leeds", "Farida and Karim are visiting from Leeds; keep the evenings free", until=44)
    s.remember(
        48, "Lisbon talk", "Nadia is speaking at a design conference in Lisbon; the talk is called Forms that forgive"
    )
    s.remember(47, "Rates", "Rahman Studio's day rate is €850, half a day €475")
    s.note(
        47,
        "Workshop series",
        "projects.md",
        "Workshop series Designing for forgiveness: three sessions, the first one in the new year",
    )
    s.note(46, "Joost", "people.md", "Joost van Dam, freelance front-end developer, works with Nadia on [[projects]]")
    s.remember(45, "Tom's birthday", "Tom's birthday is 14 March; he likes board games and Indonesian food")
    s.note(44, "Hollandia research", "clients.md", "Marieke prefers findings as short video clips over slide decks")
    s.notice(43, "Weekend", "Nadia wants to try the new Yemeni place on the Nieuwe Binnenweg", topic="food.md")
    s.remember(
        42,
        "Hollandia research",
        "Hollandia usability tests: 8 participants booked through Respondent, sessions in week 2 of the sprint",
    )
    s.notice(40, "Coffee", "Oat flat white in the morning; no coffee after 15:00")
    s.tidy(40)
    s.notice(39, "Weekend", "Tom's sister Eva lives in Utrecht; her kids are Noor and Daan", topic="people.md")
    s.remember(38, "Receipts", "Forward receipts to Ledger's receipts inbox by the 5th of each month")
    s.note(37, "Dinner ideas", "food.md", "Nadia liked the miso-glazed cod from Ottolenghi's Flavour; make it again")
    s.remember(36, "BTW", "Quarterly BTW return: Ledger prepares it, Nadia checks it and submits it herself")
    s.remember(35, "School holiday", "Autumn break: Lina is at home, Nadia works mornings only", until=20)
    s.note(
        34,
        "Emma",
        "people.md",
        "Emma Jansen (Jansen Administratie) is the studio's accountant; year-end file due in April",
    )
    s.notice(33, "Weekly planning", "Thursday afternoons are for deep work: no meetings after 13:00 on Thursdays")
    s.file_into_topics(
        31,
        {
            "clients.md": (
                "booking-app redesign",
                "Hoek van Holland office",
                "asked for a proposal",
                "weekly check-in",
            ),
            "travel.md": ("Aisle seat",),
            "projects.md": ("Portfolio site rebuild",),
            "people.md": ("Tom's birthday",),
        },
    )
    s.remember(
        30, "Kitchen", "Kitchen renovation: builders in the flat on weekday mornings, so calls after 13:00", until=-9
    )
    s.note(29, "Kitchen", "home.md", "Kitchen renovation by Bouwbedrijf Kok; the foreman is Ruud, number in contacts")
    s.remember(28, "Email", "Nadia reads email at 09:30 and 15:30 only; anything urgent goes by Signal")
    s.note(28, "Kitchen", "home.md", "The worktop delivery slipped a week; the builders will confirm by Friday")
    s.remember(
        27, "Hollandia readout", "Hollandia: board readout booked; Marieke wants the top five findings on one slide"
    )
    s.remember(26, "Berlin", "Tom is in Berlin for a port project, so Nadia does every school run", until=3)
    s.note(25, "Rates", "clients.md", "Delft pays per fixed-price phase; the others by the day")
    # Nadia pastes the co-working Wi-Fi into home.md in Obsidian (made up for the demo); the next day she takes
    # the password out in Settings, and that row cannot be undone: its earlier text held a credential.
    s.outside(
        24,
        "memory/home.md",
        lambda t: with_line(t, "- Hofplein Wi-Fi: network Hofplein-Members, password: Tulpen-Haven-2231"),
    )
    s.edit(
        23,
        "memory/home.md",
        lambda t: t.replace(
            "- Hofplein Wi-Fi: network Hofplein-Members, password: Tulpen-Haven-2231\n",
            "- Hofplein Wi-Fi: network Hofplein-Members, the password is on the card at the front desk\n",
        ),
    )
    s.remember(
        22,
        "Lisbon trip",
        f"Lisbon trip {short(lisbon)} to {short(back)} for the conference: bookings and contacts, see memory/travel.md",
        until=-13,
    )
    s.note(22, "Lisbon trip", "travel.md", f"Lisbon: out on KL1693, Amsterdam 07:25 to Lisbon 09:40 on {short(lisbon)}")
    s.note(
        22,
        "Lisbon trip",
        "travel.md",
        f"Lisbon: hotel Memmo Príncipe Real, {short(lisbon)} to {short(back)}, booked under Rahman Studio",
    )
    s.note(21, "Lisbon trip", "travel.md", f"Lisbon: back on TP664 at 18:10 on {short(back)}; the venue is LX Factory")
    s.note(
        21,
        "Lisbon trip",
        "travel.md",
        "Conference contact: Inês Carvalho, speaker coordination; Lisbon friends are in [[people]]",
    )
    s.remember(20, "Weekly planning", "From now on, put travel days in the weekly plan too")
    s.remember(19, "Delft workshop", "Gemeente Delft: the co-design workshop moved to the Stadskantoor, room 3.14")
    s.tidy(19)
    s.remember(18, "Accessibility", "Every client deliverable gets a WCAG AA contrast check before it goes out")
    s.note(17, "Studio desk", "home.md", "The Hofplein desk renews monthly, with one month's notice")
    s.file_into_topics(
        16,
        {
            "projects.md": ("speaking at a design conference",),
            "work-log.md": ("usability tests",),
            "clients.md": ("co-design workshop",),
        },
    )
    s.note(
        15,
        "Lisbon talk",
        "projects.md",
        "Talk outline: undo, drafts and plain error messages; 25 minutes plus questions",
    )
    s.remember(14, "Hollandia report", "Hollandia usability report delivered; readout with the board next Thursday")
    s.note(
        13, "Client dinner", "food.md", "Booked Héroine for the Hollandia team dinner; they noted the cashew allergy"
    )
    s.forget(12, "Old clients", "Hendrik")
    s.notice(11, "Swimming", "Lina's swimming lesson moved to 16:30 on Fridays")
    s.note(
        10,
        "Lisbon talk",
        "projects.md",
        f"Rehearsal with Joost on {short(s.day(3))}; Nadia wants a timer and honest notes",
    )
    s.remember(9, "Lisbon trip", "Nadia's talk in Lisbon is on the Tuesday")  # a misunderstanding…
    s.undo_latest(9)  # …that Nadia undid in Settings
    s.remember(8, "Kroonfiets proposal", f"Kroonfiets signed the proposal; kickoff on {short(s.day(-5))}")
    s.note(
        8, "Kroonfiets proposal", "clients.md", "Kroonfiets: three-month engagement, invoiced monthly, Sem signs off"
    )
    s.note(7, "Lisbon trip", "travel.md", "Lisbon: the conference shuttle meets the 09:40 arrival at the airport")
    s.note(6, "Gift ideas", "people.md", "Gift ideas for Tom: the new Cascadia expansion, dinner at Ayam Lemongrass")
    s.note(6, "Gift ideas", "people.md", "Lina wants a snorkel set for after her swimming diploma")
    s.notice(5, "Plans", "Nadia prefers the train for any trip under six hours")
    s.file_into_topics(
        4,
        {
            "work-log.md": ("usability report delivered", "board readout booked"),
            "travel.md": ("prefers the train",),
        },
    )
    s.remember(3, "Weekly planning", "Friday's admin block starts with Ledger's open items")
    # Still in MEMORY.md today, expired: last night's tidy-up ran before its last day was over.
    s.remember(3, "Weekend", f"Eva, Noor and Daan stay with Nadia until {short(s.day(1))}", until=1)
    s.notice(2, "Lina's school", f"Parent-teacher evening at De Klimop on {short(s.day(-6))}", until=-6)
    s.remember(1, "Lisbon talk", f"Slides for Forms that forgive go to the organisers by {short(s.day(-4))}", until=-4)
    s.remember(0, "Morning brief", f"Nadia's mother arrives from Leeds on {short(s.day(-7))} for a week", until=-14)
    s.outside(2, "memory/books.md", lambda t: _BOOKS)
    for entry in _SCOUT_LOG:
        if not (entry[2] in ROOMS and is_weekend(s.day(entry[0]))):  # the standup is a weekday routine
            s.log(*entry)
    _scout_routine_turns(s)
    for ago in (AUTO_LOG_DAYS[-1], AUTO_LOG_DAYS[-2], AUTO_LOG_DAYS[-3]):
        s.delete(1, f"memory/log/{s.day(ago).isoformat()}.md")  # Nadia clears out the oldest logs
    scout_night(s)


_STANDUPS = (
    "Today: Hollandia readout prep, then the Lisbon bookings.",
    "Today: Delft workshop materials; nothing blocked.",
    "Yesterday: readout slides. Today: kitchen calls after 13:00, then receipts.",
    "Today: Kroonfiets follow-up, portfolio case study outline.",
    "Today: B1 wording pass for Delft; waiting on Marieke for the board date.",
    "Yesterday: Lisbon hotel booked. Today: talk outline with Nadia.",
    "Today: expenses for Ledger, then the Hollandia clips.",
)


def _scout_routine_turns(s: Story) -> None:
    """The turns of every day before the hand-written fortnight: morning brief, standup, email triage."""
    rng = random.Random(95)
    for ago in AUTO_LOG_DAYS:
        weekend = is_weekend(s.day(ago))
        meetings = 0 if weekend else rng.randint(1, 4)
        first = "" if not meetings else f", the first at {rng.choice(('09:30', '10:00', '11:00', '13:30'))}"
        s.log(
            ago,
            "08:45",
            "Morning brief",
            f"{plural(rng.randint(4, 19), 'new email')}, {plural(meetings, 'meeting')}{first}.",
            "calendar.list, email.search",
            phase=MORNING,
        )
        if weekend:
            continue
        s.log(ago, "09:30", "Studio standup", _STANDUPS[ago % len(_STANDUPS)], "session_search", phase=MORNING)
        emails, for_nadia = rng.randint(6, 14), rng.randint(1, 3)
        s.log(
            ago,
            "16:30",
            "Email triage",
            f"{emails} new emails: {for_nadia} {'needs' if for_nadia == 1 else 'need'} Nadia, the rest are filed.",
            "email.search, email.label",
            phase=EVENING,
        )


# (days ago, time, chat or room, what the bot said last, tools[, True when the turn failed])
_SCOUT_LOG: tuple[tuple, ...] = (
    (
        13,
        "08:55",
        "Weekly planning",
        "Week ahead: Hollandia report draft, Delft check-in, dentist. Travel days added.",
        "calendar.list, todoist.list",
    ),
    (
        13,
        "09:30",
        "Studio standup",
        "Yesterday: Delft agenda sent. Today: Hollandia clips, then receipts.",
        "session_search",
    ),
    (
        13,
        "11:12",
        "Hollandia report",
        "Pulled the 23 tagged clips into one playlist, sorted by task.",
        "files.list, files.read",
    ),
    (
        13,
        "14:05",
        "Receipts",
        "Forwarded six receipts to Ledger; the Coolblue one is still missing.",
        "email.search, email.forward",
    ),
    (13, "16:20", "Lina's school", "Added the school trip form to Todoist, due before 08:30.", "todoist.add"),
    (
        12,
        "09:02",
        "Delft check-in",
        "Agenda ready: permit flow status, B1 wording review, workshop venue.",
        "calendar.get, docs.create",
    ),
    (
        12,
        "10:48",
        "Hollandia report",
        "Section 3 (the payment step) drafted: five findings, each with a clip.",
        "docs.edit",
    ),
    (12, "13:30", "Kitchen", "Asked Ruud about the worktop; he will confirm on Friday.", "email.send"),
    (
        12,
        "15:55",
        "Invoice chase",
        "email.send timed out after 30 s; nothing was sent.",
        "email.draft, email.send",
        True,
    ),
    (12, "16:02", "Invoice chase", "Sent the Kroonfiets reminder on the second try.", "email.send"),
    (
        11,
        "08:40",
        "Morning brief",
        "Three things: Hollandia draft, swimming at 16:30, Emma wants the Q3 receipts.",
        "calendar.list, session_search",
    ),
    (11, "09:30", "Studio standup", "Today: Hollandia draft review with Nadia at 11:00.", "session_search"),
    (
        11,
        "11:15",
        "Lisbon talk",
        "Slide 4 reworked: the undo example now uses the ferry booking flow.",
        "files.read, docs.edit",
    ),
    (
        11,
        "14:20",
        "Swimming",
        "Swimming moves to 16:30 on Fridays from next week; calendar updated.",
        "calendar.update",
    ),
    (
        11,
        "17:05",
        "Dinner ideas",
        "Suggested the miso cod tonight and the Yemeni place for Saturday.",
        "session_search",
    ),
    (
        10,
        "09:10",
        "Lisbon talk",
        "Booked a rehearsal slot with Joost and added a 25-minute timer to the deck.",
        "calendar.create, docs.edit",
    ),
    (10, "09:30", "Studio standup", "Today: rehearsal plan, Delft wording review.", "session_search"),
    (
        10,
        "12:40",
        "Delft check-in",
        "Marked 14 sentences above B1 in the permit form; suggestions in the margin.",
        "docs.read, docs.comment",
    ),
    (
        10,
        "15:30",
        "Email triage",
        "Nine new emails: two need Nadia (Marieke, Sem), the rest are filed.",
        "email.search, email.label",
    ),
    (
        9,
        "08:50",
        "Morning brief",
        "No meetings before 13:00 because of the builders; deep work on the talk.",
        "calendar.list",
    ),
    (9, "10:05", "Lisbon trip", "Saved that the talk is on the Tuesday.", "memory_update"),
    (
        9,
        "10:20",
        "Lisbon trip",
        "Corrected: the programme is not out yet, so no day is fixed for the talk.",
        "web.fetch",
    ),
    (
        9,
        "14:45",
        "Receipts",
        "Found the Coolblue receipt in the downloads folder and sent it to Ledger.",
        "files.search, email.forward",
    ),
    (
        8,
        "09:00",
        "Kroonfiets proposal",
        "Countersigned copy saved; kickoff set with Sem and Aylin.",
        "files.save, calendar.create",
    ),
    (
        8,
        "09:30",
        "Studio standup",
        "Kroonfiets signed. Today: kickoff agenda, Hollandia readout slides.",
        "session_search",
    ),
    (8, "11:30", "Hollandia report", "Top five findings on one slide, as Marieke asked.", "docs.edit"),
    (
        8,
        "16:10",
        "Email triage",
        "Drafted a reply to Marieke about the readout date; waiting for Nadia's OK.",
        "email.draft",
    ),
    (
        7,
        "10:15",
        "Lisbon trip",
        "Confirmed the shuttle from the airport; details in travel.md.",
        "email.search, memory_update",
    ),
    (
        7,
        "13:00",
        "Weekend",
        "Saturday: Markthal at 09:00, swimming practice moved, Eva visits at 15:00.",
        "calendar.list",
    ),
    (6, "11:20", "Gift ideas", "Three ideas for Tom and a snorkel set for Lina; links in the chat.", "web.search"),
    (6, "19:05", "Dinner ideas", "Shakshuka tonight: everything is in the fridge except coriander.", "session_search"),
    (
        5,
        "08:45",
        "Morning brief",
        "Kroonfiets kickoff prep, Delft check-in, receipts for Ledger.",
        "calendar.list, session_search",
    ),
    (5, "09:30", "Studio standup", "Yesterday: readout slides. Today: Kroonfiets kickoff agenda.", "session_search"),
    (5, "10:30", "Delft check-in", "Sent the B1 wording notes to the Delft team after Nadia's OK.", "email.send"),
    (5, "13:40", "Plans", "Train to Hamburg in May is 5h20; booked nothing yet, options in the chat.", "web.search"),
    (5, "16:55", "Kitchen", "The worktop arrives on Monday; builders start at 08:00.", "email.search"),
    (
        4,
        "09:05",
        "Hollandia readout",
        "Readout went well; Marieke wants the booking flow in five steps.",
        "session_search",
    ),
    (4, "09:30", "Studio standup", "Today: Hollandia follow-ups, Lisbon slides.", "session_search"),
    (4, "11:50", "Lisbon talk", "The model hit the usage limit; nothing was changed.", "docs.edit", True),
    (4, "12:10", "Lisbon talk", "Slides 9 to 12 rewritten around forgiving error messages.", "docs.edit"),
    (
        4,
        "15:20",
        "Email triage",
        "Two invoices from suppliers forwarded to Ledger; one newsletter unsubscribed.",
        "email.forward, email.unsubscribe",
    ),
    (
        3,
        "08:55",
        "Weekly planning",
        "Week ahead: Lisbon slides due, parent evening, Kroonfiets kickoff, travel day.",
        "calendar.list, todoist.list",
    ),
    (3, "09:30", "Studio standup", "Today: weekly plan done, rehearsal with Joost at 14:00.", "session_search"),
    (3, "14:00", "Lisbon talk", "Rehearsal: 27 minutes, two slides to cut; notes from Joost saved.", "docs.comment"),
    (3, "17:30", "Receipts", "All receipts for this month are with Ledger; nothing open.", "email.search"),
    (2, "08:40", "Morning brief", "Parent-teacher evening added; slides due in two days.", "calendar.create"),
    (2, "09:30", "Studio standup", "Today: Kroonfiets kickoff agenda, slide cuts.", "session_search"),
    (
        2,
        "12:15",
        "Kroonfiets kickoff",
        "Agenda sent to Sem and Aylin: goals, research plan, weekly rhythm.",
        "docs.create, email.send",
    ),
    (2, "16:45", "Lina's school", "Parent-teacher evening confirmed; Tom can come too.", "calendar.update"),
    (1, "08:50", "Morning brief", "Slides due in three days; builders in until 13:00.", "calendar.list"),
    (1, "09:30", "Studio standup", "Today: cut two slides, send the draft to Inês.", "session_search"),
    (1, "11:05", "Lisbon talk", "Cut slides 7 and 14; the talk now runs 24 minutes.", "docs.edit"),
    (1, "15:40", "Lisbon trip", "Checked in for KL1693 opens in nine days; reminder set.", "todoist.add"),
    (
        0,
        "08:45",
        "Morning brief",
        "Today: slides to Inês, Delft check-in at 10:00, Nadia's mother arrives next week.",
        "calendar.list, session_search",
    ),
    (0, "09:30", "Studio standup", "Today: slides out, Delft check-in. Nothing blocked.", "session_search"),
)
