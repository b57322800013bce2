"""Saving in the Files screen: a save carries the hash of the text opened, and is refused if the bot changed the
file meanwhile; the person then chooses Reload (the bot's version in the editor, their draft kept under it to copy
from, closed when no longer needed) or Overwrite with mine.

Spec: memory.md, "Editing" (saves carry the hash; *<bot> changed this file while you were editing.* with Reload and
Overwrite with mine; either way the change is in the journal) and "Where it lives" (credentials are redacted before
anything is written). Every write is the store's, journaled as the person's edit: the bot's store, or the store of
the person's layer the file is of (files_layers.py).
"""

from __future__ import annotations

from ...core.base.text import plural
from ...core.files.paths import MemoryInputError
from ...core.journal.changes import Actor, FileSnapshot, StaleHash, WriteResult
from ...core.journal.journal import HOW_SETTINGS, WHO_PERSON
from ...core.memory.store import MemoryStore
from ..widgets.kept_draft import KeptDraft
from .files_parts import FilesScreenParts

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)  # every write from the Files screen is journaled as the person's


async def save_edits(screen: FilesScreenParts) -> None:
    """Ctrl+S: save the open file's unsaved changes, saying why not when there is nothing to save."""
    if screen.current is None:
        return
    if screen.current.kind.read_only:
        screen.notify("Daily logs are read-only: they are the bot's own record.", severity="warning", markup=False)
        return
    if not screen.modified:
        screen.notify("No changes to save.", timeout=2, markup=False)
        return
    await save_text(screen, screen.editor.text)


async def save_text(screen: FilesScreenParts, text: str) -> None:
    """Save text over the open file with the hash it was opened with: redacted, journaled as the person's."""
    rel, opened_hash, typed = screen.current.rel, screen.current.hash, screen.editor.text
    try:
        result, saved = await screen.in_open_store(
            lambda store: _write_then_read(store, rel, text, opened_hash), writing=True
        )
    except StaleHash as stale:
        await _resolve_conflict(screen, stale, text)
        return
    except MemoryInputError as exc:
        screen.notify(str(exc), severity="error", markup=False)
        return
    if result.redactions:
        screen.notify(
            f"{plural(result.redactions, 'credential')} {'was' if result.redactions == 1 else 'were'} redacted "
            "before saving.",
            severity="warning",
            markup=False,
        )
    screen.show_saved(saved, typed)
    screen.notify(f"Saved {saved.rel}.", timeout=2, markup=False)


async def _resolve_conflict(screen: FilesScreenParts, stale: StaleHash, draft: str) -> None:
    from ..dialogs.conflict import ConflictDialog, row_that_made, who_changed

    made_it = await screen.in_open_store(lambda store: row_that_made(store.journal, stale.rel, stale.current_hash))
    choice = await screen.app.push_screen_wait(ConflictDialog(who_changed(made_it, screen.bot_name)))
    if choice == "overwrite":
        typed = screen.editor.text
        _, saved = await screen.in_open_store(
            lambda store: _write_then_read(store, stale.rel, draft, stale.current_hash), writing=True
        )
        screen.show_saved(saved, typed)
        screen.notify(f"Saved your version of {saved.rel} over the changed one (undo is in the journal).", markup=False)
    elif choice == "reload":
        theirs = await screen.in_open_store(lambda store: store.read(stale.rel))
        screen.set_aside_draft, screen.set_aside_draft_rel = draft, stale.rel
        screen.query_one(KeptDraft).keep(draft, stale.rel)
        screen.current = None
        screen.show_snapshot(theirs)
        screen.notify(f"Showing {stale.rel} as it is now; your draft is kept below it (F5 goes to it).", markup=False)


async def close_kept_draft_once_agreed(screen: FilesScreenParts) -> None:
    """Close the draft kept after Reload, once the person agrees: nothing else keeps it."""
    from ..dialogs.confirm import ConfirmDialog

    if not await screen.app.push_screen_wait(
        ConfirmDialog("Close your kept draft? It is not kept anywhere else.", yes="Close draft")
    ):
        return
    if not screen.modified and screen.recovery_drafts.keeps(screen.set_aside_draft_rel):
        screen.recovery_drafts.discard()  # its recovery file holds the closed draft (typing since would have replaced it)
    screen.set_aside_draft = screen.set_aside_draft_rel = None
    screen.query_one(KeptDraft).display = False
    screen.refresh_bindings()
    screen.editor.focus()


def _write_then_read(
    store: MemoryStore, rel: str, text: str, expected_hash: str | None
) -> tuple[WriteResult, FileSnapshot]:
    """(In a thread) save text over rel if it still has expected_hash, then read it as saved."""
    result = store.write(rel, text, PERSON, expected_hash=expected_hash)
    return result, store.read(rel)
