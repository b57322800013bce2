"""A bot's conversations on disk: one append-only ndjson file per 1:1 chat or room.

Spec: memory.md, "Recall before each turn" (who started a turn decides whether other conversations
are recalled) and "What a bot knows about its other conversations" (1:1 chats and rooms, membership).
The format is described for people in docs/conversations.md:

    <home>/conversations/chats/<botId>/<chatId>.ndjson    a bot's 1:1 chats (and routine, webhook,
                                                          bot and hand-off tasks)
    <home>/conversations/rooms/<roomId>.ndjson            rooms; a bot sees a room while it is a member

They live under the home, not in a bot's workspace: the bot's file tools work in its workspace, and a
transcript the bot could rewrite would not be a record of what was said.

The first line is the header, then one JSON object per line: a message, or a change of members.
A damaged line is skipped (and logged), never an error; a last line still being written (no newline
yet) is left for the next read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..base import clock
from ..files.disk import atomic_write_bytes, make_private_dirs
from ..files.paths import Home, InvalidName, MemoryInputError, NotFound, quoted, refuse_links, validate_bot_id
from ..journal.journal import utf8_json

log = logging.getLogger("omb_tui.conversations")

FORMAT_VERSION = 1
KIND_CHAT = "1:1"
KIND_ROOM = "room"
KINDS = (KIND_CHAT, KIND_ROOM)
# Who wrote a message.
AUTHOR_KINDS = ("person", "bot", "harness")
# Who started a conversation or a turn: a person, or one of the starts that recall notes only.
STARTERS = ("person", "routine", "bot", "webhook", "handoff")

# Each conversation folder holds `.changes`: the names of files just written, one a line (see note_change).
CHANGES_FILE = ".changes"
CHANGES_MAX_BYTES = 256 * 1024
_MESSAGE_LINE = b'{"type":"message"'  # how this module writes a message line: skipped fast when not wanted
_STARTER_WORDS = {"routine": "routine run", "webhook": "webhook task", "handoff": "hand-off"}
_CONVERSATION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def conversations_dir(home: Home) -> Path:
    """`<home>/conversations`: outside every workspace, so no bot's file tools reach it."""
    return home.root / "conversations"


def chats_dir(home: Home, bot_id: str) -> Path:
    """`<home>/conversations/chats/<botId>`: the bot's 1:1 chats and tasks."""
    return conversations_dir(home) / "chats" / validate_bot_id(bot_id)


def rooms_dir(home: Home) -> Path:
    """`<home>/conversations/rooms`: every room, seen by the bots its members line names."""
    return conversations_dir(home) / "rooms"


def validate_conversation_id(conversation_id: str) -> str:
    """An id is one safe file name: letters, digits, dots, dashes, underscores; InvalidName otherwise."""
    if not isinstance(conversation_id, str) or not _CONVERSATION_ID.match(conversation_id) or ".." in conversation_id:
        raise InvalidName(
            f"{quoted(conversation_id)} is not a valid conversation id: use letters, numbers, dots, dashes and "
            "underscores (at most 128)."
        )
    return conversation_id


@dataclass(frozen=True)
class Member:
    kind: str  # "person" | "bot"
    name: str  # a person's name, or a bot's id

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name}

    @classmethod
    def from_json(cls, data: object) -> Member | None:
        if isinstance(data, dict) and isinstance(data.get("name"), str) and data.get("kind") in ("person", "bot"):
            return cls(data["kind"], data["name"])
        return None


@dataclass(frozen=True)
class Starter:
    kind: str  # one of STARTERS
    name: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name}


