"""A bot proposes a team note (its `team_note` tool): the proposal passes the checks a dream's fact passes before
it becomes a pending card, and one that fails never becomes a card (the reason goes back to the model).

Spec: memory.md, "Shared team memory integrity" and "Checks before a dream saves a fact", which apply to a bot's
proposal too. The checks are the ones capture runs (facts/checks.py), taken as for a fact: the quotes must be the
person's own words in the conversation the turn is in (in a room, a fact may rest on another person's words
about the shared work), not a question, a task or a supposition; every number, path and URL of the title and
the text must be in the quotes; nothing that looks like a secret; nothing the person asked to forget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..base.text import plural
from ..facts import checks
from ..facts.lines import as_line, bot_people, role_of
from ..files.paths import Home, MemoryInputError, quoted
from ..memory import conversations as conv
from ..memory.settings import load_profile_learned
from .model import Card, Team, by_bot
from .notes import propose
from .storage import change_team, teams_of_bot

CONVERSATION_LINES = 400  # the newest messages of the conversation a quote may come from
OUTSIDE_CONVERSATIONS = 20  # a proposal from no conversation is looked for in this many of the bot's newest


@dataclass(frozen=True)
class Proposal:
    card: Card | None
    team: Team | None
    reason: str | None  # why it did not become a card

    def message(self) -> str:
        """What the model is told."""
        if self.card is None:
            return f"Not proposed: {self.reason}."
        assert self.team is not None
        replaces = "" if self.card.based_on is None else " (a correction of the team's note with that key)"
        return (
            f"Proposed to the team {quoted(self.team.name)} as {self.card.key}{replaces}; a person reviews it "
            "before it loads."
        )


def _team_for(home: Home, bot_id: str, team_ref: str | None) -> Team | str:
    teams = teams_of_bot(home, bot_id)
    if not teams:
        return "you are not a member of any team"
    if team_ref is None or not team_ref.strip():
        if len(teams) > 1:
            return f"you are in several teams, so say which one: {', '.join(quoted(t.name) for t in teams)}"
        return teams[0]
    wanted = " ".join(team_ref.split()).casefold()
    for team in teams:
        if wanted in (team.key, team.name.casefold()):
            return team
    return f"you are not a member of a team {quoted(team_ref)}"


def _person_lines(home: Home, bot_id: str, conversation: conv.Conversation) -> list:
    """The conversation's newest lines, each with whose words they are, as capture labels them."""
    if conversation.is_room:
        own = bot_people(home, bot_id)
    else:
        own = {conversation.started_by.name} if conversation.started_by.kind == "person" else set()
    messages = conversation.messages[-CONVERSATION_LINES:]
    return [as_line(m, role) for m in messages if not m.failed and (role := role_of(m, bot_id, own))]


class ProposedNote(NamedTuple):
    """A proposal's fields, once they are known to have the right shape."""

    key: str
    title: str
    text: str
    quotes: list[str]


def _propose_from_outside(home: Home, team: Team, bot_id: str, note: ProposedNote) -> Proposal:
    """A proposal from no conversation: what it states passes the checks that need no conversation (no secret,
    nothing forgotten, every number, path and URL in the quotes), then its quotes must be a person's own statement
    in one of the bot's newest conversations, which the card then names, as if proposed there."""
    stated = f"{note.title}\n{note.text}"
    problem = (
        checks.secret_problem(stated, note.quotes)
        or checks.forgotten_problem(stated, note.quotes, load_profile_learned(home).forgotten)
        or checks.tokens_problem(stated, note.quotes, "the quotes")
    )
    if problem:
        return Proposal(None, team, problem)
    newest = _newest_conversations(home, bot_id)
    for conversation in newest:
        lines = _person_lines(home, bot_id, conversation)
        in_room = conversation.is_room
        if not (
            checks.quote_problem("fact", note.quotes, lines, in_room=in_room)
            or checks.not_a_statement_problem(note.quotes, lines)
        ):
            return make_card(home, team, bot_id, note, chat=conversation.id)
    return Proposal(
        None,
        team,
        "the quotes are not a person's own statement in a conversation of yours this home keeps (a team note "
        f"rests on what a person said; {plural(len(newest), 'conversation')} looked through, newest first)",
    )


