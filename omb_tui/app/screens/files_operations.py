"""What the Files screen does to whole files, each asked about first: create a topic, rename one (and the
pointers to it), delete a topic or a daily log or empty MEMORY.md, make room in MEMORY.md, and edit the open
file in $EDITOR.

Spec: memory.md, "Editing" (logs read-only but deletable; MEMORY.md emptied, never deleted; topics created,
renamed and deleted under the name rules; every change in the journal, to be undone) and "What loads, and the
budget" (making room moves entries to the archive until everything loads). $EDITOR edits a private copy, never
the file, and what comes back is saved like Ctrl+S: redacted, hash-checked, journaled as the person's edit.

Each is a coroutine over the screen, awaited by the screen's worker for its key: the screen decides which of
them exclude one another.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

from ...core.base.text import plural
from ...core.files.disk import encode, read_text
from ...core.files.paths import MEMORY_FILE, FileKind, MemoryInputError
from ...core.journal.changes import FileSnapshot
from ...core.memory.drafts import private_copy
from .files_listing import EDITABLE_KINDS, editable_text
from .files_parts import FilesScreenParts
from .files_saving import PERSON, save_text

NEW_TOPIC_TEMPLATE = "---\ntitle: {title}\ndescription:\naliases: []\n---\n\n# {title}\n"


async def new_topic(screen: FilesScreenParts) -> None:
    from ..dialogs.topic_name import TopicNameDialog

    name = await screen.app.push_screen_wait(TopicNameDialog("New topic name", taken=topic_names(screen.files)))
    if not name:
        return
    text = NEW_TOPIC_TEMPLATE.format(title=name.removesuffix(".md"))
    try:
        await screen.in_thread(lambda bot: bot.store.create_topic(name, text, PERSON))
    except MemoryInputError as exc:
        screen.notify(str(exc), severity="error", markup=False)
        return
    screen.current = None
    screen.show_file(f"memory/{name}")


async def rename_topic(screen: FilesScreenParts) -> None:
    from ...core.memory.topic_links import pointers_to, rename_topic_with_links
    from ..dialogs.topic_name import RenameTopicDialog

    if screen.current is None or screen.target_kind() is not FileKind.TOPIC:
        return
    rel = screen.highlighted_in_list() or screen.current.rel  # in the list, the highlighted topic
    old, is_open = rel.removeprefix("memory/"), rel == screen.current.rel
    if is_open and screen.modified:
        screen.notify("Save or reload the topic before renaming it.", severity="warning", markup=False)
        return
    pointing = await screen.in_thread(lambda bot: pointers_to(bot.store, old))
    count = sum(update.count for update in pointing)
    pointers = f"{plural(count, 'pointer')} in {', '.join(u.rel for u in pointing)}" if pointing else None
    answer = await screen.app.push_screen_wait(RenameTopicDialog(old, topic_names(screen.files), pointers))
    if not answer or answer[0] == old:
        return
    new, update_links = answer
    try:
        if update_links:
            await screen.in_thread(lambda bot: rename_topic_with_links(bot.store, old, new, PERSON))
        else:
            await screen.in_thread(lambda bot: bot.store.rename_topic(old, new, PERSON))
    except MemoryInputError as exc:
        screen.notify(str(exc), severity="error", markup=False)
        return
    if not is_open:
        screen.load_files(select=None)
        return
    screen.current = None
    screen.show_file(f"memory/{new}")


async def delete_file(screen: FilesScreenParts) -> None:
    from ..dialogs.confirm import ConfirmDialog

    target = await _delete_target(screen)
    if target is None:
        return
    rel, is_open = target.rel, screen.current is not None and target.rel == screen.current.rel
    unsaved = " Your unsaved changes to it are lost." if is_open and screen.modified else ""
    if target.kind is FileKind.MEMORY:
        if not await screen.app.push_screen_wait(
            ConfirmDialog(
                f"MEMORY.md can be emptied but never deleted. Empty it?{unsaved} (Undo is in the journal.)",
                yes="Empty MEMORY.md",
            )
        ):
            return
        await screen.in_thread(lambda bot: bot.store.write(rel, "", PERSON, expected_hash=target.hash))
        if is_open:
            screen.recovery_drafts.discard()
        screen.current = None
        screen.show_file(MEMORY_FILE)
        return
    if target.kind is FileKind.ARCHIVE:
        screen.notify(
            "The archive is not deleted here: it keeps what left MEMORY.md.", severity="warning", markup=False
        )
        return
    if not await screen.app.push_screen_wait(
        ConfirmDialog(f"Delete {rel}?{unsaved} (Undo is in the journal.)", yes="Delete")
    ):
        return
    try:
        await screen.in_thread(lambda bot: bot.store.delete(rel, PERSON, expected_hash=target.hash))
    except MemoryInputError as exc:
        screen.notify(str(exc), severity="error", markup=False)
        return
    screen.notify(f"Deleted {rel}.", markup=False)
    if is_open:
        screen.recovery_drafts.discard()
        screen.current = None
        screen.show_file(MEMORY_FILE)
    else:
        screen.load_files(select=None)


async def _delete_target(screen: FilesScreenParts) -> FileSnapshot | None:
    """In the list, the highlighted file; anywhere else, the open one."""
    rel = screen.highlighted_in_list()
    if rel is not None and screen.current is not None and rel != screen.current.rel:
        return await screen.in_thread(lambda bot: bot.store.read(rel))
    return screen.current


async def make_room_in_memory(screen: FilesScreenParts) -> None:
    """Show what the overflow rule would move until everything loads; move it once the person agrees."""
    from ...core.memory.make_room import make_room, plan_room
    from ..dialogs.make_room import MakeRoomDialog

    if screen.current is not None and screen.current.kind is FileKind.MEMORY and screen.modified:
        screen.notify("Save or reload MEMORY.md before making room.", severity="warning", markup=False)
        return
    plan = await screen.in_thread(lambda bot: plan_room(bot.store.read(MEMORY_FILE)))
    if not plan.moving:
        screen.notify(plan.message(), severity="warning" if plan.must_trim else "information", markup=False)
        return
    if not await screen.app.push_screen_wait(MakeRoomDialog(plan)):
        return
    try:
        done = await screen.in_thread(lambda bot: make_room(bot.home, bot.id, PERSON, expected_hash=plan.based_on))
    except MemoryInputError as exc:  # MEMORY.md changed since the plan was shown: nothing moved
        screen.notify(str(exc), severity="error", markup=False)
        return
    screen.notify(done.message(), severity="warning" if done.must_trim else "information", markup=False)
    if screen.current is not None and screen.current.kind is FileKind.MEMORY:
        screen.current = None
    screen.load_files(select=None)


async def edit_in_external_editor(screen: FilesScreenParts) -> None:
    """$EDITOR edits a private copy of the draft (never the file itself); what comes back is saved
    like Ctrl+S, so it is redacted, hash-checked and journaled as the person's edit."""
    if screen.current is None or screen.current.kind not in EDITABLE_KINDS:
        return
    command = _editor_command()
    if command is None:
        screen.notify("Set $EDITOR (or $VISUAL) to open files in your editor.", severity="warning", markup=False)
        return
    opened = screen.current
    # Untouched, the editor gets the file's own bytes (mixed line endings, bytes that are not UTF-8).
    sent = screen.editor.text if screen.modified else opened.text
    with private_copy(opened.rel, encode(sent)) as copy:
        try:
            with screen.app.suspend():
                exit_code = subprocess.call([*command, str(copy)])
        except OSError as exc:
            screen.notify(f"{command[0]} could not be started: {exc.strerror or exc}.", severity="error", markup=False)
            return
        if exit_code != 0:
            screen.notify(
                f"{command[0]} exited with an error (code {exit_code}); nothing was saved.",
                severity="warning",
                markup=False,
            )
            return
        returned = read_text(copy)
    if returned == opened.text:
        if screen.modified:  # the unsaved changes were taken out in the editor
            screen.recovery_drafts.discard()
            screen.current = None
            screen.show_snapshot(opened)
        screen.notify("No changes to save.", timeout=2, markup=False)
        return
    if editable_text(returned) and not screen.editor.read_only:
        # In the editor first: if the save is refused or cancelled, the text stays there, unsaved.
        screen.editor.replace(returned, (0, 0), screen.editor.document.end)
    await save_text(screen, returned)


def topic_names(files: list[tuple[str, FileKind]]) -> frozenset[str]:
    return frozenset(rel.removeprefix("memory/") for rel, kind in files if kind is FileKind.TOPIC)


def _editor_command() -> list[str] | None:
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            return shlex.split(value)
    for fallback in ("nano", "vi"):
        if shutil.which(fallback):
            return [fallback]
    return None
