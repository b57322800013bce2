"""Journal: every change to the bot's memory files, newest first, with its diff and undo.

Spec: memory.md, "The journal". The list shows who, how, file and when for each row, the selected row's
diff beside it (below it when the terminal is narrow), coloured. `u` undoes the selected row after a
confirmation that names every later change to the same file (which the undo throws away too); a row
that cannot be undone says why instead. One filter box narrows by words, file, who, how, chat and day.
The list never holds one widget or one parsed object per row, so a 100,000-row journal opens at once;
rows written while it is open are read from the file's new tail alone.
"""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.markup import escape
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Header, Input, Static

from ...core.base.text import plural
from ...core.files.paths import MemoryInputError
from ...core.journal.changes import LaterChanges, RevertConflict, UndoResult
from ...core.journal.filter import JournalFilter
from ...core.journal.journal import DamagedLine, JournalRow, row_action
from ...core.journal.when import when_text
from ...core.memory.store import MemoryStore
from ...core.turn.bot import Bot
from ..styles import style_path
from ..widgets.diff_view import DiffView
from ..widgets.journal_list import FILTER_HELP, JournalList
from ..widgets.keys_footer import KeysFooter
from .base import BotScreen

FILTER_DELAY = 0.25  # seconds of quiet typing before the filter runs
FILTER_HINTS = ("/ filter: words", "file:NAME", "who:bot", "how:undo", "day:YYYY-MM-DD")


class OutsideChangesJournaled(Message, bubble=False):
    """`look_then_read` journaled what changed outside the app: the list reads the journal's new tail."""


