"""The recall block exactly as recall returned it, with the opening line, item headers and matched words picked out.

Where each part stands comes from the core's `block_marks`; this widget only gives each a style from the
theme (component classes `recall-block--opening`, `--header` and `--match`).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from ...core.recall.recall import NO_MARKS, BlockMarks


class RecallBlock(Static):
    """The recall block as returned, with item headers and matched words picked out."""

    COMPONENT_CLASSES = {"recall-block--opening", "recall-block--header", "recall-block--match"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.block = ""
        self.marks = NO_MARKS
        self.text = Text("")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._draw))

    @property
    def match_style(self) -> Style:
        return self.get_component_rich_style("recall-block--match", partial=True)

    def show(self, block: str, marks: BlockMarks = NO_MARKS) -> None:
        self.block = block
        self.marks = marks
        self._draw()

    def _draw(self) -> None:
        text = Text(self.block, end="")
        if self.marks.opening is not None:
            text.stylize(self.get_component_rich_style("recall-block--opening", partial=True), *self.marks.opening)
        header = self.get_component_rich_style("recall-block--header", partial=True)
        for begin, end in self.marks.headers:
            text.stylize(header, begin, end)
        match = self.match_style
        for begin, end in self.marks.matches:
            text.stylize(match, begin, end)
        self.text = text
        self.update(text)
