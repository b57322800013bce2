"""Recall preview: what recall puts in front of a message, and what loads into the system prompt.

Spec: memory.md, "Recall before each turn" (the block: at most four notes and four passages, numbered,
dated, at most 6,000 characters; eight characters or more; passages only in a 1:1 chat the person
started; any word counts, five or more need two) and "What loads, and the budget" (the first 200 lines or
24 KB of MEMORY.md, expired entries left out, then the topic index). The recall block is the core's
`recall(...).block` exactly as returned, drawn with the core's `block_marks`; the memory lines are marked
by the core's `load_cut`: the screen never applies either rule itself. The prompt text is the core's
`Bot.loaded_prompt`, the block `omb-tui prompt` prints, so the blocks of the bot's teams follow its memory as the
bot gets them. What it says is in `recall_sentences`; the recall pane draws it (`widgets/recall_pane.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Header, Input, Label, Select, Static, Tab, Tabs
from textual.worker import Worker, get_current_worker

from ...core.base import clock
from ...core.memory.budget import TopicIndex, topic_index
from ...core.memory.conversations import list_conversations
from ...core.recall.recall import RECALL_KINDS, BlockMarks, RecallResult, block_marks, recall
from ...core.turn.bot import parse_day
from ..recall_sentences import KIND_LABELS, memory_summary
from ..styles import style_path
from ..widgets.keys_footer import KeysFooter
from ..widgets.load_preview import LoadPreview, MemoryLoad, memory_load
from ..widgets.recall_pane import RecallPane
from ..widgets.turn_answer import TurnAnswer
from .base import BotScreen

NO_CHAT_PROMPT = "No chat: the kind decides"
PREVIEW_CHAT_ID = "recall-preview"  # where Send talks to the bot when no chat is chosen
PREVIEW_CHAT_TITLE = "Sent from the recall preview"
TYPING_PAUSE_SECONDS = 0.15  # recall runs again once typing pauses this long


@dataclass(frozen=True)
class RecallRequest:
    """Everything one preview depends on, read on the main thread before the worker starts."""

    bot_id: str
    message: str
    kind: str
    chat_id: str | None
    as_of: date


class ChatsRead(Message, bubble=False):
    """The bot's conversations as (label, id), newest first, read in `load_chats`' thread."""

    def __init__(self, bot_id: str, options: list[tuple[str, str]]) -> None:
        super().__init__()
        self.bot_id = bot_id
        self.options = options


class MemoryRead(Message, bubble=False):
    """What loads into the system prompt on a day, worked out in `load_memory`'s thread."""

    def __init__(self, bot_id: str, load: MemoryLoad, index: TopicIndex, prompt: str) -> None:
        super().__init__()
        self.bot_id = bot_id
        self.load = load
        self.index = index
        self.prompt = prompt


class RecallPreviewed(Message, bubble=False):
    """What recall gives for one request, worked out in `run_recall`'s thread."""

    def __init__(self, request: RecallRequest, result: RecallResult, marks: BlockMarks) -> None:
        super().__init__()
        self.request = request
        self.result = result
        self.marks = marks


class PaneTabs(Tabs):
    """Recall block or system prompt, when the screen is too narrow for both side by side; Tab switches."""

    can_focus = False


