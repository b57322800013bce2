"""Your draft, kept under the editor after the save conflict's Reload (spec: "Editing").

The editor then holds the file as it is now; the draft stays beside it to copy from. It can be read (F5 goes
into it, PgUp/PgDn scroll it), compared with the editor as a unified diff (the editor's text `-`, your draft
`+`: what is still only in your draft is green), and closed once nothing more is needed from it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static, TextArea

from .diff_view import MUTED, diff_lines

DRAFT_TITLE = "Your draft, kept at Reload · F5 · d diff · x close"
DIFF_TITLE = "Editor (-) vs your draft (+) · F5 · d text · x close"


def draft_diff(editor_text: str, draft: str, rel: str) -> Content:
    """How the draft differs from the editor's text, coloured like the journal's diffs."""
    lines = difflib.unified_diff(
        editor_text.splitlines(),
        draft.splitlines(),
        fromfile=f"{rel} in the editor",
        tofile="your draft",
        lineterm="",
        n=2,
    )
    drawn = diff_lines("\n".join(lines))
    if not drawn:
        return Content.styled("Your draft and the editor hold the same text.", MUTED)
    return Content("\n").join(drawn)


class KeptDraft(Vertical):
    """Read-only: letters here are keys (d, x), never typing, and the area letters still switch areas."""

    BINDINGS = [
        Binding(
            "d",
            "toggle_diff",
            "Diff",
            show=False,
            id="draft-diff",
            tooltip="Your draft, or how it differs from the editor (the file as it is now, with your changes since)",
        ),
        Binding(
            "x", "close", "Close draft", show=False, id="draft-close", tooltip="Close your kept draft (asks first)"
        ),
        Binding("escape", "leave", "Editor", show=False, id="draft-leave", tooltip="Back to the editor"),
    ]

    class CloseAsked(Message):
        pass

    class Left(Message):
        pass

    def __init__(self, editor_text: Callable[[], str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._editor_text = editor_text
        self.draft = ""
        self.rel = ""

    def compose(self) -> ComposeResult:
        yield Static(DRAFT_TITLE, id="draft-title")
        yield TextArea(id="draft", read_only=True, soft_wrap=True)
        with VerticalScroll(id="draft-diff"):
            yield Static("", id="draft-diff-text")

    def on_mount(self) -> None:
        self.query_one("#draft-diff").display = False

    @property
    def showing_diff(self) -> bool:
        return self.query_one("#draft-diff").display

    def keep(self, draft: str, rel: str) -> None:
        """Show draft (typed in rel) as text; the pane appears."""
        self.draft, self.rel = draft, rel
        self.query_one("#draft", TextArea).load_text(draft)
        self._show_diff(False)
        self.display = True

    def focus_view(self) -> None:
        # At once (focus() waits its turn): d or x pressed right after F5 is a key here, never typed in the note.
        self.screen.set_focus(self.query_one("#draft-diff" if self.showing_diff else "#draft"))

    def follow_editor(self) -> None:
        """The editor's text changed: a diff on show compares with it as it is now."""
        if self.display and self.showing_diff:
            self.query_one("#draft-diff-text", Static).update(draft_diff(self._editor_text(), self.draft, self.rel))

    def action_toggle_diff(self) -> None:
        self._show_diff(not self.showing_diff)
        self.focus_view()

    def _show_diff(self, diff: bool) -> None:
        self.query_one("#draft-diff").display = diff
        self.query_one("#draft").display = not diff
        self.query_one("#draft-title", Static).update(DIFF_TITLE if diff else DRAFT_TITLE)
        self.follow_editor()

    def action_close(self) -> None:
        self.post_message(self.CloseAsked())

    def action_leave(self) -> None:
        self.post_message(self.Left())
