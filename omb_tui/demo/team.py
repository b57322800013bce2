"""The demo home's team: Scout and Ledger share "Launch crew", with a few accepted notes (one pinned, one corrected
once so its history has something to restore) and one pending card Scout proposed from the "Launch" room.

Written through the core as a person and a bot make them (`omb_tui.core.team`): the person's notes are proposed and
accepted with their revisions, and Scout's card goes through the `team_note` tool's checks, quoting Nadia.
"""

from __future__ import annotations

from ..core.files.paths import Home, MemoryInputError
from ..core.team import api
from ..core.team.proposals import propose_from_bot
from ..core.team.storage import create_team

TEAM_NAME = "Launch crew"
TEAM_BOTS = ("scout", "ledger")
PINNED_KEY = "people/finance-contact"
CORRECTED_KEY = "launch/announcement"
PENDING_KEY = "launch/date"
ROOM = "launch-room"

# (key, title, text) accepted in this order; the pinned one loads first.
_NOTES = (
    (PINNED_KEY, "Finance contact", "Dana in finance is copied on every invoice sent back to a supplier."),
    ("pricing/team-plan", "Team plan price", "Team plans cost 12 euro a seat, single sign-on included."),
    (CORRECTED_KEY, "Announcement", "The launch announcement email goes out at 09:00."),
)
_CORRECTION = (
    CORRECTED_KEY,
    "Announcement time",
    "The announcement email and the blog post go out at 10:00 on launch day.",
)
# Scout's proposal rests on what Nadia said in the room (demo/conversations.py).
_PROPOSAL = dict(
    key=PENDING_KEY,
    title="Launch day",
    text="The launch moved from Tuesday to Thursday because of the app store review.",
    quotes=["the launch date moved from Tuesday to Thursday because of the app store review"],
)


def write_demo_team(home: Home) -> str:
    """Create the demo team and its notes; returns the team's key."""
    team = create_team(home, TEAM_NAME, list(TEAM_BOTS))
    for key, title, text in (*_NOTES, _CORRECTION):
        card = api.propose(home, team.key, key, title, text)
        api.accept(home, team.key, key, card.revision)
    pinned = api.show(home, team.key).team.notes[PINNED_KEY]
    api.set_pinned(home, team.key, PINNED_KEY, pinned.revision, True)
    proposal = propose_from_bot(home, "scout", chat=ROOM, team_ref=team.key, **_PROPOSAL)
    if proposal.card is None:  # the sample conversation and the card are written together: say which drifted
        raise MemoryInputError(f"The demo team's card was refused: {proposal.reason}.")
    return team.key
