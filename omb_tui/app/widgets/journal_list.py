"""The journal list: every row of one bot's journal, newest first, drawn with Textual's line API.

Spec: memory.md, "The journal". A journal can hold 100,000 rows, each carrying a full earlier text,
so nothing here holds the file or one object per row: the list keeps the byte offset where each line
starts (read by the core's journal_reader, from the end backwards). The newest screenful is read as the
list opens; older rows arrive from a background scan. A row is parsed only when it is drawn or selected
(and cached); filters (the core's journal_filter) scan the file in a thread the same way, reading only the
few fields they need. A damaged line is shown as one, never raised. Rows appended while the list is open
are read from the new tail alone.
"""

from __future__ import annotations

import os
import textwrap
import time
from array import array
from operator import attrgetter
from pathlib import Path
from typing import BinaryIO

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.message import Message
from textual.strip import Strip
from textual.worker import get_current_worker

from ...core.journal.filter import FILTER_SYNTAX, JournalFilter, RowSummary, summarize
from ...core.journal.journal import (
    HOW_COMMAND_LINE,
    HOW_OUTSIDE,
    HOW_SETTINGS,
    HOW_TASK,
    HOW_UPKEEP,
    RENAME_NOTES,
    WHO_UPKEEP,
    DamagedLine,
    JournalRow,
    decode_line,
    row_action,
    row_writer,
)
from ...core.journal.reader import FIRST_CHUNK, RowOrder, complete_end, lines_backward, lines_forward
from ..worker_errors import NotifyWorkerErrors
from .row_list import RowHighlighted, RowList, cut_to_width, fit, fit_path, printable, when_text

FIRST_ROWS = 80  # a tall screenful: read when the journal opens, before the background scan
SYNC_BYTES = 1 << 18  # ... unless its lines are huge: the UI thread reads at most this much
BATCH_SECONDS = 0.1  # how often a scan hands what it found to the list
# Shorter words for a narrow list; the diff beside it always says them in full.
SHORT_HOW = {
    HOW_OUTSIDE: "outside app",
    HOW_TASK: "task",
    HOW_SETTINGS: "Settings",
    HOW_UPKEEP: "upkeep",
    HOW_COMMAND_LINE: "command",
}
SHORT_WHO = {WHO_UPKEEP: "upkeep"}
ROW_CACHE_SIZE = 1024
FILTER_HELP = f"Filter the journal. {FILTER_SYNTAX} Escape clears it."

ShownRow = JournalRow | DamagedLine


