"""Ledger's history in the demo home: bookkeeping for Nadia's studio (sample data, not core).

Spec: memory.md, "What loads, and the budget" and "Memory upkeep". Months of notes from before this home are
imported at once, close to the 200-line budget (amber): dated invoices, payments, receipts, monthly closes and BTW
returns from a fixed seed, so every demo home holds the same amounts, with two struck-through lines. The notes Ledger
saves after that overflow into the archive; Memory upkeep files the monthly closes into a topic. Last night's tidy-up
and nightly compaction (demo/night.py) close the story.
"""

from __future__ import annotations

import random
from datetime import date

from ..core.files.paths import MEMORY_FILE
from ..core.memory.entries import format_dated_entry
from .night import ledger_night
from .story import IMPORT, Story, Topic

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
_TRAIN_TRIPS = {
    "Museum Rotterdam": None,
    "Havenlicht Energie": None,
    "Stichting Leeszaal": None,
    "Hollandia Ferries": ("Hoek van Holland", 9.60),
    "Gemeente Delft": ("Delft", 7.40),
}
_SUBSCRIPTIONS = "Hofplein desk €395.00 (4100), KPN €32.50 (4300), Figma €16.94, Adobe €71.99 and Notion €9.68 (4510)"
_RECEIPTS = (  # (what, category and account, low and high amount in cents)
    ("NS Business Card, train tickets", "travel (4600)", 1460, 6800),
    ("Bol.com, design books", "training (4800)", 1999, 6450),
    ("Albert Heijn, workshop lunch", "client costs (4900)", 2400, 9800),
    ("Respondent, participant incentives", "research (4910)", 20000, 48000),
    ("Drukkerij Maas, workshop posters", "client costs (4900)", 3800, 9200),
    ("Dille & Kamille, sticky notes and markers", "office (4200)", 1450, 3800),
)
_EQUIPMENT = (
    "Coolblue, USB-C dock, €189.00",
    "Coolblue, 27-inch monitor, €329.00",
    "Apple, Magic Keyboard, €119.00",
    "Bol.com, laptop stand, €45.95",
    "MediaMarkt, webcam, €89.99",
)
_KINDS = (
    "receipt",
    "invoice",
    "receipt",
    "paid",
    "travel",
    "receipt",
    "paid",
    "invoice",
    "receipt",
    "paid",
    "equipment",
    "travel",
)


def _money(amount: float) -> str:
    return f"€{amount:,.2f}"


def _bookkeeping_notes(s: Story, first: int, last: int, count: int) -> list[tuple[date, str]]:
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

        def add(chat: str, fact: str, day: date = day) -> None:
            notes.append((day, format_dated_entry(day, fact, source=f'chat "{chat}"')))

        if (day.year, day.month) != month:
            if month is not None:
                closed = date(*month, 1)
                add(
                    "Monthly close",
                    f"Closed {closed:%B}: {rng.randint(38, 71)} bank lines matched, "
                    f"{rng.randint(0, 4)} without a receipt (under open items)",
                )
                if closed.month % 3 == 0:
                    charged, deductible = rng.randint(5200, 8800), rng.randint(600, 1400)
                    add(
                        "BTW",
                        f"BTW Q{closed.month // 3} {closed.year} filed: {_money(charged)} charged, "
                        f"{_money(deductible)} deductible, {_money(charged - deductible)} paid from the reserve",
                    )
            add("Receipts inbox", f"Monthly receipts filed: {_SUBSCRIPTIONS}")
            month = (day.year, day.month)
        active = [c for c in _CLIENTS if c[1] >= ago >= c[2]]
        kind = _KINDS[index % len(_KINDS)]
        if kind == "paid" and unpaid and (day - unpaid[0][0]).days >= 14:
            _, number, client, gross = unpaid.pop(0)
            add(
                "Bank sync",
                f"{number} paid by {client}, {_money(gross)}; moved {_money(gross - gross / 1.21)} to the BTW reserve",
            )
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
            add(
                "Receipts inbox",
                f"Train to {place} and back for {client}, {_money(fare)} on the NS card, travel (4600)",
            )
        elif kind == "equipment" and equipment:
            add("Receipts inbox", f"Receipt filed: {equipment.pop(0)} incl. BTW, equipment (4700)")
        else:
            what, booked, low, high = rng.choice(_RECEIPTS)
            add("Receipts inbox", f"Receipt filed: {what}, {_money(rng.randint(low, high) / 100)} incl. BTW, {booked}")
    return notes[:count]