@dataclass(frozen=True)
class Message:
    """One line of a conversation: who wrote it, when, and what."""

    author_kind: str  # "person" | "bot" | "harness"
    author: str  # a person's name, a bot's id, or what the harness is (e.g. "routine")
    at: datetime  # timezone-aware
    text: str
    failed: bool = False  # a bot's reply whose turn failed
    origin: str | None = None  # for the message that starts a turn: who started it (one of STARTERS)
    id: str | None = None
    seq: int = 0  # position among the conversation's messages, from 0

    def to_dict(self) -> dict:
        data: dict = {
            "type": "message",
            "at": self.at.isoformat(timespec="seconds"),
            "author_kind": self.author_kind,
            "author": self.author,
            "text": self.text,
            "failed": self.failed,
        }
        if self.origin:
            data["origin"] = self.origin
        if self.id:
            data["id"] = self.id
        return data


@dataclass
class Conversation:
    """A 1:1 chat or a room: its header, current members and messages (oldest first)."""

    id: str
    title: str
    kind: str  # "1:1" | "room"
    started_by: Starter
    members: list[Member]
    created: datetime
    path: Path | None = None
    messages: list[Message] = field(default_factory=list)

    @property
    def is_room(self) -> bool:
        return self.kind == KIND_ROOM

    def has_bot(self, bot_id: str) -> bool:
        return any(m.kind == "bot" and m.name == bot_id for m in self.members)

    def people(self) -> list[str]:
        return [m.name for m in self.members if m.kind == "person"]

    def label(self) -> str:
        """How a brief or a search hit names it: `1:1 with Milind · "Invoices"` or `room "Launch"`."""
        if self.is_room:
            return f'room "{self.title}"'
        people = self.people()
        starter = self.started_by
        if starter.kind == "person":
            return f'1:1 with {", ".join(people) or starter.name or "a person"} · "{self.title}"'
        if starter.kind == "bot":
            return f'task from {starter.name or "another bot"} · "{self.title}"'
        return f'{_STARTER_WORDS.get(starter.kind, starter.kind)} · "{self.title}"'

    def recall_kind(self) -> str:
        """Spec, "Recall before each turn": `person` (other conversations recalled) or what started it."""
        if self.is_room:
            return "room"
        return self.started_by.kind if self.started_by.kind in STARTERS else "bot"

    def header_json(self) -> dict:
        return {
            "type": "conversation",
            "version": FORMAT_VERSION,
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "started_by": self.started_by.to_dict(),
            "members": [m.to_dict() for m in self.members],
            "created": self.created.isoformat(timespec="seconds"),
        }


