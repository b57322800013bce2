"""A list of one-line rows drawn with Textual's line API: a cursor, the keys that move it, and scrolling
that keeps it in view. Nothing here holds a widget per row, so a list of any length draws as fast as a
screenful.

Subclasses say how many rows there are (`row_count`), draw one (`render_line`, using `row_at_line` and the
strip cache) and hear when the cursor moves (`cursor_moved`). `HEADER_LINES` lines at the top never
scroll (a column header).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...core.journal.when import when_text  # noqa: F401 (the lists draw times this way)

LINE_CACHE_SIZE = 512


class RowList(ScrollView, can_focus=True, inherit_bindings=False):
    """One row per line with a cursor; up/down, page up/down, home/end and a click move it (no sideways
    scrolling: a row is cut to the width, so the scroll keys it would inherit are left out)."""

    HEADER_LINES: ClassVar[int] = 0

    COMPONENT_CLASSES = {"row-list--cursor"}

    DEFAULT_CSS = """
    RowList {
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
        & > .row-list--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .row-list--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False, id="row-list-up", tooltip="The row above"),
        Binding("down", "cursor_down", "Down", show=False, id="row-list-down", tooltip="The row below"),
        Binding("pageup", "page_up", "Page up", show=False, id="row-list-page-up", tooltip="One page up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="row-list-page-down", tooltip="One page down"),
        Binding("home", "first", "First", show=False, id="row-list-first", tooltip="The first row"),
        Binding("end", "last", "Last", show=False, id="row-list-last", tooltip="The last row"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.cursor = 0
        self._strips: LRUCache[tuple, Strip] = LRUCache(LINE_CACHE_SIZE)

    # ----- what a subclass provides -----
    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def cursor_moved(self) -> None:
        """The cursor may be on another row now (called after every move)."""

    # ----- the cursor -----
    def move_cursor(self, index: int) -> None:
        count = self.row_count
        index = max(0, min(index, count - 1)) if count else 0
        if index != self.cursor:
            self.cursor = index
            self.refresh()
        self.scroll_to_cursor()
        self.cursor_moved()

    @property
    def rows_in_view(self) -> int:
        return max(1, self.scrollable_content_region.height - self.HEADER_LINES)

    def scroll_to_cursor(self) -> None:
        top = round(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + self.rows_in_view:
            self.scroll_to(y=self.cursor - self.rows_in_view + 1, animate=False)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor - max(1, self.rows_in_view - 1))

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor + max(1, self.rows_in_view - 1))

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self.row_count - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and offset.y >= self.HEADER_LINES and self.row_count:
            self.move_cursor(round(self.scroll_offset.y) + offset.y - self.HEADER_LINES)

    # ----- drawing -----
    def row_at_line(self, y: int) -> int | None:
        """The row drawn on line y of the view, None for a header line (or -1 past the last row)."""
        if y < self.HEADER_LINES:
            return None
        index = round(self.scroll_offset.y) + y - self.HEADER_LINES
        return index if index < self.row_count else -1

    def resize_virtual(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, max(1, self.row_count) + self.HEADER_LINES)

    def forget_drawn(self) -> None:
        """Drawn lines are stale (new rows, new styles)."""
        self._strips.clear()

    def on_resize(self) -> None:
        self.forget_drawn()
        self.resize_virtual()
        self.scroll_to_cursor()

    def on_focus(self) -> None:
        self.forget_drawn()
        self.refresh()

    def on_blur(self) -> None:
        self.forget_drawn()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.forget_drawn()


class RowHighlighted(Message):
    """The cursor is on another row; `current` is what it is on (None when the list is empty).

    Each list nests a subclass named `Highlighted`, so its handler is `on_<list>_highlighted` (Textual names it
    from the last two parts of the class's qualified name), and may give `row_list` and `current` its own names.
    """

    def __init__(self, row_list: RowList, current: object) -> None:
        super().__init__()
        self.row_list = row_list
        self.current = current

    @property
    def control(self) -> RowList:
        return self.row_list


def has_undecodable_bytes(text: str) -> bool:
    """Bytes that are not UTF-8, as a file read with surrogateescape holds them (one lone surrogate each)."""
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def without_undecodable_bytes(text: str) -> str:
    """Text safe to draw as it is written: bytes that are not UTF-8 become U+FFFD, nothing else changes."""
    if not has_undecodable_bytes(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def printable(text: object, *, keep: str = "", controls_only: bool = False) -> str:
    """Text safe to draw, the app's one rule: bytes that are not UTF-8 and unprintable characters become U+FFFD.

    By default every character that is not printable goes (controls, format characters, separators), which
    keeps a cell of fixed width exact. `controls_only` replaces only control characters, for a file's own
    line shown as written (a zero-width joiner or a no-break space stays). `keep` names characters to leave,
    such as a tab.
    """
    text = without_undecodable_bytes(str(text))
    if text.isprintable():
        return text
    if controls_only:
        return "".join("\ufffd" if ch not in keep and unicodedata.category(ch) == "Cc" else ch for ch in text)
    return "".join(ch if ch.isprintable() or ch in keep else "\ufffd" for ch in text)


def fit(text: str, width: int) -> str:
    """Cut or pad to exactly `width` cells, ending a cut with an ellipsis."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def fit_path(path: str, width: int) -> str:
    """Cut or pad a file's path to exactly `width` cells, cutting in the middle: the file's name stays whole with
    as many folders before it as fit, the cut marked with an ellipsis (`m…/2026-12-06.md`). A name longer than
    the width keeps its end (`…12-06.md`: a dated log's day, a topic's `.md`)."""
    if width <= 0:
        return ""
    if cell_len(path) <= width:
        return set_cell_size(path, width)
    room = width - 1  # the ellipsis takes a cell
    tail = _last_cells(path, room)
    slash = tail.find("/")
    if slash >= 0:  # the end kept starts at a folder's slash, never inside a folder's name
        tail = tail[slash:]
    head = set_cell_size(path, room - cell_len(tail))
    return head + "…" + tail


def _last_cells(text: str, cells: int) -> str:
    """The end of `text` in at most `cells` cells (a wide character that would be split is left out)."""
    taken, used = [], 0
    for ch in reversed(text):
        used += cell_len(ch)
        if used > cells:
            break
        taken.append(ch)
    return "".join(reversed(taken))


def cut_to_width(segments: Sequence[Segment], width: int, line_style: Style) -> Strip:
    """A line of segments cut or padded to `width` cells; a cut line ends in an ellipsis (in the style of what
    it cut), so a reader sees there is more."""
    strip = Strip(segments)
    cut_off = strip.crop(width, strip.cell_length) if strip.cell_length > width > 0 else None
    if cut_off is not None and cut_off.text.strip():  # (a column's padding cut off is no cut)
        kept = strip.crop(0, width - 1)
        loose = kept.text
        kept = kept.crop(0, cell_len(loose.rstrip(" ·")))  # "Lisbon trip"…, not "Lisbon trip" ·…
        style = next((seg.style for seg in reversed(list(kept)) if seg.text), line_style)
        strip = Strip([*kept, Segment("…", style)])
    return strip.crop_extend(0, width, line_style)


def columns_strip(
    texts: Sequence[str], widths: Sequence[int], styles: Sequence[Style], width: int, line_style: Style, gap: int
) -> Strip:
    """One row of a column list: a space, then each text fitted to its column, `gap` cells apart."""
    segments = [Segment(" ", line_style)]
    for column, (text, cell_width, style) in enumerate(zip(texts, widths, styles)):
        if column:
            segments.append(Segment(" " * gap, line_style))
        segments.append(Segment(fit(text, cell_width), style))
    return cut_to_width(segments, width, line_style)
