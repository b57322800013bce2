"""Ask for a topic name (new or renamed), checked against the name rules as you type."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...core.paths import MemoryInputError, validate_topic_name
from ..styles import style_path


class TopicNameDialog(ModalScreen[str | None]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="name-cancel", tooltip="Close; nothing changes")]

    def __init__(self, title: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-question")
            yield Input(self.value, placeholder="travel.md", id="topic-name")
            yield Static("Letters, numbers, spaces, dots and dashes, ending in .md.", id="name-hint",
                         classes="dialog-note")

    def on_input_changed(self, event: Input.Changed) -> None:
        hint = self.query_one("#name-hint", Static)
        try:
            validate_topic_name(_with_suffix(event.value))
            hint.update(f"Will be memory/{_with_suffix(event.value)}")
            hint.remove_class("-error")
        except MemoryInputError as exc:
            hint.update(str(exc))
            hint.add_class("-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = _with_suffix(event.value)
        try:
            validate_topic_name(name)
        except MemoryInputError as exc:
            self.notify(str(exc), severity="error")
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _with_suffix(value: str) -> str:
    value = value.strip()
    return value if value.endswith(".md") else f"{value}.md"
