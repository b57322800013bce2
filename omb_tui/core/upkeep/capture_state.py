"""What capture reads: the turns of a conversation not read yet, in batches, and where reading stopped.

Spec: memory.md, "Memory upkeep" ("Noticing facts", "Learning from group chats"). The decisions are in
docs/upkeep-capture.md:

- A 1:1 chat counts only when the person started it. In it a turn begins at a message with an `origin`
  (or at a person's message without one, after a message that is not a person's: older files) and runs
  to the next. A turn started by anything but a person, or holding a failed message, is passed over,
  never sent to the model. The last turn waits until the bot has answered it.
- In a room (only with `features.roomMemoryCapture`) a stretch is what was said since the bot last
  spoke, with its reply; the messages after its newest reply wait. A stretch with no person's words,
  with a turn started by anything but a person (hand-offs, routines, webhooks, other bots), or whose
  reply failed, is passed over. A room no person is in (a bot-to-bot channel), or one that leaves out
  a person the bot talks with in 1:1 chats (fewer people can see it than the bot), never feeds capture.
- Read positions live in `memory-journal/<bot>.capture.json` (outside the workspace, 0600, atomic): per
  conversation, the number of messages read (`seq`), and the time and a hash of the last one read, so
  a chat rewound meanwhile is noticed and only what came after is read. No text is kept there.
- `memory-capture-pending.json` (the home's top folder) keeps, at a normal shutdown, which chats have
  turns waiting: bot and conversation ids, at most 50, never text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..base import clock
from ..facts.lines import OTHER_PERSON, PERSON, Line, as_line, bot_people, role_of, room_refusal
from ..files.disk import read_text, write_private_json
from ..files.paths import Home, validate_bot_id
from ..memory import conversations as conv
from ..memory.settings import load_config
from ..people.people import is_team_cloud

BATCH_MAX_CHARS = 24_000  # the turns of one model call; a longer backlog is read in several calls
TURNS_BEFORE_DUE = 6  # "or after six turns"
PENDING_MAX_CHATS = 50
PENDING_FILE = "memory-capture-pending.json"


@dataclass
class Turn:
    """A 1:1 turn, or a room stretch up to the bot's reply: read together, passed over together."""

    lines: list[Line]
    first_seq: int
    last_seq: int
    eligible: bool  # False: passed over, never sent to the model


@dataclass
class Batch:
    """Turns read in one model call; reading it moves the chat's position past `last_seq`."""

    conversation: conv.Conversation
    turns: list[Turn]

    @property
    def lines(self) -> list[Line]:
        return [line for turn in self.turns if turn.eligible for line in turn.lines]

    @property
    def turns_read(self) -> int:
        return sum(1 for turn in self.turns if turn.eligible)

    @property
    def last_seq(self) -> int:
        return self.turns[-1].last_seq

    @property
    def is_room(self) -> bool:
        return self.conversation.is_room


def position_key(conversation: conv.Conversation) -> str:
    return f"{'room' if conversation.is_room else 'chat'}:{conversation.id}"


def _message_hash(message: conv.Message) -> str:
    """Says whether the message at a position is still the one read there (no text is kept)."""
    data = f"{message.at.isoformat()}\n{message.author_kind}\n{message.author}\n{message.text}"
    return hashlib.sha256(data.encode("utf-8", "surrogateescape")).hexdigest()