class JournalScreen(BotScreen):
    CSS_PATH = style_path("journal.tcss")
    AUTO_FOCUS = "#journal-list"
    # Side by side from 120 columns; below that the diff goes under the list so both stay readable.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [
        Binding(
            "u",
            "undo",
            "Undo",
            id="journal-undo",
            tooltip="Undo the selected change; asks first and names later changes to the same file",
        ),
        Binding(
            "R",
            "revert",
            "Revert",
            id="journal-revert",
            tooltip="Take back the selected change alone, keeping later changes to the file; asks first",
        ),
        Binding("slash", "focus_filter", "Filter", id="journal-filter", tooltip=FILTER_HELP),
        Binding(
            "enter",
            "show_diff",
            "Diff",
            id="journal-show-diff",
            tooltip="Move into the selected row's diff to scroll it",
        ),
        Binding(
            "escape", "back", "Back", show=False, id="journal-back", tooltip="Clear the filter, or go back to the list"
        ),
        Binding(
            "ctrl+r",
            "reread",
            "Re-read",
            show=False,
            id="journal-reread",
            tooltip="Read the whole journal again from disk",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._filter_timer: Timer | None = None
        self._actions_shown = (False, False)  # undo, show diff: off until a row is there

    def compose(self) -> ComposeResult:
        yield Header()
        filter_box = Input(
            placeholder=filter_placeholder(10_000),
            id="journal-filter-box",
            compact=True,
        )
        filter_box.tooltip = FILTER_HELP
        yield filter_box
        with Container(id="journal-body"):
            yield JournalList(id="journal-list")
            yield DiffView(id="journal-diff")
        yield Static("", id="journal-status")
        yield KeysFooter()

    # ----- parts -----
    @property
    def journal_list(self) -> JournalList:
        return self.query_one("#journal-list", JournalList)

    @property
    def diff_view(self) -> DiffView:
        return self.query_one("#journal-diff", DiffView)

    @property
    def filter_box(self) -> Input:
        return self.query_one("#journal-filter-box", Input)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("undo", "revert"):  # on a damaged line too: the key says why it cannot be undone
            return self.journal_list.row_at_cursor() is not None or None
        if action == "show_diff":
            return self.journal_list.row_at_cursor() is not None or None
        return True

    # ----- loading -----
    def reload(self, *, bot_changed: bool) -> None:
        path = self.app.home.journal_path(self.app.bot_id)
        if bot_changed or self.journal_list.path != path:
            self.journal_list.open(path)
        self.look_then_read(self.app.bot_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="journal-look")
    def look_then_read(self, bot_id: str) -> None:
        """Journal edits made outside the app first, then read whatever the journal gained."""
        Bot(self.app.home, bot_id).look()
        self.post_message(OutsideChangesJournaled())

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_filter_hints)

    def _fit_filter_hints(self) -> None:
        box = self.query_one("#journal-filter-box", Input)
        box.placeholder = filter_placeholder(box.content_region.width)

    def on_outside_changes_journaled(self) -> None:
        self.journal_list.refresh_tail()

    def action_reread(self) -> None:
        if self.journal_list.path is not None:
            self.journal_list.open(self.journal_list.path)

    # ----- the list and the diff -----
    @on(JournalList.Highlighted, "#journal-list")
    def _row_highlighted(self, event: JournalList.Highlighted) -> None:
        row = None if event.offset is None else self.journal_list.row(event.offset)
        self.diff_view.show(row)
        actions = (isinstance(row, JournalRow), row is not None)
        if actions != self._actions_shown:  # the footer is rebuilt only when a key turns on or off
            self._actions_shown = actions
            self.refresh_bindings()

    @on(JournalList.Counted, "#journal-list")
    def _counted(self) -> None:
        self.query_one("#journal-status", Static).update(self.status_text())

    def status_text(self) -> str:
        listing = self.journal_list
        total = plural(listing.total, "row", grouped=True)
        if listing.reading:
            total = f"reading… {total} so far"
        if listing.filter.empty:
            state = f"{total}, newest first"
        elif listing.filtering:
            state = f"filtering… {listing.shown:,} found in {total}"
        else:
            state = f"{listing.shown:,} of {total} match"
        if listing.new_above:  # the rows the person looks at stayed put; the new ones are one key away
            count = listing.new_above
            return f"{state} · {plural(count, 'new row', grouped=True)} above: Home shows them"
        return f"{state} · ⊘ cannot be undone · ? lists every key"

    def action_show_diff(self) -> None:
        self.diff_view.focus()

    # ----- the filter -----
    def action_focus_filter(self) -> None:
        self.filter_box.focus()

    @on(Input.Changed, "#journal-filter-box")
    def _filter_typed(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, self.apply_filter)

    @on(Input.Submitted, "#journal-filter-box")
    def _filter_submitted(self) -> None:
        self.apply_filter()
        self.journal_list.focus()

    def apply_filter(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        self.journal_list.set_filter(JournalFilter.parse(self.filter_box.value))

    def action_back(self) -> None:
        focused = self.focused
        if focused is self.filter_box and self.filter_box.value:
            self.filter_box.value = ""
            self.apply_filter()
        elif focused is self.journal_list and not self.journal_list.filter.empty:
            self.filter_box.value = ""
            self.apply_filter()
        else:
            self.journal_list.focus()

    # ----- undo -----
    def _row_to_take_back(self, verb: str, title: str) -> JournalRow | None:
        """The selected row, when it can be undone or reverted; else None, having said why."""
        row = self.journal_list.row_at_cursor()
        if row is None:
            return None
        if isinstance(row, DamagedLine):
            self.notify(f"This journal line is damaged and cannot be {verb}.", severity="warning", markup=False)
            return None
        if not row.undoable:
            reason = row.not_undoable_reason or "no earlier text was kept"
            self.notify(
                f"This change to {row.file} cannot be {verb}: {reason}.", title=title, severity="warning", markup=False
            )
            return None
        return row

    @work(exclusive=True, exit_on_error=False, group="journal-undo")
    async def action_undo(self) -> None:
        row = self._row_to_take_back("undone", "Cannot undo")
        if row is not None:
            await self.undo_flow(row)

    @work(exclusive=True, exit_on_error=False, group="journal-undo")
    async def action_revert(self) -> None:
        """Revert the selected change alone (the core merges its reverse into the file as it is now); when that
        does not apply, say why and offer the whole-file undo."""
        from ..dialogs.confirm import ConfirmDialog

        row = self._row_to_take_back("reverted", "Cannot revert")
        if row is None:
            return
        store = (await self.in_thread(lambda bot: bot)).store  # this bot's, whatever opens while asking
        if not await self.app.push_screen_wait(ConfirmDialog(revert_question(row), yes="Revert")):
            return
        try:
            result = await asyncio.to_thread(store.revert, row.id)
        except RevertConflict as conflict:  # the sentence says why and that undo puts the whole file back
            question = escape(f"{conflict}\nUndo instead? The next question names the later changes that go too.")
            if await self.app.push_screen_wait(ConfirmDialog(question, yes="Undo instead…", no="Leave it")):
                await self.undo_flow(row)
            return
        except MemoryInputError as exc:  # already taken back, no such row, a file that cannot be read
            self.notify(str(exc), title="Not reverted", severity="error", markup=False)
            return
        kept = f"; {plural(len(result.later), 'later change')} kept" if result.later else ""
        self.notify(
            f"The change to {row.file} of {when_text(row.at)} is taken back{kept}. The revert is at the top "
            "of the journal.",
            title="Reverted",
            timeout=4,
            markup=False,
        )
        self.journal_list.refresh_tail(select_newest=True)
        self.journal_list.focus()

    async def undo_flow(self, row: JournalRow) -> None:
        """Undo the row after the question naming later changes to the same file (the whole file goes back)."""
        store = (await self.in_thread(lambda bot: bot)).store  # this bot's, whatever opens while asking
        result = await ask_and_undo(self, store, row)
        if result is not None:
            self.journal_list.refresh_tail(select_newest=True)
            self.journal_list.focus()


async def ask_and_undo(screen: Screen, store: MemoryStore, row: JournalRow, why: str = "") -> UndoResult | None:
    """Ask before undoing the row, naming the later changes to its file that go too, and undo on yes; asked
    again while the file keeps changing under the question. Shared by the journal's `u` and the Review area.

    `why`: a sentence put above the question (why the change cannot be taken back alone). None when the person
    said no or the core refused (said in a notification)."""
    from ..dialogs.confirm import ConfirmDialog

    looking = asyncio.ensure_future(asyncio.to_thread(store.journal.later_rows_for_file, row))
    done, _ = await asyncio.wait({looking}, timeout=0.3)
    if not done:  # an old row in a big journal: every newer row is read
        screen.notify(f"Looking for later changes to {row.file}…", timeout=3, markup=False)
    later = await looking
    unseen = ""  # the core's sentence once it said the file changed where this journal cannot see
    while True:
        question, yes, details = undo_question(row, later, unseen)
        if why:
            question = f"{escape(why)}\n\n{question}"
        if not await screen.app.push_screen_wait(ConfirmDialog(question, yes=yes, details=details)):
            return None
        try:
            result = await asyncio.to_thread(undo_confirmed, store, row, later, unseen_ok=bool(unseen))
        except LaterChanges as changed:  # the file changed again while the question was open
            later, unseen = changed.later, "" if changed.later else str(changed)
            continue
        except MemoryInputError as exc:
            screen.notify(str(exc), title="Not undone", severity="error", markup=False)
            return None
        screen.notify(undone_text(result), title="Undone", timeout=4, markup=False)
        return result


def filter_placeholder(width: int) -> str:
    """The filter's hints that fit in `width` cells, each whole, ending in "…" when some are left out (the box's
    tooltip and F1 name them all)."""
    for count in range(len(FILTER_HINTS), 0, -1):
        text = "  ".join(FILTER_HINTS[:count]) + ("" if count == len(FILTER_HINTS) else "  …")
        if len(text) <= width:
            return text
    return FILTER_HINTS[0][: max(width - 1, 0)] + "…"


def undo_confirmed(
    store: MemoryStore, row: JournalRow, confirmed_later: list[JournalRow], *, unseen_ok: bool = False
) -> UndoResult:
    """Undo, throwing away exactly the later changes the person agreed to (the core checks them under the
    bot's lock); any other raises LaterChanges, and the person is asked again. `unseen_ok`: the person was
    told the file changed where this journal cannot see (another bot, outside the app) and said yes."""
    return store.undo(row.id, confirmed_later=[r.id for r in confirmed_later], unseen_ok=unseen_ok)


def _row_words(row: JournalRow) -> str:
    from ...core.review.writers import row_words

    return f"{when_text(row.at)} · {row_words(row, row.bot)}"


def undo_question(row: JournalRow, later: list[JournalRow], unseen: str = "") -> tuple[str, str, str]:
    """The confirmation text (markup-escaped), the label of the button that goes ahead, and the list of the later
    changes that go too (plain text, one a line; the dialog scrolls it). `unseen`: the core's sentence saying the
    file changed where this journal cannot see, and that it would go too.
    """
    from ..dialogs.confirm import details_of

    if row.before_hash is None:
        effect = (
            "The file did not exist before, so undoing empties it."
            if row.file == "MEMORY.md"
            else "The file did not exist before, so undoing deletes it."
        )
    else:
        effect = "The file goes back to what it said before."
    lines = [f"Undo this change to {row.file}?", f"  {_row_words(row)}", effect]
    if unseen:
        lines.append(unseen)
    lines.append("The undo is journaled, so it can be undone in turn.")
    if later:
        lines.append(f"{plural(len(later), 'later change')} to it will be undone too:")
    yes = f"Undo {len(later) + 1} changes" if later else "Undo"
    return escape("\n".join(lines)), yes, details_of([_row_words(other) for other in later])


def revert_question(row: JournalRow) -> str:
    """The revert confirmation (markup-escaped), short enough for 80x24."""
    lines = [
        f"Revert this change to {row.file} alone?",
        f"  {_row_words(row)} · {row_action(row)}",
        "Its lines go back as they were; later changes to the file stay.",
        "The revert is journaled, so it can be undone in turn.",
    ]
    return escape("\n".join(lines))


def undone_text(result: UndoResult) -> str:
    row = result.row
    later = f" and {plural(len(result.later), 'later change')}" if result.later else ""
    return f"{row.file} is back as it was before {when_text(row.at)}{later}. The undo is at the top of the journal."
