"""Who said what in a conversation, as a fact's evidence is read: a line (its role, author and text), whose words a
message is, the people a bot talks with, and why a room never feeds capture.

Spec: memory.md, "Memory upkeep" ("Noticing facts", "Learning from group chats"), "Checks before a dream saves a
fact" and "Shared team memory integrity". Capture's batches (upkeep/capture_state.py), the checks (checks.py) and
a bot's team proposals (team/proposals.py) all read conversations through these. docs/upkeep-capture.md has the
rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..files.paths import Home
from ..memory import conversations as conv

LINE_MAX_CHARS = 4_000  # one message as the model sees it (a quote is checked against the same text)

# What a line is to the batch: the person's own words, this bot's, another person's, another bot's.
PERSON, BOT, OTHER_PERSON, OTHER_BOT = "person", "bot", "other person", "other bot"


@dataclass(frozen=True)
class Line:
    seq: int
    role: str  # PERSON, BOT, OTHER_PERSON or OTHER_BOT
    author: str
    text: str  # as the model is shown it (at most LINE_MAX_CHARS)


def bot_people(home: Home, bot_id: str) -> set[str]:
    """The people who talk with the bot in 1:1 chats they started: whose words are "the person's" in a room."""
    people = set()
    for path in conv.chat_paths(home, bot_id):
        chat = conv.read_conversation(path, header_only=True)
        if chat is not None and chat.started_by.kind == "person" and chat.started_by.name:
            people.add(chat.started_by.name)
    return people


def room_refusal(room: conv.Conversation, people: set[str]) -> str | None:
    """Why a room never feeds capture, or None when it may."""
    members = set(room.people())
    if not members:
        return "no person is in it (a bot-to-bot channel)"
    if not people <= members:
        return "fewer people can see it than the bot"
    return None


def as_line(message: conv.Message, role: str) -> Line:
    """A message as the model reads it in a batch: its role, author and text (cut to LINE_MAX_CHARS)."""
    return Line(message.seq, role, message.author, message.text[:LINE_MAX_CHARS])


def role_of(message: conv.Message, bot_id: str, own_people: set[str]) -> str | None:
    """Whose words a message is, as capture's rules tell them apart (the person, another person, this bot...)."""
    if message.author_kind == "person":
        return PERSON if message.author in own_people else OTHER_PERSON
    if message.author_kind == "bot":
        return BOT if message.author == bot_id else OTHER_BOT
    return None  # a notice from the harness is no one's words