def _newest_conversations(home: Home, bot_id: str) -> list[conv.Conversation]:
    """The bot's conversations written to last, at most OUTSIDE_CONVERSATIONS, each with its messages."""
    paths = [c.path for c in conv.list_conversations(home, bot_id) if c.path is not None]
    paths.sort(key=_modified, reverse=True)
    read = (conv.read_conversation(path) for path in paths[:OUTSIDE_CONVERSATIONS])
    return [conversation for conversation in read if conversation is not None]


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def shaped_proposal(key: object, title: object, text: object, quotes: object) -> ProposedNote | str:
    """The proposal when its fields are text, the text within capture's limit and the quotes a list of text;
    else what is wrong with it."""
    if not (isinstance(key, str) and isinstance(title, str) and isinstance(text, str)):
        return "'key', 'title' and 'text' must be text"
    if len(text) > checks.TEXT_MAX_CHARS:
        return f"the text is longer than {checks.TEXT_MAX_CHARS:,} characters"
    if not isinstance(quotes, list) or not all(isinstance(q, str) for q in quotes):
        return "'quotes' must be a list of the person's words, as they said them"
    return ProposedNote(key, title, text, quotes)


def evidence_problem(note: ProposedNote, lines: list, *, in_room: bool, forgotten: list) -> str | None:
    """The first check the proposal fails against the conversation's lines, or None (the order is capture's).
    A team note is always taken as a fact: it rests on a person's quoted words, whatever its kind."""
    stated = f"{note.title}\n{note.text}"
    return (
        checks.secret_problem(stated, note.quotes)
        or checks.forgotten_problem(stated, note.quotes, forgotten)
        or checks.quote_problem("fact", note.quotes, lines, in_room=in_room)
        or checks.not_a_statement_problem(note.quotes, lines)
        or checks.tokens_problem(stated, note.quotes, "the quotes")
    )


def make_card(home: Home, team: Team, bot_id: str, note: ProposedNote, *, chat: str) -> Proposal:
    """The checked proposal becomes the team's pending card (never an accepted note)."""
    key, title, text, quotes = note
    try:
        card = change_team(
            home,
            team.key,
            lambda current: propose(current, key, title, text, by=by_bot(bot_id), quotes=quotes, chat=chat),
        )
    except MemoryInputError as exc:  # a bad key, an empty title, the same text as the note: said back
        return Proposal(None, team, str(exc).rstrip("."))
    return Proposal(card, team, None)


def propose_from_bot(
    home: Home,
    bot_id: str,
    key: object,
    title: object,
    text: object,
    quotes: object,
    *,
    chat: str | None,
    team_ref: str | None = None,
    from_outside: bool = False,
) -> Proposal:
    """Check a bot's proposal and, when every check passes, make it a pending card of the team.

    `from_outside`: the bot works in no conversation of the home (an MCP client's session, `chat` None), so the
    quotes are looked for in its newest conversations instead (`_propose_from_outside`)."""
    found = _team_for(home, bot_id, team_ref)
    if isinstance(found, str):
        return Proposal(None, None, found)
    if chat is None and not from_outside:
        return Proposal(
            None,
            found,
            "a team note rests on what a person said in this conversation, and this turn has no conversation",
        )
    note = shaped_proposal(key, title, text, quotes)
    if isinstance(note, str):
        return Proposal(None, found, note)
    if chat is None:
        return _propose_from_outside(home, found, bot_id, note)
    conversation = conv.find_conversation(home, bot_id, chat, with_messages=True)
    lines = _person_lines(home, bot_id, conversation)
    problem = evidence_problem(
        note, lines, in_room=conversation.is_room, forgotten=load_profile_learned(home).forgotten
    )
    if problem:
        return Proposal(None, found, problem)
    return make_card(home, found, bot_id, note, chat=conversation.id)