def parse_time(value: object) -> datetime | None:
    """An ISO 8601 time; one without an offset is taken as local time."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.astimezone()


def members_from_json(value: object) -> list[Member]:
    """The members a line lists; anything that is not a list of members counts as none."""
    if not isinstance(value, list):
        return []
    return [m for m in (Member.from_json(item) for item in value) if m]


def header_from_json(data: object, path: Path | None = None) -> Conversation | None:
    """The conversation a header line describes, or None when it is not a usable header."""
    if not isinstance(data, dict) or data.get("type") != "conversation":
        return None
    conversation_id = data.get("id")
    kind = data.get("kind")
    if not isinstance(conversation_id, str) or kind not in KINDS:
        return None
    started = data.get("started_by")
    if not isinstance(started, dict):
        started = {}
    starter_kind = started.get("kind")
    if not isinstance(starter_kind, str) or starter_kind not in STARTERS:
        starter_kind = "bot"
    members = members_from_json(data.get("members"))
    created = parse_time(data.get("created")) or datetime.fromtimestamp(0).astimezone()
    return Conversation(
        id=conversation_id,
        title=str(data.get("title") or conversation_id),
        kind=kind,
        started_by=Starter(starter_kind, str(started.get("name") or "")),
        members=members,
        created=created,
        path=path,
    )


def message_from_json(data: dict, seq: int) -> Message | None:
    """The message a line holds, or None when it lacks a valid time, author kind or text."""
    at = parse_time(data.get("at"))
    text = data.get("text")
    author_kind = data.get("author_kind")
    if at is None or not isinstance(text, str) or author_kind not in AUTHOR_KINDS:
        return None
    origin = data.get("origin") if data.get("origin") in STARTERS else None
    return Message(
        author_kind=author_kind,
        author=str(data.get("author") or author_kind),
        at=at,
        text=text,
        failed=data.get("failed") is True,
        origin=origin,
        id=data.get("id") if isinstance(data.get("id"), str) else None,
        seq=seq,
    )


class ConversationReader:
    """Reads a conversation file line by line from a byte offset, so an index can take only what was appended."""

    def __init__(self, conversation: Conversation | None = None, next_seq: int = 0) -> None:
        self.conversation = conversation
        self.next_seq = next_seq
        self.members_changed = False

    def feed(self, raw: bytes, path: Path) -> Message | None:
        """One complete line; returns the message it holds, if any. Damaged lines are skipped and logged."""
        line = raw.strip()
        if not line:
            return None
        try:
            data = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            log.warning("skipped a damaged line in %s", path)
            return None
        if self.conversation is None:
            self.conversation = header_from_json(data, path)
            if self.conversation is None:
                log.warning("%s does not start with a conversation header; skipped", path)
            return None
        if not isinstance(data, dict):
            log.warning("skipped a damaged line in %s", path)
            return None
        kind = data.get("type", "message")
        if kind == "members":
            self.conversation.members = members_from_json(data.get("members"))
            self.members_changed = True
            return None
        if kind == "title" and isinstance(data.get("title"), str):
            self.conversation.title = data["title"]
            return None
        if kind != "message":
            return None  # a line type this version does not know: kept in the file, ignored here
        message = message_from_json(data, self.next_seq)
        if message is None:
            log.warning("skipped a damaged message in %s", path)
            return None
        self.next_seq += 1
        return message


def read_lines(path: Path, start: int = 0) -> tuple[list[bytes], int]:
    """Complete lines from byte `start`, and the offset just past the last one (a partial line waits)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read()
    end = data.rfind(b"\n")
    if end < 0:
        return [], start
    return data[: end + 1].split(b"\n")[:-1], start + end + 1


def line_text(raw: bytes) -> str | None:
    """The text of the message a line holds, as a reader reads it (None: not a message line)."""
    try:
        data = json.loads(raw.strip().decode("utf-8", "replace"))
    except ValueError:
        return None
    text = data.get("text") if isinstance(data, dict) else None
    return text if isinstance(text, str) else None


def read_conversation(path: Path, *, header_only: bool = False, messages: bool = True) -> Conversation | None:
    """Read one conversation file; None when it is missing or has no header. Never raises on damage.

    `header_only` reads the first line alone; `messages=False` reads the members and title lines too
    but skips the messages (what a room's current members need, fast for a long conversation).
    """
    try:
        if header_only:
            with open(path, "rb") as handle:
                first = handle.readline()
            reader = ConversationReader()
            reader.feed(first, path)
            return reader.conversation
        lines, _ = read_lines(path)
        if not lines:  # a header still being written, or a file without a newline at all
            with open(path, "rb") as handle:
                lines = [handle.read()]
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None
    reader = ConversationReader()
    found: list[Message] = []
    for n, raw in enumerate(lines):
        if n and not messages and raw.startswith(_MESSAGE_LINE):
            continue
        message = reader.feed(raw, path)
        if message is not None:
            found.append(message)
    if reader.conversation is None:
        return None
    reader.conversation.messages = found
    return reader.conversation


def newest_message(path: Path, *, block: int = 16384) -> Message | None:
    """The conversation's newest message, read from the end of the file (its `seq` is not counted: -1).

    What recall needs to know who started the turn it runs for: the message being answered, appended
    with its `origin` before the turn, is the newest one. Only complete lines count (a last line still
    being written waits); members and title lines, and damaged lines, are passed over. None when the
    file has no message or cannot be read. Reads a block from the end, more only when it holds none.
    """
    try:
        with open(path, "rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            size = block
            while True:
                start = max(0, end - size)
                handle.seek(start)
                data = handle.read(end - start)
                lines = data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]
                if start > 0:
                    lines = lines[1:]  # the first piece may be the end of a longer line
                for n in range(len(lines) - 1, -1, -1):
                    if start == 0 and n == 0:
                        break  # the header
                    message = _message_line(lines[n])
                    if message is not None:
                        return message
                if start == 0:
                    return None
                size *= 4
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None