# ----- read positions -----
class ReadPositions:
    """`memory-journal/<bot>.capture.json`: {"version": 1, "conversations": {key: {seq, at, hash, size}}}."""

    def __init__(self, home: Home, bot_id: str) -> None:
        self.path = home.journal_dir / f"{validate_bot_id(bot_id)}.capture.json"
        self.positions: dict[str, dict] = self._load()

    def _load(self) -> dict[str, dict]:
        try:
            data = json.loads(read_text(self.path))
        except (OSError, ValueError):
            return {}  # none yet, or damaged: every chat is read from its start once more
        positions = data.get("conversations") if isinstance(data, dict) else None
        if not isinstance(positions, dict):
            return {}
        return {
            key: value for key, value in positions.items() if isinstance(value, dict) and type(value.get("seq")) is int
        }

    def start(self, conversation: conv.Conversation) -> int:
        """The index of the first message not read yet."""
        position = self.positions.get(position_key(conversation))
        messages = conversation.messages
        if not position or position["seq"] <= 0:
            return 0
        seq, wanted = position["seq"], position.get("hash")
        if seq <= len(messages) and _message_hash(messages[seq - 1]) == wanted:
            return seq
        for index in range(len(messages) - 1, -1, -1):  # messages were taken out before it: find it again
            if _message_hash(messages[index]) == wanted:
                return index + 1
        # Rewound past what was read: only messages newer than the last one read are new.
        last_at = conv.parse_time(position.get("at"))
        if last_at is None:
            return len(messages)
        return next((i for i, m in enumerate(messages) if m.at > last_at), len(messages))

    def unchanged_since_read(self, conversation: conv.Conversation) -> bool:
        """The file has not grown since its position was saved: nothing new can be waiting."""
        position = self.positions.get(position_key(conversation))
        if not position or conversation.path is None:
            return False
        with contextlib.suppress(OSError):
            return os.stat(conversation.path).st_size == position.get("size")
        return False

    def mark_read(self, conversation: conv.Conversation, last_seq: int) -> None:
        message = conversation.messages[last_seq]
        size = None
        if conversation.path is not None:
            with contextlib.suppress(OSError):
                size = os.stat(conversation.path).st_size
        self.positions[position_key(conversation)] = {
            "seq": last_seq + 1,
            "at": message.at.isoformat(),
            "hash": _message_hash(message),
            "size": size,
        }
        write_private_json(self.path, {"version": 1, "conversations": self.positions})


# ----- which conversations, which turns -----
def conversations_to_read(home: Home, bot_id: str, chat_id: str | None = None) -> list[conv.Conversation]:
    """The bot's 1:1 chats the person started, and its rooms when Learn from group chats is on; with messages."""
    found = []
    for path in conv.chat_paths(home, bot_id):
        chat = conv.read_conversation(path, header_only=True)
        if chat is None or chat.started_by.kind != "person" or (chat_id and chat.id != chat_id):
            continue
        chat = conv.read_conversation(path)
        if chat is not None:
            found.append(chat)
    if load_config(home).room_memory_capture and not is_team_cloud(home):  # a Team Cloud home: no room (spec)
        people = bot_people(home, bot_id)
        for path in conv.room_paths(home):
            room = conv.read_conversation(path, messages=False)
            if room is None or not room.has_bot(bot_id) or (chat_id and room.id != chat_id):
                continue
            if room_refusal(room, people) is None:
                room = conv.read_conversation(path)
                if room is not None and room.has_bot(bot_id):
                    found.append(room)
    return found


def _starts_turn(message: conv.Message, previous: conv.Message | None) -> bool:
    if message.origin is not None:
        return True
    # Older files carry no origin: a person's message after someone else's begins a turn.
    return message.author_kind == "person" and (previous is None or previous.author_kind != "person")


def chat_turns(chat: conv.Conversation, bot_id: str, start: int) -> list[Turn]:
    """The finished turns of a 1:1 chat from message `start` on (the last one waits for the bot's answer)."""
    own = {chat.started_by.name} if chat.started_by.name else set(chat.people())
    groups: list[list[conv.Message]] = []
    previous = chat.messages[start - 1] if start else None
    for message in chat.messages[start:]:
        if not groups or _starts_turn(message, previous):
            groups.append([])
        groups[-1].append(message)
        previous = message
    if groups and not any(m.author_kind == "bot" for m in groups[-1][1:]):
        groups.pop()  # not answered yet
    turns = []
    for group in groups:
        first = group[0]
        origin = first.origin or ("person" if first.author_kind == "person" else chat.started_by.kind)
        eligible = origin == "person" and not any(m.failed for m in group)
        lines = [as_line(m, role) for m in group if (role := role_of(m, bot_id, own))]
        turns.append(Turn(lines, first.seq, group[-1].seq, eligible and bool(lines)))
    return turns


def room_turns(room: conv.Conversation, bot_id: str, start: int, own_people: set[str]) -> list[Turn]:
    """The room's stretches from message `start` on, each ending with the bot's reply; what follows waits."""
    turns, stretch = [], []
    for message in room.messages[start:]:
        stretch.append(message)
        if message.author_kind == "bot" and message.author == bot_id:
            heard = [m for m in stretch if not m.failed]  # another bot's failed line is not something it said
            lines = [as_line(m, role) for m in heard if (role := role_of(m, bot_id, own_people))]
            eligible = (
                any(line.role in (PERSON, OTHER_PERSON) for line in lines)
                and all(m.origin in (None, "person") for m in stretch)
                and not message.failed
            )
            turns.append(Turn(lines, stretch[0].seq, message.seq, eligible))
            stretch = []
    return turns


