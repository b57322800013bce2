"""The Files area's keys, each with what it does (F1 lists them; docs/app.md, "Memory files"): Ctrl and F keys act anywhere,
a letter only from the list (in the editor letters are text), Enter and Escape move the keys between the two."""

from __future__ import annotations

from textual.binding import Binding

BINDINGS = [
    Binding("ctrl+s", "save", "Save", id="save", tooltip="Save; refused if the bot changed the file meanwhile"),
    Binding("ctrl+n", "new_topic", "New topic", id="new-topic", tooltip="Create memory/<name>.md"),
    # Rename stays out of the footer so Quit and Help fit in 80 columns; F1 lists it.
    Binding(
        "f2",
        "rename_topic",
        "Rename",
        show=False,
        id="rename-topic",
        tooltip="Rename the open topic, or in the list the highlighted one",
    ),
    # Shown only on a person's layer's file (docs/team-cloud.md, "The app"): it opens read-only, and this key, never
    # a letter typed into the read-only editor, opens it for editing (L for layer; F4 is the editor's wrap).
    Binding(
        "ctrl+l",
        "edit_layer",
        "Edit layer",
        id="edit-layer",
        tooltip="Open the person's layer file (the open one, or in the list the highlighted one) for editing; "
        "a save is journaled as yours, in the layer's journal",
    ),
    Binding(
        "f8,delete",
        "delete_file",
        "Delete",
        id="delete-file",
        tooltip="Delete the open topic or log, or in the list the highlighted one (MEMORY.md can only be emptied)",
    ),
    Binding(
        "ctrl+o",
        "external_editor",
        "$EDITOR",
        id="external-editor",
        tooltip="Edit a private copy in $EDITOR; saved like Ctrl+S when it closes",
    ),
    Binding(
        "ctrl+r",
        "reload_file",
        "Reload",
        show=False,
        id="reload-file",
        tooltip="Read the file again from disk (asks first if you have unsaved changes)",
    ),
    # Ctrl+F: Textual's TextArea leaves it free, and every terminal sends it (F3 steps on, as elsewhere).
    # Ctrl+F and F5 move the keys out of the editor: priority, so they act before the keys typed right
    # after them are handed to the editor (a key bound lower down is run only once the editor passes it on).
    Binding(
        "ctrl+f",
        "find",
        "Find",
        show=False,
        priority=True,
        id="find",
        tooltip="Find in the file: Enter, F3 or ↓ the next match, ↑ the previous, Escape back at it",
    ),
    Binding(
        "f5",
        "kept_draft",
        "Your draft",
        show=False,
        priority=True,
        id="kept-draft",
        tooltip="Into your draft kept after Reload (d compares it with the editor, x closes it), or back to the editor",
    ),
    # Enter in the list and Escape in the editor move the keys too, and are priority for the same reason: over a
    # slow link, Enter and the words typed after it arrive in one read, and the words belong in the note.
    Binding(
        "enter",
        "enter_file",
        "Edit",
        show=False,
        priority=True,
        id="enter-file",
        tooltip="Into the highlighted file's editor",
    ),
    Binding(
        "escape", "focus_list", "Files", show=False, priority=True, id="focus-list", tooltip="Back to the file list"
    ),
    # A letter, so it acts from the list and never while typing; the gauge names it when lines are cut.
    Binding(
        "m",
        "make_room",
        "Make room",
        show=False,
        id="make-room",
        tooltip="Move entries of MEMORY.md to the archive (struck, expired, then the oldest) until "
        "everything loads; shows them first",
    ),
]
