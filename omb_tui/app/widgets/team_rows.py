"""A list of a team's records, one line each under a column header: the notes in load order, the pending cards,
a note's earlier versions (the Team memory screen, docs/app.md "Team memory").

Drawn with the line API (RowList). Each row may carry a tone that colours its first cell: `loads` (green),
`not-loaded` (red), `stale` (amber), `muted`; the words say the same, so nothing rests on colour alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from .row_list import RowHighlighted, RowList, columns_strip, fit, printable

GAP = 1  # cells between columns


class Row(NamedTuple):
    id: str  # what the cursor stays on when the list is read again (a note's key, a version's revision)
    cells: tuple[str, ...]
    tone: str = ""


class Column(NamedTuple):
    title: str
    width: int | None  # None: the column takes what the others leave


class TeamRows(RowList):
    HEADER_LINES = 1

    COMPONENT_CLASSES = {
        "team-rows--header",
        "team-rows--stripe",
        "team-rows--loads",
        "team-rows--not-loaded",
        "team-rows--stale",
        "team-rows--muted",
    }

    DEFAULT_CSS = """
    TeamRows {
        & > .team-rows--header { color: $text-primary; text-style: bold; }
        & > .team-rows--stripe { background: $surface-lighten-1; }
        & > .team-rows--loads { color: $text-success; }
        & > .team-rows--not-loaded { color: $text-error; text-style: bold; }
        & > .team-rows--stale { color: $text-warning; text-style: bold; }
        & > .team-rows--muted { color: $text-muted; }
    }
    """

    class Highlighted(RowHighlighted):
        """The cursor is on another row (None when the list is empty)."""

        rows = property(attrgetter("row_list"))
        row = property(attrgetter("current"))

    def __init__(self, columns: Sequence[Column], *, empty: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns = list(columns)
        self.rows: list[Row] = []
        self.empty = empty
        self._announced: object = object()

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def highlighted(self) -> Row | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def show(self, rows: Sequence[Row], *, on: str | None = None) -> None:
        """Show these rows; the cursor stays on the row of the same id (or `on`), else at the same place."""
        wanted = on if on is not None else (self.highlighted.id if self.highlighted else None)
        self.rows = list(rows)
        ids = [row.id for row in self.rows]
        self.cursor = ids.index(wanted) if wanted in ids else min(self.cursor, max(0, len(ids) - 1))
        self.forget_drawn()
        self.resize_virtual()
        self.scroll_to_cursor()
        self.refresh()
        self.cursor_moved()

    def cursor_moved(self) -> None:
        row = self.highlighted
        if row != self._announced:
            self._announced = row
            self.post_message(self.Highlighted(self, row))

    # ----- drawing -----
    def _style(self, *names: str) -> Style:
        return self.get_visual_style(
            *("row-list--cursor" if name == "cursor" else f"team-rows--{name}" for name in names if name)
        ).rich_style

    def _widths(self, width: int) -> list[int]:
        fixed = sum(c.width or 0 for c in self.columns) + GAP * (len(self.columns) - 1) + 1
        return [c.width if c.width is not None else max(4, width - fixed) for c in self.columns]

    def _line(self, cells: Sequence[str], styles: Sequence[Style], width: int, line_style: Style) -> Strip:
        return columns_strip([printable(text) for text in cells], self._widths(width), styles, width, line_style, GAP)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = self.row_at_line(y)
        if index is None:
            header = self._style("header")
            return self._line([c.title for c in self.columns], [header] * len(self.columns), width, header)
        if index < 0:
            if index == -1 and not self.rows and y == self.HEADER_LINES and self.empty:
                muted = self._style("muted")
                return Strip([Segment(" " + fit(self.empty, width - 1), muted)]).crop_extend(0, width, muted)
            return Strip.blank(width, self.rich_style)
        selected = index == self.cursor
        key = (index, width, selected)
        strip = self._strips.get(key)
        if strip is None:
            row = self.rows[index]
            line_class = "cursor" if selected else "stripe" if index % 2 else ""
            line_style = self._style(line_class)
            styles = [line_style] * len(self.columns)
            if row.tone:
                styles[0] = self._style(line_class, row.tone)
            strip = self._line(row.cells, styles, width, line_style)
            self._strips[key] = strip
        return strip
