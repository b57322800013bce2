"""Scout's daily logs in the demo home: the last fortnight written out turn by turn, and routine turns (morning
brief, standup, email triage) from a fixed seed on every day before it (sample data, not core).

Spec: memory.md, "Where it lives" (daily logs under memory/log/, the bot's own record). The rest of Scout's
history, and when these are written in it, is in demo/scout.py.
"""

from __future__ import annotations

import random

from ..core.base.text import plural
from .story import AUTO_LOG_DAYS, EVENING, MORNING, ROOMS, Story, is_weekend


def scout_logs(s: Story) -> None:
    """Every turn of Scout's the daily logs hold: the fortnight by hand (the standup only on weekdays), then the
    routine turns before it."""
    for entry in _SCOUT_LOG:
        if not (entry[2] in ROOMS and is_weekend(s.day(entry[0]))):  # the standup is a weekday routine
            s.log(*entry)
    _scout_routine_turns(s)


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
