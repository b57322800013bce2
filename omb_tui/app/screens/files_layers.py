"""The Files area's view of each person's layer of the open bot (Team Cloud; docs/team-cloud.md, "The app").

Spec: memory.md, "HTTP routes" (last paragraph): nobody reaches another person's layer through the routes. The
owner runs the app on the server and has the disk, so the Files area shows each layer under the bot's own files,
"What it remembers about dana", read-only; Ctrl+L opens the file for editing, explicitly, and a save then goes through
the layer's store (`core.people.layers.layer_store`): redacted, hash-checked, journaled as the owner's edit in the
layer's own journal, and undoable there and in Review.

A layer's file is listed under a key of its own, `<person>:<path>` (a memory file's path never holds a colon), so
the bot's MEMORY.md and dana's are two lines of the list.
"""

from __future__ import annotations

from ...core.files.paths import layer_id
from ...core.memory.store import MemoryStore
from ...core.people.layers import layer_store

EDIT_LAYER_KEY = "Ctrl+L"  # said in the status line; the binding is files_keys.py's


def file_key(person: str | None, rel: str) -> str:
    """The list's id of a file: its path for the bot's own, `<person>:<path>` for a person's layer's."""
    return rel if person is None else f"{person}:{rel}"


def split_key(key: str) -> tuple[str | None, str]:
    """(person or None, path) of a list id."""
    person, colon, rel = key.partition(":")
    return (person, rel) if colon else (None, key)


def heading(person: str) -> str:
    return f"What it remembers about {person}"


def store_of(bot, person: str | None, *, writing: bool = False) -> MemoryStore:
    """(In a thread) the store of the bot's own memory, or of the person's layer of it. Writing to a layer goes
    through `layer_store`, which refuses a person no longer of the home (their layer stays on disk, read-only)."""
    if person is None:
        return bot.store
    if writing:
        return layer_store(bot.home, bot.id, person)
    return MemoryStore(bot.home, layer_id(bot.id, person))


def layer_state(person: str, editing: bool, state: str) -> str:
    """What the status line says of a layer's file: whose layer, and read-only until opened for editing, when its
    own state (saved, modified) follows."""
    if editing:
        return f"{person}'s layer, editing · {state}"
    return f"{person}'s layer, read-only ({EDIT_LAYER_KEY} edits)"


def layer_read_only(person: str) -> str:
    """What typing into a layer's file opened read-only says."""
    return f"{person}'s layer is read-only here: {EDIT_LAYER_KEY} opens it for editing."
