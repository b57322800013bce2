"""The Files screen's recovery drafts: typing is on disk, outside the workspace, before anything can lose it.

Spec: memory.md, "Editing" (nothing typed is lost). core.memory.drafts keeps the files; RecoveryDrafts decides
when the screen's draft is written and when it goes: written in a thread a moment after typing stops, removed
once saved or thrown away, left on disk (to be offered again) when the person only looks elsewhere. When a file
opens with a draft kept of it, `offer_back` asks once whether to restore it, discard it, or leave it for later.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, Protocol

from textual.timer import Timer

from ...core.files.paths import MemoryInputError, layer_id
from ...core.journal.changes import FileSnapshot
from ...core.journal.when import when_text
from ...core.memory.drafts import Draft, Drafts
from .files_listing import EDITABLE_KINDS


class UnsavedText(NamedTuple):
    """What the editor holds and the file does not: kept as the open bot's recovery draft of rel."""

    rel: str
    text: str
    based_on: str | None  # the hash of the file it was typed over


class RecoveryDrafts:
    """The one recovery draft a screen keeps on disk (which workspace, the bot's or a person's layer of it, and
    which file), its pending write, and what was offered.

    Every keystroke, save and discard bumps a serial, so a slow write never lands after a newer decision; writes
    and removals take one lock, and a removal leaves a draft kept after it was decided. Both run as thread
    workers of the screen (group "draft"), and the timer is the screen's.
    """

    def __init__(self, screen: DraftsScreen) -> None:
        self._screen = screen
        self._keeping: tuple[str, str] | None = None  # (workspace id, file) of the draft kept on disk for the screen
        self._timer: Timer | None = None
        self._serial = 0
        self._lock = threading.Lock()
        self._kept_at: dict[tuple[str, str], int] = {}  # (bot id, file) -> serial of its newest kept draft
        self._offered: set[tuple[str, str, str]] = set()  # drafts offered already (bot, file, saved at)

    def keeps(self, rel: str | None) -> bool:
        """The draft kept on disk for the screen is the open workspace's draft of rel."""
        return self._keeping == (self._screen.workspace_id, rel)

    def keep_later(self, delay: float, unsaved: Callable[[], UnsavedText | None]) -> None:
        """Typed: keep `unsaved()` delay seconds from now, unless more typing or a decision comes first."""
        self.cancel_pending()
        self._timer = self._screen.set_timer(delay, lambda: self._keep(unsaved()))

    def cancel_pending(self) -> None:
        self._serial += 1
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def discard(self) -> None:
        """The draft was saved, or the person chose to lose it: its recovery file goes too."""
        self.cancel_pending()
        if self._keeping is None:
            return
        bot_id, rel = self._keeping
        self._keeping = None
        self._remove_in_thread(self._serial, bot_id, rel)

    def forget(self) -> None:
        """Stop keeping the draft, leaving its recovery file to be offered when the file opens again."""
        self.cancel_pending()
        self._keeping = None

    def own(self, rel: str) -> None:
        """A draft restored into the editor: its recovery file is now the one the screen keeps."""
        self._keeping = (self._screen.workspace_id, rel)

    def remove(self, rel: str) -> None:
        """Remove the open workspace's recovery draft of rel (in a thread), unless one typed since was kept."""
        self._remove_in_thread(self._serial, self._screen.workspace_id, rel)

    def find(self, rel: str, person: str | None = None) -> Draft | None:
        """(In a thread) the open bot's recovery draft of rel (of the person's layer of it), if one is kept."""
        bot_id = self._screen.app.bot_id
        return Drafts(self._screen.app.home, bot_id if person is None else layer_id(bot_id, person)).find(rel)

    def offer_once(self, draft: Draft, shown: FileSnapshot, editor_text: str) -> bool:
        """Whether to offer the draft back now, shown beside the editor holding editor_text (and remember it was):
        never twice a session, nor the screen's own draft still on show; a draft the file holds already goes."""
        bot_id = self._screen.workspace_id
        key = (bot_id, draft.rel, draft.saved_at)
        if key in self._offered or self._keeping == (bot_id, draft.rel) or shown.rel != draft.rel:
            return False
        if draft.text in (shown.text, editor_text):
            self.remove(draft.rel)
            return False
        self._offered.add(key)
        return True

    def unsaved(self) -> UnsavedText | None:
        """What a recovery draft keeps now: the editor's text, if it differs from the open file's."""
        screen = self._screen
        return UnsavedText(screen.current.rel, screen.editor.text, screen.current.hash) if screen.modified else None

    def follow_editor(self, delay: float) -> None:
        """After each change: keep the draft a moment after typing stops, or drop it once back to the file."""
        screen = self._screen
        if screen.modified:
            self.keep_later(delay, self.unsaved)
        elif screen.current and screen.set_aside_draft is None and self.keeps(screen.current.rel):
            self.discard()  # undone back to the file's own text: nothing left to recover
        else:
            self.cancel_pending()

    def find_for(self, snapshot: FileSnapshot, person: str | None = None) -> Draft | None:
        """(In a thread) the recovery draft of the file shown (of the person's layer), when it is one the person
        edits and one is kept."""
        if snapshot.kind not in EDITABLE_KINDS:
            return None
        return self.find(snapshot.rel, person)

    def keep_or_discard_at_close(self, return_code: int | None) -> None:
        """The app is closing with unsaved changes: quitting asked first, so they go; a crash keeps them now."""
        if not self._screen.modified:
            return  # (a draft kept beside the editor after Reload stays on disk: it is offered next time)
        # The app is closing, so the recovery file is kept or removed here and now: a worker would not outlive it.
        if return_code == 0:
            self.discard_now()
        else:
            self.keep_now(self.unsaved())

    def discard_now(self) -> None:
        """The app is closing after the person agreed to lose the draft: its recovery file goes here and now
        (a worker would not outlive the app)."""
        self.cancel_pending()
        if self._keeping is not None:
            self._remove(self._serial, *self._keeping)

    def keep_now(self, unsaved: UnsavedText) -> None:
        """The app is closing on an error: the draft is kept here and now."""
        self.cancel_pending()
        try:
            Drafts(self._screen.app.home, self._screen.workspace_id).keep(*unsaved)
        except (OSError, MemoryInputError):
            pass  # the draft written a moment after the last keystroke is on disk already

    def _keep(self, unsaved: UnsavedText | None) -> None:
        self._timer = None
        if unsaved is not None:
            bot_id = self._screen.workspace_id
            self._keeping = (bot_id, unsaved.rel)
            self._screen.run_worker(
                partial(self._write, self._serial, bot_id, unsaved),
                name="write_recovery_draft",
                group="draft",
                thread=True,
                exit_on_error=False,
            )

    def _write(self, serial: int, bot_id: str, unsaved: UnsavedText) -> None:
        with self._lock:
            if serial != self._serial:  # typed on, saved or discarded meanwhile: this text is old
                return
            try:
                Drafts(self._screen.app.home, bot_id).keep(*unsaved)
            except OSError as exc:  # (App.notify is thread-safe)
                self._screen.app.notify(
                    f"Your draft could not be kept for recovery: {exc.strerror or exc}.",
                    severity="warning",
                    markup=False,
                )
                return
            self._kept_at[(bot_id, unsaved.rel)] = serial

    def _remove_in_thread(self, serial: int, bot_id: str, rel: str) -> None:
        self._screen.run_worker(
            partial(self._remove, serial, bot_id, rel),
            name="remove_recovery_draft",
            group="draft",
            thread=True,
            exit_on_error=False,
        )

    def _remove(self, serial: int, bot_id: str, rel: str) -> None:
        """Remove a recovery draft, unless a draft typed after this decision (a newer serial) was kept since."""
        with self._lock:  # after a draft being written, never before it
            if self._kept_at.get((bot_id, rel), -1) > serial:
                return
            try:
                Drafts(self._screen.app.home, bot_id).discard(rel)
            except OSError as exc:
                self._screen.app.notify(
                    f"The recovery draft of {rel} could not be removed: {exc.strerror or exc}.",
                    severity="warning",
                    markup=False,
                )


