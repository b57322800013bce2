"""The app with engine instances (docs/models.md, "Engines"), used as a person would (Pilot): the Upkeep area and
Settings say what runs the bot's model steps and that a Codex or ACP helper is not used, the usage line marks calls
on the person's plan, and Send on a bot whose instance is an engine says a chat turn needs an API instance. The
engine's run is scripted (support/engine_fakes.py): no agent CLI starts."""

from __future__ import annotations

import pytest
from support.app_helpers import (
    add_bot,
    open_area,
    open_recall,
    open_settings,
    put_message,
    settle,
    static_text,
    wait_for,
)
from support.engine_fakes import claude_code_with_a_codex_helper, engine  # noqa: F401 - engine: fixture
from textual.widgets import Input

from omb_tui.app.app import make_app
from omb_tui.app.screens.upkeep import UpkeepScreen
from omb_tui.app.widgets.turn_answer import TurnAnswer
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import now_iso
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models.usage import record_usage

pytestmark = pytest.mark.dates
HELPER_NOT_USED = (
    "the helper's instance 'cx' runs on the codex engine, and the helper must be Claude (claude-code) or an API model"
)


@pytest.fixture(autouse=True)
def _no_helper_from_environment(monkeypatch):
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    monkeypatch.delenv("OMB_HELPER_MODEL", raising=False)


@pytest.fixture
def engine_home(tmp_path) -> Home:
    home = Home(tmp_path / "home")
    add_bot(home, files={"MEMORY.md": "- 2026-01-01 · short replies, always\n"})
    claude_code_with_a_codex_helper(home, tmp_path / "bin")
    return home


async def open_upkeep(pilot) -> UpkeepScreen:
    screen = await open_area(pilot, "e", UpkeepScreen)
    await wait_for(pilot, lambda: screen.view is not None)
    return screen


async def test_upkeep_says_the_bots_own_engine_runs_its_model_steps(engine_home):
    update_bot_settings(engine_home, "scout", instance="sub")
    async with make_app(engine_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert static_text(screen, "#upkeep-model") == (
            "The bot's own instance 'sub' runs the model steps on the claude-code engine (its default model, "
            "on your plan)."
        )
        assert not screen.query_one("#no-model-upkeep").display


async def test_upkeep_says_a_codex_helper_is_not_used_and_only_expiry_and_duplicates_run(engine_home):
    async with make_app(engine_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert static_text(screen, "#upkeep-model") == f"Why no model: {HELPER_NOT_USED}."
        # a helper is set already: "unless a helper model is set" would send the person the wrong way
        note = "No model can run this bot's model steps, so only the expiry and exact-duplicate steps run."
        assert static_text(screen, "#no-model-upkeep") == note
        assert screen.query_one("#no-model-upkeep").display and screen.query_one("#no-model-rooms").display


async def test_the_usage_line_marks_calls_on_the_persons_plan(engine_home):
    row = {
        "at": now_iso(),
        "bot": "scout",
        "job": "capture",
        "instance": "sub",
        "engine": "claude-code",
        "model": "claude-haiku-4-5",
        "prompt_tokens": 100,
        "completion_tokens": 10,
        "cost_usd": 0.0,
        "ok": True,
        "cost": "plan",
    }
    record_usage(engine_home, {**row, "plan_cost_usd": 0.25})
    record_usage(engine_home, {**row, "plan_cost_usd": 0.5})
    async with make_app(engine_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        usage = static_text(screen, "#upkeep-usage")
        assert "2 calls (capture 2)" in usage
        assert usage.endswith("· $0.0000 · 2 calls on your plan ($0.7500 reported, not counted)")


async def test_settings_say_what_runs_the_model_steps_and_that_the_helper_is_not_used(engine_home):
    update_bot_settings(engine_home, "scout", instance="sub")
    async with make_app(engine_home, watch=False, bot_id="scout").run_test(size=(100, 40)) as pilot:
        screen = await open_settings(pilot)
        await wait_for(pilot, lambda: screen.view is not None)
        facts = static_text(screen, "#settings-facts")
        assert (
            "Model steps    The bot's own instance 'sub' runs the model steps on the claude-code engine "
            "(its default model, on your plan)." in facts
        )
        assert f"cx; not used: {HELPER_NOT_USED}  · helper" in static_text(screen, "#settings-config")


async def test_send_on_a_bot_whose_instance_is_an_engine_says_a_chat_turn_needs_an_api_instance(engine_home, engine):
    update_bot_settings(engine_home, "scout", instance="sub")
    async with make_app(engine_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await put_message(pilot, screen, "What do you know about me?")
        await pilot.press("ctrl+s")
        answer = screen.query_one(TurnAnswer)
        await wait_for(pilot, lambda: "could not answer" in answer.text.plain)
        assert (
            "chat turns need an API instance: instance 'sub' runs on the claude-code engine, which takes only "
            "memory's background steps (capture, organize, the tidy-up, compaction), with every tool off"
        ) in answer.text.plain
    assert engine.calls == []  # no agent was started for the turn
