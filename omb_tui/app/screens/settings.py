"""Settings of one bot: the memory switch, the upkeep switch and the helper-model opt-out.

Spec: memory.md, the opening (**Let this bot use memory**: what turning it off stops), "Memory upkeep"
(the upkeep switch; `features.roomMemoryCapture`, `memory.captureQuietMs`, `memory.tidyHour`), "The
helper model" (`helper` in config.json or `OMB_HELPER_INSTANCE`; a bot's `helperModel: false`),
"Recall before each turn" (`features.autoRecall`) and "Where it lives" (the folder's path is shown,
since over SSH no file manager can be opened). Each switch saves at once to `bots/<id>.json` through
the core, which keeps keys this tool does not know; a settings file that cannot be read is shown with
its error and never written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Header, Static, Switch

from ...core.base import clock
from ...core.memory.settings import AppConfig, BotSettings, load_bot_settings, load_config, update_bot_settings
from ...core.models.instances import helper_problem
from ...core.models.what_runs import model_steps
from ..styles import style_path
from ..widgets.keys_footer import KeysFooter
from .base import BotScreen


@dataclass(frozen=True)
class BotSwitch:
    """One switch: the field of BotSettings, its key in bots/<id>.json, its label and what off does."""

    field: str
    key: str
    label: str
    when_off: str


SWITCHES = (
    BotSwitch(
        "memory",
        "memory",
        "Let this bot use memory",
        "Off: MEMORY.md stops loading into new turns, with recall, upkeep, memory tools and daily "
        "logs. The files stay for review.",
    ),
    BotSwitch(
        "upkeep",
        "upkeep",
        "Memory upkeep",
        "Off: no facts noticed from chats, nothing filed into topics, no About me lines and no "
        "nightly tidy-up for this bot.",
    ),
    BotSwitch(
        "helper_model",
        "helperModel",
        "Use the helper model for this bot's jobs",
        "Off: the helper model writes none of this bot's own jobs (compaction summary, memory upkeep, skill review).",
    ),
    BotSwitch(
        "compact_nightly",
        "compactNightly",
        "Nightly compaction",
        "On: once a day after the tidy-up, a model proposes deletions and merges in MEMORY.md that code "
        "checks; for the first 7 days they wait in Review for you (omb-tui compact --propose-only).",
    ),
)
SWITCH_BY_FIELD = {switch.field: switch for switch in SWITCHES}

MEMORY_OFF_STOPS = (
    "Memory is off: MEMORY.md and the topic index do not load into new turns; automatic recall, memory "
    "upkeep, the native memory tools, memory files in session_search and the automatic daily turn logs "
    "stop. The files stay for review; a bot with file access can still edit them directly."
)
UPKEEP_OFF_STOPS = (
    "Upkeep is off: no facts are noticed from chats, no lines are filed into topics, nothing is added to "
    "About me and there is no nightly tidy-up. Expired and duplicate entries stay until a person moves them."
)
HELPER_OFF_NOTE = (
    "This bot stays off the helper model: for its compaction summary, memory upkeep and skill review it "
    "gets what it would get with no helper set."
)


@dataclass(frozen=True)
class SettingsView:
    """Everything the screen shows, read in a worker."""

    bot_id: str
    settings: BotSettings | None
    settings_error: str | None
    config: AppConfig | None
    config_error: str | None
    workspace: str
    journal: str
    settings_file: str
    model_steps: str = ""  # what runs the bot's model steps, in the core's sentence (models/what_runs.py)


class SettingsRead(Message, bubble=False):
    """What `load_settings` read in its thread."""

    def __init__(self, view: SettingsView) -> None:
        super().__init__()
        self.view = view


class SwitchSaved(Message, bubble=False):
    """`save_switch` saved a switch: the settings as the file now holds them."""

    def __init__(self, settings: BotSettings, field: str) -> None:
        super().__init__()
        self.settings = settings
        self.field = field


class SwitchRefused(Message, bubble=False):
    """`save_switch` could not save a switch, and why."""

    def __init__(self, field: str, value: bool, error: str) -> None:
        super().__init__()
        self.field = field
        self.value = value
        self.error = error


def _switch_id(field: str) -> str:
    return f"switch-{field.replace('_', '-')}"


def _facts_table(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for name, value in rows:
        table.add_row(name, Text(value))  # Text, never markup: values come from files
    return table


def _duration(milliseconds: int) -> str:
    seconds = milliseconds / 1000
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"


def _on_off(value: bool) -> str:
    return "on" if value else "off"


class SettingsScreen(BotScreen):
    CSS_PATH = style_path("settings.tcss")
    AUTO_FOCUS = ""  # the first switch takes focus once the settings are read
    BINDINGS = [
        Binding(
            "m",
            "toggle('memory')",
            "Memory",
            id="toggle-memory",
            tooltip="Switch Let this bot use memory on or off (saved at once)",
        ),
        Binding(
            "u",
            "toggle('upkeep')",
            "Upkeep",
            id="toggle-upkeep",
            tooltip="Switch Memory upkeep on or off (saved at once)",
        ),
        Binding(
            "h",
            "toggle('helper_model')",
            "Helper",
            id="toggle-helper",
            tooltip="Switch this bot's use of the helper model on or off (saved at once)",
        ),
        Binding(
            "c",
            "toggle('compact_nightly')",
            "Compaction",
            id="toggle-compact",
            tooltip="Switch nightly compaction on or off (saved at once)",
        ),
        Binding(
            "ctrl+r",
            "refresh_settings",
            "Refresh",
            show=False,
            id="refresh-settings",
            tooltip="Read the settings and config.json again",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: SettingsView | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="settings-body"):
            yield Static("", id="settings-error")
            yield Static("Reading settings…", id="settings-title")
            for switch in SWITCHES:
                with Horizontal(classes="switch-row"):
                    yield Switch(id=_switch_id(switch.field), animate=False, disabled=True, tooltip=switch.when_off)
                    with Vertical(classes="switch-text"):
                        yield Static(switch.label, classes="switch-label", id=f"label-{_switch_id(switch.field)}")
                        yield Static(switch.when_off, classes="switch-help")
            yield Static("", id="settings-stops")
            yield Static("This bot", classes="section-title")
            yield Static("", id="settings-facts")
            yield Static(
                "The workspace is on this computer's disk: open it with a file manager here, or use the path over SSH.",
                id="settings-folder-note",
            )
            yield Static("For every bot (config.json)", classes="section-title")
            yield Static("", id="settings-config")
        yield KeysFooter()

    def switch(self, field: str) -> Switch:
        return self.query_one(f"#{_switch_id(field)}", Switch)

    @property
    def writable(self) -> bool:
        return self.view is not None and self.view.settings is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle" and self.view is None:
            return None  # not read yet (a file read but broken leaves the keys on: they say why)
        return True

    # ----- loading -----
    def reload(self, *, bot_changed: bool) -> None:
        self.load_settings()

    @work(thread=True, exclusive=True, exit_on_error=False, group="settings")
    def load_settings(self) -> None:
        home, bot_id = self.app.home, self.app.bot_id
        settings, settings_error = None, None
        try:
            settings = load_bot_settings(home, bot_id)
        except Exception as exc:  # BrokenFile, or a file we may not read: shown, never written
            settings_error = str(exc)
        config, config_error = None, None
        try:
            config = load_config(home)
        except Exception as exc:
            config_error = str(exc)
        steps = model_steps(home, bot_id, config)
        view = SettingsView(
            bot_id=bot_id,
            settings=settings,
            settings_error=settings_error,
            config=config,
            config_error=config_error,
            workspace=str(home.workspace(bot_id)),
            journal=str(home.journal_path(bot_id)),
            settings_file=str(home.settings_path(bot_id)),
            model_steps=steps.with_why(),
        )
        self.post_message(SettingsRead(view))

    def on_settings_read(self, message: SettingsRead) -> None:
        view = self.view = message.view
        settings = view.settings
        error = self.query_one("#settings-error", Static)
        if view.settings_error:
            error.update(
                Text(
                    f"{view.settings_error}\nThe switches are locked until the file reads again; "
                    "nothing is written to it."
                )
            )
        error.display = bool(view.settings_error)
        if view.settings_error:
            self.call_after_refresh(error.scroll_visible, animate=False)  # seen even when scrolled down
        name = settings.name if settings else view.bot_id
        self.query_one("#settings-title", Static).update(Text(f"{name} ({view.bot_id})"))
        for switch in SWITCHES:
            widget = self.switch(switch.field)
            if settings is not None:  # a file that cannot be read leaves them as they were, locked
                with widget.prevent(Switch.Changed):
                    widget.value = bool(getattr(settings, switch.field))
            widget.disabled = settings is None
        self._say_states()
        if self.focused is None or self.focused.disabled:
            (self.switch(SWITCHES[0].field) if settings else self.query_one("#settings-body")).focus()
        self._show_stops()
        self.query_one("#settings-facts", Static).update(
            _facts_table(
                [
                    ("Name", name),
                    ("Engine", (settings.engine if settings else None) or "not set"),
                    ("Instance", (settings.instance if settings else None) or "not set"),
                    ("Model steps", view.model_steps),
                    ("Workspace", view.workspace),
                    ("Journal", view.journal),
                    ("Settings file", view.settings_file),
                ]
            )
        )
        config_text = self.query_one("#settings-config", Static)
        config_text.update(self._config_text(view))
        config_text.set_class(view.config is None, "-error")
        self.refresh_bindings()

    def _show_stops(self) -> None:
        settings = self.view.settings if self.view else None
        stops = self.query_one("#settings-stops", Static)
        lines = []
        if settings is not None:
            if not settings.memory:
                lines.append(MEMORY_OFF_STOPS)
            elif not settings.upkeep:
                lines.append(UPKEEP_OFF_STOPS)
            if not settings.helper_model:
                lines.append(HELPER_OFF_NOTE)
        stops.update(Text("\n".join(lines)))
        stops.display = bool(lines)
        stops.set_class(settings is not None and not (settings.memory and settings.upkeep), "-stopped")

    @staticmethod
    def _config_text(view: SettingsView) -> Text | Table:
        if view.config is None:
            return Text(f"{view.config_error}\nThe app-wide values cannot be shown until config.json reads.")
        config = view.config
        if config.helper is None:
            helper = "none set: jobs an engine cannot write fall back (no helper)"
        else:
            helper = config.helper.instance_id + (f" · {config.helper.model}" if config.helper.model else "")
        if config.helper_from_environment:
            helper += " (from OMB_HELPER_INSTANCE, which wins over the file)"
        if problem := helper_problem(config):
            helper += f"; not used: {problem}"
        return _facts_table(
            [
                ("Helper model", f"{helper}  · helper"),
                ("Recall", f"{_on_off(config.auto_recall)}  · features.autoRecall"),
                ("Learn from group chats", f"{_on_off(config.room_memory_capture)}  · features.roomMemoryCapture"),
                ("Capture when quiet", f"{_duration(config.capture_quiet_ms)}  · memory.captureQuietMs"),
                ("Nightly tidy-up", f"after {config.tidy_hour}:00  · memory.tidyHour"),
            ]
        )

    # ----- toggling -----
    def action_toggle(self, field: str) -> None:
        if not self.writable:  # the settings file cannot be read: say so where the key was pressed
            error = self.view.settings_error if self.view else None
            self.notify(
                f"{error or 'The settings file cannot be read.'} Nothing is written until it reads.",
                severity="warning",
                markup=False,
            )
            return
        widget = self.switch(field)
        if not widget.disabled:
            widget.focus()
            widget.toggle()  # posts Switch.Changed, which saves

    def action_refresh_settings(self) -> None:
        self.load_settings()

    def _say_states(self) -> None:
        """Each switch's state in words too: a switch's colour alone is lost on a monochrome terminal."""
        for switch in SWITCHES:
            widget = self.switch(switch.field)
            state = "locked" if widget.disabled else _on_off(widget.value)
            if switch.field == "compact_nightly" and widget.value and not widget.disabled:
                state += self._compaction_mode()
            self.query_one(f"#label-{_switch_id(switch.field)}", Static).update(f"{switch.label}: {state}")

    def _compaction_mode(self) -> str:
        """What a nightly run does now: only propose (until when), or apply."""
        settings = self.view.settings if self.view else None
        if settings is None or not settings.compact_nightly:
            return ""
        if not settings.compact_propose_only_on(clock.today()):
            return " (applies what passes the checks)"
        until = settings.compact_proposes_until()
        return f" (only proposes until {until.isoformat()})" if until else " (only proposes)"

    @on(Switch.Changed)
    def _switch_changed(self, event: Switch.Changed) -> None:
        self._say_states()
        field = event.switch.id.removeprefix("switch-").replace("-", "_")
        if field in SWITCH_BY_FIELD:
            self.save_switch(field, event.value)

    @work(thread=True, exit_on_error=False, group="save-settings")
    def save_switch(self, field: str, value: bool) -> None:
        try:  # core reads the file again and writes under the home lock: no other change is lost
            if field == "compact_nightly":  # switching it on notes the day: the first week only proposes
                from ...core.compact.nightly import switch_nightly

                settings = switch_nightly(self.app.home, self.app.bot_id, on=value)
            else:
                settings = update_bot_settings(self.app.home, self.app.bot_id, **{field: value})
        except Exception as exc:
            self.post_message(SwitchRefused(field, value, str(exc)))
            return
        self.post_message(SwitchSaved(settings, field))

    def on_switch_saved(self, message: SwitchSaved) -> None:
        settings, field = message.settings, message.field
        switch = SWITCH_BY_FIELD[field]
        if self.view is not None:
            self.view = replace(self.view, settings=settings, settings_error=None)
        self._show_stops()
        self._say_states()
        state = _on_off(getattr(settings, field))
        self.notify(
            f"{switch.label}: {state}. Saved to {switch.key} in bots/{settings.id}.json.", timeout=3, markup=False
        )

    def on_switch_refused(self, message: SwitchRefused) -> None:
        widget = self.switch(message.field)
        with widget.prevent(Switch.Changed):
            widget.value = not message.value
        self.notify(
            f"Not saved: {message.error}", title=SWITCH_BY_FIELD[message.field].label, severity="error", markup=False
        )
        self.load_settings()  # shows the error and locks the switches if the file is broken
