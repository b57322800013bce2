"""Harbor's history in the demo home: a project bot for the Hollandia booking app (sample data, not core).

Spec: memory.md, "What loads, and the budget". Nadia pasted the Hollandia design-system rules into MEMORY.md by
hand: colour, type, spacing, each component's rules, the words to use, error messages, the screens and
accessibility. They fill the budget by themselves (red, lines not loaded), and being hand-written they never move
on their own. The one note Harbor saves adds to them; last night's compaction, in its first week (demo/night.py),
only proposes.
"""

from __future__ import annotations

from ..core.files.paths import MEMORY_FILE
from .night import harbor_night
from .story import Story

_HARBOR_COMPONENTS = {
    "Buttons": (
        "One primary button per screen, bottom right on desktop, full width on mobile.",
        "Labels are verbs: Continue, Pay now, Change booking. Never OK or Submit.",
        "Disabled buttons are not used; show what is missing instead.",
        "Secondary buttons are outlined Harbour Blue; tertiary are text links.",
        "Minimum touch target 44 by 44 px.",
    ),
    "Text fields": (
        "Label above the field, never placeholder-only.",
        "Hint text under the label, error text under the field in Signal Red.",
        "Errors say how to fix it: Enter the name as it is on the passport.",
        "Autocomplete on for names, email and postcode.",
        "Never clear a field the person typed into after an error.",
    ),
    "Date picker": (
        "Sailing dates only; days without a crossing are struck through, not hidden.",
        "Show the price from on each day when the fare service answers within 800 ms.",
        "Keyboard: arrows move a day, Page Up and Page Down a month.",
        "Outbound and return in one calendar, with the range highlighted.",
    ),
    "Passenger counter": (
        "Steppers with minus and plus; the count is a live region.",
        "Infants under 2 travel on an adult's lap: at most one per adult.",
        "Show the age bands: adult 16+, child 4-15, infant 0-3.",
        "Pets are asked for on their own step, not in the counter.",
    ),
    "Vehicle selector": (
        "Car, van, motorbike, bicycle, on foot: icons with labels.",
        "Height over 1.85 m asks for the exact height and length.",
        "Trailers and roof boxes are options under the vehicle, not separate vehicles.",
        "The registration is optional until check-in.",
    ),
    "Cabin picker": (
        "Show cabins as cards: berths, window, en-suite, price for the whole cabin.",
        "Accessible cabins first when the person asked for assistance.",
        "Night crossings need a cabin or a reclining seat; say so before the price step.",
        "Sold-out cabins stay visible with Sold out, not hidden.",
    ),
    "Price summary": (
        "Sticky on desktop, a collapsible bar on mobile.",
        "Every line has a label and an amount; taxes and fees are never one lump.",
        "Changes to the price animate for 300 ms at most, and are announced.",
        "The total includes everything; nothing is added at payment.",
    ),
    "Alerts": (
        "Info is Harbour Blue, warning Amber 600, error Signal Red, success Sea Green.",
        "One alert at a time at the top of the step; the rest go in place.",
        "Alerts never disappear on their own.",
    ),
    "Stepper": (
        "Steps: Route, Date, Passengers, Vehicle, Extras, Details, Pay.",
        "Completed steps are links back; the current step is bold.",
        "On mobile, show Step 3 of 7 and the step name, not the whole row.",
    ),
    "Timetable row": (
        "Departure and arrival times in 24 hours, local time of each port.",
        "Crossing time in hours and minutes: 6 h 45 min.",
        "The ship name links to its deck plans.",
        "Low availability shows Few places left under 10 percent.",
    ),
    "Modals": (
        "Only for a decision that blocks the step; never for information.",
        "Focus moves into the modal and back to the trigger on close.",
        "Escape and the close button both close; clicking outside does not.",
    ),
    "Cards": ("Cards are for choices, not for layout.", "The whole card is the target; one link inside at most."),
    "Radio buttons and checkboxes": (
        "Radio buttons for one choice from up to six; a select above that.",
        "The label is the target too, not only the circle or box.",
        "Never preselect insurance or any paid extra.",
    ),
    "Toasts": (
        "Only to confirm something the person just did: Booking changed.",
        "Stay at least six seconds and pause on hover or focus.",
        "Never carry an action the person needs; put it on the page.",
    ),
    "Tabs": (
        "Tabs switch views of the same thing (Outbound, Return), never steps.",
        "Arrow keys move between tabs; Tab moves into the panel.",
    ),
    "Loading": (
        "Skeletons for lists, a spinner only for under two seconds.",
        "After eight seconds, say what is slow: Still looking for crossings.",
        "Never block the whole page while only the prices load.",
    ),
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
    ("crossing", "sailing, voyage"),
    ("ship", "vessel, boat"),
    ("port", "harbour terminal"),
    ("booking", "reservation, order"),
    ("booking number", "PNR, reference code"),
    ("car", "automobile"),
    ("change booking", "amend, modify"),
    ("cancel booking", "void"),
    ("check-in", "boarding registration"),
    ("cabin", "stateroom"),
    ("reclining seat", "sleeper chair"),
    ("on foot", "foot passenger, walk-on"),
    ("pet", "animal"),
    ("assistance", "special needs"),
    ("price", "rate, tariff"),
    ("fee", "surcharge"),
    ("refund", "credit note"),
    ("deck", "level"),
    ("arrival", "ETA"),
    ("departure", "ETD"),
    ("timetable", "schedule"),
    ("extras", "ancillaries, add-ons"),
    ("lounge", "premium area"),
    ("meal deal", "F&B bundle"),
    ("night crossing", "overnight sailing"),
    ("return", "round trip"),
    ("one way", "single"),
    ("passport", "travel document"),
    ("your details", "customer data"),
    ("pay now", "complete purchase"),
)
_HARBOR_SCREENS = (
    "Home search",
    "Route picker",
    "Date picker",
    "Passengers",
    "Vehicle",
    "Vehicle size",
    "Pets",
    "Cabins",
    "Seats",
    "Meals",
    "Lounge",
    "Insurance",
    "Assistance",
    "Passenger details",
    "Contact details",
    "Review",
    "Payment",
    "Payment failed",
    "Confirmation",
    "My bookings",
    "Booking detail",
    "Change date",
    "Change vehicle",
    "Cancel booking",
    "Refund status",
    "Check-in",
    "Boarding pass",
    "Disruption notice",
    "Rebooking",
    "Sign in",
    "Create account",
    "Forgotten password",
    "Saved passengers",
    "Saved vehicles",
    "Frequent routes",
    "Group booking request",
    "Freight enquiry",
    "Onboard shop pre-order",
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


def harbor_history(s: Story) -> None:
    s.write(20, MEMORY_FILE, _harbor_rules())
    s.remember(
        6, "Hollandia readout", "The board wants the booking flow in five steps, not seven: merge Extras into Details"
    )
    s.log(
        6,
        "15:20",
        "Hollandia readout",
        "Saved the five-step decision. MEMORY.md is over its budget with lines that never move: please trim it.",
        "memory_update",
    )
    harbor_night(s)
