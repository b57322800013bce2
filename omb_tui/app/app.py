"""The omb-tui Textual app: bots, memory files, topic index, journal, recall preview, settings.

Spec: memory.md, "What loads, and the budget", "Editing", "The journal", "Recall before each turn".
Each main area is a mode whose screen is imported only when first opened, so start-up pays for the
bots screen alone. Files are watched with watchfiles; every change bumps `memory_version`, which the
screens follow.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from importlib import import_module
from pathlib import Path
from typing import Protocol

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import get_current_worker

from ..core.files.paths import Home
from .styles import style_path
from .worker_errors import NotifyWorkerErrors


class DraftHolder(Protocol):
    def unsaved_draft(self) -> str | None: ...

    def save_then(self, then: Callable[[], object]) -> None: ...


class DiskChanged(Message):
    """Files under the home changed (posted from the watcher thread)."""

    def __init__(self, paths: frozenset[Path]) -> None:
        super().__init__()
        self.paths = paths


# mode name -> (module under omb_tui.app.screens, screen class)
AREAS: dict[str, tuple[str, str]] = {
    "bots": ("bots", "BotsScreen"),
    "files": ("files", "FilesScreen"),
    "topics": ("topics", "TopicsScreen"),
    "journal": ("journal", "JournalScreen"),
    "recall": ("recall", "RecallScreen"),
    "settings": ("settings", "SettingsScreen"),
    "upkeep": ("upkeep", "UpkeepScreen"),
    "review": ("review", "ReviewScreen"),
    "team": ("team", "TeamScreen"),
}
BOT_AREAS = ("files", "topics", "journal", "recall", "settings", "upkeep")


# Upkeep is `e`: `u` is taken on the journal (undo) and settings (the upkeep switch) screens, `k` on recall's.
# Review (every bot's overnight runs, no bot need be open) is `v`: `r` is recall's.
# Team memory is `w`: `m` is the memory switch on settings, and `t` is topics.
AREA_KEYS = {
    "bots": "b",
    "files": "f",
    "topics": "t",
    "journal": "j",
    "recall": "r",
    "settings": "s",
    "upkeep": "e",
    "review": "v",
    "team": "w",
}
AREA_TIPS = {
    "bots": "All bots",
    "files": "The bot's memory files",
    "topics": "The topic index as the bot sees it",
    "journal": "Every change, with diff and undo",
    "recall": "Preview what recall injects before a message",
    "settings": "The bot's memory switches",
    "upkeep": "Memory upkeep: what ran last, Tidy up now, About me's learned lines, this month's usage",
    "review": "What changed since you last looked, every writer and every bot: read it, undo a group or a change, mark it",
    "team": "Team memory: the notes a team of bots shares, and the cards to review",
}


# Terminals without the kitty keyboard protocol (xterm, tmux, screen) send Alt+F and Alt+B as ESC f and
# ESC b, which Textual reads as ctrl+right / ctrl+left (word movement, as iTerm's natural editing sends them).
ALT_AS_WORD_MOVEMENT = {"f", "b"}


def _area_bindings() -> list[Binding]:
    """A letter per area, and Alt+letter that works even while typing in an editor or a text box."""
    bindings = []
    for area, key in AREA_KEYS.items():
        name = area.capitalize()
        bindings.append(
            Binding(key, f"open_area('{area}')", name, show=False, id=f"area-{area}", tooltip=AREA_TIPS[area])
        )
        tip = f"{AREA_TIPS[area]} (from anywhere)"
        if key in ALT_AS_WORD_MOVEMENT:
            tip += f"; where the terminal sends Alt+{key.upper()} as a word move, Escape then {key}"
        bindings.append(
            Binding(
                f"alt+{key}",
                f"open_area('{area}')",
                name,
                show=False,
                priority=True,
                id=f"area-{area}-alt",
                tooltip=tip,
            )
        )
    return bindings


def _lazy_screen(module: str, cls: str) -> Callable[[], Screen]:
    def factory() -> Screen:
        return getattr(import_module(f"omb_tui.app.screens.{module}"), cls)()

    return factory


class OmbApp(NotifyWorkerErrors, App[None]):
    """Keep and review a bot's memory with the keyboard alone."""

    TITLE = "omb-tui"
    # The first screen's sheet is read with the app's: a screen's own CSS_PATH would parse every sheet again.
    CSS_PATH = [style_path("app.tcss"), style_path("bots.tcss")]
    MODES = {name: _lazy_screen(*where) for name, where in AREAS.items()}
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit-now", tooltip="Quit from anywhere"),
        Binding("q", "quit", "Quit", id="quit", tooltip="Quit omb-tui"),
        Binding("f1,question_mark", "help", "Help", id="help", tooltip="Every key of this screen"),
        *_area_bindings(),
    ]

    bot_id: reactive[str | None] = reactive(None)
    memory_version: reactive[int] = reactive(0)

    def __init__(
        self, home: Home, *, watch: bool = True, bot_id: str | None = None, user_settings: Path | None = None
    ) -> None:
        super().__init__()
        self.home = home
        self.user_settings = user_settings  # where the theme chosen is remembered (per user, never in the home)
        if user_settings is not None:
            from ..core.memory.user_settings import load_user_settings

            theme = load_user_settings(user_settings).get("theme")
            if isinstance(theme, str) and theme in self.available_themes:
                self.theme = theme
        self.watch_files = watch
        self._initial_bot = bot_id
        self._watch_stop = threading.Event()
        self._first_frame_shown = False
        self._after_first_frame: list[Callable[[], object]] = []
        self._draft_holders: list[DraftHolder] = []
        self._quit_question: Screen | None = None

    # ----- start-up -----
    def get_default_screen(self) -> Screen:
        """The first screen is a bots screen, started as Textual's default screen rather than as the "bots"
        mode: a mode's screen is composed, laid out and drawn before the app is composed and then mounted
        again, which made the first frame a third slower (benchmarks/startup.py). `b` later opens the
        bots mode's own screen; this one stays underneath, idle."""
        from .screens.bots import BotsScreen

        return BotsScreen()

    def notify(self, message: str, *, title: str = "", markup: bool = False, **options) -> None:  # type: ignore[override]
        """Every notification, from any screen or widget, is redacted first: an error may echo a key. Its text is
        shown as written (every caller passes markup=False: a redaction mark or a quoted line is not markup)."""
        from ..core.redaction.data import redact_message

        super().notify(redact_message(message), title=redact_message(title), markup=False, **options)

    def on_mount(self) -> None:
        self.sub_title = str(self.home.root)
        if self._initial_bot:
            self.open_bot(self._initial_bot)
        if self.watch_files:
            self.after_first_frame(self.watch_home)

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Run start-up work once the first frame is on the terminal, so it never delays that frame."""
        if self._first_frame_shown:
            self.call_after_refresh(callback)
        else:
            self._after_first_frame.append(callback)

    def watch_theme(self, theme: str) -> None:
        if self.user_settings is not None and self.is_running:
            self.remember_theme(theme)

    @work(thread=True, exclusive=True, group="user-settings", exit_on_error=False)
    def remember_theme(self, theme: str) -> None:
        from ..core.memory.user_settings import save_user_setting

        assert self.user_settings is not None
        save_user_setting(self.user_settings, "theme", theme)

    def on_ready(self) -> None:
        """Textual sends Ready once the first frame is on the terminal."""
        self._first_frame_shown = True
        for callback in self._after_first_frame:
            callback()
        self._after_first_frame.clear()

    @work(thread=True, exclusive=True, group="watch", exit_on_error=False)
    def watch_home(self) -> None:
        """One watchfiles worker for the whole home; it wakes every quarter second to see if it should stop."""
        from watchfiles import watch

        worker = get_current_worker()
        self.home.root.mkdir(parents=True, exist_ok=True)
        for changes in watch(
            self.home.root,
            watch_filter=_worth_watching,
            debounce=200,
            step=50,
            rust_timeout=250,
            yield_on_timeout=True,
            stop_event=self._watch_stop,
        ):
            if worker.is_cancelled:
                return
            if changes:  # post_message never blocks, so a watcher can never hang the app's exit
                self.post_message(DiskChanged(frozenset(Path(path) for _, path in changes)))

    def on_disk_changed(self, message: DiskChanged) -> None:
        self.note_disk_change(message.paths)

    def on_unmount(self) -> None:
        self._watch_stop.set()

    def note_disk_change(self, paths: Iterable[Path] = ()) -> None:
        """Something under the home changed: screens following memory_version refresh."""
        self.memory_version += 1

    # ----- unsaved drafts: never lost without a question -----
    def hold_drafts(self, screen: DraftHolder) -> None:
        """A screen with an editor registers here, so quitting or opening another bot asks first."""
        self._draft_holders.append(screen)

    def unsaved_draft(self) -> str | None:
        """What holds typed, unsaved changes ("scout's MEMORY.md"), if anything does."""
        return next((what for holder in self._draft_holders if (what := holder.unsaved_draft())), None)

    def _after_asking(self, question: str, yes: str, then: Callable[[], object]) -> Screen:
        """Save (then go on), discard (go on) or stay."""
        from .dialogs.save_choice import SaveChoiceDialog

        holder = next(holder for holder in self._draft_holders if holder.unsaved_draft())
        answers = {"discard": then, "save": lambda: holder.save_then(then)}
        dialog = SaveChoiceDialog(question, discard=yes)
        self.push_screen(dialog, lambda choice: answers.get(choice, lambda: None)())
        return dialog

    async def action_quit(self) -> None:
        unsaved = self.unsaved_draft()
        if unsaved is None or self.screen is self._quit_question:  # asked already: quit means quit
            self.exit()
            return
        self._quit_question = self._after_asking(
            f"{unsaved} has unsaved changes. Quit and lose them? (Ctrl+Q again quits.)",
            "Quit without saving",
            self.exit,
        )

    # ----- navigation -----
    def open_bot(self, bot_id: str) -> None:
        unsaved = self.unsaved_draft() if bot_id != self.bot_id else None
        if unsaved is not None:
            self._after_asking(
                f"{unsaved} has unsaved changes. Open {bot_id} and lose them?",
                "Discard changes",
                lambda: self._open_bot(bot_id),
            )
            return
        self._open_bot(bot_id)

    def _open_bot(self, bot_id: str) -> None:
        self.bot_id = bot_id
        # The areas in the header: the footer at 80 columns has room only for the screen's own keys. Each area's
        # key is its first letter but upkeep's (e); spelled out as "f files …" they no longer fit 80 columns.
        # Review (v) is every bot's, not the open one's: the bots screen's footer shows it.
        self.title = bot_id
        self.sub_title = areas_line(self.size.width)
        self.switch_mode("files")

    def on_resize(self, event: events.Resize) -> None:
        if self.bot_id:
            self.sub_title = areas_line(event.size.width)

    def action_open_area(self, area: str) -> None:
        if area in BOT_AREAS and not self.bot_id:
            self.notify("Open a bot first (Enter on the bots screen).", severity="warning", markup=False)
            return
        self.switch_mode(area)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_area" and parameters and parameters[0] in BOT_AREAS and not self.bot_id:
            return None  # shown greyed out until a bot is open
        return True

    def action_help(self) -> None:
        from .dialogs.help import HelpDialog

        if isinstance(self.screen, HelpDialog):
            return
        self.push_screen(HelpDialog(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Bots", "All bots with their gauge", lambda: self.action_open_area("bots"))
        yield SystemCommand("Review", AREA_TIPS["review"], lambda: self.action_open_area("review"))
        yield SystemCommand("Team memory", AREA_TIPS["team"], lambda: self.action_open_area("team"))
        if self.bot_id:
            for area in BOT_AREAS:
                yield SystemCommand(
                    area.capitalize(),
                    f"{area.capitalize()} of {self.bot_id}",
                    lambda area=area: self.action_open_area(area),
                )


def _worth_watching(change: object, path: str) -> bool:
    """Memory files, journals and settings; not temp files, locks, the seen-state or recall's index."""
    parts = Path(path).parts
    name = parts[-1] if parts else ""
    return not (name.endswith((".tmp", ".lock")) or name.startswith(".") or ".seen" in path or "index" in parts)


