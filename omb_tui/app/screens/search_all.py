"""Search every bot (`/` on the bots screen; docs/app.md): session_search in each bot of the
home by its own rules (its chats, the rooms it is in, its memory files, its teams' notes; never one bot's chats
under another), each hit naming its bot, as `omb-tui search --all-bots` prints them.

The words box has the cursor from the moment the screen opens and keeps it: every key typed is text (a burst of
keys over a slow link included) until Escape, which goes back. Enter searches; the search runs in a thread.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Header, Input, Static

from ...core.journal.when import when_text
from ..widgets.keys_footer import KeysFooter
from ..widgets.row_list import printable

HITS_PER_BOT = 10


class SearchAllScreen(Screen[None]):
    TITLE = "omb-tui"
    SUB_TITLE = "search every bot"
    AUTO_FOCUS = "#search-words"
    BINDINGS = [Binding("escape", "back", "Back", id="search-back", tooltip="Back to the bots")]
    DEFAULT_CSS = """
    SearchAllScreen {
        #search-words { margin: 0 1; }
        #search-status { padding: 0 1; color: $text-muted; height: auto; }
        #search-hits { height: 1fr; padding: 0 1; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="words to find in every bot's chats and notes; Enter searches", id="search-words")
        yield Static(
            "Every bot is searched by its own rules; each hit names its bot. Escape goes back.", id="search-status"
        )
        with VerticalScroll(id="search-hits"):
            yield Static(id="search-hits-text")
        yield KeysFooter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        words = event.value.strip()
        if not words:
            self.query_one("#search-status", Static).update("Type the words to find, then Enter.")
            return
        self.query_one("#search-status", Static).update(f"Searching every bot for “{words}”…")
        self.search(words)

    @work(thread=True, exclusive=True, exit_on_error=False, group="search-all")
    def search(self, words: str) -> None:
        from ...core.search.session_search import session_search

        home = self.app.home
        found = [(bot_id, session_search(home, bot_id, words, limit=HITS_PER_BOT)) for bot_id in home.bot_ids()]
        self.app.call_from_thread(self._show, words, found)

    def _show(self, words: str, found: list) -> None:
        lines: list[Content] = []
        bots = 0
        for bot_id, result in found:
            if result.hits:
                bots += 1
            for hit in result.hits:
                at = hit.at.isoformat() if hit.at else None
                when = when_text(at) if at else (hit.day.isoformat() if hit.day else "undated")
                who = f"{hit.author}: " if hit.author else ""
                lines.append(
                    Content.assemble(
                        (printable(bot_id), "bold $text-primary"),
                        (f"  {when}  ", "$text-muted"),
                        (printable(hit.where), ""),
                    )
                )
                lines.append(Content(f"    {printable(who + ' '.join(hit.text.split())[:300])}"))
        count = sum(len(result.hits) for _, result in found)
        status = f"“{words}”: {count} hits in {bots} of {len(found)} bots." if count else f"“{words}”: nothing found."
        self.query_one("#search-status", Static).update(status + " Escape goes back.")
        self.query_one("#search-hits-text", Static).update(Content("\n").join(lines))

    def action_back(self) -> None:
        self.app.pop_screen()
