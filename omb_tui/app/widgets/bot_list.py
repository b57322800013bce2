"""The bots list: one line per bot (id, name, memory switch, gauge level, lines, last change, and what last
night's upkeep runs changed and how many compaction proposals wait) under a column header that is drawn in
the very first frame, before any bot has been read.

Drawn with the line API (RowList) rather than a DataTable: it paints at once and costs nothing per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from rich.cells import cell_len
from rich.style import Style
from textual.message import Message
from textual.strip import Strip

from ...core.journal.when import when_text
from .row_list import RowHighlighted, RowList, columns_strip, printable

COLUMNS = ("Bot", "Name", "Memory", "Gauge", "Lines", "Night", "Last change")
LEVEL_COLUMN = COLUMNS.index("Gauge")
# Last night's upkeep: "3" changes, "3, 2 wait" with compaction proposals waiting (accent while something is new).
# One narrow column, so a 20-character name still leaves the last change on an 80-column line.
NIGHT_COLUMN = COLUMNS.index("Night")
GAP = 2  # cells between columns
WIDEST = 20  # a long id or name is cut with an ellipsis, so the last change stays on an 80-column line


def bot_cells(summary, night=None) -> tuple[str, ...]:
    """What each column says for one bot (a core BotSummary, and its core BotOvernight when read)."""
    last = when_text(summary.last_change) if summary.last_change else "never"
    level = "error" if summary.error else summary.level
    return (
        printable(summary.id),
        printable(summary.name),
        "on" if summary.memory else "off",
        level,
        str(summary.lines),
        night_cell(night),
        last,
    )


def first_look_cells(bot) -> tuple[str, ...]:
    """A bot as the first frame shows it (a core BotName): the columns the engine reads stay empty."""
    return (printable(bot.id), printable(bot.name), "on" if bot.memory else "off", "", "", "", "")


def night_cell(night) -> str:
    """Last night's changes, and the proposals waiting: "–", "3", "3, 2 wait" or "2 wait"."""
    if night is None or not (night.changes or night.pending):
        return "–"
    waiting = f"{night.pending} wait" if night.pending else ""
    if not night.changes:
        return waiting
    return f"{night.changes}, {waiting}" if waiting else str(night.changes)


class BotList(RowList):
    """Every bot; `choose()` (the screen's Enter) or a double click opens the one under the cursor."""

    HEADER_LINES = 1

    COMPONENT_CLASSES = {
        "bot-list--header",
        "bot-list--stripe",
        "bot-list--ok",
        "bot-list--amber",
        "bot-list--red",
        "bot-list--error",
        "bot-list--new",
    }

    DEFAULT_CSS = """
    BotList {
        & > .bot-list--header { color: $text-primary; text-style: bold; }
        & > .bot-list--stripe { background: $surface-lighten-1; }
        & > .bot-list--ok { color: $text-success; }
        & > .bot-list--amber { color: $text-warning; text-style: bold; }
        & > .bot-list--red { color: $text-error; text-style: bold; }
        & > .bot-list--error { color: $text-error; text-style: bold reverse; }
        & > .bot-list--new { color: $text-accent; text-style: bold; }
    }
    """

    class Chosen(Message):
        """A bot was chosen to be opened."""

        def __init__(self, bot_list: BotList, bot_id: str) -> None:
            super().__init__()
            self.bot_list = bot_list
            self.bot_id = bot_id

        @property
        def control(self) -> BotList:
            return self.bot_list

    class Highlighted(RowHighlighted):
        """The cursor is on another bot (None when there are none)."""

        bot_list = property(attrgetter("row_list"))
        summary = property(attrgetter("current"))

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.summaries: list = []
        self.overnight: dict = {}  # bot id -> core BotOvernight
        self._cells: list[tuple[str, ...]] = []
        self._widths = [len(title) for title in COLUMNS]
        self._announced: object = object()
        self.first_look = False  # True while only the names are shown (show_names), before the engine's read

    @property
    def row_count(self) -> int:
        return len(self.summaries)

    @property
    def highlighted(self):
        """The summary of the bot under the cursor, or None."""
        return self.summaries[self.cursor] if 0 <= self.cursor < len(self.summaries) else None

    def show_names(self, names: Sequence) -> None:
        """The first look (core BotName: id, name, memory switch), drawn in the first frame; `show` fills in
        the other columns once the engine has read each bot."""
        self.first_look = True
        self._show_rows(names, [first_look_cells(name) for name in names])

    def show(self, summaries: Sequence, *, start_on: str | None = None, overnight: dict | None = None) -> None:
        """Show these bots; the cursor stays on the bot it was on when that bot is still listed, and the
        first time on `start_on` (the bot you came from)."""
        self.first_look = False
        self.overnight = dict(overnight or {})
        self._show_rows(
            summaries, [bot_cells(summary, self.overnight.get(summary.id)) for summary in summaries], start_on=start_on
        )

    def _show_rows(self, summaries: Sequence, cells: list[tuple[str, ...]], *, start_on: str | None = None) -> None:
        current = self.highlighted
        if current is None and start_on is not None:
            current = next((summary for summary in summaries if summary.id == start_on), None)
        self.summaries = list(summaries)
        self._cells = cells
        self._widths = [
            min(WIDEST, max([cell_len(title)] + [cell_len(row[i]) for row in self._cells]))
            for i, title in enumerate(COLUMNS)
        ]
        ids = [summary.id for summary in self.summaries]
        self.cursor = (
            ids.index(current.id)
            if current is not None and current.id in ids
            else min(self.cursor, max(0, len(ids) - 1))
        )
        self.forget_drawn()
        self.resize_virtual()
        self.scroll_to_cursor()
        self.refresh()
        self.cursor_moved()

    def cursor_moved(self) -> None:
        current = self.highlighted
        key = current.id if current is not None else None
        if key != self._announced:
            self._announced = key
            self.post_message(self.Highlighted(self, current))

    def action_choose(self) -> None:
        current = self.highlighted
        if current is not None:
            self.post_message(self.Chosen(self, current.id))

    def on_click(self, event) -> None:
        before = self.cursor
        super().on_click(event)
        offset = event.get_content_offset(self)
        if offset is not None and offset.y >= self.HEADER_LINES and self.cursor == before and event.chain > 1:
            self.action_choose()  # a double click opens

    # ----- drawing -----
    def _style(self, *names: str) -> Style:
        return self.get_visual_style(
            *(f"{'row' if name == 'cursor' else 'bot'}-list--{name}" for name in names if name)
        ).rich_style

    def _line(self, texts: Sequence[str], styles: Sequence[Style], width: int, line_style: Style) -> Strip:
        return columns_strip(texts, self._widths, styles, width, line_style, GAP)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = self.row_at_line(y)
        if index is None:
            header = self._style("header")
            return self._line(COLUMNS, [header] * len(COLUMNS), width, header)
        if index < 0:
            return Strip.blank(width, self.rich_style)
        selected = index == self.cursor
        key = (index, width, selected)
        strip = self._strips.get(key)
        if strip is None:
            line_class = "cursor" if selected else "stripe" if index % 2 else ""
            line_style = self._style(line_class)
            cells = self._cells[index]
            styles = [line_style] * len(COLUMNS)
            styles[LEVEL_COLUMN] = self._style(line_class, cells[LEVEL_COLUMN])  # ok, amber, red or error
            night = self.overnight.get(self.summaries[index].id)
            if night is not None and (night.unreviewed or night.pending):
                styles[NIGHT_COLUMN] = self._style(line_class, "new")
            strip = self._line(cells, styles, width, line_style)
            self._strips[key] = strip
        return strip
