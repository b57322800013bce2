"""A markdown editor that marks the lines past the load cut (spec: "What loads, and the budget")."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import TextArea

CUT_STYLE = "strike dim"


class MemoryEditor(TextArea):
    """TextArea with markdown highlighting; lines from `cut_line` on are drawn struck and dim."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("language", "markdown")
        kwargs.setdefault("show_line_numbers", True)
        kwargs.setdefault("soft_wrap", False)
        super().__init__(*args, **kwargs)
        self._cut_line: int | None = None

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
