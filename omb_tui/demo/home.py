"""`omb-tui demo`: a realistic sample home to try everything on (sample data: not part of the core).

Spec: memory.md as a whole. Five bots between them show every part of it:

- scout   a personal assistant: dated, noticed, until, struck and hand-written lines, topics (one with a broken
          header, one with a [[wikilink]]), an archive, daily logs of the last weeks and a journal of over two
          hundred rows (the bot during tasks, the person in Settings and in another editor, Memory upkeep, an
          import, a deleted log, an undo, a row that cannot be undone because its earlier text held a credential);
- ledger  bookkeeping, its MEMORY.md close to the budget (amber), with entries already moved to the archive;
- harbor  a project bot whose pasted hand-written rules fill the budget by themselves (red, lines not loaded);
- quill   memory switched off, its files still there for review;
- atlas   a small bot kept off the helper model, upkeep off.

Scout and Ledger share the team "Launch crew" (demo/team.py): accepted notes, one pinned, and a card Scout
proposed.

Last night (demo/night.py) one `upkeep --due` pass ran at 23:40 for the Review area and the bots screen's Night
column: Scout's capture (with its quotes) and tidy-up, Ledger's tidy-up and nightly compaction (two changes
applied), Harbor's first-week compaction kept as proposals.

Nothing is faked: each bot's history is a Story (demo/story.py), every change made through the core the way
the app makes it, by the actor who would have made it. The dates inside the files are relative to `today`, so the
demo always looks current; each journal row carries the simulated moment of its step, never later than the moment
the demo ran.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timezone

from ..core.memory.entries import format_dated_entry
from ..core.memory.paths import MEMORY_FILE, Home, MemoryInputError
from ..core.memory.settings import BotSettings, save_bot_settings
from ..core.memory.store import ABOUT_ME_REL, write_private_json
from .conversations import write_sample_conversations
from .night import harbor_night, ledger_night, scout_night
from .story import (
    AUTO_LOG_DAYS,
    EVENING,
    IMPORT,
    MORNING,
    ROOMS,
    TIDY_HOUR,
    Story,
    Topic,
    is_weekend,
    plural,
    short,
    topic_header,
    with_line,
)
from .team import write_demo_team

DEMO_BOT_IDS = ("scout", "ledger", "harbor", "quill", "atlas")
# The bots with sample conversations.
CONVERSATION_BOT_IDS = ("scout", "ledger", "atlas")
PERSON_NAME = "Nadia"  # the person every demo bot works for, as About me names her


def write_demo_home(home: Home, today: date | None = None, *, now: datetime | None = None) -> list[str]:
    """Write the sample home and return its bot ids; refuse (writing nothing) when it would overwrite anything.

    `now` (default: the real time) is the latest moment a journal row may carry."""
    today = today or date.today()
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    refuse_to_overwrite(home)
    write_private_json(home.config_path, {
        "helper": {"instanceId": "claude", "model": "claude-haiku-4-5"},
        "features": {"autoRecall": True, "roomMemoryCapture": False},
        "memory": {"captureQuietMs": 120_000, "tidyHour": TIDY_HOUR},
    })
    for settings in demo_settings():
        save_bot_settings(home, settings)
    for tell in (_scout, _ledger, _harbor, _quill, _atlas):
        story = Story(home, tell.__name__.lstrip("_"), today)
        tell(story)
        story.tell(now)
    _write_conversations(home, today)
    write_demo_team(home)  # after the conversations: Scout's card quotes the room
    return list(DEMO_BOT_IDS)


def refuse_to_overwrite(home: Home) -> None:
    """The demo only goes into a home that has none of what it writes: nothing of the person's is replaced."""
    for bot_id in DEMO_BOT_IDS:
        if home.has_bot(bot_id):
            raise MemoryInputError(
                f"{home.root} already holds a bot named {bot_id}; choose an empty folder with --home."
            )
    for path in (home.config_path, home.about_me_path, home.profile_learned_path):
        if path.exists():
            raise MemoryInputError(
                f"{home.root} already has its own {path.name}; choose an empty folder with --home."
            )


def demo_settings() -> list[BotSettings]:
    return [
        BotSettings(id="scout", name="Scout", engine="claude"),
        BotSettings(id="ledger", name="Ledger", engine="codex"),
        BotSettings(id="harbor", name="Harbor", engine="claude"),
        BotSettings(id="quill", name="Quill", engine="claude", memory=False),
        BotSettings(id="atlas", name="Atlas", engine="pi", upkeep=False, helper_model=False),
    ]


def _write_conversations(home: Home, today: date) -> None:
    # Roles map to bot ids; the sample room ("Launch") holds Scout and whichever bot plays "ledger".
    write_sample_conversations(home, {role: role for role in CONVERSATION_BOT_IDS}, today, person=PERSON_NAME)



