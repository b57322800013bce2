"""Every model action of the app on the demo home, which connects no model (Pilot at 80x24): the recall preview's
Send, the Upkeep area's tidy question, Tidy up now and Tidy memory each say how to connect one in the core's one
sentence, and a Send keeps the person's words marked not answered, as `omb-tui chat` does
(tests/cli/test_cli_no_model.py)."""

from __future__ import annotations

import pytest
from support.app_helpers import open_area, put_message, settle, wait_for
from textual.widgets import Input, Static

from omb_tui.app.app import make_app
from omb_tui.app.dialogs.confirm import ConfirmDialog
from omb_tui.app.screens.recall import PREVIEW_CHAT_ID, RecallScreen
from omb_tui.app.screens.upkeep import UpkeepScreen
from omb_tui.app.widgets.turn_answer import TurnAnswer
from omb_tui.core.memory import conversations as conv
from omb_tui.core.models import what_runs
from omb_tui.core.models.instances import NO_MODEL_CONNECTED

pytestmark = pytest.mark.dates


@pytest.fixture
def demo(tmp_path, todays_demo):
    return todays_demo().copy_to(tmp_path / "demo")


async def open_upkeep(pilot) -> UpkeepScreen:
    screen = await open_area(pilot, "e", UpkeepScreen)
    await wait_for(pilot, lambda: screen.view is not None)
    return screen


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


async def test_send_says_how_to_connect_a_model_and_keeps_the_words_marked_not_answered(demo):
    log_folder = demo.workspace("scout") / "memory" / "log"
    logs_before = {path.name: path.read_bytes() for path in log_folder.glob("*.md")}
    async with make_app(demo, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_area(pilot, "r", RecallScreen)
        await put_message(pilot, screen, "Which hotel did we pick for Lisbon?")
        await pilot.press("ctrl+s")
        answer = screen.query_one(TurnAnswer)
        await wait_for(pilot, lambda: "could not answer" in answer.text.plain and not screen.sending)
        assert answer.text.plain.splitlines() == [
            "Scout could not answer",
            NO_MODEL_CONNECTED,
            'Your message is kept in chat "Sent from the recall preview", marked not answered.',
        ]
    messages = conv.find_conversation(demo, "scout", PREVIEW_CHAT_ID, with_messages=True).messages
    assert [(m.author_kind, m.failed, m.text) for m in messages] == [
        ("person", False, "Which hotel did we pick for Lisbon?"),
        ("harness", True, f"Not answered. {NO_MODEL_CONNECTED}"),
    ]
    assert {path.name: path.read_bytes() for path in log_folder.glob("*.md")} == logs_before


async def test_the_tidy_question_says_what_runs_without_a_model_and_how_to_connect_one(demo):
    async with make_app(demo, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert shown(screen, "#upkeep-model") == NO_MODEL_CONNECTED
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        question = str(pilot.app.screen.question)
        assert "asks the model" not in question
        assert question.startswith(f"Tidy up scout now? {what_runs.NO_MODEL}: expired entries move to the archive")
        assert question.splitlines()[-1] == NO_MODEL_CONNECTED
        await pilot.press("y")
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        await wait_for(pilot, lambda: screen.query_one("#tidy-report").display and not screen.tidying)
        assert f"Contradictions were not checked. {NO_MODEL_CONNECTED}" in shown(screen, "#tidy-report").splitlines()


@pytest.mark.parametrize("button", ["#tidy-now", "#heavy-tidy"])
async def test_each_tidy_button_says_how_to_connect_a_model(demo, button):
    async with make_app(demo, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        screen.query_one("#upkeep-heavy").display = True  # Tidy memory shows for a heavy bot; it runs the same
        screen.query_one(button).press()
        await wait_for(pilot, lambda: screen.query_one("#tidy-report").display and not screen.tidying)
        report = shown(screen, "#tidy-report").splitlines()
        assert f"Contradictions were not checked. {NO_MODEL_CONNECTED}" in report
        assert not any("not among config.json's instances" in line for line in report)


async def test_settings_says_what_runs_the_model_steps_and_how_to_connect_a_model(demo):
    from omb_tui.app.screens.settings import SettingsScreen

    async with make_app(demo, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_area(pilot, "s", SettingsScreen)
        await wait_for(pilot, lambda: screen.view is not None)
        assert screen.view.model_steps == f"{what_runs.NO_MODEL}. {NO_MODEL_CONNECTED}"  # the Model steps row
