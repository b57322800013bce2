"""Upkeep of one bot: its switches, which model runs its steps, what ran last, Tidy up now, About me, usage.

Spec: memory.md, "Memory upkeep" (the upkeep switch, **Learn from group chats** = `features.roomMemoryCapture`,
About me's **Added by your bots** with **Remove**, **Tidy up now**, the heavy-bot line with **Tidy memory**, and
the sentence shown when no model can run the model steps) and "The helper model". Everything shown comes from
the core (`tidy`, `last_tidy`, `last_capture`, `list_learned`, `remove_learned`, `model_steps`, `usage_report`,
`loaded_every_turn`); the switches save at once through it; the tidy-up runs in a thread under the bot's turn
lock, as `omb-tui tidy` does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.widgets import Button, Header, OptionList, ProgressBar, Static, Switch
from textual.widgets.option_list import Option

from ...core.base import clock
from ...core.journal.changes import Actor
from ...core.journal.journal import HOW_SETTINGS, WHO_PERSON
from ...core.models import what_runs
from ...core.models.instances import NO_MODEL_CONNECTED, is_no_model
from ..styles import style_path
from ..widgets.keys_footer import KeysFooter
from .base import BotScreen
from .upkeep_words import capture_text, tidy_text, usage_text

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)

UPKEEP_HELP = (
    "Notices facts in chats, files lines into topics, adds About me lines and tidies up each night. "
    "Off: none of that for this bot."
)
ROOMS_HELP = (
    "For every bot (features.roomMemoryCapture): what a bot reads in its group chats feeds its "
    "capture, under room rules."
)
# The spec: on an engine with no quick text call "the panel says so — under Memory upkeep and under Learn from
# group chats — and only the expiry and exact-duplicate steps run, unless a helper model is set." The core's
# sentence (models/what_runs.py) drops the "unless" where setting a helper would change nothing.
NO_MODEL = f"{what_runs.NO_MODEL}{what_runs.UNLESS_HELPER}."
NO_MODEL_ROOMS = "With no model for this bot, nothing is learned from its group chats either."
HEAVY_LINE = "This bot loads a lot every turn."
TIDYING = "Tidying up: expired entries, then duplicates, then contradictions (a model call per changed file)…"
TIDYING_BY_RULE = "Tidying up: expired entries, then exact duplicates (no model runs this bot's model steps)…"


@dataclass(frozen=True)
class UpkeepView:
    """Everything the screen shows, read in a worker. A part that cannot be read holds its error instead."""

    bot_id: str
    name: str
    upkeep: bool | None  # None: the settings file cannot be read
    memory: bool | None
    rooms: bool | None  # None: config.json cannot be read
    errors: list[str] = field(default_factory=list)
    model_ok: bool = False
    model_line: str = ""
    no_model_note: str = NO_MODEL  # under Memory upkeep when no model runs the model steps
    heavy: bool = False
    loaded_bytes: int = 0
    memory_bytes: int = 0
    last_capture: dict | None = None
    last_tidy: dict | None = None
    journal_tidy: dict | None = None  # the newest tidy-up run in the journal (core last_tidy_in_journal)
    journal_capture: dict | None = None  # the newest capture run in the journal (core last_capture_in_journal)
    learned: list = field(default_factory=list)  # about_me.LearnedLine
    usage: dict = field(default_factory=dict)  # calls, failed, prompt_tokens, completion_tokens, cost_usd, ...
    guard: str = ""  # the nightly guard: its limits, the recall checks' last result, what it last said

    @property
    def upkeep_running(self) -> bool:
        """Memory and its upkeep both on: the tidy-up may run."""
        return bool(self.memory and self.upkeep)


class UpkeepRead(Message, bubble=False):
    def __init__(self, view: UpkeepView) -> None:
        super().__init__()
        self.view = view


class UpkeepSwitchSaved(Message, bubble=False):
    def __init__(self, field: str, value: bool) -> None:
        super().__init__()
        self.field = field
        self.value = value


class UpkeepSwitchRefused(Message, bubble=False):
    def __init__(self, field: str, value: bool, error: str) -> None:
        super().__init__()
        self.field = field
        self.value = value
        self.error = error


class TidyFinished(Message, bubble=False):
    """Tidy up now ended: the report's text, or why nothing was tidied."""

    def __init__(self, text: str, *, tidied: bool) -> None:
        super().__init__()
        self.text = text
        self.tidied = tidied


SWITCH_LABELS = {"upkeep": "Memory upkeep", "rooms": "Learn from group chats"}