def _message_line(raw: bytes) -> Message | None:
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("type", "message") != "message":
        return None
    return message_from_json(data, -1)


def chat_paths(home: Home, bot_id: str) -> list[Path]:
    """The bot's 1:1 conversation files, by name."""
    folder = chats_dir(home, bot_id)
    return sorted(folder.glob("*.ndjson")) if folder.is_dir() else []


def room_paths(home: Home) -> list[Path]:
    """Every room file, by name (members or not)."""
    folder = rooms_dir(home)
    return sorted(folder.glob("*.ndjson")) if folder.is_dir() else []


def list_conversations(home: Home, bot_id: str, *, with_messages: bool = False) -> list[Conversation]:
    """The bot's 1:1 chats and the rooms it is a member of now (spec: "covers the rooms the bot is a member of")."""
    found = []
    for path in chat_paths(home, bot_id):
        conversation = read_conversation(path, header_only=not with_messages)
        if conversation is not None:
            found.append(conversation)
    for path in room_paths(home):
        conversation = read_conversation(path, messages=with_messages)  # members can change further down
        if conversation is not None and conversation.has_bot(bot_id):
            found.append(conversation)
    return found


def conversation_path(home: Home, bot_id: str, conversation_id: str) -> Path:
    """Where the bot's conversation lives: its 1:1 chats first, then the rooms."""
    validate_conversation_id(conversation_id)
    chat = chats_dir(home, bot_id) / f"{conversation_id}.ndjson"
    if chat.is_file():
        return chat
    room = rooms_dir(home) / f"{conversation_id}.ndjson"
    if room.is_file():
        return room
    raise NotFound(f"{bot_id} has no conversation {quoted(conversation_id)}.")


def find_conversation(home: Home, bot_id: str, conversation_id: str, *, with_messages: bool = False) -> Conversation:
    """The bot's 1:1 chat or a room it is a member of (its messages only when asked); NotFound otherwise."""
    path = conversation_path(home, bot_id, conversation_id)
    conversation = read_conversation(path, messages=with_messages)
    if conversation is None:
        raise NotFound(f"The conversation {quoted(conversation_id)} has no readable header.")
    if conversation.is_room and not conversation.has_bot(bot_id):
        raise NotFound(f"{bot_id} is not a member of the room {quoted(conversation_id)}.")
    return conversation


def _encode_line(data: dict) -> bytes:
    """A line as it reaches disk: every text redacted (what was said, a title, a name), as in every file.
    Valid UTF-8 always: a byte that was not UTF-8 is written as its \\udcXX escape (as in the journal)."""
    from ..redaction.data import redact_data

    return (utf8_json(redact_data(data), separators=(",", ":")) + "\n").encode("utf-8")


def create_conversation(home: Home, conversation: Conversation, bot_id: str | None = None) -> Path:
    """Write a new conversation's header: a 1:1 chat under `chats/<bot_id>/`, a room under `rooms/`."""
    validate_conversation_id(conversation.id)
    if conversation.kind == KIND_ROOM:
        folder = rooms_dir(home)
    else:
        if bot_id is None:
            raise MemoryInputError("A 1:1 chat belongs to one bot: name it.")
        folder = chats_dir(home, bot_id)
    make_private_dirs(folder)
    path = folder / f"{conversation.id}.ndjson"
    header = _encode_line(conversation.header_json())
    try:
        atomic_write_bytes(path, header, only_new=True)
    except FileExistsError:
        if read_conversation(path, header_only=True) is not None or not _set_aside(path):
            raise MemoryInputError(f"The conversation '{conversation.id}' already exists.") from None
        atomic_write_bytes(path, header, only_new=True)
    conversation.path = path
    note_change(path)
    return path


