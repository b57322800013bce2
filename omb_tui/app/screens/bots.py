"""Bots: every bot with its name, memory switch, gauge level and last change; Enter opens one, d duplicates one
(spec memory.md, "Keeping one bot off the helper": a copy made with Duplicate keeps the helper switch)."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Header, Static

from ...core.base.text import plural
from ...core.memory.bot_names import bot_names
from ..widgets.bot_list import BotList
from ..widgets.keys_footer import KeysFooter
from .base import AreaScreen

# The first frame names this many bots at most (~30 µs each): far more than a screen holds; the rest come with
# the engine's read.
FIRST_LOOK_ROWS = 100


class BotsRead(Message, bubble=False):
    """Every bot's summary, read in `load_bots`' thread."""

    def __init__(self, summaries: list, overnight: dict) -> None:
        super().__init__()
        self.summaries = summaries
        self.overnight = overnight  # bot id -> core Tally: last night's changes, and the proposals waiting


class BotDuplicated(Message, bubble=False):
    """A copy made in `make_copy`'s thread (`copied`: the core's Duplicated), or why it was not (`refusal`)."""

    def __init__(self, copied=None, refusal: str | None = None) -> None:
        super().__init__()
        self.copied = copied
        self.refusal = refusal


class BotsScreen(AreaScreen):
    EXPLAINS = (
        "Gauge: how much of MEMORY.md loads into every prompt, by the first 200 lines or 24 KB, whichever comes "
        "first; amber from 80%, red once something stops loading (Lines: how many lines it has).\n"
        "Night: what last night's writers changed (from 18:00 the day before), as Review counts it: the number of "
        'changes, and "2 wait" for compaction proposals waiting for you; bright while something is new. '
        "v opens Review.\n"
        "Last change: when a memory file last changed, and who changed it."
    )
    # styles/bots.tcss is part of the app's CSS_PATH (the first screen: one CSS parse at start-up)
    TITLE = "omb-tui"  # every bot's screen: the header never keeps the name of the bot opened last
    BINDINGS = [
        Binding("enter", "open_bot", "Open", id="open-bot", tooltip="Open the selected bot's memory files"),
        Binding(
            "v",
            "app.open_area('review')",
            "Review",
            id="bots-review",
            tooltip="What changed since you last looked, every writer and every bot",
        ),
        Binding(
            "w",
            "app.open_area('team')",
            "Team",
            id="bots-team",
            tooltip="Team memory: the notes a team of bots shares, and the cards to review",
        ),
        Binding(
            "slash",
            "search_all",
            "Search",
            id="bots-search",
            tooltip="Search every bot's chats and notes, each by its own rules; each hit names its bot",
        ),
        Binding(
            "d",
            "duplicate",
            "Duplicate",
            show=False,  # not a primary action: ? lists it
            id="duplicate-bot",
            tooltip="Copy the selected bot under a new id: its settings and memory files, not its conversations",
        ),
        Binding("ctrl+r", "reload", "Refresh", show=False, id="refresh-bots", tooltip="Read every bot again"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Reading the bots in {self.app.home.root}…", id="bots-intro")
        yield BotList(id="bots-list")  # its column header is in the very first frame
        yield KeysFooter()

    def on_mount(self) -> None:  # (AreaScreen's on_mount runs as well: Textual calls each class's handler)
        self.sub_title = str(self.app.home.root)  # the home, as before any bot was opened
        # The names are in the first frame (the settings files alone, a few ms); the engine is imported and
        # each bot read (gauge, last change, outside edits journaled) only once that frame is on the terminal.
        if not self.app.bot_id:  # opened straight on a bot, this screen stays hidden: it reads nothing yet
            self.query_one(BotList).show_names(bot_names(self.app.home, most=FIRST_LOOK_ROWS))
        self._read_at_version = self.app.memory_version
        self.app.after_first_frame(self._first_read)

    def _first_read(self) -> None:
        if self.is_current:
            self.read_again()
        else:  # the app opened straight on a bot: read when (if ever) this screen is shown
            self._read_at_version = None

    def read_from_disk(self) -> None:
        self.load_bots()

    def action_reload(self) -> None:
        self.load_bots()

    @work(thread=True, exclusive=True, exit_on_error=False, group="bots")
    def load_bots(self) -> None:
        from ...core.review.changes import overnight
        from ...core.turn.bot import all_bots  # imported here so the screen paints before the engine loads

        summaries = []
        for bot in all_bots(self.app.home):
            bot.look()
            summaries.append(bot.summary())
        self.post_message(BotsRead(summaries, overnight(self.app.home)))

    def on_bots_read(self, message: BotsRead) -> None:
        self.query_one(BotList).show(message.summaries, start_on=self.app.bot_id, overnight=message.overnight)
        self._say_what_is_listed(message.summaries)
        self.refresh_bindings()

    def _say_what_is_listed(self, summaries: list) -> None:
        intro = self.query_one("#bots-intro", Static)
        bot_list = self.query_one(BotList)
        current = bot_list.highlighted
        night = bot_list.overnight.get(current.id) if current is not None else None
        if current is not None and current.error:
            intro.update(f"{current.id}: {current.error}")
        elif night is not None and (night.changes or night.pending):
            intro.update(f"{current.id}, last night: {night.line()}. v reviews them.")
        elif summaries:
            # the home's path is in the header: one line here keeps the list from moving under the pointer
            intro.update(f"{plural(len(summaries), 'bot')} in this home. Enter opens one; ? lists every key.")
        else:
            intro.update(f"No bots in {self.app.home.root}. Try: omb-tui demo --home DIR")

    def on_bot_list_highlighted(self, event: BotList.Highlighted) -> None:
        if not event.bot_list.first_look:  # until every bot is read, the intro says it is reading them
            self._say_what_is_listed(event.bot_list.summaries)

    def action_open_bot(self) -> None:
        self.query_one(BotList).action_choose()

    def on_bot_list_chosen(self, event: BotList.Chosen) -> None:
        self.app.open_bot(event.bot_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "duplicate":  # greyed out while no bot is listed
            return None if self.query_one(BotList).highlighted is None else True
        return True

    def action_search_all(self) -> None:
        from .search_all import SearchAllScreen

        self.app.push_screen(SearchAllScreen())

    def action_duplicate(self) -> None:
        current = self.query_one(BotList).highlighted
        if current is not None:
            self.ask_for_copy(current.id, current.name)

    @work(exclusive=True, exit_on_error=False, group="duplicate")
    async def ask_for_copy(self, bot_id: str, bot_name: str) -> None:
        from ..dialogs.duplicate_bot import DuplicateBotDialog

        taken = frozenset(summary.id for summary in self.query_one(BotList).summaries)
        answer = await self.app.push_screen_wait(DuplicateBotDialog(bot_id, bot_name, taken))
        if answer is not None:
            self.make_copy(bot_id, *answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="duplicate-write")
    def make_copy(self, bot_id: str, new_id: str, name: str | None) -> None:
        from ...core.backup.duplicate import duplicate_bot
        from ...core.files.paths import MemoryInputError

        try:
            self.post_message(BotDuplicated(duplicate_bot(self.app.home, bot_id, new_id, name)))
        except (MemoryInputError, OSError) as exc:
            self.post_message(BotDuplicated(refusal=str(exc)))

    def on_bot_duplicated(self, message: BotDuplicated) -> None:
        if message.refusal is not None:
            self.notify(message.refusal, severity="error", markup=False)
            return
        copied = message.copied
        helper = "" if copied.helper_model else " It stays off the helper model, as the bot is."
        self.notify(f"Copied {copied.source} as {copied.bot} ({copied.name}).{helper}", markup=False)
        self.load_bots()  # the copy is listed; the cursor stays on the bot it was copied from
