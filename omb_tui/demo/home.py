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

from datetime import date, datetime, timezone
from typing import Callable

from ..core.memory.paths import MEMORY_FILE, Home, MemoryInputError
from ..core.memory.settings import BotSettings, save_bot_settings
from ..core.memory.store import write_private_json
from .conversations import write_sample_conversations
from .ledger import ledger_history
from .night import harbor_night
from .scout import scout_history
from .story import TIDY_HOUR, Story, Topic
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
    "scout": scout_history, "ledger": ledger_history, "harbor": _harbor, "quill": _quill, "atlas": _atlas,
}