# ----- Scout: Nadia's personal assistant -----
_SCOUT_TOPICS = {
    "travel.md": Topic("Travel", "Trips, bookings and how Nadia likes to travel",
                        ("trips", "flights", "trains", "hotels", "Lisbon", "London")),
    "clients.md": Topic("Clients", "Rahman Studio's clients, their people and how they like to work",
                         ("customers", "Hollandia", "Kroonfiets", "Delft", "proposals")),
    "projects.md": Topic("Projects", "Studio work beyond client projects, such as the portfolio site, talks and workshops",
                          ("portfolio", "talk", "workshops", "website")),
    "people.md": Topic("People", "Family, friends and collaborators",
                        ("family", "friends", "Tom", "Lina", "Joost", "birthdays", "gifts")),
    "home.md": Topic("Home", "The flat, the kitchen renovation and the studio desk",
                      ("flat", "apartment", "renovation", "builders", "Hofplein")),
    "work-log.md": Topic("Work log", "Finished and stale status notes, filed by Memory upkeep",
                          ("done", "status", "history")),
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

_FOOD_IMPORT = topic_header("Food", "Restaurants, cooking and what Nadia likes to eat",
                             ("restaurants", "dinner", "recipes", "lunch", "cooking")) + """## Places
- Héroine on Witte de Withstraat: client dinners, ask for the window table
- Ayam Lemongrass: Indonesian, Tom's favourite, good for birthdays
- Markthal on Saturday mornings for fish and bread

## Cooking
- Weeknight staples: dal with spinach, roast salmon with potatoes, shakshuka
- Lina won't eat mushrooms; hide them or skip them
"""

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


def _scout(s: Story) -> None:
    s.topics = dict(_SCOUT_TOPICS)
    lisbon, back = s.day(-10), s.day(-13)

    s.write(95, MEMORY_FILE, _SCOUT_MEMORY_START)
    s.write(95, ABOUT_ME_REL, _ABOUT_ME)

    s.remember(94, "First week", "Nadia's studio is at Schiekade 189, second floor")
    s.remember(93, "First week", "Invoices go out on the last working day of the month; Ledger does the bookkeeping")
    s.remember(90, "Weekly planning", "Weekly plan every Monday at 09:00: deadlines first, then meetings, then errands")
    s.remember(86, "Hollandia kickoff", "Hollandia Ferries: booking-app redesign, product lead Marieke de Vries")
    s.remember(86, "Hollandia kickoff",
               "Hollandia workshops are at their Hoek van Holland office; Nadia takes the 08:12 train")
    s.remember(88, "Hollandia kickoff", "Marieke is on holiday; Joris covers the product side of Hollandia", until=80)
    s.tidy(79)
    s.note(85, "Hollandia kickoff", "clients.md", "Hollandia: sprint reviews every second Thursday; Nadia presents the design track")
    s.note(85, "London", "travel.md",
           "Rotterdam to London by Eurostar from Rotterdam Centraal, about 3h40; Standard Premier for work trips")
    s.note(84, "London", "travel.md", "In London Nadia stays at the Hoxton Holborn and asks for a room away from the lift")
    s.remember(82, "Dentist", "Dentist: Tandartspraktijk Blaak, check-ups every six months, the practice books the next one")
    s.remember(80, "Kroonfiets pitch", "Kroonfiets (bike subscription start-up) asked for a proposal; budget around €18,000")
    s.note(79, "Kroonfiets pitch", "clients.md",
           "Kroonfiets founders are Sem and Aylin; they want the subscription flow ready to test by spring")
    s.notice(78, "Dinner ideas", "Nadia is pescatarian: fish yes, meat no")
    s.write(76, "memory/food.md", _FOOD_IMPORT, IMPORT)
    s.remember(75, "Lina's school", "Lina's school, De Klimop, finishes at 14:00 on Wednesdays")
    s.note(74, "Lina's school", "people.md", "Lina's teacher this year is Mr de Wit; the parent portal is Social Schools")
    s.remember(72, "Old clients",
               "Hendrik Bos (Bos Interiors) still owes €2,400 from the showroom project; Nadia won't take his work again")
    s.note(71, "Old clients", "clients.md", "Hendrik Bos: last invoice reminder sent, no answer; do not chase before asking Nadia")
    s.remember(70, "Summer plans", "Lina stays with her grandparents in Leeds for the summer", until=41)
    s.remember(68, "Workshop series", "Nadia is rereading The Design of Everyday Things for the workshop series")
    s.notice(66, "Client dinner", "Allergic to cashews: check the menu before booking a client dinner")
    s.remember(64, "Delft kickoff", "Gemeente Delft permit-service project: weekly check-in on Tuesdays at 10:00 on Teams")
    s.note(63, "Hamburg", "travel.md", "Rotterdam to Hamburg by train is about five and a half hours with one change")
    s.note(62, "Delft kickoff", "clients.md", "Delft wants everything for residents in plain Dutch (B1 level)")
    s.remember(60, "Museum invoice",
               "The last Museum Rotterdam invoice waits for their PO number; Ledger has the draft", until=50)
    s.tidy(49)
    s.supersede(61, "Office move", "Schiekade 189",
                "Studio moved to the Hofplein co-working space, desk 4.12 on the fourth floor")
    s.note(60, "Leeds", "people.md", "Nadia's parents, Farida and Karim, live in Leeds; she calls them on Sunday evenings")
    s.remember(58, "Portfolio site", "Portfolio site rebuild with Joost on the front end; launch planned for the end of the quarter")
    s.remember(57, "Getting around", "No car: Nadia cycles or takes the train; taxis only for flights before 08:00")
    s.note(57, "Portfolio site", "projects.md",
           "Case studies planned: Hollandia (after the NDA check), Delft, and the 2025 museum wayfinding")
    s.remember(55, "Travel habits", "Aisle seat near the front; no flights before 07:00 unless Nadia asks")
    s.note(54, "Travel habits", "travel.md",
           "Flying Blue and NS numbers are in 1Password under Travel; never paste them into a chat")
    s.note(53, "Portfolio site", "projects.md", "The portfolio runs on Astro, hosted on Netlify; Joost owns the repository")
    s.prefer(52, "Reminders", "Reminders go to my Todoist inbox, not the calendar")
    s.edit(50, MEMORY_FILE, lambda t: t.replace(
        "- Always ask before sending anything to a client in Nadia's name.\n",
        "- Always ask before sending anything to a client in Nadia's name.\n"
        "- Partner Tom works for the port authority and is often in Hamburg; daughter Lina is eight.\n"
        "- Longer notes live in memory/: see memory/clients.md for clients and memory/travel.md for trips.\n"))
    s.remember(47, "Leeds", "Farida and Karim are visiting from Leeds; keep the evenings free", until=44)
    s.remember(48, "Lisbon talk", "Nadia is speaking at a design conference in Lisbon; the talk is called Forms that forgive")
    s.remember(47, "Rates", "Rahman Studio's day rate is €850, half a day €475")
    s.note(47, "Workshop series", "projects.md",
           "Workshop series Designing for forgiveness: three sessions, the first one in the new year")
    s.note(46, "Joost", "people.md", "Joost van Dam, freelance front-end developer, works with Nadia on [[projects]]")
    s.remember(45, "Tom's birthday", "Tom's birthday is 14 March; he likes board games and Indonesian food")
    s.note(44, "Hollandia research", "clients.md", "Marieke prefers findings as short video clips over slide decks")
    s.notice(43, "Weekend", "Nadia wants to try the new Yemeni place on the Nieuwe Binnenweg", topic="food.md")
    s.remember(42, "Hollandia research",
               "Hollandia usability tests: 8 participants booked through Respondent, sessions in week 2 of the sprint")
    s.notice(40, "Coffee", "Oat flat white in the morning; no coffee after 15:00")
    s.tidy(40)
    s.notice(39, "Weekend", "Tom's sister Eva lives in Utrecht; her kids are Noor and Daan", topic="people.md")
    s.remember(38, "Receipts", "Forward receipts to Ledger's receipts inbox by the 5th of each month")
    s.note(37, "Dinner ideas", "food.md", "Nadia liked the miso-glazed cod from Ottolenghi's Flavour; make it again")
    s.remember(36, "BTW", "Quarterly BTW return: Ledger prepares it, Nadia checks it and submits it herself")
    s.remember(35, "School holiday", "Autumn break: Lina is at home, Nadia works mornings only", until=20)
    s.note(34, "Emma", "people.md", "Emma Jansen (Jansen Administratie) is the studio's accountant; year-end file due in April")
    s.notice(33, "Weekly planning", "Thursday afternoons are for deep work: no meetings after 13:00 on Thursdays")
    s.file_into_topics(31, {
        "clients.md": ("booking-app redesign", "Hoek van Holland office", "asked for a proposal", "weekly check-in"),
        "travel.md": ("Aisle seat",),
        "projects.md": ("Portfolio site rebuild",),
        "people.md": ("Tom's birthday",),
    })
    s.remember(30, "Kitchen", "Kitchen renovation: builders in the flat on weekday mornings, so calls after 13:00",
               until=-9)
    s.note(29, "Kitchen", "home.md", "Kitchen renovation by Bouwbedrijf Kok; the foreman is Ruud, number in contacts")
    s.remember(28, "Email", "Nadia reads email at 09:30 and 15:30 only; anything urgent goes by Signal")
    s.note(28, "Kitchen", "home.md", "The worktop delivery slipped a week; the builders will confirm by Friday")
    s.remember(27, "Hollandia readout", "Hollandia: board readout booked; Marieke wants the top five findings on one slide")
    s.remember(26, "Berlin", "Tom is in Berlin for a port project, so Nadia does every school run", until=3)
    s.note(25, "Rates", "clients.md", "Delft pays per fixed-price phase; the others by the day")
    # Nadia pastes the co-working Wi-Fi into home.md in Obsidian (made up for the demo); the next day she takes
    # the password out in Settings, and that row cannot be undone: its earlier text held a credential.
    s.outside(24, "memory/home.md", lambda t: with_line(
        t, "- Hofplein Wi-Fi: network Hofplein-Members, password: Tulpen-Haven-2231"))
    s.edit(23, "memory/home.md", lambda t: t.replace(
        "- Hofplein Wi-Fi: network Hofplein-Members, password: Tulpen-Haven-2231\n",
        "- Hofplein Wi-Fi: network Hofplein-Members, the password is on the card at the front desk\n"))
    s.remember(22, "Lisbon trip", f"Lisbon trip {short(lisbon)} to {short(back)} for the conference: "
               "bookings and contacts, see memory/travel.md", until=-13)
    s.note(22, "Lisbon trip", "travel.md", f"Lisbon: out on KL1693, Amsterdam 07:25 to Lisbon 09:40 on {short(lisbon)}")
    s.note(22, "Lisbon trip", "travel.md",
           f"Lisbon: hotel Memmo Príncipe Real, {short(lisbon)} to {short(back)}, booked under Rahman Studio")
    s.note(21, "Lisbon trip", "travel.md", f"Lisbon: back on TP664 at 18:10 on {short(back)}; the venue is LX Factory")
    s.note(21, "Lisbon trip", "travel.md",
           "Conference contact: Inês Carvalho, speaker coordination; Lisbon friends are in [[people]]")
    s.remember(20, "Weekly planning", "From now on, put travel days in the weekly plan too")
    s.remember(19, "Delft workshop", "Gemeente Delft: the co-design workshop moved to the Stadskantoor, room 3.14")
    s.tidy(19)
    s.remember(18, "Accessibility", "Every client deliverable gets a WCAG AA contrast check before it goes out")
    s.note(17, "Studio desk", "home.md", "The Hofplein desk renews monthly, with one month's notice")
    s.file_into_topics(16, {
        "projects.md": ("speaking at a design conference",),
        "work-log.md": ("usability tests",),
        "clients.md": ("co-design workshop",),
    })
    s.note(15, "Lisbon talk", "projects.md",
           "Talk outline: undo, drafts and plain error messages; 25 minutes plus questions")
    s.remember(14, "Hollandia report", "Hollandia usability report delivered; readout with the board next Thursday")
    s.note(13, "Client dinner", "food.md", "Booked Héroine for the Hollandia team dinner; they noted the cashew allergy")
    s.forget(12, "Old clients", "Hendrik")
    s.notice(11, "Swimming", "Lina's swimming lesson moved to 16:30 on Fridays")
    s.note(10, "Lisbon talk", "projects.md", f"Rehearsal with Joost on {short(s.day(3))}; Nadia wants a timer and honest notes")
    s.remember(9, "Lisbon trip", "Nadia's talk in Lisbon is on the Tuesday")  # a misunderstanding…
    s.undo_latest(9)  # …that Nadia undid in Settings
    s.remember(8, "Kroonfiets proposal", f"Kroonfiets signed the proposal; kickoff on {short(s.day(-5))}")
    s.note(8, "Kroonfiets proposal", "clients.md", "Kroonfiets: three-month engagement, invoiced monthly, Sem signs off")
    s.note(7, "Lisbon trip", "travel.md", "Lisbon: the conference shuttle meets the 09:40 arrival at the airport")
    s.note(6, "Gift ideas", "people.md", "Gift ideas for Tom: the new Cascadia expansion, dinner at Ayam Lemongrass")
    s.note(6, "Gift ideas", "people.md", "Lina wants a snorkel set for after her swimming diploma")
    s.notice(5, "Plans", "Nadia prefers the train for any trip under six hours")
    s.file_into_topics(4, {
        "work-log.md": ("usability report delivered", "board readout booked"),
        "travel.md": ("prefers the train",),
    })
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
        s.log(ago, "08:45", "Morning brief",
              f"{plural(rng.randint(4, 19), 'new email')}, {plural(meetings, 'meeting')}{first}.",
              "calendar.list, email.search", phase=MORNING)
        if weekend:
            continue
        s.log(ago, "09:30", "Studio standup", _STANDUPS[ago % len(_STANDUPS)], "session_search", phase=MORNING)
        emails, for_nadia = rng.randint(6, 14), rng.randint(1, 3)
        s.log(ago, "16:30", "Email triage",
              f"{emails} new emails: {for_nadia} {'needs' if for_nadia == 1 else 'need'} Nadia, the rest are filed.",
              "email.search, email.label", phase=EVENING)


# (days ago, time, chat or room, what the bot said last, tools[, True when the turn failed])
_SCOUT_LOG: tuple[tuple, ...] = (
    (13, "08:55", "Weekly planning", "Week ahead: Hollandia report draft, Delft check-in, dentist. Travel days added.",
     "calendar.list, todoist.list"),
    (13, "09:30", "Studio standup", "Yesterday: Delft agenda sent. Today: Hollandia clips, then receipts.", "session_search"),
    (13, "11:12", "Hollandia report", "Pulled the 23 tagged clips into one playlist, sorted by task.", "files.list, files.read"),
    (13, "14:05", "Receipts", "Forwarded six receipts to Ledger; the Coolblue one is still missing.",
     "email.search, email.forward"),
    (13, "16:20", "Lina's school", "Added the school trip form to Todoist, due before 08:30.", "todoist.add"),
    (12, "09:02", "Delft check-in", "Agenda ready: permit flow status, B1 wording review, workshop venue.",
     "calendar.get, docs.create"),
    (12, "10:48", "Hollandia report", "Section 3 (the payment step) drafted: five findings, each with a clip.", "docs.edit"),
    (12, "13:30", "Kitchen", "Asked Ruud about the worktop; he will confirm on Friday.", "email.send"),
    (12, "15:55", "Invoice chase", "email.send timed out after 30 s; nothing was sent.", "email.draft, email.send",
     True),
    (12, "16:02", "Invoice chase", "Sent the Kroonfiets reminder on the second try.", "email.send"),
    (11, "08:40", "Morning brief", "Three things: Hollandia draft, swimming at 16:30, Emma wants the Q3 receipts.",
     "calendar.list, session_search"),
    (11, "09:30", "Studio standup", "Today: Hollandia draft review with Nadia at 11:00.", "session_search"),
    (11, "11:15", "Lisbon talk", "Slide 4 reworked: the undo example now uses the ferry booking flow.",
     "files.read, docs.edit"),
    (11, "14:20", "Swimming", "Swimming moves to 16:30 on Fridays from next week; calendar updated.", "calendar.update"),
    (11, "17:05", "Dinner ideas", "Suggested the miso cod tonight and the Yemeni place for Saturday.", "session_search"),
    (10, "09:10", "Lisbon talk", "Booked a rehearsal slot with Joost and added a 25-minute timer to the deck.",
     "calendar.create, docs.edit"),
    (10, "09:30", "Studio standup", "Today: rehearsal plan, Delft wording review.", "session_search"),
    (10, "12:40", "Delft check-in", "Marked 14 sentences above B1 in the permit form; suggestions in the margin.",
     "docs.read, docs.comment"),
    (10, "15:30", "Email triage", "Nine new emails: two need Nadia (Marieke, Sem), the rest are filed.",
     "email.search, email.label"),
    (9, "08:50", "Morning brief", "No meetings before 13:00 because of the builders; deep work on the talk.", "calendar.list"),
    (9, "10:05", "Lisbon trip", "Saved that the talk is on the Tuesday.", "memory_update"),
    (9, "10:20", "Lisbon trip", "Corrected: the programme is not out yet, so no day is fixed for the talk.",
     "web.fetch"),
    (9, "14:45", "Receipts", "Found the Coolblue receipt in the downloads folder and sent it to Ledger.",
     "files.search, email.forward"),
    (8, "09:00", "Kroonfiets proposal", "Countersigned copy saved; kickoff set with Sem and Aylin.",
     "files.save, calendar.create"),
    (8, "09:30", "Studio standup", "Kroonfiets signed. Today: kickoff agenda, Hollandia readout slides.", "session_search"),
    (8, "11:30", "Hollandia report", "Top five findings on one slide, as Marieke asked.", "docs.edit"),
    (8, "16:10", "Email triage", "Drafted a reply to Marieke about the readout date; waiting for Nadia's OK.",
     "email.draft"),
    (7, "10:15", "Lisbon trip", "Confirmed the shuttle from the airport; details in travel.md.",
     "email.search, memory_update"),
    (7, "13:00", "Weekend", "Saturday: Markthal at 09:00, swimming practice moved, Eva visits at 15:00.",
     "calendar.list"),
    (6, "11:20", "Gift ideas", "Three ideas for Tom and a snorkel set for Lina; links in the chat.", "web.search"),
    (6, "19:05", "Dinner ideas", "Shakshuka tonight: everything is in the fridge except coriander.", "session_search"),
    (5, "08:45", "Morning brief", "Kroonfiets kickoff prep, Delft check-in, receipts for Ledger.",
     "calendar.list, session_search"),
    (5, "09:30", "Studio standup", "Yesterday: readout slides. Today: Kroonfiets kickoff agenda.", "session_search"),
    (5, "10:30", "Delft check-in", "Sent the B1 wording notes to the Delft team after Nadia's OK.", "email.send"),
    (5, "13:40", "Plans", "Train to Hamburg in May is 5h20; booked nothing yet, options in the chat.", "web.search"),
    (5, "16:55", "Kitchen", "The worktop arrives on Monday; builders start at 08:00.", "email.search"),
    (4, "09:05", "Hollandia readout", "Readout went well; Marieke wants the booking flow in five steps.",
     "session_search"),
    (4, "09:30", "Studio standup", "Today: Hollandia follow-ups, Lisbon slides.", "session_search"),
    (4, "11:50", "Lisbon talk", "The model hit the usage limit; nothing was changed.", "docs.edit", True),
    (4, "12:10", "Lisbon talk", "Slides 9 to 12 rewritten around forgiving error messages.", "docs.edit"),
    (4, "15:20", "Email triage", "Two invoices from suppliers forwarded to Ledger; one newsletter unsubscribed.",
     "email.forward, email.unsubscribe"),
    (3, "08:55", "Weekly planning", "Week ahead: Lisbon slides due, parent evening, Kroonfiets kickoff, travel day.",
     "calendar.list, todoist.list"),
    (3, "09:30", "Studio standup", "Today: weekly plan done, rehearsal with Joost at 14:00.", "session_search"),
    (3, "14:00", "Lisbon talk", "Rehearsal: 27 minutes, two slides to cut; notes from Joost saved.", "docs.comment"),
    (3, "17:30", "Receipts", "All receipts for this month are with Ledger; nothing open.", "email.search"),
    (2, "08:40", "Morning brief", "Parent-teacher evening added; slides due in two days.", "calendar.create"),
    (2, "09:30", "Studio standup", "Today: Kroonfiets kickoff agenda, slide cuts.", "session_search"),
    (2, "12:15", "Kroonfiets kickoff", "Agenda sent to Sem and Aylin: goals, research plan, weekly rhythm.",
     "docs.create, email.send"),
    (2, "16:45", "Lina's school", "Parent-teacher evening confirmed; Tom can come too.", "calendar.update"),
    (1, "08:50", "Morning brief", "Slides due in three days; builders in until 13:00.", "calendar.list"),
    (1, "09:30", "Studio standup", "Today: cut two slides, send the draft to Inês.", "session_search"),
    (1, "11:05", "Lisbon talk", "Cut slides 7 and 14; the talk now runs 24 minutes.", "docs.edit"),
    (1, "15:40", "Lisbon trip", "Checked in for KL1693 opens in nine days; reminder set.", "todoist.add"),
    (0, "08:45", "Morning brief", "Today: slides to Inês, Delft check-in at 10:00, Nadia's mother arrives next week.",
     "calendar.list, session_search"),
    (0, "09:30", "Studio standup", "Today: slides out, Delft check-in. Nothing blocked.", "session_search"),
)


# ----- Ledger: bookkeeping, close to its budget -----
_LEDGER_START = """# Ledger: bookkeeping for Rahman Studio

## Standing facts
- Rahman Studio is Nadia Rahman's eenmanszaak; BTW returns are quarterly.
- Bookkeeping lives in Moneybird; bank feeds from ING (business, ends 4412) and Bunq (reserve, ends 0931).
- Ledger accounts: 8000 revenue, 4100 rent, 4200 office, 4300 phone, 4510 software, 4600 travel,
  4700 equipment, 4800 training, 4900 client costs, 4910 research.
- Every paid invoice: move 21% to the Bunq BTW reserve the same day.
- Never pay anything over €1,000 without Nadia's OK in chat.
- Invoice numbers run RS-YYYY-NNN; payment terms 30 days, Gemeente Delft 45 days.
- No car: travel is by train on the NS Business Card, booked to the client it was for.
- Accountant: Emma Jansen (Jansen Administratie); the year-end file is due in April.
- Receipts come in through the receipts inbox; anything without one goes under open items.
- Amounts in euros with two decimals; BTW always shown separately.

## Notes
"""
_LEDGER_LINES = 194  # the imported file: close to the 200-line budget, so the next notes overflow

# (client, first and last day it was a client, in days ago; invoice sizes excluding BTW)
_CLIENTS = (
    ("Museum Rotterdam", 240, 150, (1900, 2850)),
    ("Havenlicht Energie", 240, 120, (3150, 4200)),
    ("Stichting Leeszaal", 200, 90, (1200, 1800)),
    ("Hollandia Ferries", 85, 0, (4000, 4800, 5600)),
    ("Gemeente Delft", 62, 0, (6750, 9000)),
)
_TRAIN_TRIPS = {"Museum Rotterdam": None, "Havenlicht Energie": None, "Stichting Leeszaal": None,
                "Hollandia Ferries": ("Hoek van Holland", 9.60), "Gemeente Delft": ("Delft", 7.40)}
_SUBSCRIPTIONS = ("Hofplein desk €395.00 (4100), KPN €32.50 (4300), Figma €16.94, Adobe €71.99 "
                  "and Notion €9.68 (4510)")
_RECEIPTS = (  # (what, category and account, low and high amount in cents)
    ("NS Business Card, train tickets", "travel (4600)", 1460, 6800),
    ("Bol.com, design books", "training (4800)", 1999, 6450),
    ("Albert Heijn, workshop lunch", "client costs (4900)", 2400, 9800),
    ("Respondent, participant incentives", "research (4910)", 20000, 48000),
    ("Drukkerij Maas, workshop posters", "client costs (4900)", 3800, 9200),
    ("Dille & Kamille, sticky notes and markers", "office (4200)", 1450, 3800),
)
_EQUIPMENT = ("Coolblue, USB-C dock, €189.00", "Coolblue, 27-inch monitor, €329.00",
              "Apple, Magic Keyboard, €119.00", "Bol.com, laptop stand, €45.95", "MediaMarkt, webcam, €89.99")
_KINDS = ("receipt", "invoice", "receipt", "paid", "travel", "receipt", "paid", "invoice", "receipt", "paid",
          "equipment", "travel")


def _money(amount: float) -> str:
    return f"€{amount:,.2f}"


def _ledger_history(s: Story, first: int, last: int, count: int) -> list[tuple[date, str]]:
    """`count` bookkeeping notes from `first` towards `last` days ago, as Ledger wrote them, oldest first."""
    rng = random.Random(4412)  # fixed, so every demo home holds the same amounts
    notes: list[tuple[date, str]] = []
    unpaid: list[tuple[date, str, str, float]] = []
    equipment = list(_EQUIPMENT)
    invoiced = trips = 0
    numbers: dict[int, int] = {}
    month: tuple[int, int] | None = None
    for index in range(count):
        ago = first - round(index * (first - last) / max(count - 1, 1))
        day = s.day(ago)

        def add(chat: str, fact: str) -> None:
            notes.append((day, format_dated_entry(day, fact, source=f'chat "{chat}"')))

        if (day.year, day.month) != month:
            if month is not None:
                closed = date(*month, 1)
                add("Monthly close", f"Closed {closed:%B}: {rng.randint(38, 71)} bank lines matched, "
                    f"{rng.randint(0, 4)} without a receipt (under open items)")
                if closed.month % 3 == 0:
                    charged, deductible = rng.randint(5200, 8800), rng.randint(600, 1400)
                    add("BTW", f"BTW Q{closed.month // 3} {closed.year} filed: {_money(charged)} charged, "
                        f"{_money(deductible)} deductible, {_money(charged - deductible)} paid from the reserve")
            add("Receipts inbox", f"Monthly receipts filed: {_SUBSCRIPTIONS}")
            month = (day.year, day.month)
        active = [c for c in _CLIENTS if c[1] >= ago >= c[2]]
        kind = _KINDS[index % len(_KINDS)]
        if kind == "paid" and unpaid and (day - unpaid[0][0]).days >= 14:
            _, number, client, gross = unpaid.pop(0)
            add("Bank sync", f"{number} paid by {client}, {_money(gross)}; moved {_money(gross - gross / 1.21)} "
                "to the BTW reserve")
        elif kind == "invoice" and active:
            client, _, _, sizes = active[invoiced % len(active)]
            invoiced += 1
            numbers[day.year] = numbers.get(day.year, 0) + 1
            number = f"RS-{day.year}-{numbers[day.year]:03d}"
            net = rng.choice(sizes)
            unpaid.append((day, number, client, net * 1.21))
            add("Invoices", f"Sent {number} to {client}: {_money(net)} + 21% BTW = {_money(net * 1.21)}")
        elif kind == "travel" and any(_TRAIN_TRIPS[c[0]] for c in active):
            client = [c[0] for c in active if _TRAIN_TRIPS[c[0]]][trips % 2 if len(active) > 1 else 0]
            place, fare = _TRAIN_TRIPS[client]
            trips += 1
            add("Receipts inbox", f"Train to {place} and back for {client}, {_money(fare)} on the NS card, travel (4600)")
        elif kind == "equipment" and equipment:
            add("Receipts inbox", f"Receipt filed: {equipment.pop(0)} incl. BTW, equipment (4700)")
        else:
            what, booked, low, high = rng.choice(_RECEIPTS)
            add("Receipts inbox", f"Receipt filed: {what}, {_money(rng.randint(low, high) / 100)} incl. BTW, {booked}")
    return notes[:count]


def _ledger_memory(s: Story) -> str:
    """Ledger's notes from before this home: the standing facts and months of dated notes."""
    struck = [
        (s.day(221), f'- ~~{s.day(221).isoformat()} · from chat "Cards" · Figma is billed to the personal Visa~~'
                     f" · superseded {s.day(200).isoformat()}"),
        (s.day(190), f'- ~~{s.day(190).isoformat()} · from chat "Pension" · No pension savings through the studio'
                     f" yet~~ · superseded {s.day(150).isoformat()}"),
    ]
    count = _LEDGER_LINES - _LEDGER_START.count("\n") - len(struck)
    notes = sorted(_ledger_history(s, 240, 43, count) + struck, key=lambda note: note[0])
    return _LEDGER_START + "".join(f"{line}\n" for _, line in notes)


def _ledger(s: Story) -> None:
    s.topics = {"monthly-close.md": Topic("Monthly close", "Each month's reconciliation, filed from MEMORY.md",
                                           ("reconciliation", "month end", "bank", "close"))}
    s.write(42, MEMORY_FILE, _ledger_memory(s), IMPORT)
    s.remember(38, "Receipts inbox", "Nadia forwards receipts by the 5th; chase her on the 6th if anything is missing")
    s.remember(35, "Invoice reconciliation", "Hollandia pays about 12 days late; send the reminder 3 days after the due date")
    s.remember(32, "Q3 BTW return", "The quarterly BTW return is checked with Nadia; she submits it herself on the portal")
    s.remember(29, "Pension", "Nadia moves €300 a month to her pension (Brand New Day) from the studio account")
    s.remember(26, "Kroonfiets contract", "Kroonfiets deposit invoice on hold until the contract is signed", until=8)
    s.remember(23, "Software audit", "Adobe Creative Cloud cancelled from next month; Figma and Affinity cover it")
    s.prefer(20, "Invoice layout", "Invoices and statements show amounts excluding BTW first, then BTW, then the total")
    s.remember(17, "Lisbon trip", "Lisbon conference flights and hotel are business travel (4600); keep the boarding passes")
    s.remember(14, "Invoice reconciliation", "Museum Rotterdam pays through Coupa; their PO number must be on the invoice")
    s.remember(11, "Q4 planning", "Expected revenue this quarter: €38,600 excluding BTW from Hollandia, Delft and Kroonfiets")
    s.remember(8, "Kroonfiets contract", "Kroonfiets signed; send the deposit invoice, €3,600 + BTW, this week")
    s.file_into_topics(3, {"monthly-close.md": ("Closed ",)})
    s.remember(2, "Receipts inbox", "Emma wants the quarter's receipts as one PDF per month, not loose files")
    s.remember(1, "Invoice reconciliation", "Every invoice of last month is paid except Delft phase 2, due in 12 days")
    s.log(1, "10:12", "Invoice reconciliation", "Matched 14 bank lines; one Delft invoice still open, not yet due.",
          "moneybird.list, bank.list")
    s.log(1, "16:30", "Receipts inbox", "Filed five receipts; the Coolblue dock receipt matched at last.",
          "email.search, moneybird.attach")
    s.log(0, "09:05", "Invoice reconciliation", "No new payments overnight.", "bank.list")
    ledger_night(s)


# ----- Harbor: a project bot whose hand-written rules fill the budget (red) -----
_HARBOR_COMPONENTS = {
    "Buttons": ("One primary button per screen, bottom right on desktop, full width on mobile.",
                "Labels are verbs: Continue, Pay now, Change booking. Never OK or Submit.",
                "Disabled buttons are not used; show what is missing instead.",
                "Secondary buttons are outlined Harbour Blue; tertiary are text links.",
                "Minimum touch target 44 by 44 px."),
    "Text fields": ("Label above the field, never placeholder-only.",
                    "Hint text under the label, error text under the field in Signal Red.",
                    "Errors say how to fix it: Enter the name as it is on the passport.",
                    "Autocomplete on for names, email and postcode.",
                    "Never clear a field the person typed into after an error."),
    "Date picker": ("Sailing dates only; days without a crossing are struck through, not hidden.",
                    "Show the price from on each day when the fare service answers within 800 ms.",
                    "Keyboard: arrows move a day, Page Up and Page Down a month.",
                    "Outbound and return in one calendar, with the range highlighted."),
    "Passenger counter": ("Steppers with minus and plus; the count is a live region.",
                          "Infants under 2 travel on an adult's lap: at most one per adult.",
                          "Show the age bands: adult 16+, child 4-15, infant 0-3.",
                          "Pets are asked for on their own step, not in the counter."),
    "Vehicle selector": ("Car, van, motorbike, bicycle, on foot: icons with labels.",
                         "Height over 1.85 m asks for the exact height and length.",
                         "Trailers and roof boxes are options under the vehicle, not separate vehicles.",
                         "The registration is optional until check-in."),
    "Cabin picker": ("Show cabins as cards: berths, window, en-suite, price for the whole cabin.",
                     "Accessible cabins first when the person asked for assistance.",
                     "Night crossings need a cabin or a reclining seat; say so before the price step.",
                     "Sold-out cabins stay visible with Sold out, not hidden."),
    "Price summary": ("Sticky on desktop, a collapsible bar on mobile.",
                      "Every line has a label and an amount; taxes and fees are never one lump.",
                      "Changes to the price animate for 300 ms at most, and are announced.",
                      "The total includes everything; nothing is added at payment."),
    "Alerts": ("Info is Harbour Blue, warning Amber 600, error Signal Red, success Sea Green.",
               "One alert at a time at the top of the step; the rest go in place.",
               "Alerts never disappear on their own."),
    "Stepper": ("Steps: Route, Date, Passengers, Vehicle, Extras, Details, Pay.",
                "Completed steps are links back; the current step is bold.",
                "On mobile, show Step 3 of 7 and the step name, not the whole row."),
    "Timetable row": ("Departure and arrival times in 24 hours, local time of each port.",
                      "Crossing time in hours and minutes: 6 h 45 min.",
                      "The ship name links to its deck plans.",
                      "Low availability shows Few places left under 10 percent."),
    "Modals": ("Only for a decision that blocks the step; never for information.",
               "Focus moves into the modal and back to the trigger on close.",
               "Escape and the close button both close; clicking outside does not."),
    "Cards": ("Cards are for choices, not for layout.",
              "The whole card is the target; one link inside at most."),
    "Radio buttons and checkboxes": ("Radio buttons for one choice from up to six; a select above that.",
                                     "The label is the target too, not only the circle or box.",
                                     "Never preselect insurance or any paid extra."),
    "Toasts": ("Only to confirm something the person just did: Booking changed.",
               "Stay at least six seconds and pause on hover or focus.",
               "Never carry an action the person needs; put it on the page."),
    "Tabs": ("Tabs switch views of the same thing (Outbound, Return), never steps.",
             "Arrow keys move between tabs; Tab moves into the panel."),
    "Loading": ("Skeletons for lists, a spinner only for under two seconds.",
                "After eight seconds, say what is slow: Still looking for crossings.",
                "Never block the whole page while only the prices load."),
}
_HARBOR_ERRORS = (
    ("No crossings on that date", "There are no crossings on 24 December. Choose another day."),
    ("Price changed", "The price went up by €12 while you were booking. Continue at €214 or go back."),
    ("Vehicle too high", "Vehicles over 1.85 m need a freight booking. Call us or choose another vehicle."),
    ("Payment declined", "Your bank declined the payment. Nothing was charged. Try another card."),
    ("Session ending", "Your booking is held for 2 more minutes. Keep it or start again."),
    ("Passport name", "Enter the name exactly as it is on the passport, including middle names."),
    ("Sold out", "This crossing is full for cars. Foot passengers can still book."),
    ("Sign-in failed", "That email and password do not match. Reset your password or try again."),
)
_HARBOR_WORDS = (
    ("crossing", "sailing, voyage"), ("ship", "vessel, boat"), ("port", "harbour terminal"),
    ("booking", "reservation, order"), ("booking number", "PNR, reference code"), ("car", "automobile"),
    ("change booking", "amend, modify"), ("cancel booking", "void"), ("check-in", "boarding registration"),
    ("cabin", "stateroom"), ("reclining seat", "sleeper chair"), ("on foot", "foot passenger, walk-on"),
    ("pet", "animal"), ("assistance", "special needs"), ("price", "rate, tariff"),
    ("fee", "surcharge"), ("refund", "credit note"), ("deck", "level"), ("arrival", "ETA"),
    ("departure", "ETD"), ("timetable", "schedule"), ("extras", "ancillaries, add-ons"),
    ("lounge", "premium area"), ("meal deal", "F&B bundle"), ("night crossing", "overnight sailing"),
    ("return", "round trip"), ("one way", "single"), ("passport", "travel document"),
    ("your details", "customer data"), ("pay now", "complete purchase"),
)
_HARBOR_SCREENS = (
    "Home search", "Route picker", "Date picker", "Passengers", "Vehicle", "Vehicle size", "Pets",
    "Cabins", "Seats", "Meals", "Lounge", "Insurance", "Assistance", "Passenger details", "Contact details",
    "Review", "Payment", "Payment failed", "Confirmation", "My bookings", "Booking detail", "Change date",
    "Change vehicle", "Cancel booking", "Refund status", "Check-in", "Boarding pass", "Disruption notice",
    "Rebooking", "Sign in", "Create account", "Forgotten password", "Saved passengers", "Saved vehicles",
    "Frequent routes", "Group booking request", "Freight enquiry", "Onboard shop pre-order",
)
_HARBOR_STATUS = ("signed off", "in test", "in design", "needs copy", "signed off", "in build")
_HARBOR_OWNERS = ("Nadia", "Pieter (Hollandia dev)", "Sanne (Hollandia content)")


def _harbor_rules() -> str:
    lines = [
        "# Harbor: Hollandia booking app",
        "",
        "Pasted from the Hollandia design-system wiki. These rules apply to every screen.",
        "",
        "## Colour",
        "- Primary: Harbour Blue #0B4F6C for buttons, links and selected states.",
        "- Text: Deep Sea #102A35 on white; secondary text Slate #4A5D66.",
        "- Error: Signal Red #C0392B; warning: Amber 600 #B7791F; success: Sea Green #1E7B5C.",
        "- Backgrounds: white, Mist #F3F6F7 for panels, never grey text on Mist.",
        "- Focus ring: 3 px Amber 400 #F6C343 outside the element, on every focusable thing.",
        "- Contrast at least 4.5:1 for text, 3:1 for icons and borders.",
        "- No colour alone carries meaning: add an icon or a word.",
        "",
        "## Type",
        "- Font: Inter for everything; tabular figures for times and prices.",
        "- Sizes: 32/40 page title, 24/32 step title, 18/28 card title, 16/24 body, 14/20 small.",
        "- Body text never below 16 px on mobile.",
        "- Sentence case for every heading and button.",
        "- Line length 45 to 75 characters in body text.",
        "",
        "## Spacing and layout",
        "- 8 px grid; components use 8, 16, 24, 32 or 48.",
        "- Breakpoints: 360, 768, 1024, 1440.",
        "- One column on mobile; the price summary sits right from 1024.",
        "- Page margins 16 px on mobile, 32 px from 768.",
        "",
        "## Components",
    ]
    for name, rules in _HARBOR_COMPONENTS.items():
        lines += ["", f"### {name}", *(f"- {rule}" for rule in rules)]
    lines += ["", "## Words", "Say the word on the left, never the ones on the right."]
    lines += [f"- {use}: not {avoid}" for use, avoid in _HARBOR_WORDS]
    lines += ["", "## Error messages", "Say what happened and what to do next; never an error code alone."]
    lines += [f"- {title}: {message}" for title, message in _HARBOR_ERRORS]
    lines += ["", "## Screens", "Code, name, status, owner, Figma page."]
    lines += [
        f"- B{n:02d} {name}: {_HARBOR_STATUS[n % len(_HARBOR_STATUS)]}, {_HARBOR_OWNERS[n % len(_HARBOR_OWNERS)]}, "
        f"Figma Booking/{name}"
        for n, name in enumerate(_HARBOR_SCREENS, start=1)
    ]
    lines += [
        "",
        "## Accessibility",
        "- WCAG 2.2 AA on every screen; test with VoiceOver and NVDA before sign-off.",
        "- Every step has one h1 and the page title names the step.",
        "- Timeouts warn two minutes ahead and can be extended.",
        "- Prices and times are read as words by screen readers (aria-label).",
        "- Motion respects prefers-reduced-motion.",
        "- Error summaries at the top of the step link to each field.",
    ]
    return "\n".join(lines) + "\n"


def _harbor(s: Story) -> None:
    s.write(20, MEMORY_FILE, _harbor_rules())
    s.remember(6, "Hollandia readout", "The board wants the booking flow in five steps, not seven: merge Extras into Details")
    s.log(6, "15:20", "Hollandia readout",
          "Saved the five-step decision. MEMORY.md is over its budget with lines that never move: please trim it.",
          "memory_update")
    harbor_night(s)


# ----- Quill: memory switched off, its files kept for review -----
def _quill(s: Story) -> None:
    s.topics = {"style-guide.md": Topic("Style guide", "How Nadia writes for the studio newsletter and blog",
                                         ("writing", "tone", "newsletter", "blog", "spelling"))}
    s.write(70, MEMORY_FILE, "# Quill\n\n- Quill drafts Nadia's newsletter and blog posts.\n"
            "- British spelling, sentence-case headings, no exclamation marks.\n")
    s.remember(65, "Newsletter", "The studio newsletter goes out on the first Tuesday of the month to about 420 readers")
    s.note(60, "Newsletter", "style-guide.md", "Open with one concrete story from a project, never with news about the studio")
    s.note(60, "Newsletter", "style-guide.md", "Links as plain words, never click here; at most five links an issue")
    s.remember(45, "Blog", "Nadia's posts run 600 to 900 words and end with one question to the reader")
    s.log(45, "11:40", "Blog", "Draft of the forgiving forms post: 840 words, three examples.", "docs.create")
    s.note(38, "Blog", "style-guide.md", "Client names only with written permission; otherwise a ferry company, a city")


# ----- Atlas: small, on a local model, kept off the helper -----
def _atlas(s: Story) -> None:
    s.topics = {"sources.md": Topic("Sources", "Where Atlas looks first, and what Nadia trusts",
                                     ("references", "reading", "research", "papers"))}
    s.remember(20, "Reading list", "Nadia wants papers summarised in five bullets, with the method first")
    s.note(15, "Reading list", "sources.md", "Trusted on accessibility: WebAIM, the GOV.UK service manual, Nielsen Norman Group")
    s.remember(10, "Studio standup", "Atlas posts the research digest in the standup on Mondays")
    s.remember(4, "Reading list", "Current question: how do ferry and airline apps handle changes after booking?")