def _ledger_memory(s: Story) -> str:
    """Ledger's notes from before this home: the standing facts and months of dated notes."""
    struck = [
        (
            s.day(221),
            f'- ~~{s.day(221).isoformat()} · from chat "Cards" · Figma is billed to the personal Visa~~'
            f" · superseded {s.day(200).isoformat()}",
        ),
        (
            s.day(190),
            f'- ~~{s.day(190).isoformat()} · from chat "Pension" · No pension savings through the studio'
            f" yet~~ · superseded {s.day(150).isoformat()}",
        ),
    ]
    count = _LEDGER_LINES - _LEDGER_START.count("\n") - len(struck)
    notes = sorted(_bookkeeping_notes(s, 240, 43, count) + struck, key=lambda note: note[0])
    return _LEDGER_START + "".join(f"{line}\n" for _, line in notes)


def ledger_history(s: Story) -> None:
    s.topics = {
        "monthly-close.md": Topic(
            "Monthly close",
            "Each month's reconciliation, filed from MEMORY.md",
            ("reconciliation", "month end", "bank", "close"),
        )
    }
    s.write(42, MEMORY_FILE, _ledger_memory(s), IMPORT)
    s.remember(38, "Receipts inbox", "Nadia forwards receipts by the 5th; chase her on the 6th if anything is missing")
    s.remember(
        35, "Invoice reconciliation", "Hollandia pays about 12 days late; send the reminder 3 days after the due date"
    )
    s.remember(
        32, "Q3 BTW return", "The quarterly BTW return is checked with Nadia; she submits it herself on the portal"
    )
    s.remember(29, "Pension", "Nadia moves €300 a month to her pension (Brand New Day) from the studio account")
    s.remember(26, "Kroonfiets contract", "Kroonfiets deposit invoice on hold until the contract is signed", until=8)
    s.remember(23, "Software audit", "Adobe Creative Cloud cancelled from next month; Figma and Affinity cover it")
    s.prefer(20, "Invoice layout", "Invoices and statements show amounts excluding BTW first, then BTW, then the total")
    s.remember(
        17, "Lisbon trip", "Lisbon conference flights and hotel are business travel (4600); keep the boarding passes"
    )
    s.remember(
        14, "Invoice reconciliation", "Museum Rotterdam pays through Coupa; their PO number must be on the invoice"
    )
    s.remember(
        11, "Q4 planning", "Expected revenue this quarter: €38,600 excluding BTW from Hollandia, Delft and Kroonfiets"
    )
    s.remember(8, "Kroonfiets contract", "Kroonfiets signed; send the deposit invoice, €3,600 + BTW, this week")
    s.file_into_topics(3, {"monthly-close.md": ("Closed ",)})
    s.remember(2, "Receipts inbox", "Emma wants the quarter's receipts as one PDF per month, not loose files")
    s.remember(1, "Invoice reconciliation", "Every invoice of last month is paid except Delft phase 2, due in 12 days")
    s.log(
        1,
        "10:12",
        "Invoice reconciliation",
        "Matched 14 bank lines; one Delft invoice still open, not yet due.",
        "moneybird.list, bank.list",
    )
    s.log(
        1,
        "16:30",
        "Receipts inbox",
        "Filed five receipts; the Coolblue dock receipt matched at last.",
        "email.search, moneybird.attach",
    )
    s.log(0, "09:05", "Invoice reconciliation", "No new payments overnight.", "bank.list")
    ledger_night(s)
