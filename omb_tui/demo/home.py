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
from typing import Callable

from ..core.memory.entries import format_dated_entry
from ..core.memory.paths import MEMORY_FILE, Home, MemoryInputError
from ..core.memory.settings import BotSettings, save_bot_settings
from ..core.memory.store import write_private_json
from .conversations import write_sample_conversations
from .night import harbor_night, ledger_night
from .scout import scout_history
from .story import IMPORT, TIDY_HOUR, Story, Topic
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
    for bot_id in DEMO_BOT_IDS:
        story = Story(home, bot_id, today)
        _HISTORIES[bot_id](story)
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


# Each demo bot's history, told in the order of DEMO_BOT_IDS.
_HISTORIES: dict[str, Callable[[Story], None]] = {
    "scout": scout_history, "ledger": _ledger, "harbor": _harbor, "quill": _quill, "atlas": _atlas,
}
