"""Topic index: every topic with title, description, aliases and size, and where the index cuts.

Spec: memory.md, "What loads, and the budget" (the topic index: every `memory/<topic>.md` by name, with
`title`, `description` and `aliases` from its frontmatter, at most 40 topics or 2,000 characters) and
"Conventions inside the files" (topic frontmatter). What is listed, in which order, what is left out
and which limit cut all come from the core's `topic_index`, so this screen shows exactly what the bot
gets; the screen never applies the rule itself. Filtering narrows the rows shown, never the cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Header, Input, Static, TextArea

from ...core.base.text import plural
from ...core.index.words import fold, word_spans
from ...core.memory.budget import (
    INDEX_CUT_BY_CHARACTERS,
    INDEX_CUT_BY_TOPICS,
    TOPIC_INDEX_MAX_CHARS,
    TOPIC_INDEX_MAX_TOPICS,
    TopicIndex,
    TopicInfo,
    topic_index,
    topic_index_line,
)
from ..styles import style_path
from ..widgets.keys_footer import KeysFooter
from ..widgets.row_list import fit_path
from .base import BotScreen

CUT_ROW_KEY = "--cut--"  # never a topic: topic names end in .md
BROKEN_NOTE = "listed by name only: frontmatter could not be read"
NOT_LISTED = "not listed"
COLUMNS = ("Index", "Topic", "Title", "Description", "Aliases", "Size")
STATUS_WIDTH = len(NOT_LISTED)
SIZE_WIDTH = 7
# Share of the flexible width for topic, title, description and aliases, with a minimum for each.
FLEX_SHARES = ((0.25, 8), (0.22, 6), (0.35, 8), (0.18, 6))
FILTER_AT_ONCE_MAX_ROWS = 300
FILTER_PAUSE_SECONDS = 0.2


@dataclass(frozen=True)
class TopicRow:
    """One topic in index order: its position in the index (None past the cut) and its one index line."""

    topic: TopicInfo
    position: int | None
    index_line: str

    @property
    def listed(self) -> bool:
        return self.position is not None

    @cached_property
    def words(self) -> tuple[str, ...]:
        """The words of its name, title, description and aliases, folded as recall folds them."""
        topic = self.topic
        return tuple(words_of(" ".join([topic.name, topic.title or "", topic.description or "", *topic.aliases])))

    def matches(self, words: list[str]) -> bool:
        """Each word typed begins a word of the topic: "cust" finds customers, "tom" does not."""
        return all(any(own.startswith(word) for own in self.words) for word in words)


def words_of(text: str) -> list[str]:
    """Words as the filter compares them: runs of letters and digits (any script), case and accents folded."""
    return [fold(text[start:end]) for start, end in word_spans(text)]


def index_rows(index: TopicIndex) -> list[TopicRow]:
    """The topics in the order the index lists them, then those past the cut, as the core's index gives them."""
    rows = [
        TopicRow(topic, position, line)
        for position, (topic, line) in enumerate(zip(index.listed_topics, index.lines), start=1)
    ]
    rows.extend(TopicRow(topic, None, topic_index_line(topic)) for topic in index.omitted_topics)
    return rows


def cut_statement(index: TopicIndex) -> str:
    """The sentence above the table: how much of the index the bot gets, always about every topic."""
    total = index.listed + index.omitted
    left_out = "none are" if index.omitted == 0 else f"{index.omitted} {'is' if index.omitted == 1 else 'are'}"
    return (
        f"The index lists {index.listed} of {plural(total, 'topic')} "
        f"({len(index.text):,} of {TOPIC_INDEX_MAX_CHARS:,} characters); {left_out} left out."
    )


def cut_reason(index: TopicIndex) -> str:
    """Which limit cut the index, as the core says, in words ("" when nothing is left out)."""
    if index.cut_by == INDEX_CUT_BY_TOPICS:
        return f"The cut falls after topic {index.listed}: at most {TOPIC_INDEX_MAX_TOPICS} topics are listed."
    if index.cut_by == INDEX_CUT_BY_CHARACTERS:
        return (
            f"The cut falls after topic {index.listed}: one more line would pass {TOPIC_INDEX_MAX_CHARS:,} characters."
        )
    return ""


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def column_widths(total: int) -> tuple[int, ...]:
    """Widths for the six columns so the table fits `total` cells (padding and scrollbar included)."""
    flexible = max(0, total - STATUS_WIDTH - SIZE_WIDTH - 2 * len(COLUMNS) - 2)
    widths = [max(minimum, int(flexible * share)) for share, minimum in FLEX_SHARES]
    widths[2] += max(0, flexible - sum(widths))  # what rounding left goes to the description
    return (STATUS_WIDTH, *widths, SIZE_WIDTH)


