"""Recovery drafts: what a person typed and has not saved yet, kept outside the workspace until saved.

Spec: memory.md, "Editing" (nothing typed is lost) and "Where it lives" (0600, atomic, credentials
redacted). A draft of one file of one bot is a small JSON file under the home's journal folder, so the
bot can neither read nor edit it:

    memory-journal/<botId>.drafts/.<file>.json     {"file", "basedOn", "savedAt", "text"}

`basedOn` is the hash of the file the draft was typed over, so a restored draft that the bot has changed
since is saved through the usual conflict. The names start with a dot: the app's file watcher ignores
them, so keeping a draft never makes the screens read the memory files again.

`private_copy` is the other private place typing goes: the copy of a file that $EDITOR edits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ..files.disk import atomic_write_bytes, read_text, write_private_json
from ..files.paths import Home, classify, validate_workspace_id
from ..journal.journal import Clock, now_iso
from ..redaction.redact import redact

log = logging.getLogger("omb_tui.drafts")


@dataclass(frozen=True)
class Draft:
    rel: str  # the memory file it was typed in: MEMORY.md, memory/travel.md
    text: str  # redacted
    based_on: str | None  # the hash of the file as it was opened (None: the file did not exist)
    saved_at: str  # when it was kept, UTC ISO time


class Drafts:
    """The recovery drafts of one bot (or of a person's layer of it, which the owner edits in the app): keep while
    typing, find when a file opens, discard once saved."""

    def __init__(self, home: Home, bot_id: str, *, clock: Clock | None = None) -> None:
        self.folder = home.journal_dir / f"{validate_workspace_id(bot_id)}.drafts"
        self.clock = clock

    def path(self, rel: str) -> Path:
        norm, _ = classify(rel)  # a memory file's name only: nothing can lead out of the folder
        return self.folder / f".{quote(norm, safe='')}.json"

    def keep(self, rel: str, text: str, based_on: str | None) -> Draft:
        """Write the draft of rel (redacted, atomic, 0600, in a 0700 folder), replacing an older one."""
        draft = Draft(classify(rel)[0], redact(text).text, based_on, now_iso(self.clock))
        record = {"file": draft.rel, "basedOn": draft.based_on, "savedAt": draft.saved_at, "text": draft.text}
        write_private_json(self.path(rel), record)
        return draft

    def find(self, rel: str) -> Draft | None:
        """The kept draft of rel, or None; a draft that cannot be read is reported in the log and skipped."""
        path = self.path(rel)
        try:
            record = json.loads(read_text(path))
            draft = Draft(record["file"], record["text"], record["basedOn"], record["savedAt"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.error("the draft %s cannot be read (%s); it is left where it is", path, exc)
            return None
        if draft.rel != classify(rel)[0] or not isinstance(draft.text, str):
            log.error("the draft %s does not belong to %s; it is left where it is", path, rel)
            return None
        return draft

    def discard(self, rel: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path(rel))


@contextlib.contextmanager
def private_copy(name: str, data: bytes) -> Iterator[Path]:
    """A private copy of a file for another program to edit: data in <new 0700 folder>/<name>, mode 0600.

    The folder is a fresh one under the system's temp folder, outside every workspace; it is removed with
    everything in it (an editor's swap and backup files too) when the block ends, however it ends.
    """
    folder = Path(tempfile.mkdtemp(prefix="omb-tui-edit-"))  # mkdtemp makes it 0700
    try:
        path = folder / Path(name).name  # the file's own name, so the editor highlights markdown
        atomic_write_bytes(path, data, durable=False)
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)
