"""**Duplicate**: a copy of a bot under a new id, with its settings and its workspace, and none of its history.

Spec: memory.md, "The helper model" ("Keeping one bot off the helper": "a copy made with **Duplicate** keeps it")
and "The journal" (an import is a row by who "import"). docs/backup.md says what a copy holds and what it does not.

The copy has the bot's settings (every key, `helperModel` too) under its own name, and its memory files and
`INSTRUCTIONS.md` byte for byte. It has no conversations, no rooms, no teams, no compaction records, no person's
layer (people's notes are theirs, not the bot's: docs/team-cloud.md), and no journal history: its journal starts
with one import row per memory file it was given (MEMORY.md first), each noting which bot it was copied from, so
each can be undone alone.
The bot is read under its store lock, so the copy is never half of one of its writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..compact.session import INSTRUCTIONS_FILE
from ..files.disk import atomic_write_bytes, decode, encode, make_private_dirs, read_text, write_private_json
from ..files.paths import MEMORY_FILE, Home, MemoryInputError, quoted, validate_bot_id
from ..journal.changes import Actor
from ..journal.journal import WHO_IMPORT
from ..memory.settings import BrokenFile, load_bot_settings
from ..memory.store import MemoryStore

HOW_DUPLICATE = "duplicated"


class DuplicateRefused(MemoryInputError):
    """A copy that cannot be made under that id: nothing was written."""


@dataclass
class Duplicated:
    bot: str
    source: str
    name: str
    files: list[str]
    helper_model: bool
    row_id: str | None  # MEMORY.md's import row
    rows: dict[str, str | None] = field(default_factory=dict)  # every memory file's import row

    def to_dict(self) -> dict:
        return {
            "bot": self.bot,
            "from": self.source,
            "name": self.name,
            "files": self.files,
            "helper_model": self.helper_model,
            "row_id": self.row_id,
            "rows": self.rows,
        }


def duplicate_bot(home: Home, bot_id: str, new_id: str, name: str | None = None) -> Duplicated:
    """Copy `bot_id` as `new_id` (named `name`, else "<its name> (copy)"); DuplicateRefused when `new_id` is taken."""
    home.require_bot(bot_id)
    validate_bot_id(new_id)
    if name is not None and not name.strip():
        raise DuplicateRefused("The copy's name is empty; give a name, or leave --name out.")
    settings = load_bot_settings(home, bot_id)  # a broken settings file is refused here, before anything is written
    with MemoryStore(home, bot_id).locked():  # read whole before the new id is claimed: a failed read leaves nothing
        texts = {mp.rel: read_text(mp.path) for mp in home.memory_files(bot_id)}
        instructions = home.workspace(bot_id) / INSTRUCTIONS_FILE
        if instructions.is_file() and not instructions.is_symlink():
            texts[INSTRUCTIONS_FILE] = read_text(instructions)
        raw_settings = _raw_settings(home, bot_id)
    _claim(home, new_id)
    copy_name = name.strip() if name is not None else f"{settings.name} (copy)"
    write_private_json(home.settings_path(new_id), {**raw_settings, "name": copy_name}, redacted=False)
    store = MemoryStore(home, new_id)
    actor, note = Actor(WHO_IMPORT, HOW_DUPLICATE), f"copied from bot {quoted(bot_id)}"
    rows: dict[str, str | None] = {}
    with store.locked():
        if INSTRUCTIONS_FILE in texts:  # not a memory file: no journal row
            atomic_write_bytes(home.workspace(new_id) / INSTRUCTIONS_FILE, encode(texts[INSTRUCTIONS_FILE]))
        # Each memory file is its own import row: the copy's journal shows every file it started with,
        # and each can be undone alone. MEMORY.md first, as the copy's first row.
        for rel in sorted(texts, key=lambda rel: (rel != MEMORY_FILE, rel)):
            if rel != INSTRUCTIONS_FILE:
                rows[rel] = store.write(rel, texts[rel], actor, note=note, allow_log=True).row_id
        if MEMORY_FILE not in rows:
            rows[MEMORY_FILE] = store.write(MEMORY_FILE, "", actor, note=note).row_id
    return Duplicated(new_id, bot_id, copy_name, sorted(texts), settings.helper_model, rows[MEMORY_FILE], rows)


def _claim(home: Home, new_id: str) -> None:
    """Make the copy's workspace folder, which says the id is taken: of two copies made at once under one id, the
    second finds it (mkdir is atomic) and is refused."""
    refused = DuplicateRefused(f"{home.root} already has a bot {quoted(new_id)}; choose another id for the copy.")
    if home.has_bot(new_id):
        raise refused
    make_private_dirs(home.workspaces_dir)
    try:
        home.workspace(new_id).mkdir(mode=0o700)
    except FileExistsError:
        raise refused from None


def _raw_settings(home: Home, bot_id: str) -> dict:
    """The bot's settings file as it is, every key (those this tool does not know too); empty when it has none."""
    path = home.settings_path(bot_id)
    try:
        data = json.loads(decode(path.read_bytes()))
    except FileNotFoundError:
        return {}
    except ValueError:
        raise BrokenFile(f"{path} is not valid JSON; fix or remove it.") from None
    return data if isinstance(data, dict) else {}
