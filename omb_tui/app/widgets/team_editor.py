"""The Team memory screen's editor: a note's title and text, or a card's before accepting it.

Spec: memory.md, "Shared team memory integrity"; docs/app.md "Team memory". The editor knows what it edits and
the revision the edit is based on; when the record changed since it opened (or a save was refused), the record as
it is now is shown beside the draft, so the draft is never lost and the person sees what they would save over.
The screen (`screens/team.py`) opens and closes it and makes every change through the core.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Static, TextArea

from .row_list import printable


class TeamEditor(Vertical):
    """A title, the text, and the record as it is now beside them once needed; shown in place of the tabs."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # What is edited ("note" or "card"), its key, and the revision the edit is based on.
        self.editing: tuple[str, str, int] | None = None
        self.opened_with: tuple[str, str] = ("", "")

    def compose(self) -> ComposeResult:
        yield Static("", id="editor-heading")
        yield Input(id="editor-title", compact=True, placeholder="Title")
        with Horizontal(id="editor-panes"):
            yield TextArea(id="editor-text", soft_wrap=True, compact=True)
            with VerticalScroll(id="editor-current", can_focus=False):
                yield Static("", id="editor-current-text")

    @property
    def text_area(self) -> TextArea:
        return self.query_one("#editor-text", TextArea)

    def open(self, kind: str, key: str, revision: int, title: str, text: str) -> None:
        self.editing = (kind, key, revision)
        self.opened_with = (title, text)
        self.query_one("#editor-title", Input).value = title
        self.text_area.load_text(text)
        self.query_one("#editor-current").display = False
        self.say_editing()

    def say_editing(self, conflict: bool = False) -> None:
        kind, key, revision = self.editing
        if kind == "card":
            what = f"The card for {key} (revision {revision}): Ctrl+S accepts it as you edit it"
        else:
            what = f"The note {key} (revision {revision}): Ctrl+S saves it"
        if conflict:
            what = f"Your draft, not saved. Ctrl+S saves it over revision {revision}, shown beside it"
        self.query_one("#editor-heading", Static).update(Text(f"{what}; Escape leaves."))

    def draft(self) -> tuple[str, str]:
        return self.query_one("#editor-title", Input).value, self.text_area.text

    def has_changes(self) -> bool:
        return bool(self.editing) and self.draft() != self.opened_with

    def show_current_beside(self, current, *, after_refusal: bool = False) -> None:
        """Beside the draft, the record as it is now (`current`, None when it is gone), when it changed since the
        editor opened."""
        kind, key, revision = self.editing
        beside = self.query_one("#editor-current")
        if current is not None and current.revision == revision and not after_refusal:
            return
        if current is None:
            text = Text(
                f"The {kind} {key} is no longer there ({'accepted or rejected' if kind == 'card' else 'gone'}"
                "); your draft stays here to copy from."
            )
        else:
            label = "The card now" if kind == "card" else "The note now"
            text = Content("\n").join(
                [
                    Content.styled(f"{label}: revision {current.revision}", "bold"),
                    Content.styled(current.title, "bold"),
                    Content(printable(current.text, keep="\n")),
                ]
            )
        self.query_one("#editor-current-text", Static).update(text)
        beside.display = True
        if after_refusal and current is not None:
            self.editing = (kind, key, current.revision)  # the person has seen it: saving again is their choice
            self.say_editing(conflict=True)
