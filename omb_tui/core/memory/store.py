"""The one writer: every change to a memory file goes through MemoryStore.

Spec: memory.md, "Where it lives" (0600, atomic, credentials redacted), "Editing" (hash-checked saves,
MEMORY.md emptied never deleted, logs read-only but deletable, topics created/renamed/deleted) and
"The journal" (every change is a row; a file changed between looks is journaled as changed outside
the app, with undo).

Outside edits are caught by comparing each memory file with what the project saw last time
(`seen.py`: `memory-journal/<bot>.seen.json`, with the seen texts kept beside it by hash so undo has them);
that look is `outside_look.py`, part of the store.
The bytes go to disk through `disk.py` (atomic, 0600), under the bot's write lock (`locks.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..base.errors import WriteRefused, disk_refused
from ..files.disk import atomic_write_bytes, decode, encode, fsync_dir, read_text, text_hash
from ..files.locks import bot_lock
from ..files.paths import (
    FileKind,
    Home,
    MemoryInputError,
    MemoryPath,
    NotFound,
    refuse_hard_link,
    refuse_links,
    split_layer,
    validate_topic_name,
)
from ..journal.changes import (
    Actor,
    FileSnapshot,
    LaterChanges,
    MadeChange,
    NotUndoable,
    ReadOnly,
    RevertConflict,
    StaleHash,
    UndoResult,
    WriteResult,
)
from ..journal.journal import HOW_OUTSIDE, HOW_UNDO, WHO_PERSON, Clock, Journal, JournalRow, make_row
from ..journal.outside_look import OutsideLook
from ..journal.seen import SeenRecord
from .run_gates import gate_of

log = logging.getLogger("omb_tui.store")

ABOUT_ME_REL = "about-me.md"
HOW_REVERT = "revert"  # the `how` of a row that took back one change alone (journal.py names the other hows)


class _ReplacedFile:
    """The file a write replaces, held open from the check right before the rename until after it.

    `check` raises StaleHash when the file no longer holds what was read. An editor that takes no lock may
    still have appended to the old file in the moment between that check and the rename (or through a handle
    it opened before): `appended_since_check` gives those bytes, so they are not lost with the old file.
    """

    def __init__(self, mp: MemoryPath, read: FileSnapshot) -> None:
        self.mp, self.read = mp, read
        self.fd: int | None = None
        self.size = 0

    def check(self) -> None:
        try:
            self.fd = os.open(self.mp.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            if self.read.exists:
                raise StaleHash(self.mp.rel, "", None) from None
            return
        data = _read_all(self.fd)
        self.size = len(data)
        if hashlib.sha256(data).hexdigest() != self.read.hash:
            text = decode(data)
            raise StaleHash(self.mp.rel, text, text_hash(text))

    def appended_since_check(self) -> bytes:
        if self.fd is None:
            return b""
        grown = os.fstat(self.fd).st_size - self.size
        return os.pread(self.fd, grown, self.size) if grown > 0 else b""

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _append_text(text: str, tail: str) -> str:
    """tail after text, on a line of its own."""
    return text + tail if not text or text.endswith("\n") else text + "\n" + tail


_UNCHECKED = object()
WRITE_ATTEMPTS = 3


class MemoryStore(OutsideLook):
    """Read and change one bot's memory files; every change is atomic, 0600, redacted and journaled.

    `clock` gives the time of the journal rows this store writes (every row: writes, deletes, undo and changes
    found outside the app); None, the default, is the real time. The demo sets it to tell a past week by week.
    """

    def __init__(
        self, home: Home, bot_id: str, *, clock: Clock | None = None, changes_found_by: Actor | None = None
    ) -> None:
        """`changes_found_by`: who a change found since the last look is journaled as. None, the default, is
        the person, changed outside the app; during a bot's turn it is the bot (its own file tools wrote it)."""
        self.home = home
        self.bot_id = bot_id
        self.clock = clock
        self.changes_found_by = changes_found_by
        self.workspace = home.workspace(bot_id)
        self.person = split_layer(bot_id)[1]  # a Team Cloud person's layer of a bot (layers.py); None: the bot's
        self.journal = Journal(home.journal_path(bot_id))
        self._seen = SeenRecord(home.journal_state_path(bot_id))
        self._lock = bot_lock(home.journal_dir / f"{bot_id}.lock")

    # ----- paths -----
    def resolve(self, rel: str) -> MemoryPath:
        if rel == ABOUT_ME_REL:  # a person's layer: that person's own About me (paths.Home.about_me_of)
            return MemoryPath(ABOUT_ME_REL, self.home.about_me_of(self.person), FileKind.ABOUT_ME)
        return self.home.memory_path(self.bot_id, rel)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        with self._lock.hold():
            if self._lock.depth == 1:
                # The bot's record, before anything is written: a link there would carry rows, kept texts
                # or deletions outside the home, so the whole step is refused up front.
                for path in (self.journal.path, self._seen.path, self._seen.blobs):
                    refuse_links(path)
                self._take_back_unfinished_row()  # first, before this holder changes anything (a restore)
            yield

    # ----- reading -----
    def read(self, rel: str) -> FileSnapshot:
        mp = self.resolve(rel)
        return self._snapshot(mp)

    def _snapshot(self, mp: MemoryPath) -> FileSnapshot:
        try:
            text = read_text(mp.path)
        except FileNotFoundError:
            return FileSnapshot(mp.rel, "", None, mp.kind)
        except IsADirectoryError:
            raise MemoryInputError(f"{mp.rel} is a folder, not a file.") from None
        return FileSnapshot(mp.rel, text, text_hash(text), mp.kind)

    # ----- writing -----
    def write(
        self,
        rel: str,
        text: str,
        actor: Actor,
        expected_hash: object = _UNCHECKED,
        *,
        allow_log: bool = False,
        note: str | None = None,
    ) -> WriteResult:
        """Save text; with expected_hash, refuse (StaleHash) when the file is no longer what was read.

        expected_hash=None means "the file must not exist yet" (create only): the hash of a missing file is None.
        The check and the write happen under the bot's lock, so of two writers creating one file, one wins."""
        with self.locked():
            mp = self.resolve(rel)
            self.sync_outside_changes()
            if mp.kind.read_only and not allow_log:
                raise ReadOnly("Daily logs are read-only: they are the bot's own record (they can be deleted).")
            for attempt in range(WRITE_ATTEMPTS):
                current = self._snapshot(mp)
                if expected_hash is not _UNCHECKED and expected_hash != current.hash:
                    raise StaleHash(mp.rel, current.text, current.hash)
                try:
                    return self._apply(mp, current, text, actor, note=note)
                except StaleHash:
                    # A lock-free editor changed the file while this write was under way. A hash-checked write
                    # reports it; an unchecked one journals that change first, then writes over it.
                    if expected_hash is not _UNCHECKED or attempt == WRITE_ATTEMPTS - 1:
                        raise
                    self.sync_outside_changes(again=True)
            raise AssertionError("unreachable")  # pragma: no cover

    def delete(self, rel: str, actor: Actor, expected_hash: object = _UNCHECKED) -> WriteResult:
        with self.locked():
            mp = self.resolve(rel)
            self.sync_outside_changes()
            if mp.kind is FileKind.MEMORY:
                raise ReadOnly("MEMORY.md can be emptied but never deleted: the bot expects it to exist.")
            if mp.kind in (FileKind.ARCHIVE, FileKind.ABOUT_ME):
                raise ReadOnly(f"{mp.rel} cannot be deleted; edit it instead.")
            current = self._snapshot(mp)
            if not current.exists:
                raise NotFound(f"{mp.rel} does not exist.")
            if expected_hash is not _UNCHECKED and expected_hash != current.hash:
                raise StaleHash(mp.rel, current.text, current.hash)
            return self._apply(mp, current, None, actor)

    def create_topic(self, name: str, text: str, actor: Actor) -> WriteResult:
        with self.locked():
            mp = self.resolve(f"memory/{validate_topic_name(name)}")
            self.sync_outside_changes()
            current = self._snapshot(mp)
            if current.exists:
                raise MemoryInputError(f"The topic {mp.rel} already exists.")
            return self._apply(mp, current, text, actor)

    def rename_topic(self, old: str, new: str, actor: Actor) -> tuple[WriteResult, WriteResult]:
        """A rename is the new file written, then the old one deleted: two journal rows, both undoable."""
        with self.locked():
            source = self.resolve(f"memory/{validate_topic_name(old)}")
            target = self.resolve(f"memory/{validate_topic_name(new)}")
            self.sync_outside_changes()
            current = self._snapshot(source)
            if not current.exists:
                raise NotFound(f"{source.rel} does not exist.")
            existing = self._snapshot(target)
            if existing.exists:
                raise MemoryInputError(f"The topic {target.rel} already exists.")
            note = f"renamed from {source.rel}"
            created = self._apply(target, existing, current.text, actor, note=note)
            removed = self._apply(source, current, None, actor, note=f"renamed to {target.rel}")
            return created, removed

    def _apply(
        self,
        mp: MemoryPath,
        current: FileSnapshot,
        new_text: str | None,
        actor: Actor,
        *,
        undo_of: str | None = None,
        note: str | None = None,
    ) -> WriteResult:
        """Write (or delete, when new_text is None) one file, journal it, and remember what it now says."""
        from ..redaction.redact import redact  # compiled on first write, not at start-up

        redactions = 0
        if new_text is not None:
            redaction = redact(new_text)
            new_text, redactions = redaction.text, redaction.count
            if current.exists and new_text == current.text:
                if (gate := gate_of(actor.run)) is not None:
                    gate.unchanged(mp.rel, actor.step)
                return WriteResult(mp.rel, current.hash, changed=False, redactions=redactions)
        if (gate := gate_of(actor.run)) is not None and undo_of is None:
            before = current.text if current.exists else None
            if gate.refusal(mp.rel, before, new_text, actor.step) is not None:  # the guard counted it
                return WriteResult(mp.rel, current.hash, changed=False, redactions=redactions)
        new_hash = text_hash(new_text) if new_text is not None else None
        row = self._row(
            who=actor.who,
            how=actor.how,
            file=mp.rel,
            before_text=current.text if current.exists else None,
            after_text=new_text,
            before_hash=current.hash,
            after_hash=new_hash,
            chat=actor.chat,
            undo_of=undo_of,
            step=actor.step,
            run=actor.run,
            person=actor.person,
            note=note,
        )
        late = self._replace_journaled(mp, current, new_text, row)
        if mp.kind is not FileKind.ABOUT_ME:
            try:
                self._seen.remember(mp, new_text, redacted=True)  # _apply redacted it: not twice per write
            except OSError as exc:  # a cache: the next look knows this write by its journal row
                log.info("could not record what %s now holds: %s", mp.rel, exc)
        if new_text is not None and late:
            # An editor that takes no lock appended to the old file between the last check and the rename:
            # what it wrote is put after the new text, journaled as its own change.
            ours = FileSnapshot(mp.rel, new_text, new_hash, mp.kind)
            self._apply(
                mp,
                ours,
                _append_text(new_text, decode(late)),
                Actor(WHO_PERSON, HOW_OUTSIDE),
                note="appended by another editor while omb-tui was saving",
            )
        return WriteResult(mp.rel, new_hash, True, redactions, row.id)

    def _replace_journaled(self, mp: MemoryPath, current: FileSnapshot, new_text: str | None, row: JournalRow) -> bytes:
        """The change made whole or not at all: its row (with the earlier text) durable in the journal first, then
        the file replaced atomically (or deleted); the row is taken back when the file cannot be. The text now kept
        goes beside the seen-state before either, so a later edit outside the app can be undone too. Returns what a
        lock-free editor appended to the old file meanwhile. A disk that refuses raises WriteRefused: the file and
        the journal are as they were. A kill between the row and the rename leaves a row for a change not made:
        the next writer takes it back (`_take_back_unfinished_row`)."""
        if new_text is not None:  # refused before anything is kept: nothing is written through a link
            refuse_links(mp.path)
            refuse_hard_link(mp.path)
            if mp.kind is not FileKind.ABOUT_ME:
                self._keep_text(mp, new_text)
        try:
            offset = self.journal.append(row)
        except OSError as exc:
            raise WriteRefused.of(exc, mp.rel) from exc
        try:
            late = b""
            if new_text is None:
                os.unlink(mp.path)
                fsync_dir(mp.path.parent)
            else:
                replaced = _ReplacedFile(mp, current)
                try:
                    atomic_write_bytes(mp.path, encode(new_text), before_replace=replaced.check)
                    late = replaced.appended_since_check()
                finally:
                    replaced.close()
        except BaseException as exc:
            self._take_back_row(offset, mp.rel)
            if isinstance(exc, OSError):
                raise WriteRefused.of(exc, mp.rel) from exc
            raise
        if self._lock.made is not None:  # an all-or-nothing step: what to put back if a later write is refused
            self._lock.made.append(
                MadeChange(mp, current, row.after_hash, offset, found_outside=row.how == HOW_OUTSIDE)
            )
        return late

    def _keep_text(self, mp: MemoryPath, text: str) -> None:
        """The text a file is about to hold, kept beside the seen-state: a disk that refuses it refuses the write
        (WriteRefused); a damaged record there (a file where its folder should be) is only logged, as a cache."""
        try:
            self._seen.keep_text(text)
        except OSError as exc:
            if disk_refused(exc):
                raise WriteRefused.of(exc, mp.rel) from exc
            log.warning("could not record what %s now holds: %s", mp.rel, exc)

    def _take_back_row(self, offset: int, rel: str) -> bool:
        try:
            self.journal.take_back(offset)
            return True
        except OSError as exc:  # the next look takes it back: the file still has its earlier hash
            log.warning("could not take back the journal row of %s: %s", rel, exc)
            return False

    @contextlib.contextmanager
    def all_or_nothing(self, what: str | None = None) -> Iterator[None]:
        """Several writes as one change (forget in every file, a note added with older ones moved to the archive):
        when the disk refuses any write of the block, or another file it saves, the writes already made are taken
        back (each file put back as it was, its rows removed from the journal) and WriteRefused says nothing was
        changed. A block inside another is part of the outer one. `what`: the file a refusal names when the disk
        refused another file of the step (the entries being moved, say), as the person knows the step."""
        with self.locked():
            if self._lock.made is not None:
                yield
                return
            made: list[MadeChange] = []
            self._lock.made = made
            try:
                yield
            except OSError as exc:
                self._lock.made = None
                kept = self._put_back(made)
                named = exc.filename if isinstance(exc, WriteRefused) else (what or self._named(exc))
                raise WriteRefused(exc, str(named), kept=kept) from exc
            finally:
                self._lock.made = None

    def _named(self, exc: OSError) -> str:
        """The file a refused write names, as a person reads it: a memory file's path in the workspace, another
        file's path in the home."""
        if not exc.filename:
            return "the change"
        path = Path(os.fsdecode(exc.filename))
        for root in (self.workspace, self.home.root):
            if path.is_relative_to(root):
                return path.relative_to(root).as_posix()
        return str(path)

    def _put_back(self, made: list[MadeChange]) -> list[str]:
        """Undo the writes of a refused all-or-nothing step, newest first, without a trace in the journal; stops at
        a change made by someone else meanwhile (a row found outside the app) or at a file that cannot be put back.
        Returns the files left changed (their rows stay, so they can be undone)."""
        for index in range(len(made) - 1, -1, -1):
            item = made[index]
            if item.found_outside or self._snapshot(item.mp).hash != item.after_hash:
                return [m.mp.rel for m in made[: index + 1]]
            try:
                if item.before.exists:
                    atomic_write_bytes(item.mp.path, encode(item.before.text))
                else:
                    os.unlink(item.mp.path)
                    fsync_dir(item.mp.path.parent)
            except OSError as exc:
                log.info("could not put %s back: %s", item.mp.rel, exc)
                return [m.mp.rel for m in made[: index + 1]]
            if not self._take_back_row(item.offset, item.mp.rel):
                return [m.mp.rel for m in made[:index]]
            if item.mp.kind is not FileKind.ABOUT_ME:
                with contextlib.suppress(OSError):
                    self._seen.remember(item.mp, item.before.text if item.before.exists else None)
        return []

    def _row(self, **fields: object) -> JournalRow:
        """Every row this store journals is made here: for this bot, at the store's clock."""
        # the row's fields, passed on as given: make_row's keyword parameters say what each must be
        return make_row(bot=self.bot_id, clock=self.clock, **fields)  # type: ignore[arg-type]

    # ----- undo -----
    def undo(
        self,
        row_id: str,
        actor: Actor | None = None,
        *,
        force: bool = False,
        confirmed_later: Sequence[str] | None = None,
        unseen_ok: bool = False,
    ) -> UndoResult:
        """Put the file back to the row's earlier text; refuses (LaterChanges) when later rows changed it.

        `confirmed_later`: the ids of the later rows the person agreed to undo too, newest first; the undo goes
        ahead only when they are exactly the later rows now, checked under the lock, so a row written while the
        question was open is never undone unconfirmed. `unseen_ok`: the person agreed that a change this journal
        cannot see (About me by another bot) goes too. `force` goes ahead whatever came later."""
        actor = actor or Actor(WHO_PERSON, HOW_UNDO)
        with self.locked():
            self.sync_outside_changes()
            row, later = self._row_to_take_back(row_id, "undone")
            confirmed = confirmed_later is not None and [r.id for r in later] == list(confirmed_later)
            force = force or (confirmed and bool(later))
            if later and not force:
                raise LaterChanges(row, later)
            mp = self.resolve(row.file)
            current = self._snapshot(mp)
            if not later and not force and not unseen_ok and current.hash != row.after_hash:
                # Changed where this journal cannot see: About me by another bot, or an edit not yet looked at.
                raise LaterChanges(row, [])
            if row.before_hash is None:
                # The row created the file: undo removes it (MEMORY.md is emptied, never deleted).
                target = "" if mp.kind is FileKind.MEMORY else None
                if target is None and not current.exists:
                    raise NotUndoable(f"{row.file} is already gone.")
            else:
                target = row.before_text or ""
            undo_actor = Actor(actor.who, HOW_UNDO, actor.chat, step=actor.step)  # the guard undoes as step guard
            result = self._apply(mp, current, target, undo_actor, undo_of=row.id)
            return UndoResult(row, result, later)

    def _row_to_take_back(self, row_id: str, done: str) -> tuple[JournalRow, list[JournalRow]]:
        """The row an undo or a revert takes back, and the later rows on its file (newest first); NotFound or
        NotUndoable (`done`: "undone", "reverted") says why not. Called under the lock."""
        row = self.journal.find(row_id)
        if row is None:
            raise NotFound(f"There is no journal row {row_id} for {self.bot_id}.")
        if not row.undoable:
            raise NotUndoable(f"Row {row_id} cannot be {done}: {row.not_undoable_reason}.")
        return row, self.journal.later_rows_for_file(row)

    def revert(self, row_id: str, actor: Actor | None = None) -> UndoResult:
        """Take back one row's change alone, keeping every change made to the file since (as `git revert`):
        its reverse is merged into the file as it is now. RevertConflict (nothing written) when changes since
        touch its lines or the text it wrote was not kept. Journaled as an undo of the row (how: revert)."""
        from ..journal.revert_text import reverse_change

        actor = actor or Actor(WHO_PERSON, HOW_REVERT)
        with self.locked():
            self.sync_outside_changes()
            row, later = self._row_to_take_back(row_id, "reverted")
            taken_back = next((r for r in later if r.undo_of == row.id), None)
            if taken_back is not None:
                raise NotUndoable(f"Row {row_id} was already taken back by row {taken_back.id}.")
            mp = self.resolve(row.file)
            current = self._snapshot(mp)
            before = row.before_text or ""
            if row.after_hash is None:  # the row deleted the file: reverting it brings the file back
                if current.exists:
                    raise RevertConflict(row, later, f"{row.file} was created again since")
                target: str | None = before
            else:
                after = self._text_after(row, later, current)
                if after is None and not later:  # the file differs, yet no row of this journal changed it
                    raise RevertConflict(row, later, f"{row.file} changed since by another bot or outside the app")
                if after is None:
                    raise RevertConflict(row, later, f"the text it left {row.file} with was not kept")
                if not current.exists:
                    raise RevertConflict(row, later, f"{row.file} was deleted since")
                target = reverse_change(before, after, current.text)
                if target is None:
                    raise RevertConflict(row, later)
                if row.before_hash is None and not target and mp.kind is not FileKind.MEMORY:
                    target = None  # the row created the file and nothing else is in it: it goes, as with undo
            result = self._apply(
                mp,
                current,
                target,
                Actor(actor.who, HOW_REVERT, actor.chat),
                undo_of=row.id,
                note="reverted this change alone; later changes kept",
            )
            return UndoResult(row, result, later)

    def _text_after(self, row: JournalRow, later: list[JournalRow], current: FileSnapshot) -> str | None:
        """The whole text the row left its file with: the next row's earlier text, or the file itself when
        nothing in this journal changed it since, or else the row's earlier text with its diff applied (About
        me changed by another bot); None when none of them has the row's hash."""
        from ..journal.revert_text import apply_diff

        if later:
            kept = later[-1].before_text  # later is newest first
        else:
            kept = current.text if current.exists else None
        if kept is not None and text_hash(kept) == row.after_hash:
            return kept
        before = "" if row.before_hash is None else row.before_text
        rebuilt = None if before is None else apply_diff(before, row.diff)  # a diff cut for size gives None
        return rebuilt if rebuilt is not None and text_hash(rebuilt) == row.after_hash else None
