"""A markdown editor that marks the lines past the load cut (spec: "What loads, and the budget")."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Offset
from textual.widgets import TextArea
from textual.widgets.text_area import TextAreaTheme

CUT_STYLE = "strike dim"
# Textual's "css" theme takes its colours from the app theme but keeps dark-theme syntax colours, which are
# barely readable on a light background; in a light app theme the editor uses light syntax colours instead.
LIGHT_CSS_THEME = TextAreaTheme(name="css_light",
                                syntax_styles=TextAreaTheme.get_builtin_theme("github_light").syntax_styles)


class MemoryEditor(TextArea):
    """TextArea with markdown highlighting; lines from `cut_line` on are drawn struck and dim."""

    BINDINGS = [
        Binding("ctrl+home", "document_start", "Start", show=False, id="editor-start",
                tooltip="The first line of the file"),
        Binding("ctrl+end", "document_end", "End", show=False, id="editor-end",
                tooltip="The last line of the file"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("language", "markdown")
        kwargs.setdefault("show_line_numbers", True)
        kwargs.setdefault("soft_wrap", False)
        super().__init__(*args, **kwargs)
        self._cut_line: int | None = None
        self.register_theme(LIGHT_CSS_THEME)

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._follow_app_theme)

    def _follow_app_theme(self) -> None:
        if self.theme in ("css", LIGHT_CSS_THEME.name):
            self.theme = "css" if self.app.current_theme.dark else LIGHT_CSS_THEME.name

    def action_document_start(self) -> None:
        self.move_cursor((0, 0))

    def action_document_end(self) -> None:
        self.move_cursor(self.document.end)

    def scroll_cursor_visible(self, center: bool = False, animate: bool = False) -> Offset:
        # Textual 8.2.8's undo puts the shorter text back before the cursor, so a scrollbar that goes away
        # in between scrolls to the old cursor, past the last line: ValueError, and the app closed with the
        # draft (undo after a long paste; Textual issue #6686). The undo scrolls to the restored cursor next.
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
