"""Memory files: MEMORY.md, topics, the archive and daily logs, with the gauge and a safe editor.

Spec: memory.md, "What loads, and the budget" (the gauge follows the draft; lines past the cut are
marked), "Editing" (saves carry the hash; *<bot> changed this file while you were editing.* with
Reload and Overwrite with mine; logs read-only but deletable; MEMORY.md emptied, never deleted; topics
created, renamed and deleted under the name rules), and "Where it lives" (the folder's path is shown,
since over SSH no file manager can be opened; nothing unredacted is ever written to the workspace).

The screen shows the list and the open file, and owns the keys and their workers; beside it, one job each:
files_listing (what the list reads), files_saving (a save with the hash, and the conflict), files_drafts
(nothing typed is lost: recovery drafts outside the workspace, offered back when the file next opens) and
files_operations (new topic, rename, delete, make room, and $EDITOR on a private copy). Under the bot's own files,
each person's layer of it, read-only until Ctrl+L opens one for editing (files_layers; docs/team-cloud.md, "The app").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Header, OptionList, Static, TextArea
from textual.widgets.option_list import OptionDoesNotExist
from textual.worker import get_current_worker

from ...core.files.paths import MEMORY_FILE, FileKind, layer_id
from ...core.journal.changes import FileSnapshot
from ...core.memory.budget import gauge, read_topic_info
from ...core.memory.drafts import Draft
from ...core.memory.store import MemoryStore
from ..styles import style_path
from ..widgets.find_bar import FindBar
from ..widgets.gauge import GaugeBar
from ..widgets.kept_draft import KeptDraft
from ..widgets.keys_footer import KeysFooter
from ..widgets.memory_editor import MemoryEditor
from ..widgets.row_list import without_undecodable_bytes
from .base import BotGone, BotScreen
from .files_drafts import RecoveryDrafts, offer_back
from .files_keys import BINDINGS
from .files_layers import file_key, layer_read_only, layer_state, split_key, store_of
from .files_listing import (
    EDITABLE_KINDS,
    BotFiles,
    Layers,
    editable_text,
    list_options,
    listed_files,
    listed_layers,
    read_bot_files,
)
from .files_operations import (
    delete_file,
    edit_in_external_editor,
    make_room_in_memory,
    new_topic,
    rename_topic,
)
from .files_saving import close_kept_draft_once_agreed, save_edits, save_text

T = TypeVar("T")


class FilesRead(Message, bubble=False):
    """What `load_files` read in its thread: the bot's files and the one to show."""

    def __init__(self, bot_files: BotFiles) -> None:
        super().__init__()
        self.bot_files = bot_files