class JournalList(NotifyWorkerErrors, RowList):
    """One journal, newest first, one line per row: when, who, how, file; ⊘ marks rows that cannot be undone."""

    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False, id="journal-list-up", tooltip="The newer row"),
        Binding("down", "cursor_down", "Down", show=False, id="journal-list-down", tooltip="The older row"),
        Binding(
            "pageup", "page_up", "Page up", show=False, id="journal-list-page-up", tooltip="One page of newer rows"
        ),
        Binding(
            "pagedown",
            "page_down",
            "Page down",
            show=False,
            id="journal-list-page-down",
            tooltip="One page of older rows",
        ),
        Binding("home", "first", "Newest", show=False, id="journal-list-newest", tooltip="The newest row"),
        Binding("end", "last", "Oldest", show=False, id="journal-list-oldest", tooltip="The oldest row"),
    ]

    COMPONENT_CLASSES = {
        "journal-list--when",
        "journal-list--who",
        "journal-list--how",
        "journal-list--what",
        "journal-list--file",
        "journal-list--not-undoable",
        "journal-list--damaged",
        "journal-list--message",
    }

    DEFAULT_CSS = """
    JournalList {
        & > .journal-list--when { color: $text-muted; }
        & > .journal-list--who { color: $text-accent; }
        & > .journal-list--how { color: $foreground; }
        & > .journal-list--what { color: $text-secondary; }
        & > .journal-list--file { color: $foreground; text-style: bold; }
        & > .journal-list--not-undoable { color: $text-warning; text-style: bold; }
        & > .journal-list--damaged { color: $text-error; }
        & > .journal-list--message { color: $text-muted; text-style: italic; }
    }
    """

    class Highlighted(RowHighlighted):
        """The row under the cursor changed; `offset` is None when nothing is shown."""

        journal_list = property(attrgetter("row_list"))
        offset = property(attrgetter("current"))

    class Counted(Message):
        """How many rows there are and are shown, and whether reading or filtering is still going on."""

        def __init__(self, journal_list: JournalList) -> None:
            super().__init__()
            self.journal_list = journal_list

        @property
        def control(self) -> JournalList:
            return self.journal_list

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.path: Path | None = None
        self.filter = JournalFilter()
        self.reading = False  # the backward index scan is still going
        self.filtering = False  # a filter scan is still going
        self.error: str | None = None  # why the journal cannot be read
        self._generation = 0  # a new one each time the file is read from scratch
        self._filter_run = 0
        self._all = RowOrder()
        self._shown = self._all
        self._scanned_to = 0  # just after the last newline indexed
        self._file_id: tuple[int, int] | None = None
        self._newest_wanted = False
        self.new_above = 0  # rows that arrived while the list was open and wait above the view, unseen
        self._announced: object = object()
        self._handle: BinaryIO | None = None
        self._rows: LRUCache[int, ShownRow] = LRUCache(ROW_CACHE_SIZE)

    # ----- what the screen asks -----
    @property
    def total(self) -> int:
        return len(self._all)

    @property
    def shown(self) -> int:
        return len(self._shown)

    @property
    def ready(self) -> bool:
        """A journal is open: its newest rows are known (or it is empty)."""
        return self.path is not None

    def offset_at(self, index: int) -> int | None:
        return self._shown.at(index) if 0 <= index < len(self._shown) else None

    def row_at(self, index: int) -> ShownRow | None:
        offset = self.offset_at(index)
        return None if offset is None else self.row(offset)

    def row_at_cursor(self) -> ShownRow | None:
        return self.row_at(self.cursor)

    def row(self, offset: int) -> ShownRow:
        """The row starting at this byte offset, parsed once and cached (without its earlier text)."""
        cached = self._rows.get(offset)
        if cached is not None:
            return cached
        try:
            if self._handle is None:
                assert self.path is not None
                self._handle = open(self.path, "rb")
            self._handle.seek(offset)
            data = self._handle.readline().rstrip(b"\n")
        except (OSError, AssertionError) as exc:
            return DamagedLine(offset, 0, f"could not be read: {exc}")
        shown = decode_line(data, offset)
        if isinstance(shown, JournalRow):
            # the earlier text can be a megabyte and nothing here shows it; undo reads it from the file
            shown.before_text = None
        self._rows[offset] = shown
        return shown

    # ----- reading the file -----
    def open(self, path: Path) -> None:
        """Read a journal from scratch: the newest screenful now, every older row in the background.

        The newest rows are read here, on the UI thread, because they are a bounded read at the end of
        the file (at most SYNC_BYTES, like drawing a few rows) and showing them cannot wait for a worker.
        """
        self._close_handle()
        self.workers.cancel_group(self, "journal-index")
        self.workers.cancel_group(self, "journal-filter")
        self.path = path
        self._generation += 1
        self._filter_run += 1
        self._all = RowOrder()
        self._shown = self._all if self.filter.empty else RowOrder()
        self._rows.clear()
        self.forget_drawn()
        self._announced = object()
        self.cursor = 0
        self.new_above = 0
        self.error = None
        self.reading = False
        self.filtering = False
        self._scanned_to, self._file_id = 0, None
        resume = 0
        try:
            with open(path, "rb") as handle:
                stat = os.fstat(handle.fileno())
                self._file_id = (stat.st_dev, stat.st_ino)
                self._scanned_to = resume = complete_end(handle, stat.st_size)
                for offset, _, _, _ in lines_backward(handle, self._scanned_to, chunk=FIRST_CHUNK):
                    self._all.older.append(offset)
                    resume = offset
                    if len(self._all.older) >= FIRST_ROWS or self._scanned_to - offset > SYNC_BYTES:
                        break
                else:
                    resume = 0
        except FileNotFoundError:
            pass  # no changes yet; the file appears with the first one
        except OSError as exc:
            self.error = f"The journal {path} cannot be read: {exc.strerror or exc}."
        self.reading = resume > 0
        if self.reading:
            self._index_backward(self._generation, path, resume)
        if not self.filter.empty and self.error is None:
            self.filtering = True
            self._filter_backward(self._generation, self._filter_run, path, self._scanned_to, self.filter)
        self.scroll_to(y=0, animate=False)
        self.resize_virtual()
        self.refresh()
        self._changed()

    def refresh_tail(self, *, select_newest: bool = False) -> None:
        """Pick up rows appended since the last look (reading only the new tail)."""
        self._newest_wanted = self._newest_wanted or select_newest
        if self.path is not None:
            self._scan_tail(self._generation, self.path, self._scanned_to, self._file_id)

    def set_filter(self, journal_filter: JournalFilter) -> None:
        if journal_filter == self.filter:
            return
        keep = self.offset_at(self.cursor)
        self.filter = journal_filter
        self._filter_run += 1
        self.new_above = 0  # another list: what was new above is part of it
        self.forget_drawn()
        if journal_filter.empty:
            self.workers.cancel_group(self, "journal-filter")
            self.filtering = False
            self._shown = self._all
            self._place_cursor(keep)
        else:
            self._shown = RowOrder()
            self.filtering = True
            self.cursor = 0
            self.scroll_to(y=0, animate=False)
            if self.path is not None:
                self._filter_backward(self._generation, self._filter_run, self.path, self._scanned_to, journal_filter)
        self.resize_virtual()
        self.refresh()
        self._changed()

    @work(thread=True, exclusive=True, exit_on_error=False, group="journal-index")
    def _index_backward(self, generation: int, path: Path, end: int) -> None:
        """Every row older than the first screenful, handed over in batches."""
        worker = get_current_worker()
        try:
            handle = open(path, "rb")
        except FileNotFoundError:  # removed since it was opened: the next look reads it from scratch
            self._call(self._index_done, generation)
            return
        with handle:
            batch = array("q")
            last_post = time.monotonic()
            for count, (offset, _, _, _) in enumerate(lines_backward(handle, end)):
                batch.append(offset)
                if count % 4096 == 0 and time.monotonic() - last_post > BATCH_SECONDS:
                    if worker.is_cancelled:
                        return
                    self._call(self._add_older, generation, batch)
                    batch, last_post = array("q"), time.monotonic()
            self._call(self._add_older, generation, batch)
        self._call(self._index_done, generation)

    @work(thread=True, exclusive=True, exit_on_error=False, group="journal-filter")
    def _filter_backward(self, generation: int, run: int, path: Path, end: int, journal_filter: JournalFilter) -> None:
        worker = get_current_worker()
        try:
            handle = open(path, "rb")
        except FileNotFoundError:
            self._call(self._filter_done, generation, run)
            return
        with handle:
            batch = array("q")
            last_post = time.monotonic()
            first = True
            chat = journal_filter.needs_chat
            matches_line = journal_filter.matches_line
            for count, (offset, block, start, stop) in enumerate(lines_backward(handle, end)):
                if matches_line(block, start, stop, chat=chat):
                    batch.append(offset)
                    if first and len(batch) >= FIRST_ROWS:  # the newest matches show at once
                        self._call(self._add_matches, generation, run, batch)
                        batch, last_post, first = array("q"), time.monotonic(), False
                if count % 512 == 0 and time.monotonic() - last_post > BATCH_SECONDS:
                    if worker.is_cancelled:
                        return
                    self._call(self._add_matches, generation, run, batch)
                    batch, last_post, first = array("q"), time.monotonic(), False
            self._call(self._add_matches, generation, run, batch)
        self._call(self._filter_done, generation, run)

    @work(thread=True, exclusive=True, exit_on_error=False, group="journal-tail")
    def _scan_tail(self, generation: int, path: Path, start: int, file_id: tuple[int, int] | None) -> None:
        try:
            handle = open(path, "rb")
        except FileNotFoundError:
            if start > 0:
                self._call(self._restart, generation)
            return
        with handle:
            stat = os.fstat(handle.fileno())
            replaced = file_id is not None and (stat.st_dev, stat.st_ino) != file_id
            shrunk = stat.st_size < start
            if not replaced and not shrunk and start > 0:
                handle.seek(start - 1)
                shrunk = handle.read(1) != b"\n"
            if replaced or shrunk:
                self._call(self._restart, generation)
                return
            if stat.st_size == start:
                self._call(self._add_newer, generation, start, start, [], None)
                return
            lines, end = lines_forward(handle, start)
            self._call(
                self._add_newer,
                generation,
                start,
                end,
                [(offset, summarize(data)) for offset, data in lines],
                (stat.st_dev, stat.st_ino),
            )

    def _call(self, callback, *args) -> None:
        """Hand results to the UI thread; a closing app just stops the scan."""
        try:
            self.app.call_from_thread(callback, *args)
        except RuntimeError:
            get_current_worker().cancel()

    # ----- results, on the UI thread -----
    def _add_older(self, generation: int, offsets: array) -> None:
        if generation != self._generation:
            return
        self._all.older.extend(offsets)
        if self._shown is self._all:
            self.resize_virtual()
            self.refresh()
        self._changed()

    def _index_done(self, generation: int) -> None:
        if generation == self._generation:
            self.reading = False
            self.refresh()
            self._changed()

    def _add_matches(self, generation: int, run: int, offsets: array) -> None:
        if generation != self._generation or run != self._filter_run:
            return
        self._shown.older.extend(offsets)
        self.resize_virtual()
        self.refresh()
        self._changed()

    def _filter_done(self, generation: int, run: int) -> None:
        if generation == self._generation and run == self._filter_run:
            self.filtering = False
            self.refresh()
            self._changed()

    def _add_newer(
        self,
        generation: int,
        start: int,
        end: int,
        lines: list[tuple[int, RowSummary | None]],
        file_id: tuple[int, int] | None,
    ) -> None:
        if generation != self._generation:
            return
        if start != self._scanned_to:
            if end > self._scanned_to:  # an older scan finished late: read again from where we are
                self.refresh_tail()
            return
        self._scanned_to = end
        if file_id is not None:
            self._file_id = file_id
        keep = self.offset_at(self.cursor)
        top = round(self.scroll_offset.y)
        before = len(self._shown)
        self._all.newer.extend(offset for offset, _ in lines)
        if self._shown is not self._all:
            self._shown.newer.extend(offset for offset, summary in lines if self.filter.matches(summary))
        added = len(self._shown) - before
        self.resize_virtual()
        if self._newest_wanted:
            self._newest_wanted = False
            self.cursor = 0
            self.new_above = 0
            self.scroll_to(y=0, animate=False)
        elif added:
            if keep is not None:  # the selected row stays selected, wherever the new rows push it
                self.cursor = self._shown.index_of(keep)
            if top == 0:  # the top is in view: the new rows show there, scrolling only to keep the cursor in view
                new_top = max(0, self.cursor - self.rows_in_view + 1)
            else:  # the rows the person is looking at stay where they are; the new ones wait above
                new_top = top + added
            self.new_above = min(self.new_above + added, new_top)
            self.scroll_to(y=new_top, animate=False)
        self.refresh()
        self._changed()

    def _restart(self, generation: int) -> None:
        if generation == self._generation and self.path is not None:
            self.open(self.path)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.new_above > round(new_value):  # scrolled up to some of the new rows: they are seen
            self.new_above = round(new_value)
            self.post_message(self.Counted(self))

    # ----- cursor -----
    @property
    def row_count(self) -> int:
        return len(self._shown)

    def cursor_moved(self) -> None:
        self._announce()

    def _place_cursor(self, offset: int | None) -> None:
        if offset is None or not len(self._shown):
            self.cursor = 0
        else:
            self.cursor = min(self._shown.index_of(offset), len(self._shown) - 1)
        self.scroll_to_cursor()

    def _announce(self) -> None:
        current = self.offset_at(self.cursor)
        if current != self._announced:
            self._announced = current
            self.post_message(self.Highlighted(self, current))

    def _changed(self) -> None:
        count = len(self._shown)
        if self.cursor >= count:
            self.cursor = max(0, count - 1)
        self._announce()
        self.post_message(self.Counted(self))

    # ----- drawing -----
    def on_unmount(self) -> None:
        self._close_handle()

    def _close_handle(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    @property
    def empty_message(self) -> str:
        """What an empty list says."""
        if self.error:
            return self.error
        if self.filter.problem:
            return f"{self.filter.problem} Escape clears the filter."
        if self.filtering:
            return "Filtering…"
        if not self.filter.empty and not self.reading:
            return "No rows match the filter. Escape clears it."
        if self.reading:
            return "Reading the journal…"
        return "No changes yet: every change to a memory file will be listed here."

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        index = self.row_at_line(y)
        if not len(self._shown):  # the message wraps: a filter's problem says how to fix it, past 80 columns
            lines = textwrap.wrap(self.empty_message, max(10, width - 2))
            if y < len(lines):
                style = self.get_visual_style("journal-list--message").rich_style
                return Strip([Segment(" " + lines[y], style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if index is None or index < 0:
            return Strip.blank(width, base)
        offset = self._shown.at(index)
        selected = index == self.cursor
        key = (offset, width, selected)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_row(self.row(offset), width, selected, base)
            self._strips[key] = strip
        return strip

    def _render_row(self, row: ShownRow, width: int, selected: bool, base: Style) -> Strip:
        def style_of(name: str) -> Style:
            if selected:
                return self.get_visual_style(f"journal-list--{name}", "row-list--cursor").rich_style
            return self.get_visual_style(f"journal-list--{name}").rich_style

        line_style = self.get_visual_style("row-list--cursor").rich_style if selected else base
        if isinstance(row, DamagedLine):
            segments = [
                Segment("! ", style_of("damaged")),
                Segment(f"damaged row ({row.size} bytes): {row.error}", style_of("damaged")),
            ]
            return cut_to_width(segments, width, line_style)
        mark = "⊘ " if not row.undoable else "  "
        when = when_text(row.at)
        who_width = 6  # person, import, bot, upkeep (Memory upkeep, shortened)
        what_width = 7  # created, edited, emptied, deleted, renamed
        how_width, file_width = _how_and_file_widths(width - 2 - cell_len(when) - 1, who_width, what_width)
        if file_width < DAILY_LOG_WIDTH:  # narrow: the year goes (the detail says it), the day and time stay
            when = when[5:]
            how_width, file_width = _how_and_file_widths(width - 2 - cell_len(when) - 1, who_width, what_width)
        who, how = printable(row_writer(row)), printable(str(row.how))
        if cell_len(how) > how_width:
            how = SHORT_HOW.get(how, how)
        if cell_len(who) > who_width:
            who = SHORT_WHO.get(who, who)
        segments = [
            Segment(mark, style_of("not-undoable")),
            Segment(when + " ", style_of("when")),
            Segment(fit(who, who_width) + " ", style_of("who")),
            Segment(fit(how, how_width) + " ", style_of("how")),
            Segment(fit(row_action(row).split()[0], what_width) + " ", style_of("what")),
            Segment(fit_path(printable(file_words(row)), file_width), style_of("file")),
        ]
        return cut_to_width(segments, width, line_style)


DAILY_LOG_WIDTH = 24  # memory/log/2026-12-03.md


def _how_and_file_widths(rest: int, who_width: int, what_width: int) -> tuple[int, int]:
    """The how and file columns in what is left beside when, who and what. The file comes first: a how is
    shortened ("during a task" to "task") until the file has 26 columns (a daily log's path is 24; at 120
    columns it was once cut to "memo…"), up to 30 for a rename's two."""
    rest = max(0, rest)
    how_width = min(23, max(11, rest - who_width - what_width - 3 - 26))
    return how_width, max(0, rest - who_width - how_width - what_width - 3)


def file_words(row: JournalRow) -> str:
    """The file column: the file, and for a rename the other name (new ← old, old → new; topics share a folder)."""
    action = row_action(row)
    for prefix, arrow in zip(RENAME_NOTES, ("←", "→")):
        if action.startswith(prefix):
            other = action.removeprefix(prefix)
            same_folder = other.rpartition("/")[0] == str(row.file).rpartition("/")[0]
            return f"{row.file} {arrow} {other.rpartition('/')[2] if same_folder else other}"
    return str(row.file)
