"""The editor's find box: one line under the editor, case-insensitive, stepping through the matches.

Keys are ones xterm and tmux can send: Enter, F3 or ↓ for the next match, ↑ for the previous one (Shift+F3
too where the terminal sends it as a key: xterm's Shift+F3 is the same bytes as a cursor position report,
which Textual reads as one), Escape back to the editor at the match.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static


class FindBar(Horizontal):
    """Posts `Find` as the person types or steps, `Closed` on Escape; shows what the editor found."""

    BINDINGS = [
        Binding("f3,down", "step(1)", "Next", show=False, id="find-next", tooltip="The next match (Enter too)"),
        Binding("shift+f3,up", "step(-1)", "Previous", show=False, id="find-previous", tooltip="The previous match"),
        Binding(
            "escape",
            "close",
            "Close",
            show=False,
            id="find-close",
            tooltip="Close the find box; the editor has the keys, at the match",
        ),
    ]

    class Find(Message):
        """Find `query`: step 0 from where the current match starts (typing), 1 the next, -1 the previous."""

        def __init__(self, query: str, step: int) -> None:
            super().__init__()
            self.query = query
            self.step = step

    class Closed(Message):
        pass

    def compose(self) -> ComposeResult:
        yield Static("Find:", id="find-label")
        yield Input(placeholder="text in this file (case does not matter)", id="find-input")
        yield Static("", id="find-result")

    @property
    def query_text(self) -> str:
        return self.query_one("#find-input", Input).value

    def open(self) -> None:
        self.display = True
        # At once, not later as focus() does: keys typed right after Ctrl+F (queued already) belong here. The
        # last search is selected, so typing replaces it.
        self.screen.set_focus(self.query_one("#find-input", Input))

    def show_result(self, result: str) -> None:
        self.query_one("#find-result", Static).update(result)

    @on(Input.Changed, "#find-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Find(event.value, 0))

    @on(Input.Submitted, "#find-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(1)

    def action_step(self, step: int) -> None:
        self.post_message(self.Find(self.query_text, step))

    def action_close(self) -> None:
        self.display = False
        self.post_message(self.Closed())