def _cell(text: str, width: int, style: str = "") -> Text:
    cell = Text(text, style=style, no_wrap=True, end="")  # Text, never a str: titles may hold [markup]
    cell.truncate(width, overflow="ellipsis")
    return cell


class TopicsRead(Message, bubble=False):
    """The topic index as the core builds it, and the memory switch, read in `load_topics`' thread."""

    def __init__(self, index: TopicIndex, memory_on: bool | None) -> None:
        super().__init__()
        self.index = index
        self.memory_on = memory_on


class TopicTable(DataTable):
    """The topics table; Enter opens the highlighted topic, and the footer says so."""

    BINDINGS = [
        Binding(
            "enter",
            "select_cursor",
            "Open",
            id="topics-open",
            tooltip="Open the highlighted topic in the files screen",
        ),
        Binding("home", "scroll_top", "First", show=False, id="topics-first", tooltip="First topic"),
        Binding("end", "scroll_bottom", "Last", show=False, id="topics-last", tooltip="Last topic"),
    ]


class TopicsScreen(BotScreen):
    CSS_PATH = style_path("topics.tcss")
    AUTO_FOCUS = "#topics-table"
    BINDINGS = [
        Binding(
            "enter",
            "open_topic",
            "Open",
            show=False,
            id="open-topic",
            tooltip="Open the highlighted topic in the files screen",
        ),
        Binding(
            "slash",
            "focus_filter",
            "Filter",
            id="focus-filter",
            tooltip="Filter by name, title, description or aliases as you type",
        ),
        Binding(
            "i",
            "toggle_index_text",
            "Index text",
            id="toggle-index-text",
            tooltip="Show the topic index exactly as the bot gets it",
        ),
        Binding(
            "c",
            "jump_to_cut",
            "Go to cut",
            id="jump-to-cut",
            tooltip="Move the cursor to where the topic index is cut: the line after the last topic the bot is shown",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            show=False,
            id="topics-back",
            tooltip="Leave the filter or the index text; in the table, clear the filter",
        ),
        Binding(
            "ctrl+r",
            "refresh_topics",
            "Refresh",
            show=False,
            id="refresh-topics",
            tooltip="Read every topic file again",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.index: TopicIndex | None = None
        self.rows: list[TopicRow] = []
        self.shown: list[TopicRow | None] = []  # the rows on screen; None is the cut marker
        self.memory_on: bool | None = None
        self._widths: tuple[int, ...] = ()
        self._cells: dict[str, list[Text]] = {}  # topic name -> its cells at the current widths and theme
        self._cells_key: tuple = ()
        self._rows_read = 0  # bumps each time the topics are read, so cached cells are rebuilt
        self._filter_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Reading topics…", id="topics-summary")
        yield Input(placeholder="/ filter: name, title, description, aliases", id="topics-filter")
        yield TopicTable(id="topics-table", cursor_type="row", zebra_stripes=True)
        with Vertical(id="index-pane"):
            yield Static("", id="index-title")
            yield TextArea(id="index-text", read_only=True, soft_wrap=True)
        yield Static("", id="topic-detail")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#index-pane").display = False
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._fill_table())

    @property
    def table(self) -> DataTable:
        return self.query_one("#topics-table", DataTable)

    @property
    def filter_words(self) -> list[str]:
        return words_of(self.query_one("#topics-filter", Input).value)

    @property
    def index_text_shown(self) -> bool:
        return bool(self.query_one("#index-pane").display)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_topic":
            return self.highlighted_topic() is not None or None
        if action == "toggle_index_text":
            return self.index is not None or None
        if action == "jump_to_cut":
            return (None in self.shown and not self.index_text_shown) or None
        return True

    # ----- loading -----
    def reload(self, *, bot_changed: bool) -> None:
        if bot_changed:
            self.query_one("#topics-filter", Input).value = ""
        self.load_topics()

    @work(thread=True, exclusive=True, exit_on_error=False, group="topics")
    def load_topics(self) -> None:
        bot = self.bot
        topics = bot.topics()
        index = topic_index(topics)
        try:
            memory_on: bool | None = bot.settings.memory
        except Exception:  # a broken settings file is the settings screen's to show
            memory_on = None
        self.post_message(TopicsRead(index, memory_on))

    def on_topics_read(self, message: TopicsRead) -> None:
        index = self.index = message.index
        self.memory_on = message.memory_on
        self.rows = index_rows(index)
        self._rows_read += 1
        self.query_one("#index-text", TextArea).load_text(index.text)
        self.query_one("#index-title", Static).update(
            f"The topic index exactly as the bot gets it ({len(index.text):,} characters). "
            "i or Escape goes back to the table."
        )
        self._fill_table()
        self.refresh_bindings()

    def _summary(self) -> str:
        index = self.index
        if index is None:
            return "Reading topics…"
        if not self.rows:
            lines = ["This bot has no topic files, so the bot gets no topic index."]
        else:
            lines = [cut_statement(index)]
            reason = cut_reason(index)
            broken = sum(1 for row in self.rows if not row.topic.frontmatter_ok)
            if broken:
                reason += (
                    f" {plural(broken, 'topic')} {'has' if broken == 1 else 'have'} frontmatter that could not"
                    " be read: listed by name only."
                )
            if reason.strip():
                lines.append(reason.strip())
        if self.memory_on is False:
            lines.append("Memory is off for this bot: none of this loads into its turns.")
        if self.filter_words:
            lines.append(
                f"Filter shows {sum(1 for r in self.shown if r is not None)} of {len(self.rows)}; "
                "the cut above is about the whole index."
            )
        return "\n".join(lines)

    def _fill_table(self) -> None:
        """Rebuild the rows shown: the filter narrows them; the cut stays where the index puts it."""
        if self.index is None:
            return
        table = self.table
        selected = self.highlighted_topic()
        words = self.filter_words
        shown = [row for row in self.rows if row.matches(words)]
        widths = column_widths(table.size.width or self.size.width)
        colours = self.app.get_css_variables()
        warning, error = colours.get("text-warning", "yellow"), colours.get("text-error", "red")
        if self._cells_key != (widths, warning, error, self._rows_read):
            self._cells = {}
            self._cells_key = (widths, warning, error, self._rows_read)
        table.clear(columns=True)
        for label, width in zip(COLUMNS, widths):
            table.add_column(_cell(label, width), width=width, key=label.casefold())  # "Descripti…", never cut bare
        self._widths = widths
        self.shown = []
        cut_shown = False
        cursor_row = 0
        for row in shown:
            if not row.listed and not cut_shown:
                table.add_row(*self._cut_cells(widths, warning), key=CUT_ROW_KEY)
                self.shown.append(None)
                cut_shown = True
            if selected is not None and row.topic.name == selected.topic.name:
                cursor_row = len(self.shown)
            cells = self._cells.get(row.topic.name)
            if cells is None:
                cells = self._cells[row.topic.name] = self._topic_cells(row, widths, warning, error)
            table.add_row(*cells, key=row.topic.name)
            self.shown.append(row)
        if table.row_count:
            table.move_cursor(row=cursor_row, animate=False, scroll=True)
        self.query_one("#topics-summary", Static).update(Text(self._summary()))
        self._show_detail()

    @staticmethod
    def _cut_cells(widths: tuple[int, ...], warning: str) -> list[Text]:
        style = f"bold {warning}"
        words = [" cut ", "", "", " index stops here ", "", ""]
        return [
            _cell(word.center(width, "─") if len(word) + 2 <= width else "─" * width, width, style)
            for word, width in zip(words, widths)
        ]

    @staticmethod
    def _topic_cells(row: TopicRow, widths: tuple[int, ...], warning: str, error: str) -> list[Text]:
        topic = row.topic
        muted = "" if row.listed else "dim italic"
        if row.listed:
            status = _cell(f"{row.position:>{len(str(TOPIC_INDEX_MAX_TOPICS))}}", widths[0], "bold")
        else:
            status = _cell(NOT_LISTED, widths[0], f"bold {error}")
        if topic.frontmatter_ok:
            title = _cell(topic.title or "", widths[2], muted)
            description = _cell(topic.description or "", widths[3], muted)
        else:
            title = _cell("⚠ name only", widths[2], f"bold {warning}")
            description = _cell("frontmatter could not be read", widths[3], warning)
        return [
            status,
            _cell(fit_path(topic.name.removesuffix(".md"), widths[1]), widths[1], muted),  # its end kept, as a file's
            title,
            description,
            _cell(", ".join(topic.aliases), widths[4], muted),
            _cell(human_size(topic.size_bytes).rjust(widths[5]), widths[5], muted),
        ]

    def on_resize(self) -> None:
        if self.index is not None and column_widths(self.table.size.width or self.size.width) != self._widths:
            self._fill_table()

    # ----- the highlighted topic -----
    def highlighted_topic(self) -> TopicRow | None:
        if not self.shown or not self.table.row_count:
            return None
        row = self.table.cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    @on(DataTable.RowHighlighted, "#topics-table")
    def _show_detail(self) -> None:
        detail = self.query_one("#topic-detail", Static)
        row = self.highlighted_topic()
        if self.index is None:
            detail.update("")
        elif row is None and self.shown:
            detail.update("The cut: topics below this line are not in the index the bot gets.")
        elif row is None:
            detail.update("No topic matches the filter." if self.rows else "")
        elif row.listed:
            note = f" ({BROKEN_NOTE}: {row.topic.frontmatter_problem})" if not row.topic.frontmatter_ok else ""
            detail.update(Text(f"Line {row.position} of the index{note}:\n{row.index_line}", no_wrap=False))
        else:
            note = f"; {BROKEN_NOTE}: {row.topic.frontmatter_problem}" if not row.topic.frontmatter_ok else ""
            detail.update(
                Text(
                    f"memory/{row.topic.name} is not listed: past the cut{note}.\n"
                    f"The bot sees only: {self.index.more_line}"
                )
            )
        self.refresh_bindings()

    # ----- filtering -----
    @on(Input.Changed, "#topics-filter")
    def _filter_changed(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if len(self.rows) <= FILTER_AT_ONCE_MAX_ROWS:
            self._fill_table()
        else:  # a long table refills once typing pauses, not on every key
            self._filter_timer = self.set_timer(FILTER_PAUSE_SECONDS, self._fill_table)

    @on(Input.Submitted, "#topics-filter")
    def _filter_submitted(self) -> None:
        self.table.focus()

    def on_key(self, event: events.Key) -> None:
        # Down from the filter goes to the table, as a person expects of a search box above a list.
        if event.key == "down" and self.focused is self.query_one("#topics-filter", Input):
            event.stop()
            self.table.focus()

    # ----- actions -----
    def action_focus_filter(self) -> None:
        if self.index_text_shown:
            self.action_toggle_index_text()
        self.query_one("#topics-filter", Input).focus()

    def action_toggle_index_text(self) -> None:
        pane = self.query_one("#index-pane")
        showing = not self.index_text_shown
        pane.display = showing
        self.table.display = not showing
        self.query_one("#topics-filter").display = not showing
        self.query_one("#topic-detail").display = not showing
        if showing:
            self.query_one("#index-text", TextArea).focus()
        else:
            self.table.focus()

    def action_back(self) -> None:
        filter_input = self.query_one("#topics-filter", Input)
        if self.index_text_shown:
            self.action_toggle_index_text()
        elif self.focused is filter_input:
            self.table.focus()
        elif filter_input.value:
            filter_input.value = ""

    def action_jump_to_cut(self) -> None:
        if None in self.shown:
            self.table.move_cursor(row=self.shown.index(None), scroll=True)
            self.table.focus()

    def action_refresh_topics(self) -> None:
        self.load_topics()

    def action_open_topic(self) -> None:
        row = self.highlighted_topic()
        if row is not None:
            self.open_in_files(f"memory/{row.topic.name}")

    @on(DataTable.RowSelected, "#topics-table")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value != CUT_ROW_KEY:
            self.open_in_files(f"memory/{event.row_key.value}")

    @work(exclusive=True, exit_on_error=False, group="open-in-files")
    async def open_in_files(self, rel: str) -> None:
        """Switch to the files screen with `rel` open there."""
        await self.app.switch_mode("files")
        self.app.screen.show_file(rel)
