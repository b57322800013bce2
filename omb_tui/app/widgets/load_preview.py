"""MEMORY.md line by line as it loads into the system prompt: loading, expired, or past the cut.

Spec: memory.md, "What loads, and the budget". Which lines load, and which limit cut the file, come from
the core's `load_cut` alone (the same lines `loaded_memory` puts in the prompt); this widget only draws
them, and says it in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rich.console import RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ...core.base.text import plural
from ...core.memory.budget import (
    CUT_BY_LINES,
    LINE_EXPIRED,
    LINE_LOADS,
    LINE_PAST_CUT,
    MEMORY_MAX_BYTES,
    MEMORY_MAX_LINES,
    LoadCut,
    load_cut,
)
from ...core.memory.entries import line_content
from .row_list import printable

LOADING = LINE_LOADS
EXPIRED = LINE_EXPIRED
PAST_CUT = LINE_PAST_CUT
MEMORY_OFF = "memory off"  # the bot's switch, not the budget: every line is drawn as not loading

MARKS = {LOADING: "✓", EXPIRED: "✗", PAST_CUT: "✗", MEMORY_OFF: "✗"}
# A file pasted far past the budget is not drawn whole: what loads, then this many lines of what does not.
PAST_CUT_SHOWN = 100


@dataclass(frozen=True)
class MemoryLine:
    """One line of MEMORY.md as drawn: the core's line, its text made safe to draw, the switch applied."""

    number: int  # from 1, as an editor counts
    text: str  # without its line ending
    state: str  # LOADING, EXPIRED, PAST_CUT or MEMORY_OFF
    until: date | None = None  # the expired entry's until date
    ends_entry: bool = True  # the last line of its entry (a bullet owns the lines under it)

    @property
    def loads(self) -> bool:
        return self.state == LOADING


@dataclass(frozen=True)
class MemoryLoad:
    """MEMORY.md's lines with their load state on one day, and the cut they were measured against."""

    lines: tuple[MemoryLine, ...]
    cut: LoadCut
    as_of: date
    memory_on: bool

    @property
    def cut_by(self) -> str | None:
        """Which limit cut the file: "lines" (200 lines) or "bytes" (24 KB); None when everything fits."""
        return self.cut.cut_by

    @property
    def cut_name(self) -> str:
        if self.cut_by == CUT_BY_LINES:
            return f"{MEMORY_MAX_LINES}-line cut"
        return f"{MEMORY_MAX_BYTES // 1024} KB cut"

    def count(self, state: str) -> int:
        return sum(1 for line in self.lines if line.state == state)

    def reason(self, line: MemoryLine) -> str:
        """What the screen says about a line: `loading`, or `not loading: …` and why."""
        if line.state == LOADING:
            return "loading"
        if line.state == EXPIRED:
            return f"not loading: expired (until {line.until.isoformat()})" if line.until else "not loading: expired"
        if line.state == PAST_CUT:
            return f"not loading: past the {self.cut_name}"
        return "not loading: this bot's memory is off"


def memory_load(text: str, as_of: date, *, memory_on: bool = True) -> MemoryLoad:
    """The core's line states on `as_of`, drawn as not loading at all when the bot's memory is off."""
    cut = load_cut(text, as_of)
    lines = tuple(
        MemoryLine(
            line.number,
            printable(line_content(line.text), keep="\t", controls_only=True),
            line.state if memory_on else MEMORY_OFF,
            line.until,
            line.ends_entry,
        )
        for line in cut.lines
    )
    return MemoryLoad(lines, cut, as_of, memory_on)


class LoadPreview(Static):
    """MEMORY.md with a gutter (line number, ✓ loads, ✗ does not) and a note at each expired entry and at the cut."""

    COMPONENT_CLASSES = {
        "load-preview--gutter",
        "load-preview--loading",
        "load-preview--expired",
        "load-preview--past-cut",
        "load-preview--off",
        "load-preview--note",
        "load-preview--cut-rule",
    }

    DEFAULT_CSS = """
    LoadPreview {
        height: auto;
        & > .load-preview--gutter { color: $foreground-muted; text-style: dim; }
        & > .load-preview--loading { color: $text-success; }
        & > .load-preview--expired { color: $text-warning; text-style: strike; }
        & > .load-preview--past-cut { color: $text-error; text-style: strike; }
        & > .load-preview--off { color: $foreground-muted; text-style: dim; }
        & > .load-preview--note { color: $text-warning; text-style: italic; }
        & > .load-preview--cut-rule { color: $text-error; text-style: bold; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self.load: MemoryLoad | None = None

    def on_mount(self) -> None:
        # Colours come from the theme: draw again once a new theme's CSS has been applied.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._draw))

    def show(self, load: MemoryLoad) -> None:
        self.load = load
        self._draw()

    def _draw(self) -> None:
        if self.load is not None:
            self.update(self.render_load(self.load))

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"load-preview--{name}", partial=True)

    def render_load(self, load: MemoryLoad) -> RenderableType:
        if not load.lines:
            return Text("MEMORY.md is empty: nothing of it loads.", style=self._style("off"))
        gutter = self._style("gutter")
        text_styles = {
            LOADING: Style(),
            EXPIRED: self._style("expired"),
            PAST_CUT: self._style("past-cut"),
            MEMORY_OFF: self._style("off"),
        }
        mark_styles = {
            LOADING: self._style("loading"),
            EXPIRED: self._style("note"),
            PAST_CUT: self._style("cut-rule"),
            MEMORY_OFF: self._style("off"),
        }
        note, rule = self._style("note"), self._style("cut-rule")
        width = len(str(len(load.lines)))
        grid = Table.grid(padding=(0, 1, 0, 0), expand=True)
        grid.add_column(justify="right", no_wrap=True, width=width, style=gutter)
        grid.add_column(no_wrap=True, width=1)
        grid.add_column(ratio=1, overflow="fold")
        if not load.memory_on:
            grid.add_row("", "", Text("not loading: this bot's memory is off, so none of this file loads", style=note))
        past_cut_drawn = 0
        for index, line in enumerate(load.lines):
            if line.state == PAST_CUT:
                if past_cut_drawn == 0:
                    rest = len(load.lines) - index
                    below = f"the {rest:,} lines below do not load" if rest != 1 else "the line below does not load"
                    grid.add_row("", Text("✗", style=rule), Text(f"{load.reason(line)}: {below}", style=rule))
                if past_cut_drawn == PAST_CUT_SHOWN:
                    more = len(load.lines) - index
                    grid.add_row(
                        "",
                        "",
                        Text(f"… {plural(more, 'more line', grouped=True)} past the cut, not shown here", style=rule),
                    )
                    break
                past_cut_drawn += 1
            grid.add_row(
                str(line.number),
                Text(MARKS[line.state], style=mark_styles[line.state]),
                Text(line.text, style=text_styles[line.state]),
            )
            next_state = load.lines[index + 1].state if index + 1 < len(load.lines) else None
            if line.state == EXPIRED and (line.ends_entry or next_state == PAST_CUT):
                grid.add_row("", "", Text(f"└ {load.reason(line)}, and it is {load.as_of.isoformat()}", style=note))
        return grid
