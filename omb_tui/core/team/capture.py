"""Capture proposes team notes from the rooms of a team: a fact the model marks for the team passes the checks of
a bot's `team_note` (proposals.py) and becomes a pending card, never an accepted note.

Spec: memory.md, "Shared team memory integrity", "Checks before a dream saves a fact" and "Learning from group
chats" (the room rules apply as they are: capture decides which rooms and lines are read, and whose words they
are). The decisions are in docs/team.md, "Capture from a team's rooms":

- A room is a room of a team when the bot being captured is a member of the team, every member bot of the team
  is in the room, and no person who talks with any member bot in their own 1:1 chats is left out of the room
  (the "fewer people can see it" rule, over the whole team, since every member loads the note).
- A 1:1 chat is never a team's: what a person tells one bot alone is never proposed to the team.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..facts.checks import ProposedFact
from ..facts.lines import Line, bot_people, room_refusal
from ..files.paths import Home, quoted
from ..memory import conversations as conv
from ..memory.settings import load_profile_learned
from . import proposals
from .model import TITLE_MAX_CHARS, Team
from .storage import teams_of_bot


def room_teams(home: Home, bot_id: str, conversation: conv.Conversation) -> list[Team]:
    """The active teams the conversation is a room of (none for a 1:1 chat), by name."""
    if not conversation.is_room:
        return []
    found = []
    for team in teams_of_bot(home, bot_id):
        if not all(conversation.has_bot(member) for member in team.bots):
            continue
        people = set().union(*(bot_people(home, member) for member in team.bots))
        if room_refusal(conversation, people) is None:
            found.append(team)
    return found


def team_key_of(fact: ProposedFact) -> object:
    """The key the model gave a fact meant for the team (`team_key`); None when the fact is the bot's own."""
    key = fact.team_key
    return None if key is None or (isinstance(key, str) and not key.strip()) else key


def title_of(fact: ProposedFact, text: str) -> object:
    """The model's `team_title`, else the fact's text (cut to a title's length)."""
    title = fact.team_title
    if isinstance(title, str) and title.strip():
        return title
    return text if len(text) <= TITLE_MAX_CHARS else text[: TITLE_MAX_CHARS - 1].rstrip() + "…"


@dataclass(frozen=True)
class TeamProposed:
    """A fact capture made a pending card of a team (what capture's report lists under `proposed`)."""

    text: str
    team: str  # the team's key
    team_name: str
    key: str
    title: str
    revision: int
    conversation: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def propose_from_capture(
    home: Home,
    bot_id: str,
    fact: ProposedFact,
    text: str,
    quotes: list[str],
    lines: list[Line],
    teams: list[Team],
    *,
    chat: str,
) -> tuple[list[TeamProposed], list[str]]:
    """Check one fact marked for the team against the batch's lines (`lines`, labelled by capture's room rules)
    and make it a pending card of each team of the room: (the cards made, why it was not proposed, one sentence
    each for capture's report)."""
    note = proposals.shaped_proposal(team_key_of(fact), title_of(fact, text), text, quotes)
    if isinstance(note, str):
        return [], [f"not proposed to the team: {note}"]
    problem = proposals.evidence_problem(note, lines, in_room=True, forgotten=load_profile_learned(home).forgotten)
    if problem:
        return [], [f"not proposed to the team: {problem}"]
    made, refused = [], []
    for team in teams:
        proposal = proposals.make_card(home, team, bot_id, note, chat=chat)
        if proposal.card is None:
            refused.append(f"not proposed to the team {quoted(team.name)}: {proposal.reason}")
            continue
        made.append(
            TeamProposed(
                text, team.key, team.name, proposal.card.key, proposal.card.title, proposal.card.revision, chat
            )
        )
    return made, refused
