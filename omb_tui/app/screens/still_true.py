"""Still true?: the entries of every bot that have not been confirmed for a long time, end within a week, or were
found contradicted but not struck, answered one key each (keep, strike, until, edit). Reached from the Review
area (`t`).

Spec: memory.md, "Memory upkeep"; docs/guard.md, "Still true?". Everything comes from the core
(`still_true_queue`, `answer_still_true`); each answer is one journal row by the person, undone from the journal.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from ...core.base import clock
from ...core.base.text import plural
from ..styles import style_path
from ..widgets.keys_footer import KeysFooter
from .base import AreaScreen


@dataclass(frozen=True)
class QueueLine:
    bot: str
    id: str
    file: str
    text: str
    why: str


class QueueRead(Message, bubble=False):
    def __init__(self, lines: list[QueueLine], unread: list[str]) -> None:
        super().__init__()
        self.lines = lines
        self.unread = unread  # one sentence per bot whose queue could not be read


class Answered(Message, bubble=False):
    def __init__(self, said: str) -> None:
        super().__init__()
        self.said = said


def read_queue(home) -> QueueRead:
    from ...core.files.paths import MemoryInputError
    from ...core.guard.still_true import still_true_queue

    lines, unread = [], []
    for bot_id in home.bot_ids():
        try:
            queue = still_true_queue(home, bot_id)
        except (MemoryInputError, OSError) as exc:
            unread.append(f"{bot_id}: {exc}")
            continue
        lines += [QueueLine(bot_id, item.id, item.file, item.text, item.why) for item in queue]
    return QueueRead(lines, unread)


class StillTrueScreen(AreaScreen):
    CSS_PATH = style_path("still_true.tcss")
    AUTO_FOCUS = "#still-true-list"
    BINDINGS = [
        Binding("k", "answer('keep')", "Keep", id="still-true-keep", tooltip="Still true: mark it confirmed today"),
        Binding("s", "answer('strike')", "Strike", id="still-true-strike", tooltip="No longer true: strike it through"),
        Binding("u", "until", "Until", id="still-true-until", tooltip="True until a day you type"),
        Binding("e", "edit", "Edit", id="still-true-edit", tooltip="Change the entry's words"),
        Binding("escape", "back", "Back", id="still-true-back", tooltip="Back to the Review area"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[QueueLine] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Reading what to ask about…", id="still-true-status")
        yield OptionList(id="still-true-list")
        yield Static("", id="still-true-why")
        yield KeysFooter()

    @property
    def listing(self) -> OptionList:
        return self.query_one("#still-true-list", OptionList)

    def read_from_disk(self) -> None:
        self.read_queue()

    @work(thread=True, exclusive=True, exit_on_error=False, group="still-true-read")
    def read_queue(self) -> None:
        self.post_message(read_queue(self.app.home))

    def on_queue_read(self, message: QueueRead) -> None:
        self.lines = message.lines
        keep = self.listing.highlighted or 0
        self.listing.clear_options()
        self.listing.add_options(
            [Option(f"{line.bot} · {line.file} · {line.text}", id=f"{line.bot}/{line.id}") for line in self.lines]
        )
        if self.lines:
            self.listing.highlighted = min(keep, len(self.lines) - 1)
        status = (
            f"Still true? {plural(len(self.lines), 'entry', 'entries')} to ask about today. "
            "k keeps, s strikes, u sets an until date, e edits; each answer can be undone from the journal."
            if self.lines
            else "Nothing to ask about today: every entry is recent, confirmed or has an until date further off."
        )
        self.query_one("#still-true-status", Static).update("\n".join([status, *message.unread]))
        self._show_why()
        self.refresh_bindings()

    @on(OptionList.OptionHighlighted, "#still-true-list")
    def _show_why(self) -> None:
        line = self.current()
        self.query_one("#still-true-why", Static).update(f"Why: {line.why}." if line else "")

    def current(self) -> QueueLine | None:
        index = self.listing.highlighted
        return self.lines[index] if index is not None and 0 <= index < len(self.lines) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("answer", "until", "edit"):
            return self.current() is not None
        return True

    def action_answer(self, answer: str) -> None:
        line = self.current()
        if line is not None:
            self.answer(line, answer, None)

    @work(exclusive=True, exit_on_error=False, group="still-true-ask")
    async def action_until(self) -> None:
        from ..dialogs.until_date import UntilDateDialog

        line = self.current()
        if line is None:
            return
        day = await self.app.push_screen_wait(UntilDateDialog(line.text, clock.today()))
        if day is not None:
            self.answer(line, "until", day)

    @work(exclusive=True, exit_on_error=False, group="still-true-ask")
    async def action_edit(self) -> None:
        from ..dialogs.entry_edit import EntryEditDialog

        line = self.current()
        if line is None:
            return
        text = await self.app.push_screen_wait(EntryEditDialog(line.text))
        if text is not None:
            self.answer(line, "edit", None, text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="still-true-answer")
    def answer(self, line: QueueLine, answer: str, until: date | None, text: str | None = None) -> None:
        from ...core.guard.still_true import answer_still_true
        from ...core.journal.journal import HOW_SETTINGS

        home = self.app.home
        (done,) = answer_still_true(home, line.bot, answer, [line.id], until=until, how=HOW_SETTINGS, text=text)
        self.post_message(Answered(f"{line.bot}: {done.text}"))

    def on_answered(self, message: Answered) -> None:
        self.notify(message.said, title="Answered", markup=False)
        self.app.note_disk_change()
        self.read_again()

    def action_back(self) -> None:
        self.app.pop_screen()