class DraftsScreen(Protocol):
    """What offering a draft back uses of the Files screen (a Protocol, so this module never imports the screen)."""

    app: Any
    bot_name: str
    current: FileSnapshot | None
    recovery_drafts: RecoveryDrafts
    set_aside_draft: str | None  # your draft, shown below the bot's version after Reload

    @property
    def editor(self) -> Any: ...
    @property
    def modified(self) -> bool: ...
    @property
    def workspace_id(self) -> str: ...
    def notify(self, message: str, **options: Any) -> None: ...
    def run_worker(self, work: Any, **options: Any) -> Any: ...
    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer: ...
    def show_banner(self, text: str | None) -> None: ...


async def offer_back(screen: DraftsScreen, draft: Draft) -> None:
    """Ask whether to restore the draft kept of the open file, discard it, or leave it for later."""
    from ..dialogs.draft_found import DraftFoundDialog

    changed = draft.based_on != screen.current.hash
    note = (
        f"{screen.bot_name} changed the file since: saving it asks Reload or Overwrite with mine. " if changed else ""
    )
    choice = await screen.app.push_screen_wait(
        DraftFoundDialog(
            f"You have an unsaved draft of {draft.rel}, kept {when_text(draft.saved_at)}.",
            note + "Restore puts it in the editor, unsaved; Discard deletes it; Later asks again next time.",
        )
    )
    if choice == "discard":
        screen.recovery_drafts.remove(draft.rel)
    elif choice == "restore":
        if screen.current is None or screen.current.rel != draft.rel or screen.modified or screen.editor.read_only:
            screen.notify(
                f"The draft of {draft.rel} was not restored: another file or draft is open.",
                severity="warning",
                markup=False,
            )
            return
        if changed:  # saved with the hash it was typed over, so the usual conflict decides
            screen.current = dataclasses.replace(screen.current, hash=draft.based_on)
            screen.show_banner(
                f"{screen.bot_name} changed this file since your draft was kept. "
                "Save to choose: Reload or Overwrite with mine."
            )
        screen.recovery_drafts.own(draft.rel)
        screen.editor.replace(draft.text, (0, 0), screen.editor.document.end)  # undoable, like typing
        screen.editor.focus()