def _on_off(value: bool | None) -> str:
    return "locked" if value is None else ("on" if value else "off")


# ----- reading (in a worker thread) -----
def read_view(home, bot_id: str) -> UpkeepView:
    from ...core.files.paths import MemoryInputError
    from ...core.memory.settings import load_bot_settings, load_config
    from ...core.turn.bot import Bot
    from ...core.upkeep.about_me import list_learned
    from ...core.upkeep.capture import last_capture, last_capture_in_journal
    from ...core.upkeep.heavy import loaded_every_turn
    from ...core.upkeep.tidy import last_tidy, last_tidy_in_journal

    errors: list[str] = []
    name, upkeep, memory, rooms = bot_id, None, None, None
    try:
        settings = load_bot_settings(home, bot_id)
        name, upkeep, memory = settings.name, settings.upkeep, settings.memory
    except (MemoryInputError, OSError) as exc:
        errors.append(f"{exc} The upkeep switch is locked until it reads again.")
    try:
        rooms = load_config(home).room_memory_capture
    except (MemoryInputError, OSError) as exc:
        errors.append(f"{exc} Learn from group chats is locked until it reads again.")
    steps = what_runs.model_steps(home, bot_id)
    model_ok, model_line = model_steps(home, bot_id, steps)
    heavy, loaded_bytes, memory_bytes = False, 0, 0
    if upkeep is not None:
        try:
            loaded = loaded_every_turn(Bot(home, bot_id, must_exist=False))
            heavy, loaded_bytes, memory_bytes = loaded.heavy, loaded.total, loaded.memory
        except (MemoryInputError, OSError) as exc:
            errors.append(str(exc))
    learned: list = []
    try:
        learned = list_learned(home)
    except (MemoryInputError, OSError) as exc:
        errors.append(f"About me cannot be read: {exc}")
    return UpkeepView(
        bot_id=bot_id,
        name=name,
        upkeep=upkeep,
        memory=memory,
        rooms=rooms,
        errors=errors,
        model_ok=model_ok,
        model_line=model_line,
        no_model_note=steps.sentence if not steps.runs else NO_MODEL,
        heavy=heavy,
        loaded_bytes=loaded_bytes,
        memory_bytes=memory_bytes,
        last_capture=last_capture(home, bot_id),
        last_tidy=last_tidy(home, bot_id),
        journal_tidy=last_tidy_in_journal(home, bot_id),
        journal_capture=last_capture_in_journal(home, bot_id),
        learned=learned,
        usage=month_usage(home, bot_id),
        guard=guard_text(home, bot_id),
    )


def guard_text(home, bot_id: str) -> str:
    from ...core.files.paths import MemoryInputError
    from ...core.guard.view import guard_lines

    try:
        return "\n".join(guard_lines(home, bot_id))
    except (MemoryInputError, OSError) as exc:
        return str(exc)


def model_steps(home, bot_id: str, steps: what_runs.ModelSteps | None = None) -> tuple[bool, str]:
    """Whether the bot's own instance or engine, or the helper, can run the model steps, and which; else why none
    can (the core's sentence for that is shown under both switches)."""
    steps = steps or what_runs.model_steps(home, bot_id)
    if not steps.runs:
        if is_no_model(steps.why):  # the one sentence every model action says, whole
            return False, NO_MODEL_CONNECTED
        return False, f"Why no model: {steps.why}."
    return True, steps.sentence


def tidy_question(bot_id: str, view: UpkeepView) -> str:
    """What Tidy up now will do, asked first: with no model for the bot, only the steps that need none (and, on a
    home with no model at all, the one line saying how to connect one)."""
    undo = "each change is journaled, and undo-run takes the whole run back."
    if view.model_ok:
        return (
            f"Tidy up {bot_id} now? It asks the model (one call, counted in the month's spend) and may move "
            f"expired entries to the archive, merge duplicates and strike what a newer note contradicts; {undo}"
        )
    question = (
        f"Tidy up {bot_id} now? {what_runs.NO_MODEL}: expired entries move to the archive and exact duplicates go; "
        f"contradictions are not checked and nothing is sent to a model; {undo}"
    )
    return f"{question}\n{NO_MODEL_CONNECTED}" if is_no_model(view.model_line) else question


