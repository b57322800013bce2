"""The recent-work brief: what the bot said last in each of its other conversations, for its system prompt.

Spec: memory.md, "What a bot knows about its other conversations" ("The recent-work brief"): every
turn's system prompt, 1:1 or room, carries the newest thing the bot said in each of its *other*
conversations over the last two days, e.g.

    today 09:05 · 1:1 with Milind · "Invoice reconciliation" · you said: "Sent the three flagged invoices…"

at most ten lines and about 350 tokens; the current conversation is not listed. When a brief in a room
names a private 1:1 chat, the room gets a chip (`chip`), once per chat (the caller keeps that count).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..base import clock
from ..base.text import plural
from ..files.paths import Home, validate_bot_id
from ..index.recall_index import MessageHit, RecallIndex, conversation_key, open_index
from ..memory import conversations as conv
from ..memory.settings import load_bot_settings

BRIEF_WINDOW = timedelta(days=2)
BRIEF_MAX_LINES = 10
BRIEF_MAX_TOKENS = 350
CHARS_PER_TOKEN = 4  # the usual estimate for English text
BRIEF_MAX_CHARS = BRIEF_MAX_TOKENS * CHARS_PER_TOKEN
QUOTE_MAX_CHARS = 90
BRIEF_HEADING = "Your recent work in other conversations (last two days):"


@dataclass
class BriefLine:
    conversation: str
    label: str
    at: datetime
    said: str
    private: bool  # a 1:1 chat the person started
    text: str

    def to_dict(self) -> dict:
        return {
            "conversation": self.conversation,
            "label": self.label,
            "at": self.at.isoformat(timespec="seconds"),
            "said": self.said,
            "private": self.private,
            "text": self.text,
        }


@dataclass
class Brief:
    bot: str
    chat: str | None
    lines: list[BriefLine] = field(default_factory=list)
    text: str = ""  # the block for the system prompt; "" when there is nothing to say
    chip: str | None = None  # for a room: "Scout's recent-work brief covers 1 private chat with you"

    @property
    def private_chats(self) -> list[str]:
        return [line.conversation for line in self.lines if line.private]

    def to_dict(self) -> dict:
        return {
            "bot": self.bot,
            "chat": self.chat,
            "lines": [line.to_dict() for line in self.lines],
            "private_chats": self.private_chats,
            "chip": self.chip,
            "text": self.text,
        }


def when_label(at: datetime, now: datetime) -> str:
    """`today 09:05`, `yesterday 17:40`, or `Mon 08 Sep 17:40`, in local time."""
    local = at.astimezone()
    days = (now.astimezone().date() - local.date()).days
    clock = local.strftime("%H:%M")
    if days == 0:
        return f"today {clock}"
    if days == 1:
        return f"yesterday {clock}"
    return f"{local.strftime('%a %d %b')} {clock}"


def _quote(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + "…"


def recent_work_brief(
    home: Home,
    bot_id: str,
    *,
    chat_id: str | None = None,
    now: datetime | None = None,
    index: RecallIndex | None = None,
    for_person: str | None = None,
) -> Brief:
    """The recent-work brief for a turn in `chat_id` (spec: "The recent-work brief").

    One line per other conversation the bot spoke in during the last two days, newest first: its
    newest reply that did not fail. At most ten lines and about 350 tokens (1,400 characters, the
    heading included); a conversation that does not fit is left out, oldest first. `for_person`: a turn acting for
    that person of a Team Cloud home: only the conversations they are in (docs/team-cloud.md).
    """
    validate_bot_id(bot_id)
    now = (now or clock.now()).astimezone()
    current = conv.find_conversation(home, bot_id, chat_id) if chat_id else None
    brief = Brief(bot_id, chat_id)
    index = index or open_index(home, bot_id)
    index.refresh()
    current_key = conversation_key(current) if current else None
    newest: dict[str, MessageHit] = {}
    since = (now - BRIEF_WINDOW).timestamp()
    for hit in index.recent_messages(since_ts=since, until_ts=now.timestamp(), limit=None, author=bot_id, texts=False):
        key = conversation_key(hit.conversation)
        if key == current_key or hit.failed or key in newest:
            continue
        if for_person and for_person not in hit.conversation.people():
            continue  # another person's conversation: never in this person's turn
        newest[key] = hit
        if len(newest) >= BRIEF_MAX_LINES:
            break
    with_text = {hit.id for hit in index.message_texts(list(newest.values()))}  # read for the lines shown only
    newest = {key: hit for key, hit in newest.items() if hit.id in with_text}
    size = len(BRIEF_HEADING)
    for hit in newest.values():
        conversation = hit.conversation
        said = _quote(hit.text, QUOTE_MAX_CHARS)
        label = conversation.label()
        text = f'{when_label(hit.at, now)} · {label} · you said: "{said}"'
        if size + 1 + len(text) > BRIEF_MAX_CHARS:
            break
        size += 1 + len(text)
        private = not conversation.is_room and conversation.started_by.kind == "person"
        brief.lines.append(BriefLine(conversation.id, label, hit.at, said, private, text))
    if brief.lines:
        brief.text = "\n".join([BRIEF_HEADING, *(line.text for line in brief.lines)])
    if current is not None and current.is_room and brief.private_chats:
        count = len(brief.private_chats)
        name = load_bot_settings(home, bot_id).name
        brief.chip = f"{name}'s recent-work brief covers {plural(count, 'private chat')} with you"
    return brief