def unread_turns(
    home: Home,
    bot_id: str,
    conversation: conv.Conversation,
    positions: ReadPositions,
    own_people: set[str] | None = None,
) -> list[Turn]:
    start = positions.start(conversation)
    if conversation.is_room:
        people = bot_people(home, bot_id) if own_people is None else own_people
        return room_turns(conversation, bot_id, start, people)
    return chat_turns(conversation, bot_id, start)


def batches(conversation: conv.Conversation, turns: list[Turn], max_chars: int = BATCH_MAX_CHARS) -> list[Batch]:
    """Cut the unread turns into model calls of at most `max_chars` (BATCH_MAX_CHARS, or what the instance's
    context leaves); each ends with a turn to read.

    Turns passed over ride along with the next turn to read (never shown to the model); those after the
    last one to read stay unread, and harmless, until a turn to read follows them.
    """
    found: list[Batch] = []
    current: list[Turn] = []
    size = 0
    for turn in turns:
        turn_size = sum(len(line.text) for line in turn.lines) if turn.eligible else 0
        if turn.eligible and size and size + turn_size > max_chars and any(t.eligible for t in current):
            found.append(Batch(conversation, current))
            current, size = [], 0
        current.append(turn)
        size += turn_size
    while current and not current[-1].eligible:
        current.pop()
    if current:
        found.append(Batch(conversation, current))
    return found


# ----- when capture is due -----
def capture_due(home: Home, bot_id: str, now: datetime | None = None) -> list[str]:
    """The ids of the bot's conversations due for capture: quiet for `memory.captureQuietMs` with turns
    waiting, six turns waiting, or kept waiting at the last normal shutdown (the pending file)."""
    now = (now or clock.now()).astimezone()
    quiet_s = load_config(home).capture_quiet_ms / 1000
    positions = ReadPositions(home, bot_id)
    pending = {item["conversation"] for item in read_pending(home) if item["bot"] == bot_id}
    people = bot_people(home, bot_id)
    due = []
    for conversation in conversations_to_read(home, bot_id):
        if conversation.id not in pending and positions.unchanged_since_read(conversation):
            continue
        waiting = sum(1 for t in unread_turns(home, bot_id, conversation, positions, people) if t.eligible)
        if not waiting:
            continue
        newest = conversation.messages[-1].at
        if conversation.id in pending or waiting >= TURNS_BEFORE_DUE or (now - newest).total_seconds() >= quiet_s:
            due.append(conversation.id)
    return due


# ----- memory-capture-pending.json -----
def pending_path(home: Home) -> Path:
    return home.root / PENDING_FILE


def read_pending(home: Home) -> list[dict]:
    """[{"bot", "conversation"}], oldest first; a missing or damaged file is none."""
    try:
        data = json.loads(read_text(pending_path(home)))
    except (OSError, ValueError):
        return []
    items = data.get("chats") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    found = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("bot"), str) and isinstance(item.get("conversation"), str):
            found.append({"bot": item["bot"], "conversation": item["conversation"]})
    return found


def write_pending(home: Home, items: list[dict]) -> None:
    """Keep these chats as waiting (ids only): the newest PENDING_MAX_CHATS, each once; none removes the file."""
    unique: list[dict] = []
    for item in reversed(items):
        entry = {"bot": item["bot"], "conversation": item["conversation"]}
        if entry not in unique:
            unique.append(entry)
    kept = list(reversed(unique[:PENDING_MAX_CHATS]))
    if not kept:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(pending_path(home))
        return
    write_private_json(pending_path(home), {"version": 1, "chats": kept})


def note_pending_at_shutdown(home: Home, bot_ids: list[str]) -> list[dict]:
    """At a normal shutdown: keep the chats with turns still waiting (their ids), for the next start."""
    waiting = list(read_pending(home))
    for bot_id in bot_ids:
        positions = ReadPositions(home, bot_id)
        people = bot_people(home, bot_id)
        for conversation in conversations_to_read(home, bot_id):
            if any(t.eligible for t in unread_turns(home, bot_id, conversation, positions, people)):
                waiting.append({"bot": bot_id, "conversation": conversation.id})
    write_pending(home, waiting)
    return read_pending(home)


def drop_pending(home: Home, bot_id: str, conversation_id: str) -> None:
    items = read_pending(home)
    kept = [i for i in items if (i["bot"], i["conversation"]) != (bot_id, conversation_id)]
    if len(kept) != len(items):
        write_pending(home, kept)
