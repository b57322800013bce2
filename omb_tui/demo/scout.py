"""Scout's history in the demo home: Nadia's personal assistant, over three months (sample data, not core).

Spec: memory.md, "Where it lives" and "The journal". Dated, noticed, until, struck and hand-written lines; topics
(one with a broken header, one with a [[wikilink]]) that Memory upkeep files details into; an archive the nightly
tidy-up fills; About me; daily logs of the last four weeks (demo/scout_logs.py: the last fortnight written out
turn by turn, the one before it routine turns from a fixed seed); and a journal of over two hundred rows: the bot
during tasks, the person in Settings and in another editor, an import, a deleted log, an undo, and a row that
cannot be undone because its earlier text held a credential. Last night's pass (demo/night.py) closes the story.
"""

from __future__ import annotations

from ..core.files.paths import MEMORY_FILE
from ..core.memory.store import ABOUT_ME_REL
from .night import scout_night
from .scout_logs import scout_logs
from .story import (
    AUTO_LOG_DAYS,
    IMPORT,
    Story,
    Topic,
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
    scout_logs(s)
    for ago in (AUTO_LOG_DAYS[-1], AUTO_LOG_DAYS[-2], AUTO_LOG_DAYS[-3]):
        s.delete(1, f"memory/log/{s.day(ago).isoformat()}.md")  # Nadia clears out the oldest logs
    scout_night(s)
