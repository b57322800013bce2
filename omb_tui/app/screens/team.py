"""Team memory: a team's accepted notes with what loads within 6,000 bytes, pins, a note's history with restore,
and the pending cards reviewed one by one with the Review area's keys.

Spec: memory.md, "Shared team memory integrity"; docs/team.md for the rules, docs/app.md "Team memory" for the
screen. Everything shown comes from the core (`core.team.api.show`: the notes in load order, each loaded or not,
the gauge, the cards); every change goes through `core.team.api` with the revision the screen showed, so the
core refuses one made on what is no longer there (shown as its one sentence, then the screen reads again). An
edit refused so keeps the person's draft in the editor, with the note as it is now beside it.

What is read and how it is worded (rows, details, the gauge) is in `team_display.py`; the editor is a widget
(`widgets/team_editor.py`); this module is the screen: its keys, what they change, and when it reads again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Header, Static, TabbedContent, TabPane, TextArea

from ..styles import style_path
from ..widgets.keys_footer import KeysFooter
from ..widgets.row_list import printable
from ..widgets.team_editor import TeamEditor
from ..widgets.team_rows import TeamRows
from .base import AreaScreen
from .team_display import (
    CARD_COLUMNS,
    NOTE_COLUMNS,
    VERSION_COLUMNS,
    TeamState,
    card_detail,
    card_rows,
    gauge_text,
    note_detail,
    note_rows,
    read_state,
    version_rows,
)

NOTES, CARDS, HISTORY = "team-notes", "team-cards", "team-history"


class TeamRead(Message, bubble=False):
    def __init__(self, state: TeamState) -> None:
        super().__init__()
        self.state = state


class TeamScreen(AreaScreen):
    CSS_PATH = style_path("team.tcss")
    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("a", "accept", "Accept", id="team-accept", tooltip="Accept the card shown: it loads for every member"),
        Binding("x", "reject", "Reject", id="team-reject", tooltip="Reject the card shown (asks first)"),
        Binding("e", "edit", "Edit", id="team-edit", tooltip="Edit the note; on a card, edit it before accepting it"),
        Binding("n", "next_card", "Next", id="team-next-card", tooltip="The next pending card"),
        Binding("p", "previous_card", "Prev", id="team-previous-card", tooltip="The previous pending card"),
        Binding("j", "move(1)", "Down", show=False, id="team-down", tooltip="The row below"),
        Binding("k", "move(-1)", "Up", show=False, id="team-up", tooltip="The row above"),
        Binding("i", "pin", "Pin", id="team-pin", tooltip="Pin or unpin the note: pinned notes load first"),
        Binding(
            "h",
            "history",
            "History",
            id="team-history-key",
            tooltip="The note's earlier versions; Enter restores one as a new revision",
        ),
        Binding(
            "enter",
            "restore",
            "Restore",
            id="team-restore",
            tooltip="Restore the highlighted earlier version as a new revision (asks first)",
        ),
        Binding(
            "d,delete",
            "delete_note",
            "Delete",
            show=False,
            id="team-delete",
            tooltip="Delete the note (asks first; it stays in its history, restorable)",
        ),
        Binding("c", "choose_team", "Team", id="team-choose", tooltip="Show another of the home's teams"),
        Binding(
            "ctrl+s",
            "save",
            "Save",
            id="team-save",
            priority=True,
            tooltip="Save the edit (on a card: accept it as edited)",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            show=False,
            id="team-back",
            tooltip="Leave the editor (asks if it has changes), or back to the notes",
        ),
        Binding("ctrl+r", "read_again", "Refresh", show=False, id="team-refresh", tooltip="Read the team again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.state = TeamState()
        self.team_key: str | None = None
        self.history_key: str | None = None
        self.select_note: str | None = None  # the note the cursor goes to once the next read arrives
        self.busy = False
        self.team_editor = TeamEditor(id="team-editor")

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Reading the teams…", id="team-line")
        yield Static("", id="team-gauge")
        with TabbedContent(id="team-tabs", initial=NOTES):
            with TabPane("Notes", id=NOTES):
                yield TeamRows(NOTE_COLUMNS, empty="No accepted notes yet.", id="note-list")
                with VerticalScroll(id="note-scroll"):
                    yield Static("", id="note-detail")
            with TabPane("Pending", id=CARDS):
                yield TeamRows(CARD_COLUMNS, empty="No pending cards.", id="card-list")
                with VerticalScroll(id="card-scroll"):
                    yield Static("", id="card-detail")
            with TabPane("History", id=HISTORY):
                yield Static("Pick a note on Notes and press h.", id="history-title")
                yield TeamRows(VERSION_COLUMNS, empty="No earlier versions.", id="version-list")
                with VerticalScroll(id="version-scroll"):
                    yield Static("", id="version-detail")
        yield self.team_editor
        yield KeysFooter()

    def on_mount(self) -> None:  # (AreaScreen's on_mount runs as well)
        self.team_editor.display = False
        self.app.hold_drafts(self)

    # ----- widgets -----
    @property
    def tabs(self) -> TabbedContent:
        return self.query_one("#team-tabs", TabbedContent)

    @property
    def notes_list(self) -> TeamRows:
        return self.query_one("#note-list", TeamRows)

    @property
    def cards_list(self) -> TeamRows:
        return self.query_one("#card-list", TeamRows)

    @property
    def versions_list(self) -> TeamRows:
        return self.query_one("#version-list", TeamRows)

    @property
    def editor(self) -> TextArea:
        return self.team_editor.text_area

    @property
    def editing(self) -> tuple[str, str, int] | None:
        """What the editor edits ("note" or "card"), its key, and the revision the edit is based on; None when
        it is closed."""
        return self.team_editor.editing

    def _list_of(self, tab: str) -> TeamRows:
        return {NOTES: self.notes_list, CARDS: self.cards_list, HISTORY: self.versions_list}[tab]

    def highlighted_note(self):
        team, row = self.state.team, self.notes_list.highlighted
        return team.notes.get(row.id) if team is not None and row is not None else None

    def highlighted_card(self):
        team, row = self.state.team, self.cards_list.highlighted
        return team.cards.get(row.id) if team is not None and row is not None else None

    def history_note(self):
        team = self.state.team
        return team.notes.get(self.history_key) if team is not None and self.history_key else None

    def highlighted_version(self):
        note, row = self.history_note(), self.versions_list.highlighted
        if note is None or row is None:
            return None
        return next((v for v in note.history if str(v.revision) == row.id), None)

    # Which tab each key belongs to: elsewhere it is hidden from the footer (80 columns hold one tab's keys).
    TAB_ACTIONS = {
        "accept": (CARDS,),
        "reject": (CARDS,),
        "edit": (NOTES, CARDS),
        "next_card": (NOTES, CARDS),
        "previous_card": (NOTES, CARDS),
        "pin": (NOTES,),
        "history": (NOTES,),
        "delete_note": (NOTES,),
        "restore": (HISTORY,),
    }

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.is_mounted:
            return True
        if action == "save":
            return self.editing is not None
        if action in ("back", "read_again", "move"):
            return True
        if action == "choose_team":
            return len(self.state.teams) > 1 and not self.editing
        tabs = self.TAB_ACTIONS.get(action)
        if tabs is None:
            return True
        if self.editing or self.tabs.active not in tabs:
            return False
        team = self.state.team
        available = {
            "accept": self.highlighted_card() is not None,
            "reject": self.highlighted_card() is not None,
            "edit": (self.highlighted_card() if self.tabs.active == CARDS else self.highlighted_note()) is not None,
            "next_card": bool(team and team.cards),
            "previous_card": bool(team and team.cards),
            "restore": self.highlighted_version() is not None,
        }.get(action, self.highlighted_note() is not None)
        return True if available and not self.busy else None

    # ----- reading -----
    def read_from_disk(self) -> None:
        self.load_team(self.team_key)

    def action_read_again(self) -> None:
        self.load_team(self.team_key)

    @work(thread=True, exclusive=True, exit_on_error=False, group="team-read")
    def load_team(self, wanted: str | None) -> None:
        self.post_message(TeamRead(read_state(self.app.home, wanted)))

    def on_team_read(self, message: TeamRead) -> None:
        state = self.state = message.state
        team = state.team
        self.team_key = team.key if team is not None else None
        line = self.query_one("#team-line", Static)
        if team is None:
            line.update(Text(state.error or ""))
            self.query_one("#team-gauge", Static).update("")
            for rows in (self.notes_list, self.cards_list, self.versions_list):
                rows.show([])
        else:
            others = f" · c: another team ({len(state.teams)} teams)" if len(state.teams) > 1 else ""
            line.update(Text(f"Team {team.name} ({team.key}) · members: {', '.join(team.bots) or 'none'}{others}"))
            gauge = self.query_one("#team-gauge", Static)
            gauge.update(gauge_text(state.view.load))
            gauge.set_class(bool(state.view.load.not_loaded), "-not-loaded")
            self.notes_list.show(note_rows(state.view), on=self.select_note)
            self.select_note = None
            self.cards_list.show(card_rows(team))
            self.tabs.get_tab(CARDS).label = f"Pending {len(team.cards)}"
            self.tabs.get_tab(NOTES).label = f"Notes {len(team.accepted())}"
            self._show_history()
        self._show_note()
        self._show_card()
        if self.editing:
            self._show_current_beside()
        elif self.focused is None:
            self._list_of(self.tabs.active).focus()
        self.refresh_bindings()

    def _show_note(self) -> None:
        note, view = self.highlighted_note(), self.state.view
        self.query_one("#note-detail", Static).update(note_detail(view, note) if note is not None else "")

    def _show_card(self) -> None:
        card, team = self.highlighted_card(), self.state.team
        if card is None:
            self.query_one("#card-detail", Static).update("")
            return
        self.query_one("#card-detail", Static).update(
            card_detail(team, card, self.cards_list.cursor + 1, len(team.cards))
        )

    def _show_history(self) -> None:
        note = self.history_note()
        title = self.query_one("#history-title", Static)
        if note is None:
            title.update("Pick a note on Notes and press h.")
            self.versions_list.show([])
        else:
            title.update(
                Text(
                    f"{note.key} now: revision {note.revision}, {note.status} · {note.title}. "
                    "Enter restores the highlighted version as a new revision."
                )
            )
            self.versions_list.show(version_rows(note))
        self._show_version()

    def _show_version(self) -> None:
        version = self.highlighted_version()
        self.query_one("#version-detail", Static).update(
            Content(f"{version.title}\n{printable(version.text, keep=chr(10))}") if version is not None else ""
        )

    @on(TeamRows.Highlighted)
    def _row_highlighted(self, event: TeamRows.Highlighted) -> None:
        {"note-list": self._show_note, "card-list": self._show_card, "version-list": self._show_version}[
            event.rows.id
        ]()
        self.refresh_bindings()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if not self.editing:
            self._list_of(self.tabs.active).focus()
        self.refresh_bindings()

    # ----- moving -----
    def action_move(self, delta: int) -> None:
        rows = self._list_of(self.tabs.active)
        rows.move_cursor(rows.cursor + delta)

    def _to_card(self, delta: int) -> None:
        if self.tabs.active != CARDS:
            self.tabs.active = CARDS
            return  # the first press shows the cards, on the card that was shown last
        rows = self.cards_list
        if rows.row_count:
            rows.move_cursor((rows.cursor + delta) % rows.row_count)

    def action_next_card(self) -> None:
        self._to_card(1)

    def action_previous_card(self) -> None:
        self._to_card(-1)

    def action_history(self) -> None:
        note = self.highlighted_note()
        if note is None:
            return
        self.history_key = note.key
        self._show_history()
        self.tabs.active = HISTORY

    def action_back(self) -> None:
        if self.editing:
            self.leave_editor()
        elif self.tabs.active != NOTES:
            self.tabs.active = NOTES

    @work(exclusive=True, exit_on_error=False, group="team-ask")
    async def action_choose_team(self) -> None:
        from ..dialogs.team_pick import TeamPickDialog

        teams = [
            (
                t.key,
                f"{t.name} · {', '.join(t.bots) or 'no members'} · {len(t.accepted())} notes, {len(t.cards)} pending",
            )
            for t in self.state.teams
        ]
        chosen = await self.app.push_screen_wait(TeamPickDialog(teams, self.team_key))
        if chosen and chosen != self.team_key:
            self.history_key = None
            self.team_key = chosen
            self.load_team(chosen)

    # ----- changes: each with the revision shown -----
    async def _change(self, call: Callable[[object, str], object], done: Callable[[object], str]) -> bool:
        """Run one core change in a thread; say what it did, or the core's one sentence; then read again."""
        from ...core.files.paths import MemoryInputError

        self.busy = True
        self.refresh_bindings()
        home, key = self.app.home, self.team_key
        try:
            result = await asyncio.to_thread(call, home, key)
        except (MemoryInputError, OSError) as exc:
            self.notify(str(exc), title="Not changed", severity="warning", timeout=8, markup=False)
            return False
        finally:
            self.busy = False
            self.load_team(self.team_key)
        self.notify(done(result), timeout=4, markup=False)
        return True

    @work(exit_on_error=False, group="team-change")
    async def action_accept(self) -> None:
        from ...core.team import api

        card = self.highlighted_card()
        if card is None:
            return
        await self._change(
            lambda home, team: api.accept(home, team, card.key, card.revision),
            lambda note: f"Accepted {note.key}: every member loads it (revision {note.revision}).",
        )

    @work(exit_on_error=False, group="team-change")
    async def action_reject(self) -> None:
        from ...core.team import api
        from ..dialogs.confirm import ConfirmDialog

        card = self.highlighted_card()
        if card is None:
            return
        question = f"Reject the card for {card.key} (\u201c{card.title}\u201d)? Nothing of it is kept."
        if not await self.app.push_screen_wait(ConfirmDialog(question, yes="Reject")):
            return
        await self._change(
            lambda home, team: api.reject(home, team, card.key, card.revision),
            lambda card: f"Rejected the card for {card.key}.",
        )

    @work(exit_on_error=False, group="team-change")
    async def action_pin(self) -> None:
        from ...core.team import api

        note = self.highlighted_note()
        if note is None:
            return
        await self._change(
            lambda home, team: api.set_pinned(home, team, note.key, note.revision, not note.pinned),
            lambda note: f"{note.key} {'pinned: it loads first' if note.pinned else 'unpinned'}.",
        )

    @work(exit_on_error=False, group="team-change")
    async def action_delete_note(self) -> None:
        from ...core.team import api
        from ..dialogs.confirm import ConfirmDialog

        note = self.highlighted_note()
        if note is None:
            return
        question = (
            f"Delete the note {note.key}? No member loads it after this; its history keeps it, so it can be restored."
        )
        if not await self.app.push_screen_wait(ConfirmDialog(question, yes="Delete")):
            return
        await self._change(
            lambda home, team: api.delete_note(home, team, note.key, note.revision),
            lambda note: f"Deleted {note.key} (restorable from its history).",
        )

    @work(exit_on_error=False, group="team-change")
    async def action_restore(self) -> None:
        from ...core.team import api
        from ..dialogs.confirm import ConfirmDialog

        note, version = self.history_note(), self.highlighted_version()
        if note is None or version is None:
            return
        question = (
            f"Restore version {version.revision} of {note.key} (\u201c{version.title}\u201d)? It becomes "
            f"a new revision; the text now goes into the history."
        )
        if not await self.app.push_screen_wait(ConfirmDialog(question, yes="Restore")):
            return
        await self._change(
            lambda home, team: api.restore(home, team, note.key, version.revision, note.revision),
            lambda note: f"Restored {note.key}: now at revision {note.revision}.",
        )

    # ----- the editor: a note, or a card before accepting it -----
    def action_edit(self) -> None:
        if self.tabs.active == CARDS:
            card = self.highlighted_card()
            if card is not None:
                self._open_editor("card", card.key, card.revision, card.title, card.text)
        else:
            note = self.highlighted_note()
            if note is not None:
                self._open_editor("note", note.key, note.revision, note.title, note.text)

    def _open_editor(self, kind: str, key: str, revision: int, title: str, text: str) -> None:
        self.team_editor.open(kind, key, revision, title, text)
        self.tabs.display = False
        self.team_editor.display = True
        self.editor.focus()
        self.refresh_bindings()

    def unsaved_draft(self) -> str | None:
        """For the app's quit question: the edit with changes, if one is open."""
        if not self.team_editor.has_changes():
            return None
        return f"Your edit of the team note {self.editing[1]}"

    def _current_of_edited(self):
        """The record the editor edits as the screen last read it (None when it is gone)."""
        team = self.state.team
        if team is None or not self.editing:
            return None
        kind, key, _ = self.editing
        return (team.cards if kind == "card" else team.notes).get(key)

    def _show_current_beside(self, *, after_refusal: bool = False) -> None:
        self.team_editor.show_current_beside(self._current_of_edited(), after_refusal=after_refusal)

    @work(exit_on_error=False, group="team-change")
    async def action_save(self) -> None:
        from ...core.files.paths import MemoryInputError
        from ...core.team import api
        from ...core.team.notes import StaleRevision

        if not self.editing or self.busy:
            return
        kind, key, revision = self.editing
        title, text = self.team_editor.draft()
        home, team = self.app.home, self.team_key

        def call():
            if kind == "card":  # edited before accepting: the card's checks, the person's words
                return api.accept(home, team, key, revision, title=title, text=text)
            return api.edit(home, team, key, revision, text, title=title)

        self.busy = True
        try:
            note = await asyncio.to_thread(call)
        except StaleRevision as exc:
            self.notify(str(exc), title="Not saved", severity="warning", timeout=8, markup=False)
            state = await asyncio.to_thread(read_state, home, team)
            self.on_team_read(TeamRead(state))
            self._show_current_beside(after_refusal=True)
            return
        except (MemoryInputError, OSError) as exc:
            self.notify(str(exc), title="Not saved", severity="warning", timeout=8, markup=False)
            return
        finally:
            self.busy = False
            self.refresh_bindings()
        self._close_editor()
        self.tabs.active = NOTES
        self.select_note = note.key
        done = "Accepted as edited" if kind == "card" else "Saved"
        self.notify(f"{done}: {note.key} is at revision {note.revision}.", timeout=4, markup=False)
        self.load_team(self.team_key)

    @work(exclusive=True, exit_on_error=False, group="team-ask")
    async def leave_editor(self) -> None:
        from ..dialogs.confirm import ConfirmDialog

        if self.unsaved_draft() is not None:
            if not await self.app.push_screen_wait(
                ConfirmDialog("Leave the editor and lose your changes?", yes="Discard changes")
            ):
                return
        self._close_editor()

    def _close_editor(self) -> None:
        self.team_editor.editing = None
        self.team_editor.display = False
        self.tabs.display = True
        self._list_of(self.tabs.active).focus()
        self.refresh_bindings()