def month_usage(home, bot_id: str) -> dict:
    """This month's model calls written for the bot (usage's month is UTC's, as `omb-tui usage` counts it)."""
    from ...core.models.usage import is_plan_call, month_of, plan_cost, usage_report

    month = month_of(clock.now_utc())
    rows = usage_report(home, month, bot_id)["rows"]
    return {
        "month": month,
        "calls": len(rows),
        "failed": sum(1 for row in rows if not row.get("ok")),
        "prompt_tokens": sum(row.get("prompt_tokens") or 0 for row in rows),
        "completion_tokens": sum(row.get("completion_tokens") or 0 for row in rows),
        "cost_usd": sum(row["cost_usd"] for row in rows if type(row.get("cost_usd")) in (int, float)),
        "jobs": Counter(str(row.get("job") or "other") for row in rows),
        "plan_calls": sum(1 for row in rows if is_plan_call(row)),
        "plan_cost_usd": sum(plan_cost(row) for row in rows),
    }


class UpkeepScreen(BotScreen):
    CSS_PATH = style_path("upkeep.tcss")
    AUTO_FOCUS = ""
    BINDINGS = [
        Binding(
            "u",
            "toggle('upkeep')",
            "Upkeep",
            id="upkeep-toggle",
            tooltip="Switch Memory upkeep for this bot on or off (saved at once)",
        ),
        Binding(
            "g",
            "toggle('rooms')",
            "Group chats",
            id="upkeep-toggle-rooms",
            tooltip="Switch Learn from group chats on or off, for every bot (saved at once to config.json)",
        ),
        Binding(
            "n",
            "tidy_now",
            "Tidy up now",
            id="upkeep-tidy-now",
            tooltip="Run the tidy-up now: expired entries, duplicates, contradictions",
        ),
        Binding(
            "x,delete",
            "remove_learned",
            "Remove",
            id="upkeep-remove-learned",
            tooltip="Remove the highlighted learned line from About me (asks first); no bot adds it again",
        ),
        Binding(
            "ctrl+r",
            "refresh_upkeep",
            "Refresh",
            show=False,
            id="upkeep-refresh",
            tooltip="Read everything on this screen again",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: UpkeepView | None = None
        self.tidying = False

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="upkeep-body"):
            yield Static("", id="upkeep-error")
            yield Static("Reading upkeep…", id="upkeep-title")
            for name, help_text in (("upkeep", UPKEEP_HELP), ("rooms", ROOMS_HELP)):
                with Horizontal(classes="switch-row"):
                    yield Switch(id=f"switch-{name}", animate=False, disabled=True, tooltip=help_text)
                    with Vertical(classes="switch-text"):
                        yield Static(SWITCH_LABELS[name], classes="switch-label", id=f"label-{name}")
                        yield Static(help_text, classes="switch-help")
                        yield Static("", classes="no-model", id=f"no-model-{name}")
            yield Static("", id="upkeep-model")
            with Horizontal(id="upkeep-heavy"):
                yield Static(HEAVY_LINE, id="heavy-line")
                yield Button(
                    "Tidy memory", id="heavy-tidy", compact=True, variant="warning", tooltip="Run the tidy-up now"
                )
            yield Static("Last capture", classes="section-title")
            yield Static("", id="upkeep-capture")
            yield Static("Last tidy-up", classes="section-title")
            yield Static("", id="upkeep-tidy")
            with Horizontal(id="tidy-row"):
                yield Button("Tidy up now", id="tidy-now", compact=True, tooltip="Run the tidy-up now (n)")
                yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="tidy-bar")
            yield Static("", id="tidy-progress")
            yield Static("", id="tidy-report")
            yield Static("About me: added by your bots", classes="section-title")
            yield Static("", id="learned-note")
            yield OptionList(id="learned")
            yield Static("This month's usage", classes="section-title")
            yield Static("", id="upkeep-usage")
            yield Static("The nightly guard", classes="section-title")
            yield Static("", id="upkeep-guard")
        yield KeysFooter()

    def switch(self, name: str) -> Switch:
        return self.query_one(f"#switch-{name}", Switch)

    @property
    def learned_list(self) -> OptionList:
        return self.query_one("#learned", OptionList)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if action == "toggle":
            return None if view is None else True
        if action == "tidy_now":
            return True if view is not None and view.upkeep_running and not self.tidying else None
        if action == "remove_learned":
            return True if view is not None and self.learned_list.highlighted is not None else None
        return True

    # ----- reading -----
    def reload(self, *, bot_changed: bool) -> None:
        if bot_changed:
            self.query_one("#tidy-report", Static).display = False
        self.load_upkeep()

    @work(thread=True, exclusive=True, exit_on_error=False, group="upkeep")
    def load_upkeep(self) -> None:
        self.post_message(UpkeepRead(read_view(self.app.home, self.app.bot_id)))

    def on_upkeep_read(self, message: UpkeepRead) -> None:
        view = self.view = message.view
        error = self.query_one("#upkeep-error", Static)
        error.update(Text("\n".join(view.errors)))
        error.display = bool(view.errors)
        self.query_one("#upkeep-title", Static).update(Text(f"Upkeep of {view.name} ({view.bot_id})"))
        for name, value in (("upkeep", view.upkeep), ("rooms", view.rooms)):
            widget = self.switch(name)
            if value is not None:
                with widget.prevent(Switch.Changed):
                    widget.value = value
            widget.disabled = value is None
        self._say_states()
        for name in ("upkeep", "rooms"):
            note = self.query_one(f"#no-model-{name}", Static)
            note.update(Text(view.no_model_note if name == "upkeep" else NO_MODEL_ROOMS))
            note.display = not view.model_ok
        model = self.query_one("#upkeep-model", Static)
        model.update(Text(view.model_line))
        model.set_class(not view.model_ok, "-no-model")
        self.query_one("#upkeep-heavy").display = view.heavy
        if view.heavy:
            self.query_one("#heavy-line", Static).update(
                f"{HEAVY_LINE} ({view.loaded_bytes / 1024:.1f} KB, {view.memory_bytes / 1024:.1f} KB of it memory)"
            )
        self.query_one("#upkeep-capture", Static).update(Text(capture_text(view.last_capture, view.journal_capture)))
        self.query_one("#upkeep-tidy", Static).update(Text(tidy_text(view.last_tidy, view.journal_tidy)))
        self._show_learned(view.learned)
        self.query_one("#upkeep-usage", Static).update(Text(usage_text(view.usage)))
        self.query_one("#upkeep-guard", Static).update(Text(view.guard))
        self._show_tidy_state()
        if self.focused is None or self.focused.disabled:
            (self.switch("upkeep") if view.upkeep is not None else self.query_one("#upkeep-body")).focus()
        self.refresh_bindings()

    def _show_learned(self, learned: list) -> None:
        options = self.learned_list
        highlighted = options.highlighted
        options.clear_options()
        options.add_options(
            [Option(Text(f"{line.at or '?'} · {line.bot} · {line.text}"), id=line.id) for line in learned]
        )
        options.display = bool(learned)
        if learned:
            options.highlighted = min(highlighted or 0, len(learned) - 1)
        self.query_one("#learned-note", Static).update(
            "No bot has added a line to About me."
            if not learned
            else "About me is shared by every bot. x or Delete removes the highlighted line; no bot adds it again."
        )

    def _say_states(self) -> None:
        """Each switch's state in words too: a switch's colour alone is lost on a monochrome terminal."""
        for name, label in SWITCH_LABELS.items():
            state = _on_off(None if self.switch(name).disabled else self.switch(name).value)
            self.query_one(f"#label-{name}", Static).update(f"{label}: {state}")

    def _show_tidy_state(self) -> None:
        runnable = self.view is not None and self.view.upkeep_running
        for button in self.query("#tidy-now, #heavy-tidy").results(Button):
            button.disabled = not runnable or self.tidying
        self.query_one("#tidy-bar").display = self.tidying
        progress = self.query_one("#tidy-progress", Static)
        if self.tidying:
            progress.update(TIDYING if self.view is None or self.view.model_ok else TIDYING_BY_RULE)
        elif not runnable and self.view is not None:
            switch = "Memory" if not self.view.memory else "Memory upkeep"
            progress.update(f"{switch} is off for this bot, so there is nothing to tidy.")
        progress.display = self.tidying or not runnable

    def action_refresh_upkeep(self) -> None:
        self.load_upkeep()

    # ----- the switches -----
    def action_toggle(self, name: str) -> None:
        widget = self.switch(name)
        if widget.disabled:
            self.notify(
                f"{SWITCH_LABELS[name]} is locked: its file cannot be read (the error is at the top).",
                severity="warning",
                markup=False,
            )
            return
        widget.focus()
        widget.toggle()  # posts Switch.Changed, which saves

    @on(Switch.Changed)
    def _switch_changed(self, event: Switch.Changed) -> None:
        self._say_states()
        self.save_switch(event.switch.id.removeprefix("switch-"), event.value)

    @work(thread=True, exit_on_error=False, group="upkeep-save")
    def save_switch(self, name: str, value: bool) -> None:
        from ...core.memory.settings import update_bot_settings, update_config_features

        try:  # the core reads the file again and writes under the home lock, keeping every other key
            if name == "upkeep":
                update_bot_settings(self.app.home, self.app.bot_id, upkeep=value)
            else:
                update_config_features(self.app.home, roomMemoryCapture=value)
        except Exception as exc:
            self.post_message(UpkeepSwitchRefused(name, value, str(exc)))
            return
        self.post_message(UpkeepSwitchSaved(name, value))

    def on_upkeep_switch_saved(self, message: UpkeepSwitchSaved) -> None:
        where = (
            f"upkeep in bots/{self.app.bot_id}.json"
            if message.field == "upkeep"
            else "features.roomMemoryCapture in config.json"
        )
        self.notify(
            f"{SWITCH_LABELS[message.field]}: {_on_off(message.value)}. Saved to {where}.", timeout=3, markup=False
        )
        self.load_upkeep()  # the tidy-up's key and the heavy-bot line follow the switch

    def on_upkeep_switch_refused(self, message: UpkeepSwitchRefused) -> None:
        widget = self.switch(message.field)
        with widget.prevent(Switch.Changed):
            widget.value = not message.value
        self._say_states()
        self.notify(f"Not saved: {message.error}", title=SWITCH_LABELS[message.field], severity="error", markup=False)
        self.load_upkeep()

    # ----- Tidy up now (and Tidy memory) -----
    @on(Button.Pressed, "#tidy-now, #heavy-tidy")
    def _tidy_pressed(self) -> None:
        self.action_tidy_now(ask=False)  # a button pressed on purpose is the person's answer already

    @work(exclusive=True, exit_on_error=False, group="upkeep-ask")
    async def action_tidy_now(self, ask: bool = True) -> None:
        """The `n` key asks first: the tidy-up spends a model call and changes memory (a key that does either
        never acts unasked: over a slow link keys come in bursts, and a letter meant for a box elsewhere lands
        here)."""
        from ..dialogs.confirm import ConfirmDialog

        if self.tidying or self.view is None or not self.view.upkeep_running:
            return
        bot_id = self.app.bot_id
        question = tidy_question(bot_id, self.view)
        if ask and not await self.app.push_screen_wait(ConfirmDialog(escape(question), yes="Tidy up")):
            return
        if self.tidying or bot_id != self.app.bot_id:
            return
        self.tidying = True
        self.query_one("#tidy-report", Static).display = False
        self._show_tidy_state()
        self.refresh_bindings()
        self.tidy_now(self.app.bot_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="upkeep-tidy")
    def tidy_now(self, bot_id: str) -> None:
        from ...core.files.locks import no_turn_running
        from ...core.files.paths import MemoryInputError
        from ...core.upkeep.tidy import tidy

        home = self.app.home
        try:
            with no_turn_running(home, bot_id) as free:  # upkeep never runs while the bot is working
                if not free:
                    self.post_message(
                        TidyFinished(f"{bot_id} is in a turn now; tidy up once it has finished.", tidied=False)
                    )
                    return
                report = tidy(home, bot_id)
        except MemoryInputError as exc:  # UpkeepOff, a bot that is gone, a file that cannot be read
            self.post_message(TidyFinished(str(exc), tidied=False))
            return
        self.post_message(TidyFinished(report.message(), tidied=True))

    def on_tidy_finished(self, message: TidyFinished) -> None:
        self.tidying = False
        report = self.query_one("#tidy-report", Static)
        report.update(Text(message.text))
        report.set_class(not message.tidied, "-refused")
        report.display = True
        self._show_tidy_state()
        self.refresh_bindings()
        self.call_after_refresh(report.scroll_visible, animate=False)
        self.load_upkeep()

    def worker_failed(self, worker, error: str) -> None:
        if worker.group == "upkeep-tidy":
            self.on_tidy_finished(TidyFinished(f"The tidy-up failed: {error}", tidied=False))

    # ----- About me's learned lines -----
    def action_remove_learned(self) -> None:
        index = self.learned_list.highlighted
        if self.view is None or index is None or index >= len(self.view.learned):
            return
        self.remove_learned(self.view.learned[index])

    @work(exclusive=True, exit_on_error=False, group="upkeep-remove")
    async def remove_learned(self, line) -> None:
        from ...core.upkeep.about_me import remove_learned
        from ..dialogs.confirm import ConfirmDialog

        question = f"Remove \u201c{line.text}\u201d from About me? No bot will add it again."
        if not await self.app.push_screen_wait(ConfirmDialog(escape(question), yes="Remove")):
            return
        result = await self.in_thread(lambda bot: remove_learned(bot.home, line.id, PERSON))
        self.notify(result.message(), timeout=4, markup=False)
        self.load_upkeep()
