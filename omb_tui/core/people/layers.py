"""A person's own layer of a bot's memory on a Team Cloud home (docs/team-cloud.md).

Spec: memory.md, "HTTP routes" (last paragraph): each person reaches what a bot remembers about them, their own
layer of its memory, `workspaces/<bot>--member-<person>`; nobody reaches another person's layer.

A layer is a workspace of its own: `MEMORY.md`, topics, archive, the same budget and overflow, its own journal
outside the workspace (`memory-journal/<bot>--member-<person>.ndjson`) and undo, all through the same store as a
bot's. It is reached only through its person, never as a bot: `paths.validate_bot_id` refuses `--member-`, so no
route or command that takes a bot id opens one.

What the bot is told: in a turn acting for a person, the bot's own block loads first and the person's layer after
it, under its own heading, each within its own budget (the first 200 lines or 24 KB of its MEMORY.md, the same
rule), so one person's notes never push the bot's shared notes out, nor another's.
"""

from __future__ import annotations

from datetime import date

from ..base import clock
from ..files.paths import (
    MEMBER_MARK,
    Home,
    NotFound,
    layer_id,
    quoted,
    split_layer,
    validate_bot_id,
    validate_person_name,
)
from ..memory.store import MemoryStore

LAYER_HEADING = "## Memory about {person}, the person in this conversation (their own MEMORY.md)"
LAYER_NOTE = (
    "These notes are about {person} and are theirs alone: what they told you about themselves and how they like "
    "to work. Save what they say about themselves with memory_update (about: 'person'); what is about the work "
    "goes to your shared memory (about: 'work')."
)


def require_person(home: Home, person: str) -> str:
    """The person's name, when they are a person of this home; one sentence when not."""
    from .people import list_people  # people.py imports this module's neighbours, not this module

    validate_person_name(person)
    if not any(p.name == person for p in list_people(home)):
        raise NotFound(f"There is no person {quoted(person)} in {home.root}; `omb-tui people add {person}` adds them.")
    return person


def chat_person(conversation, names: set[str]) -> str | None:
    """The person of a Team Cloud home (`names`: its people) a 1:1 chat is with (the one person in it, else who
    started it): capture reads the chat into their layer only. None for a room, a chat with the owner, or a home
    without people."""
    if conversation.is_room:
        return None
    people = conversation.people() or [conversation.started_by.name]
    return people[0] if len(people) == 1 and people[0] in names else None


def layer_store(home: Home, bot_id: str, person: str, **store_options) -> MemoryStore:
    """The store of the person's layer of the bot: the bot must exist and the person be one of the home's."""
    home.require_bot(validate_bot_id(bot_id))
    require_person(home, person)
    return MemoryStore(home, layer_id(bot_id, person), **store_options)


def bot_layers(home: Home, bot_id: str) -> list[str]:
    """The people who have a layer of this bot on disk (removed people's layers included), by name."""
    prefix = validate_bot_id(bot_id) + MEMBER_MARK
    folder = home.workspaces_dir
    if not folder.is_dir():
        return []
    found = []
    for entry in folder.iterdir():
        person = entry.name[len(prefix) :] if entry.name.startswith(prefix) else ""
        if person and entry.is_dir() and not entry.is_symlink():
            try:
                found.append(validate_person_name(person))
            except ValueError:  # a folder no person could own: never read as a layer
                continue
    return sorted(found)


def bot_workspaces(home: Home, bot_id: str) -> list[str]:
    """The bot's own workspace id, then each person's layer of it on disk (by name): what the owner's views of a
    bot (the app's Files and Review areas, `omb-tui changes`) read, never the routes."""
    return [bot_id, *(layer_id(bot_id, person) for person in bot_layers(home, bot_id))]


def require_workspace(home: Home, workspace_id: str) -> str:
    """A bot's id or a person's layer of it, when the home has it (a layer: its folder or its journal on disk, so a
    removed person's layer can still be undone); NotFound in one sentence when not. For the owner's views, which
    reach a layer from its bot; entry points that take a bot id refuse a layer (paths.validate_bot_id)."""
    bot_id, person = split_layer(workspace_id)
    if not home.has_bot(bot_id):
        raise NotFound(f"There is no bot {quoted(bot_id)}.")
    if person is not None and not (home.workspace(workspace_id).is_dir() or home.journal_path(workspace_id).is_file()):
        raise NotFound(f"{bot_id} has no layer of {quoted(person)}'s memory.")
    return workspace_id


def workspace_words(workspace_id: str) -> str:
    """A workspace in words: the bot's id, or "dana's layer of Scout"."""
    bot_id, person = split_layer(workspace_id)
    return bot_id if person is None else f"{person}'s layer of {bot_id}"


def person_block(home: Home, bot_id: str, person: str, today: date | None = None) -> str:
    """The person's layer as it loads after the bot's own block: its heading, one line saying whose it is, then
    its memory and topic index exactly as a bot's load (the same budget, counted on its own)."""
    from ..memory.budget import MEMORY_HEADING, prompt_block, read_topics  # here: recall and the turn's log need none

    lid = layer_id(bot_id, person)
    store = MemoryStore(home, lid)
    memory = store.read("MEMORY.md").text
    block = prompt_block(memory, read_topics(home, lid), today or clock.today())
    heading = LAYER_HEADING.format(person=person)
    return f"{heading}\n\n{LAYER_NOTE.format(person=person)}\n" + block[len(MEMORY_HEADING) :]