class FilesScreen(BotScreen):
    EXPLAINS = (
        "The gauge: how much of MEMORY.md loads into every prompt: the first 200 lines or 24 KB, whichever comes "
        "first; amber from 80%, red once something stops loading. It follows your draft as you type.\n"
        "Lines past the cut are kept but do not load; upkeep moves older entries to memory/archive.md to make "
        "room. Topic files load when recall finds them, by their name, description and words."
    )
    CSS_PATH = style_path("files.tcss")
    BINDINGS = BINDINGS
    DRAFT_DELAY = 1.0  # seconds after typing stops before the recovery draft is written

    def __init__(self) -> None:
        super().__init__()
        self.current: FileSnapshot | None = None
        self.files: list[tuple[str, FileKind]] = []
        self.layer_files: Layers = {}  # each person's layer of the bot, listed under the bot's own files
        self.layer_person: str | None = None  # whose layer the open file is of (None: the bot's own)
        self.editing_layer = False  # the open layer file was opened for editing (Ctrl+L); else it is read-only
        self.set_aside_draft: str | None = None  # your draft, shown below the bot's version after Reload
        self.set_aside_draft_rel: str | None = None  # the file it was typed in
        self.bot_name = ""
        self.memory_on = True  # "Let this bot use memory": off, the gauge says nothing loads
        self._lines_cut = False  # MEMORY.md (or the draft of it) has lines past the cut: make room applies
        self.folder = ""
        self._focus_list = False
        self._workspace_seen: str | None = None  # the bot whose workspace the last read found (to notice it go)
        self._requested: str | None = None
        self._keep_place_of: str | None = None  # the file shown again next (Ctrl+R, a save): cursor and scroll stay
        self._as_loaded = ""  # the open file's text as the editor holds it right after loading
        self._editor = MemoryEditor(id="editor")  # held, so the draft can still be read while the app closes
        self.recovery_drafts = RecoveryDrafts(self)

    def compose(self) -> ComposeResult:
        yield Header()
        yield GaugeBar(id="gauge")
        with Horizontal(id="files-body"):
            yield OptionList(id="file-list")
            with Vertical(id="editor-pane"):
                yield Static("", id="conflict-banner")
                yield Static("", id="frontmatter-warning")
                yield self._editor
                yield FindBar(id="find-bar")
                yield KeptDraft(lambda: self.editor.text, id="draft-pane")
                yield Static("", id="file-status")
        yield KeysFooter()

    def on_mount(self) -> None:  # (BotScreen's on_mount runs as well: Textual calls each class's handler)
        self.app.hold_drafts(self)

    def on_screen_suspend(self) -> None:
        if self not in self.app.screen_stack:  # left for another area, not just covered by a dialog
            # Coming back, the area letter that brought the person here is followed by letters meant for the
            # list, never typed into a note: the editor has the keys again only once the person enters it.
            self.set_focus(self.query_one("#file-list", OptionList), scroll_visible=False)

    def on_unmount(self) -> None:
        """The app is closing: unsaved changes are kept for recovery, or go when quitting was agreed."""
        self.recovery_drafts.keep_or_discard_at_close(self.app.return_code)

    @work(exclusive=True, exit_on_error=False, group="save")
    async def save_then(self, then: Callable[[], object]) -> None:
        """Save the unsaved changes (asked about before quitting or opening another bot), then go on if saved."""
        if self.current is not None and self.modified:
            await save_text(self, self.editor.text)
        if not self.modified:
            then()

    def unsaved_draft(self) -> str | None:
        if not self.modified:
            return None
        layer = f" ({self.layer_person}'s layer)" if self.layer_person else ""
        return f"{self.bot_name or self.app.bot_id}'s {self.current.rel}{layer}"

    # ----- state -----
    @property
    def editor(self) -> MemoryEditor:
        return self._editor

    @property
    def workspace_id(self) -> str:
        """The open file's workspace: the bot's, or the person's layer of it (its recovery drafts are kept apart)."""
        return self.app.bot_id if self.layer_person is None else layer_id(self.app.bot_id, self.layer_person)

    @property
    def open_key(self) -> str | None:
        return file_key(self.layer_person, self.current.rel) if self.current else None

    async def in_open_store(self, call: Callable[[MemoryStore], T], *, writing: bool = False) -> T:
        """call(the open file's store: the bot's, or the person's layer's) in a thread, as `in_thread`."""
        person = self.layer_person
        return await self.in_thread(lambda bot: call(store_of(bot, person, writing=writing)))

    @property
    def modified(self) -> bool:
        # Compared with the text as the editor loaded it: the editor makes line endings uniform, so a file
        # with mixed ones is not "modified" until you type, and saving untouched never rewrites its bytes.
        return self.current is not None and self.editor.text != self._as_loaded

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        kind = self.current.kind if self.current else None
        in_layer = self.target_in_layer()
        if action == "edit_layer":  # (out of the footer on a home without layers: the bot's files look as always)
            return in_layer and not (self.editing_layer and self.highlighted_in_list() in (None, self.open_key))
        if in_layer and action in ("external_editor", "rename_topic", "delete_file", "make_room"):
            return False  # a layer's file is edited and saved, nothing more (docs/team-cloud.md, "The app")
        if action == "save":
            return (kind in EDITABLE_KINDS and (self.layer_person is None or self.editing_layer)) or None
        if action == "external_editor":
            return kind in EDITABLE_KINDS or None
        if action == "rename_topic":
            return self.target_kind() is FileKind.TOPIC or None
        if action == "kept_draft":
            return self.set_aside_draft is not None or None
        if action == "make_room":
            return self._lines_cut or None
        if action == "enter_file":  # (a priority key: anywhere else Enter is the focused widget's own)
            return self.highlighted_in_list() is not None
        if action == "focus_list":
            return self.focused is self.editor
        if action == "delete_file":
            return self.target_kind() in (FileKind.MEMORY, FileKind.TOPIC, FileKind.LOG) or None
        return True

    # ----- loading -----
    def reload(self, *, bot_changed: bool) -> None:
        if bot_changed:
            if self.modified:  # the person was asked, and chose to lose the draft
                self.recovery_drafts.discard()
            self.recovery_drafts.forget()
            # Nothing of the previous bot stays on screen while this one is read (or if it cannot be).
            self._show_nothing(f"Reading {self.app.bot_id}…")
        self.load_files(select=None if not bot_changed else self._requested or MEMORY_FILE)

    def _show_nothing(self, status: str) -> None:
        """No file on screen (another bot being read, or none to show): Save and Delete are off."""
        self._focus_list = True
        self.current = None
        self.files, self.layer_files, self.layer_person, self.editing_layer = [], {}, None, False
        self.folder = ""
        self.query_one("#file-list", OptionList).clear_options()
        self.editor.read_only = True
        self.editor.load_text("")
        self._as_loaded = ""
        self._hide_set_aside_draft()
        self.show_banner(None)
        self._check_frontmatter()
        self.query_one("#file-status", Static).update(status)
        self.refresh_bindings()

    def worker_failed(self, worker, error: str) -> None:
        if worker.group != "files":
            return
        if isinstance(worker.error, BotGone):
            self._workspace_seen = None
            if self.modified:  # typing is never dropped: it stays, and so does its recovery draft
                self.show_banner(f"{error} Your unsaved text stays here.")
                return
            self._show_nothing(f"{error}\nCtrl+R reads again.")
        elif self.current is None:  # the bot's files could not be read at all
            self.query_one("#file-status", Static).update(
                f"{self.app.bot_id}: its files cannot be shown. {error}\nCtrl+R tries again."
            )

    @work(thread=True, exclusive=True, exit_on_error=False, group="files")
    def load_files(self, select: str | None) -> None:
        bot = self.bot
        bot.look()  # journal edits made outside the app before showing anything
        if self._workspace_seen == bot.id and not bot.store.workspace.is_dir():
            raise BotGone(bot.id, bot.store.workspace)  # deleted while open (a new bot's is made by its first save)
        files, layers = listed_files(self.app.home, bot.id), listed_layers(self.app.home, bot.id)
        target = select or self._requested or self.open_key or MEMORY_FILE
        worker = get_current_worker()  # a newer load (another file asked for) supersedes this one
        read = read_bot_files(bot, files, layers, target, self.recovery_drafts.find_for, lambda: worker.is_cancelled)
        if read is not None:
            self.post_message(FilesRead(read))

    def on_files_read(self, message: FilesRead) -> None:
        read = message.bot_files
        files, snapshot = read.files, read.snapshot
        self.bot_name = read.bot_name
        self._workspace_seen = self.app.bot_id if read.workspace_exists else None
        self.memory_on = read.memory_on
        self.folder = read.folder
        self.files, self.layer_files = files, read.layers
        option_list = self.query_one("#file-list", OptionList)
        option_list.clear_options()
        option_list.add_options(list_options(read))
        shown = file_key(read.person, snapshot.rel)
        if shown == self._requested:
            self._requested = None
        if read.person != self.layer_person:  # another workspace's file: never taken for the one open
            self.current, self.layer_person = None, read.person
        try:
            option_list.highlighted = option_list.get_option_index(shown)
        except OptionDoesNotExist:
            option_list.highlighted = 0
        self.show_snapshot(snapshot, read.memory_text, read.draft)
        if self.focused is None or self._focus_list:
            # A freshly opened bot: the list has the keys, so the header's letters never type into a note.
            option_list.focus()
            self._focus_list = False

    def _who_changed(self, snapshot: FileSnapshot) -> str:
        """Who made the file as it is now, as the journal names them (the conflict dialog's words): the person from
        the command line is "You", never the bot."""
        from ..dialogs.conflict import row_that_made, who_changed

        try:
            made_it = row_that_made(store_of(self.bot, self.layer_person).journal, snapshot.rel, snapshot.hash)
        except (OSError, ValueError):
            made_it = None
        return who_changed(made_it, self.bot_name)

    def show_snapshot(self, snapshot: FileSnapshot, memory_text: str | None = None, draft: Draft | None = None) -> None:
        """Show a file read from disk, unless the editor holds unsaved changes to it; offer its recovery draft."""
        same_file = self.current is not None and self.current.rel == snapshot.rel
        keep_place = same_file or snapshot.rel == self._keep_place_of
        self._keep_place_of = None
        if same_file and self.modified:
            if snapshot.hash != self.current.hash:
                self.show_banner(f"{self._who_changed(snapshot)} Save to choose: Reload or Overwrite with mine.")
            self._update_gauge(memory_text)
            return
        if self.set_aside_draft is not None and snapshot.rel != self.set_aside_draft_rel:
            self._hide_set_aside_draft()  # the draft set aside after Reload belongs to the file it was typed in
        self.current = snapshot
        self.editing_layer = self.editing_layer and keep_place  # another file opens read-only again
        editor = self.editor
        editor.read_only = snapshot.kind.read_only or not editable_text(snapshot.text)
        editor.read_only |= self.layer_person is not None and not self.editing_layer
        editor.typing_refused = layer_read_only(self.layer_person) if self.layer_person else None
        shown = without_undecodable_bytes(snapshot.text)
        if editor.text != shown and keep_place:
            editor.load_text_keeping_place(shown)  # read again or saved redacted: the person's place stays
            if same_file:
                self.notify(
                    f"{snapshot.rel} changed on disk and was read again; your place in it is kept.",
                    timeout=3,
                    markup=False,
                )
        elif editor.text != shown:
            editor.load_text(shown)
        self._as_loaded = editor.text
        self.show_banner(None)
        self._update_gauge(memory_text)
        self._status()
        self._check_frontmatter()
        self.refresh_bindings()
        if draft is not None and self.recovery_drafts.offer_once(draft, self.current, self.editor.text):
            self.offer_draft(draft)

    def _update_gauge(self, memory_text: str | None) -> None:
        editing_memory = self.current is not None and self.current.kind is FileKind.MEMORY
        text = self.editor.text if editing_memory else memory_text
        if text is None:
            return
        g = gauge(text)  # one load cut per keystroke: the first line not loaded follows from the gauge
        self.query_one(GaugeBar).show(
            g, draft=editing_memory and self.modified, switched_off_for=None if self.memory_on else self.bot_name
        )
        cut_off = editing_memory and g.lines_not_loaded > 0
        self.editor.set_cut_line(g.lines - g.lines_not_loaded if cut_off else None)
        if self._lines_cut != (g.lines_not_loaded > 0):
            self._lines_cut = g.lines_not_loaded > 0
            self.refresh_bindings()

    def _status(self) -> None:
        if self.current is None:
            return
        kind = self.current.kind
        if not editable_text(self.current.text):
            state = "holds bytes that are not UTF-8: shown read-only; Ctrl+O edits it in $EDITOR"
        elif kind is FileKind.LOG:
            state = "daily log: read-only (the bot's own record); F8 deletes it"
        elif self.modified:
            state = "modified — Ctrl+S saves"
            if self._as_loaded != self.current.text:
                state += " (mixed line endings become uniform)"
        else:
            state = "saved"
        folder = self.folder
        if self.layer_person is not None:
            state = layer_state(self.layer_person, self.editing_layer, state)
            folder = str(self.app.home.workspace(self.workspace_id))
        self.query_one("#file-status", Static).update(f"{self.current.rel} · {state}\nFolder: {folder}")

    def _check_frontmatter(self) -> None:
        """A topic's header the index cannot read is said above the editor, with what is wrong, as you type."""
        problem = None
        if self.current is not None and self.current.kind is FileKind.TOPIC:
            problem = read_topic_info(self.current.rel, self.editor.text).frontmatter_problem
        warning = self.query_one("#frontmatter-warning", Static)
        warning.update(
            f"⚠ Its frontmatter cannot be read ({problem}): the topic index lists it by name only." if problem else ""
        )
        warning.display = problem is not None

    def _hide_set_aside_draft(self) -> None:
        if self.recovery_drafts.keeps(self.set_aside_draft_rel):
            self.recovery_drafts.forget()  # its recovery file stays, and is offered when the file opens again
        self.set_aside_draft = self.set_aside_draft_rel = None
        self.query_one(KeptDraft).display = False
        self.refresh_bindings()

    def show_banner(self, text: str | None) -> None:
        """The line above the editor that says the bot changed the file (or is gone); None hides it."""
        banner = self.query_one("#conflict-banner", Static)
        banner.update(text or "")
        banner.display = bool(text)

    def show_file(self, rel: str) -> None:
        """Open rel here (other screens call this); unsaved changes are asked about first.

        The request is remembered until a load shows it, so a reload that showing this screen
        starts (possibly after this call) cannot put another file back over it.
        """
        if self.modified:
            self.open_file(rel)
        else:
            self._requested = rel
            self.load_files(select=rel)

    # ----- events -----
    @on(OptionList.OptionSelected, "#file-list")
    def _file_chosen(self, event: OptionList.OptionSelected) -> None:  # a click, or Enter while the list loads
        self._enter(event.option.id)

    def action_enter_file(self) -> None:
        self._enter(self.highlighted_in_list())

    def _enter(self, key: str | None) -> None:
        if key and key != self.open_key:
            self.open_file(key)
        self.set_focus(self.editor)  # at once: the keys typed right after Enter go into the note

    def action_edit_layer(self) -> None:
        """Ctrl+L: the person's layer file (highlighted in the list, or open) opens for editing, explicitly."""
        key = self.highlighted_in_list()
        if key is not None and key != self.open_key:
            self.open_file(key, for_editing=True)
        else:
            self._edit_layer()
        self.set_focus(self.editor)

    def _edit_layer(self) -> None:
        if self.layer_person is not None and self.current is not None:
            self.editing_layer = True
            self.editor.read_only = self.current.kind.read_only or not editable_text(self.current.text)
            self._status()
            self.refresh_bindings()
            self.notify(
                f"Editing {self.layer_person}'s layer of {self.bot_name}: a save is journaled as yours, and undoable.",
                timeout=4,
                markup=False,
            )

    def target_in_layer(self) -> bool:
        """The file a key acts on (highlighted in the list, else open) is of a person's layer."""
        key = self.highlighted_in_list()
        return split_key(key)[0] is not None if key is not None else self.layer_person is not None

    @work(exclusive=True, exit_on_error=False, group="open")
    async def open_file(self, key: str, *, for_editing: bool = False) -> None:
        if self.modified:
            from ..dialogs.save_choice import SaveChoiceDialog

            choice = await self.app.push_screen_wait(
                SaveChoiceDialog(f"{self.current.rel} has unsaved changes. Leave it and lose them?")
            )
            if choice == "save":
                await save_text(self, self.editor.text)
                if self.modified:  # not saved (a conflict left open, a refusal): stay on the file
                    return
            elif choice == "discard":
                self.recovery_drafts.discard()
            else:
                return
        person, rel = split_key(key)
        snapshot, memory_text, draft = await self.in_thread(lambda bot: self._read_file(bot, person, rel))
        self.current, self.layer_person = None, person
        self.show_snapshot(snapshot, memory_text, draft)
        if for_editing:
            self._edit_layer()

    def _read_file(self, bot, person: str | None, rel: str) -> tuple[FileSnapshot, str, Draft | None]:
        """(In a thread) the file (of the person's layer), its MEMORY.md's text for the gauge, and the file's
        recovery draft if one is kept."""
        store = store_of(bot, person)
        snapshot = store.read(rel)
        return snapshot, store.read(MEMORY_FILE).text, self.recovery_drafts.find_for(snapshot, person)

    @on(TextArea.Changed, "#editor")
    def _editor_changed(self) -> None:
        self.query_one(KeptDraft).follow_editor()
        self._update_gauge(None)
        self._status()
        self._check_frontmatter()
        self.recovery_drafts.follow_editor(self.DRAFT_DELAY)

    # ----- recovery drafts: typing is on disk (outside the workspace) before anything can lose it -----
    @work(exclusive=True, exit_on_error=False, group="offer-draft")
    async def offer_draft(self, draft: Draft) -> None:
        await offer_back(self, draft)

    # ----- actions -----
    def action_focus_list(self) -> None:
        self.set_focus(self.query_one("#file-list", OptionList))  # at once, as Enter: the next letter is a key

    def action_find(self) -> None:
        self.query_one(FindBar).open()

    @on(FindBar.Find)
    def _find(self, message: FindBar.Find) -> None:
        found, count = self.editor.find(message.query, message.step)
        if not message.query:
            result = ""
        elif count == 0:
            result = "not found"
        else:
            result = f"{found} of {count}"
        self.query_one(FindBar).show_result(result)

    def action_kept_draft(self) -> None:
        kept = self.query_one(KeptDraft)
        if self.focused is not None and kept in self.focused.ancestors:
            self.set_focus(self.editor)
        else:
            kept.focus_view()

    @on(KeptDraft.Left)
    def _left_kept_draft(self) -> None:
        self.set_focus(self.editor)

    @on(KeptDraft.CloseAsked)
    def _kept_draft_close_asked(self) -> None:
        self.close_kept_draft()

    @work(exclusive=True, exit_on_error=False, group="dialog")
    async def close_kept_draft(self) -> None:
        await close_kept_draft_once_agreed(self)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.set_focus(self.editor)  # at the match, which stays selected; at once, for the keys typed next

    @work(exclusive=True, exit_on_error=False, group="save")
    async def action_save(self) -> None:
        await save_edits(self)

    def show_saved(self, saved: FileSnapshot, typed: str) -> None:
        """The file as saved from the editor holding `typed`. The editor stays live while the store writes (it
        may wait for the bot's lock): what was typed meanwhile stays in the editor, unsaved."""
        if self.current is None or self.current.rel != saved.rel:
            return  # another file or bot was opened meanwhile, after its own question
        self.recovery_drafts.discard()
        if self.editor.text != typed:
            self.current, self._as_loaded = saved, typed
            self.show_banner(None)
            self._update_gauge(None)
            self._status()
            self.recovery_drafts.follow_editor(self.DRAFT_DELAY)  # the newer typing gets its own recovery draft
            return
        self.current, self._keep_place_of = None, saved.rel
        self.show_snapshot(saved, saved.text if saved.rel == MEMORY_FILE else None)

    def highlighted_in_list(self) -> str | None:
        """The file highlighted in the list while the list has the keys, else None."""
        option_list = self.query_one("#file-list", OptionList)
        if self.focused is option_list and option_list.highlighted is not None and self.current is not None:
            return option_list.get_option_at_index(option_list.highlighted).id
        return None

    def target_kind(self) -> FileKind | None:
        """The kind of the file a key acts on: in the list, the highlighted one; anywhere else, the open one."""
        key = self.highlighted_in_list()
        if key is not None:
            person, rel = split_key(key)
            listed = self.files if person is None else self.layer_files.get(person, [])
            return next((kind for name, kind in listed if name == rel), None)
        return self.current.kind if self.current else None

    @on(OptionList.OptionHighlighted, "#file-list")
    def _file_highlighted(self) -> None:
        self.refresh_bindings()  # Delete acts on the highlighted file

    # ----- whole files: the flows are in files_operations; their workers, and which exclude which, are here -----
    @work(exclusive=True, exit_on_error=False, group="dialog")
    async def action_new_topic(self) -> None:
        await new_topic(self)

    @work(exclusive=True, exit_on_error=False, group="dialog")
    async def action_rename_topic(self) -> None:
        await rename_topic(self)

    @work(exclusive=True, exit_on_error=False, group="dialog")
    async def action_delete_file(self) -> None:
        await delete_file(self)

    @work(exclusive=True, exit_on_error=False, group="dialog")
    async def action_make_room(self) -> None:
        await make_room_in_memory(self)

    @work(exclusive=True, exit_on_error=False, group="save")
    async def action_external_editor(self) -> None:
        await edit_in_external_editor(self)

    @work(exclusive=True, exit_on_error=False, group="dialog")
    async def action_reload_file(self) -> None:
        from ..dialogs.confirm import ConfirmDialog

        if self.current is None:
            return
        if self.modified:
            if not await self.app.push_screen_wait(
                ConfirmDialog("Throw away your unsaved changes and read the file again?", yes="Reload")
            ):
                return
            self.recovery_drafts.discard()
        rel = self.current.rel
        self.current, self._keep_place_of = None, rel
        self.load_files(select=rel)
