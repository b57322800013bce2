"""Ask for a topic name (new or renamed), checked against the name rules as you type."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Static

from ...core.files.paths import MemoryInputError, validate_topic_name
from ..styles import style_path


class TopicNameDialog(ModalScreen[str | None]):
    CSS_PATH = style_path("dialogs.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="name-cancel", tooltip="Close; nothing changes")]

    def __init__(self, title: str, value: str = "", taken: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.taken = taken  # names of the bot's topics now (a rename may keep its own name)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-question")
            yield Input(self.value, placeholder="travel.md", id="topic-name")
            yield Static(
                "Letters, numbers, spaces, dots and dashes, ending in .md.", id="name-hint", classes="dialog-note"
            )
            yield from self.more_options()

    def more_options(self) -> ComposeResult:
        """Widgets under the name (a rename's offer)."""
        return iter(())

    def _problem(self, value: str) -> str | None:
        """Why this name cannot be used, or None."""
        name = _with_suffix(value)
        try:
            validate_topic_name(name)
        except MemoryInputError as exc:
            return str(exc)
        if name in self.taken and name != self.value:
            return f"memory/{name} already exists: choose another name."
        return None

    def on_input_changed(self, event: Input.Changed) -> None:
        hint = self.query_one("#name-hint", Static)
        problem = self._problem(event.value)
        hint.update(problem or f"Will be memory/{_with_suffix(event.value)}")
        hint.set_class(problem is not None, "-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        problem = self._problem(event.value)
        if problem:  # the dialog stays open with the name as typed, the reason beside it
            self.notify(problem, severity="error", markup=False)
            return
        self.dismiss(self.answer(_with_suffix(event.value)))

    def answer(self, name: str):
        return name

    def action_cancel(self) -> None:
        self.dismiss(None)


class RenameTopicDialog(TopicNameDialog):
    """The rename's name, with the offer to point the topic's pointers (`see memory/old.md`, `[[old]]`) at the
    new name in the same change; answers (name, update_links), or None."""

    def __init__(self, old: str, taken: frozenset[str], pointers: str | None) -> None:
        super().__init__(f"Rename {old} to", old, taken=taken)
        self.pointers = pointers  # "2 pointers in MEMORY.md, memory/plans.md", or None when nothing points here

    def more_options(self) -> ComposeResult:
        if self.pointers:
            yield Checkbox(f"Also update {self.pointers}", True, id="update-links")

    def answer(self, name: str) -> tuple[str, bool]:
        offer = self.query("#update-links")
        return name, bool(offer) and offer.first(Checkbox).value


def _with_suffix(value: str) -> str:
    value = value.strip()
    return value if value.endswith(".md") else f"{value}.md"
