"""A markdown editor that marks the lines past the load cut (spec: "What loads, and the budget")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Offset
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import Selection, TextAreaTheme

CUT_STYLE = "strike dim"
# Strike-through alone is invisible on some terminals: the last line that loads is also underlined across the
# whole width, a divider every terminal draws.
DIVIDER_STYLE = Style(underline=True)
# Textual's "css" theme takes its colours from the app theme but keeps dark-theme syntax colours, which are
# barely readable on a light background; in a light app theme the editor uses light syntax colours instead.
LIGHT_CSS_THEME = TextAreaTheme(
    name="css_light", syntax_styles=TextAreaTheme.get_builtin_theme("github_light").syntax_styles
)


def find_matches(lines: Sequence[str], query: str) -> list[tuple[int, int, int]]:
    """Where query occurs, case-insensitive, as (line, start column, end column), in reading order."""
    if not query:
        return []
    # A regular expression rather than casefold(), which can change a line's length ("ß" -> "ss").
    pattern = re.compile(re.escape(query), re.IGNORECASE)
    return [(row, match.start(), match.end()) for row, line in enumerate(lines) for match in pattern.finditer(line)]


class MemoryEditor(TextArea):
    """TextArea with markdown highlighting; lines from `cut_line` on are drawn struck and dim."""

    BINDINGS = [
        Binding(
            "ctrl+home", "document_start", "Start", show=False, id="editor-start", tooltip="The first line of the file"
        ),
        Binding("ctrl+end", "document_end", "End", show=False, id="editor-end", tooltip="The last line of the file"),
        # Textual's own delete-line key is Ctrl+Shift+K, which xterm and tmux cannot send; F9 they can.
        Binding(
            "f9,ctrl+shift+k",
            "delete_line",
            "Delete line",
            show=False,
            id="editor-delete-line",
            tooltip="Delete the line the cursor is on",
        ),
        Binding(
            "f4",
            "toggle_wrap",
            "Wrap",
            show=False,
            id="editor-wrap",
            tooltip="Soft wrap long lines on or off (on by default)",
        ),
    ]

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("language", "markdown")
        kwargs.setdefault("show_line_numbers", True)
        kwargs.setdefault("soft_wrap", True)
        super().__init__(*args, **kwargs)
        self._cut_line: int | None = None
        # Read-only text that says so when typed into, rather than let the letters act as keys (a person's layer,
        # opened read-only, where the owner may start typing before opening it for editing): the words to say.
        self.typing_refused: str | None = None
        self.register_theme(LIGHT_CSS_THEME)

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._follow_app_theme)

    def _follow_app_theme(self) -> None:
        if self.theme in ("css", LIGHT_CSS_THEME.name):
            self.theme = "css" if self.app.current_theme.dark else LIGHT_CSS_THEME.name

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        if self.read_only and self.typing_refused:
            return character is not None and character.isprintable()
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        if self.read_only and self.typing_refused and event.is_printable:
            event.stop()
            event.prevent_default()
            self.notify(self.typing_refused, severity="warning", timeout=3, markup=False)
            return
        await super()._on_key(event)

    def action_document_start(self) -> None:
        self.move_cursor((0, 0))

    def action_document_end(self) -> None:
        self.move_cursor(self.document.end)

    def action_toggle_wrap(self) -> None:
        self.soft_wrap = not self.soft_wrap
        self.notify(f"Soft wrap {'on' if self.soft_wrap else 'off'} (F4).", timeout=2, markup=False)

    def find(self, query: str, step: int) -> tuple[int, int]:
        """Select a match of query and scroll to it: with step 0 the first from where the selection starts (so
        typing more of a word keeps the same match), 1 the next, -1 the previous, wrapping around the file.
        Returns which match it is (from 1) and how many there are; (0, 0) when there are none."""
        matches = find_matches(self.document.lines, query)
        if not matches:
            return 0, 0
        here = min(self.selection.start, self.selection.end)
        starts = [(row, start) for row, start, _ in matches]
        if step < 0:
            index = max((i for i, at in enumerate(starts) if at < here), default=len(matches) - 1)
        else:
            after = (lambda at: at > here) if step > 0 else (lambda at: at >= here)
            index = next((i for i, at in enumerate(starts) if after(at)), 0)
        row, start, end = matches[index]
        self.selection = Selection((row, start), (row, end))
        self.scroll_cursor_visible(center=True)
        return index + 1, len(matches)

    def load_text_keeping_place(self, text: str) -> None:
        """Load text (the file read again), the cursor and the scroll where they were, as far as the text goes."""
        row, column = self.cursor_location
        scroll_x, scroll_y = self.scroll_offset
        self.load_text(text)
        last = self.document.line_count - 1
        row = min(row, last)
        self.move_cursor((row, min(column, len(self.document.get_line(row)))))
        # After the scroll that moving the cursor asks for, so the view stays where the person had it.
        self.call_after_refresh(self.scroll_to, scroll_x, scroll_y, animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self._cut_line is not None and self._is_divider_row(y):
            strip = strip.apply_style(DIVIDER_STYLE)
        return strip

    def _is_divider_row(self, y: int) -> bool:
        """The last screen row of the last line that loads (the row above the cut)."""
        offsets = self.wrapped_document._offset_to_line_info
        y_offset = y + self.scroll_offset.y
        if y_offset + 1 >= len(offsets):
            return False
        return offsets[y_offset][0] == self._cut_line - 1 and offsets[y_offset + 1] == (self._cut_line, 0)

    def scroll_cursor_visible(self, center: bool = False, animate: bool = False) -> Offset:
        # Textual 8.2.8's undo puts the shorter text back before the cursor, so a scrollbar that goes away
        # in between scrolls to the old cursor, past the last line: ValueError, and the app closed with the
        # draft (undo after a long paste; github.com/Textualize/textual/issues/6686). The undo scrolls to the
        # restored cursor next.
        if self.cursor_location[0] >= self.document.line_count:
            return Offset(0, 0)
        return super().scroll_cursor_visible(center, animate)

    @property
    def cut_line(self) -> int | None:
        return self._cut_line

    def set_cut_line(self, line: int | None) -> None:
        if line != self._cut_line:
            self._cut_line = line
            self._line_cache.clear()  # cached lines were drawn with the old cut
            self.refresh()

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        if self._cut_line is not None and line_index >= self._cut_line:
            line.stylize(CUT_STYLE)
        return line