def _set_aside(path: Path) -> bool:
    """Move a conversation file without a readable header (an earlier version's creation cut short by a full disk,
    a hand edit) to `<name>.damaged-<time>`, kept as it was and never read as a conversation; True when moved."""
    aside = path.with_name(f"{path.name}.damaged-{clock.now_utc():%Y%m%dT%H%M%S%fZ}")
    try:
        os.link(path, aside)
        os.unlink(path)
    except OSError as exc:
        log.warning("could not set aside the damaged conversation file %s: %s", path, exc)
        return False
    log.warning("set aside %s, which has no readable header, as %s", path.name, aside.name)
    return True


def discard_conversation(path: Path) -> None:
    """Remove a conversation file: a person's chats purged with them (core/index/purge.py). Readers are told, as of
    any change."""
    refuse_links(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    note_change(path)


def _append(path: Path, line: bytes) -> None:
    """One write of whole lines with O_APPEND, then the change is noted for readers."""
    refuse_links(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | _NOFOLLOW)
    try:
        with contextlib.suppress(ImportError, OSError):
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line)
    finally:
        os.close(fd)  # closing releases the lock
    note_change(path)


def note_change(path: Path) -> None:
    """Add the file's name to its folder's `.changes`, so a reader looks at that file and no other.

    An append changes no folder's mtime, and looking at 5,000 files after every message would be
    slow. When `.changes` passes CHANGES_MAX_BYTES it is replaced by an empty file; a reader that
    sees it replaced looks at every file once. Failing to note a change is never an error: readers
    also look at every file now and then.
    """
    feed = path.parent / CHANGES_FILE
    try:
        fd = os.open(feed, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o600)
        try:
            os.write(fd, (path.name + "\n").encode("utf-8", "surrogateescape"))
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > CHANGES_MAX_BYTES:
            atomic_write_bytes(feed, b"")
    except OSError as exc:
        log.warning("could not note a change to %s: %s", path, exc)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # the last part of a path: a link there fails to open


def append_message(path: Path, message: Message) -> None:
    """Append one message to a conversation file (see docs/conversations.md)."""
    append_messages(path, [message])


def append_messages(path: Path, messages: Iterable[Message]) -> None:
    """Append messages to a conversation file in one write: a reader sees all of them or none (a person's message
    and the answer to it, recorded together once a turn another program ran has ended)."""
    lines = []
    for message in messages:
        if message.author_kind not in AUTHOR_KINDS:
            raise MemoryInputError(f"{quoted(message.author_kind)} is not an author kind: use person, bot or harness.")
        if message.origin is not None and message.origin not in STARTERS:
            raise MemoryInputError(f"{quoted(message.origin)} is not a turn origin: use one of {', '.join(STARTERS)}.")
        if message.at.tzinfo is None:
            message = dataclasses.replace(message, at=message.at.astimezone())
        lines.append(_encode_line(message.to_dict()))
    if lines:
        _append(path, b"".join(lines))


def set_members(path: Path, members: Iterable[Member], at: datetime | None = None) -> None:
    """Record who is in a room from now on (a `members` line; the newest one counts)."""
    moment = (at or clock.now()).astimezone()
    data = {"type": "members", "at": moment.isoformat(timespec="seconds"), "members": [m.to_dict() for m in members]}
    _append(path, _encode_line(data))


def write_conversation(path: Path, conversation: Conversation) -> None:
    """Write a whole conversation at once (atomically): the header, then its messages."""
    lines = [_encode_line(conversation.header_json())]
    lines += [_encode_line(m.to_dict()) for m in conversation.messages]
    atomic_write_bytes(path, b"".join(lines))
    conversation.path = path
    note_change(path)