def make_app(home: Home, *, watch: bool = True, bot_id: str | None = None, user_settings: Path | None = None) -> OmbApp:
    """The one factory used by the command line and by the tests (which remember no theme unless given a file)."""
    return OmbApp(home, watch=watch, bot_id=bot_id, user_settings=user_settings)


def _log_into_textual() -> None:
    """Log lines written to the terminal would tear the screen: while the app runs they go to Textual's log
    (`textual console` shows them); errors a person must see become notifications instead."""
    import logging

    from textual.logging import TextualHandler

    from ..core.redaction.data import redact_log_handlers

    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(TextualHandler())
    redact_log_handlers(root)


def run_app(home: Home) -> int:
    _log_into_textual()
    # OMB_TUI_NO_WATCH=1 turns file watching off (e.g. on a network filesystem where it is costly).
    from ..core.index import background as vectors_background
    from ..core.memory.user_settings import user_settings_path

    vectors_background.enable()  # a long-lived process: embeddings on, vectors are made in its background
    make_app(home, watch=not os.environ.get("OMB_TUI_NO_WATCH"), user_settings=user_settings_path()).run()
    return 0


AREAS = "files topics journal recall settings upkeep(e) bots"
AREAS_NARROW = "f t j r s e b: areas"  # under 72 columns the line above is cut (at 60x20 it was)


def areas_line(width: int) -> str:
    """The header's list of areas and their keys, whole at any width: each area's first letter when narrow."""
    return AREAS if width >= 72 else AREAS_NARROW