class RecallScreen(BotScreen):
    CSS_PATH = style_path("recall.tcss")
    AUTO_FOCUS = "#message"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [
        Binding(
            "ctrl+l,slash",
            "focus_message",
            "Message",
            id="recall-focus-message",
            tooltip="Type the message recall looks up (/ when you are not typing)",
        ),
        Binding(
            "k",
            "cycle_kind",
            "Kind",
            id="recall-cycle-kind",
            tooltip="Next kind of turn: person, room, routine, bot, webhook, hand-off",
        ),
        Binding(
            "K",
            "open_kind",
            "Kind list",
            show=False,
            id="recall-open-kind",
            tooltip="Choose the kind of turn from the list",
        ),
        Binding(
            "c",
            "open_chat",
            "Chat",
            show=False,
            id="recall-open-chat",
            tooltip="Choose the conversation the message arrives in (it decides the kind)",
        ),
        Binding(
            "a",
            "focus_as_of",
            "As of",
            show=False,
            id="recall-focus-as-of",
            tooltip="See both blocks on another day (YYYY-MM-DD; empty is today)",
        ),
        Binding(
            "tab",
            "next_panel",
            "Panel",
            id="recall-next-panel",
            tooltip="The other block: recall block, system prompt (/ goes back into the message)",
        ),
        Binding(
            "shift+tab",
            "previous_panel",
            "Previous panel",
            show=False,
            id="recall-previous-panel",
            tooltip="Previous panel",
        ),
        Binding(
            "p",
            "toggle_prompt",
            "Prompt text",
            id="recall-toggle-prompt",
            tooltip="The memory block exactly as the system prompt gets it, or MEMORY.md line by line",
        ),
        Binding(
            "escape",
            "leave_field",
            "Leave field",
            show=False,
            id="recall-leave-field",
            tooltip="From a field to the recall block, so single keys work",
        ),
        Binding(
            "ctrl+s",
            "send",
            "Send",
            id="recall-send",
            tooltip="Send the message to the bot: a real turn in the chosen chat (or a preview chat), "
            "showing its answer and each tool call",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.result: RecallResult | None = None
        self.request: RecallRequest | None = None
        self.memory: MemoryLoad | None = None
        self.index: TopicIndex | None = None
        self.prompt_text = ""
        self.showing_prompt = False
        self.chat_ids: list[str] = []
        self._chat_options: list[tuple[str, str]] = []
        self._typing_timer: Timer | None = None
        self._as_of_shown: date | None = None
        self.sending = False  # a turn sent from here is running

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="recall-message-row", classes="recall-row"):
            yield Label("Message", classes="recall-label")
            # select_on_focus off: coming back with Tab must not leave the message one keystroke from gone
            yield Input(
                placeholder="type a message as the person would send it",
                id="message",
                compact=True,
                select_on_focus=False,
            )
            yield Label("As of", classes="recall-label")
            yield Input(
                placeholder="today",
                id="as-of",
                compact=True,
                max_length=10,
                restrict=r"[0-9-]*",
                tooltip="The day both blocks are shown for: YYYY-MM-DD, empty for today",
            )
        with Horizontal(id="recall-options-row", classes="recall-row"):
            yield Label("Kind", classes="recall-label")
            yield Select(
                [(label, kind) for kind, label in KIND_LABELS.items() if kind in RECALL_KINDS],
                value="person",
                allow_blank=False,
                compact=True,
                id="kind",
                tooltip="Who started the turn: only a 1:1 chat the person started recalls passages",
            )
            yield Label("Chat", classes="recall-label")
            yield Select(
                [],
                prompt=NO_CHAT_PROMPT,
                compact=True,
                id="chat",
                tooltip="The conversation the message arrives in: its kind decides, and it is never "
                "recalled into itself",
            )
        yield PaneTabs(Tab("Recall block", id="tab-recall"), Tab("System prompt", id="tab-memory"), id="pane-tabs")
        with Horizontal(id="panes", classes="-show-recall"):
            yield RecallPane(id="recall-pane")
            with Vertical(id="memory-pane"):
                yield Static("System prompt · MEMORY.md and the topic index", classes="pane-title")
                yield Static("Reading MEMORY.md…", id="memory-summary")
                with VerticalScroll(id="memory-view"):
                    yield LoadPreview(id="memory-lines")
                    yield Static("", id="topic-index")
                    yield Static("", id="prompt-text")
        yield KeysFooter()

    def on_screen_resume(self) -> None:
        """Each time the preview is opened the cursor is in the message box, wherever it was left: a person
        comes here to type, and a letter typed outside a box would act (switch areas, open a picker)."""
        super().on_screen_resume()
        self.call_after_refresh(self.action_focus_message)

    def on_mount(self) -> None:
        self.query_one("#prompt-text").display = False
        self._show_hint()

    # ----- what the controls hold -----
    @property
    def message(self) -> str:
        return self.query_one("#message", Input).value

    @property
    def kind(self) -> str:
        value = self.query_one("#kind", Select).value
        return value if isinstance(value, str) else "person"

    @property
    def chat_id(self) -> str | None:
        value = self.query_one("#chat", Select).value
        return value if isinstance(value, str) else None

    @property
    def as_of(self) -> date | None:
        """The day asked for; today when the field is empty; None while it holds no date yet."""
        value = self.query_one("#as-of", Input).value.strip()
        if not value:
            return clock.today()
        try:
            return parse_day(value)
        except ValueError:
            return None

    def _typing(self) -> bool:
        return isinstance(self.focused, Input)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_chat":
            return bool(self.chat_ids) or None
        if action == "toggle_prompt":
            return self.memory is not None or None
        if action == "send":
            return not self.sending or None
        return True

    # ----- loading -----
    def reload(self, *, bot_changed: bool) -> None:
        if bot_changed:
            self.chat_ids = []
            self._chat_options = []
            chat = self.query_one("#chat", Select)
            chat.set_options([])
            chat.clear()
            self.query_one(TurnAnswer).clear()  # another bot's answer is not this one's
        self.load_chats()
        as_of = self.as_of or self._as_of_shown or clock.today()  # a half-typed day keeps the last one
        self._as_of_shown = as_of
        self.load_memory(as_of)
        self.start_recall()

    @work(thread=True, exclusive=True, exit_on_error=False, group="recall-chats")
    def load_chats(self) -> None:
        bot_id = self.app.bot_id
        conversations = list_conversations(self.app.home, bot_id)
        conversations.sort(key=lambda c: c.created, reverse=True)
        options = [(c.label(), c.id) for c in conversations]
        if not get_current_worker().is_cancelled:
            self.post_message(ChatsRead(bot_id, options))

    def on_chats_read(self, message: ChatsRead) -> None:
        options = message.options
        if message.bot_id != self.app.bot_id:
            return
        ids = [chat_id for _, chat_id in options]
        if options == self._chat_options:
            return
        self._chat_options = options
        chat = self.query_one("#chat", Select)
        chosen = self.chat_id
        with self.prevent(Select.Changed):
            chat.set_options([(Text(label), chat_id) for label, chat_id in options])
            if chosen in ids:
                chat.value = chosen
        self.chat_ids = ids
        if chosen is not None and chosen not in ids:  # the chat is gone: the kind decides again
            self.start_recall()
        self.refresh_bindings()

    @work(thread=True, exclusive=True, exit_on_error=False, group="recall-memory")
    def load_memory(self, as_of: date) -> None:
        bot = self.bot
        text, topics = bot.memory_text(), bot.topics()  # read once, for the preview and the prompt alike
        # exactly what `omb-tui prompt` prints: memory, topic index, team blocks
        loaded = bot.loaded_prompt(as_of, memory_text=text, topics=topics)
        load = memory_load(text, as_of, memory_on=loaded.memory_on)
        index = topic_index(topics)
        if not get_current_worker().is_cancelled:
            self.post_message(MemoryRead(bot.id, load, index, loaded.block))

    def on_memory_read(self, message: MemoryRead) -> None:
        load, index, prompt = message.load, message.index, message.prompt
        if message.bot_id != self.app.bot_id:
            return
        self.memory, self.index, self.prompt_text = load, index, prompt
        self.query_one("#memory-summary", Static).update(Text(memory_summary(load, index)))
        self.query_one(LoadPreview).show(load)
        self.query_one("#topic-index", Static).update(
            Text(
                index.text.rstrip("\n") if index.text else "No topic files, so no topic index.",
                style="" if load.memory_on else "dim",
            )
        )
        self.query_one("#prompt-text", Static).update(
            Text(prompt.rstrip("\n") if prompt else "Nothing: this bot's memory is off.")
        )
        self._show_prompt_or_lines()
        self.refresh_bindings()

    def start_recall(self) -> None:
        """Preview recall for what the controls hold now (at once; typing goes through the pause)."""
        if self._typing_timer is not None:
            self._typing_timer.stop()
            self._typing_timer = None
        as_of = self.as_of or self._as_of_shown or clock.today()  # a half-typed day keeps the last one
        if not self.app.bot_id:
            return
        request = RecallRequest(self.app.bot_id, self.message, self.kind, self.chat_id, as_of)
        self.request = request
        if not request.message.strip():
            self.result = None
            self._show_hint()
            return
        self.run_recall(request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="recall")
    def run_recall(self, request: RecallRequest) -> None:
        result = recall(
            self.app.home,
            request.bot_id,
            request.message,
            chat_id=request.chat_id,
            kind=request.kind,
            today=request.as_of,
        )
        marks = block_marks(result)
        if not get_current_worker().is_cancelled:
            self.post_message(RecallPreviewed(request, result, marks))

    def on_recall_previewed(self, message: RecallPreviewed) -> None:
        result, marks = message.result, message.marks
        if message.request != self.request:  # typing went on: a newer preview is on its way
            return
        self.result = result
        self.query_one(RecallPane).show_result(result, marks)

    def _show_hint(self) -> None:
        self.query_one(RecallPane).show_hint(self.kind)

    def worker_failed(self, worker: Worker, error: str) -> None:
        # The pane says its preview is not current (the notification is sent by NotifyWorkerErrors).
        if worker.group == "recall-send":
            self.sending = False
            self.query_one(TurnAnswer).show_error(error)
            self.refresh_bindings()
        elif worker.group == "recall":
            self.query_one(RecallPane).show_failure(error)
        elif worker.group == "recall-memory":
            self.query_one("#memory-summary", Static).update(Text(f"MEMORY.md could not be read: {error}"))

    # ----- events -----
    @on(Input.Changed, "#message")
    def _message_changed(self) -> None:
        if self.query_one("#panes").has_class("-show-memory") and self.has_class("-narrow"):
            self._show_pane("recall")  # what typing changes is the recall block: show it
        if self._typing_timer is not None:
            self._typing_timer.stop()
        self._typing_timer = self.set_timer(TYPING_PAUSE_SECONDS, self.start_recall)

    @on(Input.Submitted, "#message")
    def _message_submitted(self) -> None:
        self.start_recall()

    @on(Select.Changed, "#kind")
    @on(Select.Changed, "#chat")
    def _turn_changed(self) -> None:
        self.start_recall()

    @on(Input.Changed, "#as-of")
    def _as_of_changed(self) -> None:
        as_of = self.as_of
        field = self.query_one("#as-of", Input)
        field.set_class(as_of is None and len(field.value) >= 10, "-bad-date")
        if as_of is None or as_of == self._as_of_shown:
            return
        self._as_of_shown = as_of
        self.load_memory(as_of)
        self.start_recall()

    @on(Input.Submitted, "#as-of")
    def _as_of_submitted(self) -> None:
        if self.as_of is None:
            self.notify(
                f"{self._not_a_day()} Give it as YYYY-MM-DD, or leave it empty for today.",
                severity="warning",
                markup=False,
            )
            return
        self.query_one("#recall-view").focus()

    @on(Input.Blurred, "#as-of")
    def _as_of_left(self) -> None:
        """Leaving the field with no day in it: it shows the day the blocks are for again, and says so."""
        if self.as_of is not None:
            return
        said = self._not_a_day()
        shown = self._as_of_shown or clock.today()
        self.query_one("#as-of", Input).value = "" if shown == clock.today() else shown.isoformat()
        self.notify(said, severity="warning", markup=False)

    def _not_a_day(self) -> str:
        value = self.query_one("#as-of", Input).value.strip()
        shown = self._as_of_shown or clock.today()
        day = "today" if shown == clock.today() else shown.isoformat()
        return f"{value} is not a day (YYYY-MM-DD): both blocks are for {day}."

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        self._show_pane("memory" if event.tab.id == "tab-memory" else "recall")

    # ----- actions -----
    def action_focus_message(self) -> None:
        self.query_one("#message", Input).focus()

    def action_cycle_kind(self) -> None:
        select = self.query_one("#kind", Select)
        kinds = list(KIND_LABELS)
        select.value = kinds[(kinds.index(self.kind) + 1) % len(kinds)]

    def action_open_kind(self) -> None:
        select = self.query_one("#kind", Select)
        select.focus()
        select.expanded = True

    def action_open_chat(self) -> None:
        select = self.query_one("#chat", Select)
        select.focus()
        select.expanded = True

    def action_focus_as_of(self) -> None:
        self.query_one("#as-of", Input).focus()

    def action_leave_field(self) -> None:
        if self._typing() or isinstance(self.focused, Select):
            self._focus_panel("recall")

    def _panel_of_focus(self) -> str:
        node: Widget | None = self.focused
        while node is not None and node is not self:
            if node.id in ("recall-view", "memory-view"):
                return node.id.removesuffix("-view")
            node = node.parent  # type: ignore[assignment]
        return "message"  # the message and the controls beside it are one stop

    # Tab moves between the two blocks and never back into the message box, where `k` and the other letters
    # would type: the box is entered on purpose, with / or Ctrl+L (as the editor is with Enter on Files).
    def action_next_panel(self) -> None:
        self._focus_panel("memory" if self._panel_of_focus() == "recall" else "recall")

    def action_previous_panel(self) -> None:
        self._focus_panel("recall" if self._panel_of_focus() == "memory" else "memory")

    def _focus_panel(self, panel: str) -> None:
        if panel == "message":
            self.action_focus_message()
            return
        self._show_pane(panel)  # narrow: only one pane shows at a time, so going to a pane shows it first
        view = self.query_one(f"#{panel}-view")
        self.call_after_refresh(view.focus)

    def _show_pane(self, panel: str) -> None:
        self.query_one(PaneTabs).active = f"tab-{panel}"
        panes = self.query_one("#panes")
        panes.set_class(panel == "memory", "-show-memory")
        panes.set_class(panel == "recall", "-show-recall")

    def action_send(self) -> None:
        """Send the message as the person: the same turn a chat runs, in the chosen chat or the preview chat."""
        message = self.message.strip()
        if self.sending or not self.app.bot_id:
            return
        if not message:
            self.notify("Type the message to send first.", severity="warning", markup=False)
            return
        chat_id = self.chat_id or PREVIEW_CHAT_ID
        label = next((label for label, cid in self._chat_options if cid == chat_id), f'chat "{PREVIEW_CHAT_TITLE}"')
        self.sending = True
        self.refresh_bindings()
        self.query_one(TurnAnswer).show_sending(self.bot.name, message, label)
        self._show_pane("recall")  # the answer shows; the cursor stays in the box, where letters are text
        self.query_one("#recall-view", VerticalScroll).scroll_home(animate=False)
        self.send_turn(self.app.bot_id, message, chat_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="recall-send")
    def send_turn(self, bot_id: str, message: str, chat_id: str) -> None:
        """The turn `omb-tui chat` runs: a turn no model answered keeps the person's words in that chat, marked not
        answered, and nothing as the bot's (core record_turn_end)."""
        from ...core.turn.turn import chat_turn  # the model layer loads only when a turn is sent

        title = PREVIEW_CHAT_TITLE if chat_id == PREVIEW_CHAT_ID else None
        result = chat_turn(self.app.home, bot_id, message, chat=chat_id, title=title)
        self.app.call_from_thread(self._show_answer, bot_id, result)

    def _show_answer(self, bot_id: str, result) -> None:
        self.sending = False
        self.refresh_bindings()
        if bot_id != self.app.bot_id:
            return
        label = next((label for label, cid in self._chat_options if cid == result.chat), "")
        if result.chat and not label:
            label = f'chat "{PREVIEW_CHAT_TITLE}"' if result.chat == PREVIEW_CHAT_ID else f'chat "{result.chat}"'
        self.query_one(TurnAnswer).show_result(self.bot.name, result, label)
        # the turn may have changed memory and the conversations: show them as they are now
        self.load_chats()
        self.load_memory(self._as_of_shown or clock.today())

    def action_toggle_prompt(self) -> None:
        self.showing_prompt = not self.showing_prompt
        self._show_prompt_or_lines()
        self._focus_panel("memory")

    def _show_prompt_or_lines(self) -> None:
        self.query_one("#prompt-text").display = self.showing_prompt
        self.query_one(LoadPreview).display = not self.showing_prompt
        self.query_one("#topic-index").display = not self.showing_prompt
