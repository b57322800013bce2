"""A yes/no question as a modal dialog; dismisses with True or False.

A question may carry `details`, a list under it (the later changes an undo takes with it): the list scrolls
inside the dialog while the question above, the buttons and the line of keys below stay in view at 60x20.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..styles import style_path

SHORT = 24  # fewer rows than this: the dialog takes the whole height, its buttons one row each
DETAILS_NAMED = 100  # lines of a question's list named one by one (they scroll inside it), then "and N more"


def details_of(lines: list[str]) -> str:
    """A question's list: the first DETAILS_NAMED lines, then how many more there are."""
    named = lines[:DETAILS_NAMED]
    if len(lines) > DETAILS_NAMED:
        named.append(f"and {len(lines) - DETAILS_NAMED} more")
    return "\n".join(named)


class ConfirmDialog(ModalScreen[bool]):
    CSS_PATH = style_path("dialogs.tcss")
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT, "-tall")]
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="confirm-cancel", tooltip="Close without doing anything"),
        Binding("y", "confirm", "Yes", id="confirm-yes", tooltip="Go ahead"),
        Binding("n", "cancel", "No", id="confirm-no", tooltip="Close without doing anything"),
        # a button takes Enter itself; on the list, Enter answers no as the keys line says
        Binding("enter", "cancel", "No", show=False, id="confirm-enter", tooltip="Close without doing anything"),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "Cancel", *, details: str = "") -> None:
        super().__init__()
        self.question = question
        self.details = details
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-question")
            if self.details:
                with VerticalScroll(classes="dialog-details"):
                    yield Static(self.details, markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.yes_label, id="yes", variant="warning")
                yield Button(self.no_label, id="no")
            yield Static(self.keys_line(), classes="dialog-keys", markup=False)

    @property
    def said(self) -> str:
        """Everything the dialog asks: the question and the list under it."""
        return f"{self.question}\n{self.details}" if self.details else self.question

    def keys_line(self) -> str:
        """Every key the dialog takes, said once: a person over a slow link sees what a letter will do."""
        return f"y {self.yes_label} · n, Esc or Enter {self.no_label}"

    def letters(self) -> dict[str, Button]:
        """The buttons a first letter presses: only a letter no other button starts with, and never y or n,
        which are yes and no ("Close draft" and "Cancel" share c: neither takes it)."""
        firsts: dict[str, list[Button]] = {}
        for button in self.query(Button):
            firsts.setdefault(str(button.label)[:1].lower(), []).append(button)
        return {letter: found[0] for letter, found in firsts.items() if len(found) == 1 and letter not in "yn"}

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_resize(self) -> None:
        for button in self.query(Button):
            button.compact = self.size.height < SHORT  # one row each, not three, in a short terminal
        if self.details:
            self.query_one(".dialog-details").remove_class("-scrolls")  # its own height first, if that fits
            self.call_after_refresh(self._fit_details)

    def _fit_details(self) -> None:
        """The list keeps its own height while the dialog fits; else it takes the rows left and scrolls, so the
        buttons and the keys line are never cut off."""
        dialog = self.query_one(".dialog")
        keys = self.query_one(".dialog-keys")
        if keys.region.bottom > dialog.content_region.bottom:
            self.query_one(".dialog-details").add_class("-scrolls")

    def on_key(self, event: events.Key) -> None:
        """A button's first letter presses it when no other button shares it (letters())."""
        letter = (event.character or "").lower()
        button = self.letters().get(letter) if letter.isalpha() else None
        if button is not None:
            event.stop()
            button.press()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
