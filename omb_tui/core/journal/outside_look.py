"""The store's look for changes made outside the project: every memory file that changed since the last look is
journaled as changed outside the app, with its earlier text, so it can be undone.

Spec: memory.md, "The journal" (a file changed between looks is journaled as changed outside the app, with undo).
What the project saw last is the seen-state (`seen.py`); `OutsideLook` is part of `MemoryStore` (`store.py`), which
looks under the bot's lock before every change it makes.
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import TYPE_CHECKING

from ..files.disk import TEMP_FILE
from ..files.locks import BotLock
from ..files.paths import LOG_DIR, MEMORY_DIR, FileKind, Home, MemoryInputError, MemoryPath
from .changes import Actor, FileSnapshot, MadeChange
from .journal import (
    HOW_OUTSIDE,
    JOURNAL_MAX_EARLIER_BYTES,
    REASON_TOO_LARGE,
    WHO_PERSON,
    Journal,
    JournalRow,
    field_bytes,
)
from .seen import SeenRecord

if TYPE_CHECKING:
    from pathlib import Path

log = logging.getLogger("omb_tui.store")

RECENT_ROWS_LOOKED_AT = 64  # how far back a look seeks a write of the store's own whose seen-state was lost


class OutsideLook:
    """The part of MemoryStore that looks for changes made outside the project (its attributes are the store's)."""

    home: Home
    bot_id: str
    workspace: Path
    journal: Journal
    changes_found_by: Actor | None
    _seen: SeenRecord
    _lock: BotLock

    if TYPE_CHECKING:  # the store's own, used here

        def locked(self) -> contextlib.AbstractContextManager[None]: ...

        def _snapshot(self, mp: MemoryPath) -> FileSnapshot: ...

        def _row(self, **fields: object) -> JournalRow: ...

        def resolve(self, rel: str) -> MemoryPath: ...

        def _take_back_row(self, offset: int, rel: str) -> bool: ...

    def sync_outside_changes(self, *, again: bool = False) -> list[JournalRow]:
        """Journal every memory file that changed since the project last looked, as changed outside the app.

        Once per hold of the bot's lock: later calls inside the same locked step (memory_update writing the
        archive, then MEMORY.md) rely on the expected-hash checks instead of a second full look; `again`
        looks anyway (a lock-free editor changed a file during the step).
        """
        with self.locked():
            if self._lock.synced and self._lock.depth > 1 and not again:
                return []
            if not self._lock.synced:
                self._remove_stale_temp_files()
            self._lock.synced = True
            seen = self._seen.load()
            first_look = seen is None
            seen = seen or {"files": {}}
            files = seen["files"]
            present = {mp.rel: mp for mp in self.home.memory_files(self.bot_id)}
            rows: list[JournalRow] = []
            dirty = first_look
            for rel in sorted(set(files) | set(present)):
                info = files.get(rel)
                mp = present.get(rel)
                if mp is not None and info is not None:
                    stat = mp.path.stat()
                    if stat.st_size == info["size"] and stat.st_mtime_ns == info["mtime_ns"]:
                        continue
                now = self._snapshot(mp) if mp is not None else None
                if mp is not None and info is not None and now is not None and now.hash == info["hash"]:
                    self._seen.remember(mp, now.text, seen)  # touched, not changed
                    dirty = True
                    continue
                dirty = True
                if not first_look and not self._journaled_last(rel, now):
                    row = self._outside_row(rel, info, now)
                    try:
                        offset = self.journal.append(row)
                    except OSError as exc:  # what was seen stays as it was: the next look tries this row again
                        log.info("could not journal the change to %s found outside the app: %s", rel, exc)
                        continue
                    if self._lock.made is not None:  # an all-or-nothing step never puts back past it
                        self._lock.made.append(
                            MadeChange(
                                self.resolve(rel),
                                now or FileSnapshot(rel, "", None, FileKind.MEMORY),
                                row.after_hash,
                                offset,
                                found_outside=True,
                            )
                        )
                    rows.append(row)
                if mp is not None and now is not None:
                    self._seen.remember(mp, now.text, seen)
                else:
                    files.pop(rel, None)
            if dirty:
                self._seen.save(seen)
                self._seen.prune_blobs(seen)
            return rows

    def _take_back_unfinished_row(self) -> None:
        """A writer stopped between its journal row and the rename (a kill) left a row for a change it never made:
        the newest row, whose file still holds its earlier text, as the seen-state says. Taken out of the journal,
        so it claims nothing; the change was not made, as after any refused write."""
        try:
            last = self.journal.last_line()
        except OSError:
            return  # a journal that cannot be read cannot be written either: the write says so
        if last is None or not self._seen.path.exists():
            return  # nothing seen yet: no row can be told unfinished
        if self.home.restore_stage.exists():
            return  # a restore is moving in: its journal goes in ahead of the files its rows describe
        row = self.journal.decode(last[1])
        if row is None:
            return  # a torn tail is ended or taken away by the next append (journal.append_line)
        try:
            mp = self.resolve(row.file)
            now = self._snapshot(mp)
        except MemoryInputError:
            return
        if now.hash != row.before_hash or now.hash == row.after_hash:
            return
        files = (self._seen.load() or {"files": {}})["files"]
        if mp.kind is not FileKind.ABOUT_ME and (files.get(row.file) or {}).get("hash") != row.before_hash:
            return  # seen with other text since: a change and its reverse, both real, not an unfinished write
        if self._take_back_row(last[0], row.file):
            log.info("took back journal row %s: its change to %s was never made (the writer stopped)", row.id, row.file)

    def _journaled_last(self, rel: str, now: FileSnapshot | None) -> bool:
        """Is what `rel` holds now what this bot's newest row on it left? Then the change is the store's own,
        whose seen-state could not be saved (a full disk) or was cut off by a kill after the rename: already
        journaled, not a change made outside the app. Only the newest rows are looked at (a cache lost on a
        full disk is saved again by the next write)."""
        same_file = field_bytes("file", rel)
        for seen_rows, raw in enumerate(self.journal.iter_raw_newest_first()):
            if seen_rows >= RECENT_ROWS_LOOKED_AT:
                return False
            if same_file in raw:
                row = self.journal.decode(raw)
                if row is not None and row.file == rel:
                    return row.after_hash == (now.hash if now else None)
        return False

    def _remove_stale_temp_files(self) -> None:
        """Temp files of writers killed mid-write. Every write to a workspace holds this bot's lock, which this
        process now holds, so any temp file there is a dead writer's."""
        for folder in (self.workspace, self.workspace / MEMORY_DIR, self.workspace / MEMORY_DIR / LOG_DIR):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                if TEMP_FILE.match(name):
                    with contextlib.suppress(OSError):
                        os.unlink(folder / name)
                        log.info("removed %s, left by a writer that was stopped mid-write", name)

    def _outside_row(self, rel: str, info: dict | None, now: FileSnapshot | None) -> JournalRow:
        before_text = self._seen.blob_text(info["hash"]) if info else None
        found_by = self.changes_found_by
        return self._row(
            who=found_by.who if found_by else WHO_PERSON,
            how=found_by.how if found_by else HOW_OUTSIDE,
            chat=found_by.chat if found_by else None,
            run=found_by.run if found_by else None,
            file=rel,
            before_text=before_text,
            after_text=now.text if now else None,
            before_hash=info["hash"] if info else None,
            after_hash=now.hash if now else None,
            before_had_credential=bool(info and info.get("credential")),
            not_kept_reason=REASON_TOO_LARGE if info and info["size"] > JOURNAL_MAX_EARLIER_BYTES else None,
        )
