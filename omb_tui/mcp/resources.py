"""The resources an MCP client reads and subscribes to: MEMORY.md as it loads, the topic index, each topic file.

Spec: memory.md, "What loads, and the budget" (the memory block in the system prompt, with the cut told; the topic
index under it; topic files read when the bot needs one) and "Where it lives" (topic names; nothing outside the
workspace). `memory://<bot>/MEMORY.md` is the block exactly as `omb-tui prompt BOT` prints it, not the raw file: what
the bot would carry. What a client reads is redacted, as a tool's answer is: a key typed into a file by hand never
reaches a model through this server. Memory off: no resources (nothing loads), and a read is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

from ..core.files.paths import MEMORY_DIR, MEMORY_FILE, FileKind, InvalidName, MemoryInputError, NotFound, quoted
from ..core.memory.budget import topic_index
from ..library import BotMemory

SCHEME = "memory"
INDEX = "topics"
MARKDOWN = "text/markdown"


@dataclass(frozen=True)
class MemoryResource:
    """One resource as `resources/list` names it."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str = MARKDOWN


def memory_uri(bot_id: str) -> str:
    return f"{SCHEME}://{bot_id}/{MEMORY_FILE}"


def index_uri(bot_id: str) -> str:
    return f"{SCHEME}://{bot_id}/{INDEX}"


def topic_uri(bot_id: str, name: str) -> str:
    return f"{SCHEME}://{bot_id}/{MEMORY_DIR}/{quote(name)}"


def listed(bot: BotMemory) -> list[MemoryResource]:
    """MEMORY.md as it loads, the topic index, then each topic by name; nothing with memory off."""
    if not bot.memory_on:
        return []
    named = f"{bot.core.name}'s"
    found = [
        MemoryResource(
            memory_uri(bot.id),
            MEMORY_FILE,
            f"{named} memory, as it loads",
            "The memory block exactly as it goes into the system prompt each turn: the part of MEMORY.md that "
            "loads (expired notes left out, the cut told), the topic index, the team notes.",
        ),
        MemoryResource(
            index_uri(bot.id),
            "topic index",
            f"{named} topic index",
            "Every topic file by name, with its title, description and aliases, as listed under the memory block.",
        ),
    ]
    for topic in bot.core.topics():
        label = ": ".join(part for part in (topic.title, topic.description) if part)
        found.append(
            MemoryResource(
                topic_uri(bot.id, topic.name),
                f"{MEMORY_DIR}/{topic.name}",
                topic.title or topic.name,
                f"A topic file ({label or topic.name}), read when needed; it does not load by itself.",
            )
        )
    return found


def read(bot: BotMemory, uri: str) -> str:
    """The text of one resource, redacted; a uri that is not one of this bot's is refused in one sentence."""
    from ..core.redaction.redact import redact  # compiled when a resource is first read

    return redact(_read(bot, uri)).text


def _read(bot: BotMemory, uri: str) -> str:
    parts = urlsplit(uri)
    path = unquote(parts.path).lstrip("/")
    if parts.scheme != SCHEME or parts.netloc != bot.id or not path:
        raise InvalidName(
            f"{quoted(uri[:200])} is not a resource of this server: it serves {memory_uri(bot.id)}, "
            f"{index_uri(bot.id)} and {SCHEME}://{bot.id}/{MEMORY_DIR}/<topic>.md."
        )
    if not bot.memory_on:
        raise MemoryInputError("Memory is off for this bot, so none of its memory is served.")
    if path == MEMORY_FILE:
        return bot.prompt()
    if path == INDEX:
        return topic_index(bot.core.topics()).text
    store = bot.core.store
    if store.resolve(path).kind is not FileKind.TOPIC:  # leads out, or not a memory file: refused there
        raise InvalidName(f"{quoted(path[:200])} is not a topic file; the archive and daily logs are not served.")
    snapshot = store.read(path)
    if not snapshot.exists:
        raise NotFound(f"There is no topic {quoted(path[:200])}.")
    return snapshot.text


@dataclass(frozen=True)
class Seen:
    """What the resources and the tools were at one look, to tell what changed since."""

    resources: dict[str, str]  # uri -> sha256 of its text
    tools: tuple[str, ...]


def look(bot: BotMemory, tools: tuple[str, ...]) -> Seen:
    """Every resource's hash now (a file that cannot be read counts as its error), and the tools offered."""
    hashes = {}
    for resource in listed(bot):
        try:
            text = _read(bot, resource.uri)
        except (MemoryInputError, OSError) as exc:
            text = f"unreadable: {exc}"
        hashes[resource.uri] = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    return Seen(hashes, tools)
