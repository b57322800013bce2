"""The Upkeep screen, used as a person would: Pilot at 80x24 (letter `e`), homes built through the core, model
answers from the scripted server in tests/support/fake_llm.py."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pytest
from support.app_helpers import PERSON, add_bot, open_area, settle, wait_for
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from textual.widgets import Static

from omb_tui.app.app import make_app
from omb_tui.app.dialogs.confirm import ConfirmDialog
from omb_tui.app.screens.upkeep import HEAVY_LINE, NO_MODEL, UpkeepScreen
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import now_iso
from omb_tui.core.models import what_runs
from omb_tui.core.models.instances import NO_MODEL_CONNECTED
from omb_tui.core.models.usage import record_usage
from omb_tui.core.upkeep.about_me import list_learned

pytestmark = pytest.mark.dates

YESTERDAY = (clock.today() - timedelta(days=1)).isoformat()
EXPIRED = f'- 2026-01-02 · from chat "Plans" · The trip is booked · until {YESTERDAY}\n'


@pytest.fixture(autouse=True)
def _no_helper_from_environment(monkeypatch):
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    monkeypatch.delenv("OMB_HELPER_MODEL", raising=False)


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


def visible(screen, selector: str) -> bool:
    return screen.query_one(selector).display


async def open_upkeep(pilot) -> UpkeepScreen:
    screen = await open_area(pilot, "e", UpkeepScreen)
    await wait_for(pilot, lambda: screen.view is not None)
    return screen


def memory_of(home: Home) -> str:
    return home.workspace("scout").joinpath("MEMORY.md").read_text(encoding="utf-8")


def no_model_home(root) -> Home:
    home = Home(root)
    add_bot(home, files={"MEMORY.md": '- 2026-01-01 · from chat "Plans" · short replies, always\n'})
    return home


async def test_the_switches_save_upkeep_and_learn_from_group_chats_at_once(tmp_path):
    home = no_model_home(tmp_path / "home")
    home.config_path.write_text(json.dumps({"features": {"autoRecall": False}, "theme": "dark"}), encoding="utf-8")
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert shown(screen, "#label-upkeep") == "Memory upkeep: on"
        assert shown(screen, "#label-rooms") == "Learn from group chats: off"
        await pilot.press("u")
        await settle(pilot)
        assert json.loads(home.settings_path("scout").read_text())["upkeep"] is False
        assert shown(screen, "#label-upkeep") == "Memory upkeep: off"
        await pilot.press("g")
        await settle(pilot)
        config = json.loads(home.config_path.read_text())
        assert config == {"features": {"autoRecall": False, "roomMemoryCapture": True}, "theme": "dark"}
        assert shown(screen, "#label-rooms") == "Learn from group chats: on"
        await pilot.press("g", "u")
        await settle(pilot)
        assert json.loads(home.config_path.read_text())["features"]["roomMemoryCapture"] is False
        assert json.loads(home.settings_path("scout").read_text())["upkeep"] is True


async def test_tidy_up_now_changes_memory_and_shows_the_counts(tmp_path):
    home = no_model_home(tmp_path / "home")
    duplicate = '- 2026-01-01 · from chat "Plans" · short replies, always\n'
    add = '- 2026-01-05 · from chat "Plans" · short replies, always\n'
    home.workspace("scout").joinpath("MEMORY.md").write_text(duplicate + EXPIRED + add, encoding="utf-8")
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert shown(screen, "#upkeep-tidy") == "No tidy-up has run for this bot yet."
        await pilot.press("n")  # a key that changes memory asks first
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        question = str(pilot.app.screen.question)
        assert question.startswith(f"Tidy up scout now? {what_runs.NO_MODEL}: expired entries move to the archive")
        assert "asks the model" not in question  # no model is connected: none is asked
        assert question.splitlines()[-1] == NO_MODEL_CONNECTED
        await pilot.press("escape")  # no: nothing happens
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        await settle(pilot)
        assert memory_of(home) == duplicate + EXPIRED + add and not screen.tidying
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        await settle(pilot)
        await wait_for(pilot, lambda: not screen.tidying)
        await settle(pilot)
        assert memory_of(home) == add  # the expired entry went to the archive, the older duplicate went
        report = shown(screen, "#tidy-report")
        assert "1 expired entry moved to the archive, 1 duplicate removed" in report
        assert "1 expired entry moved to the archive" in shown(screen, "#upkeep-tidy")


async def test_with_a_model_the_tidy_question_says_it_asks_the_model(llm_home):
    async with make_app(llm_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        question = str(pilot.app.screen.question)
        assert question.startswith("Tidy up scout now? It asks the model (one call")
        assert NO_MODEL_CONNECTED not in question
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen)


@pytest.mark.parametrize("button", ["#tidy-now", "#heavy-tidy"])
async def test_each_tidy_button_on_a_home_with_no_model_says_how_to_connect_one(tmp_path, button):
    home = no_model_home(tmp_path / "home")
    facts = ("lives in Pune", "likes tea", "works at Acme", "has a cat", "moved to Delhi")  # five: a pair may be struck
    live = "".join(f'- 2026-01-0{n} · from chat "Plans" · {fact}\n' for n, fact in enumerate(facts, 3))
    home.workspace("scout").joinpath("MEMORY.md").write_text(EXPIRED + live, encoding="utf-8")
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        screen.query_one("#upkeep-heavy").display = True  # Tidy memory shows for a heavy bot; pressed the same
        screen.query_one(button).press()
        await wait_for(pilot, lambda: visible(screen, "#tidy-report") and not screen.tidying)
        report = shown(screen, "#tidy-report")
        assert f"Contradictions were not checked. {NO_MODEL_CONNECTED}" in report.splitlines()
        assert memory_of(home) == live  # the expired entry went to the archive all the same


async def test_tidy_up_now_is_off_with_upkeep_off(tmp_path):
    home = no_model_home(tmp_path / "home")
    home.workspace("scout").joinpath("MEMORY.md").write_text(EXPIRED, encoding="utf-8")
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert screen.check_action("tidy_now", ()) is None
        await pilot.press("n")
        await settle(pilot)
        assert memory_of(home) == EXPIRED
        assert "Memory upkeep is off for this bot" in shown(screen, "#tidy-progress")


def heavy_home(root, *, memory_kb: int, about_me_kb: int) -> Home:
    """MEMORY.md of about memory_kb KB (within its 24 KB load limit) and About me of about_me_kb KB."""
    home = no_model_home(root)
    line = '- 2026-01-01 · from chat "Plans" · ' + "a note that takes room " * 3 + "\n"
    home.workspace("scout").joinpath("MEMORY.md").write_text(
        "".join(line.replace("room", f"room {n}", 1) for n in range(memory_kb * 1024 // len(line))), encoding="utf-8"
    )
    home.about_me_path.write_text("- lives in Pune\n" + "x" * (about_me_kb * 1024), encoding="utf-8")
    return home


@pytest.mark.parametrize(
    "memory_kb, about_me_kb, heavy",
    [
        (12, 14, True),  # over 24 KB in all, at least 8 KB of it memory
        (6, 20, False),  # over 24 KB, but memory is under 8 KB
        (12, 8, False),  # memory over 8 KB, but under 24 KB in all
    ],
)
async def test_the_heavy_bot_line_shows_only_under_the_specs_conditions(tmp_path, memory_kb, about_me_kb, heavy):
    home = heavy_home(tmp_path / "home", memory_kb=memory_kb, about_me_kb=about_me_kb)
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert visible(screen, "#upkeep-heavy") is heavy
        if heavy:
            assert shown(screen, "#heavy-line").startswith(HEAVY_LINE)
            await pilot.press("u")  # upkeep off: the line never shows
            await settle(pilot)
            assert not visible(screen, "#upkeep-heavy")


async def test_tidy_memory_on_the_heavy_bot_line_runs_the_tidy_up(tmp_path):
    home = heavy_home(tmp_path / "home", memory_kb=12, about_me_kb=14)
    memory = home.workspace("scout").joinpath("MEMORY.md")
    memory.write_text(EXPIRED + memory.read_text(encoding="utf-8"), encoding="utf-8")
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        await pilot.click("#heavy-tidy")
        await settle(pilot)
        await wait_for(pilot, lambda: not screen.tidying)
        assert "The trip is booked" not in memory_of(home)
        assert "1 expired entry moved" in shown(screen, "#tidy-report")


async def test_remove_asks_once_then_takes_the_learned_line_out_of_about_me(tmp_path):
    from omb_tui.core.upkeep.about_me import add_learned

    home = no_model_home(tmp_path / "home")
    add_learned(home, "scout", "The person is vegetarian", PERSON, owners_words=True)
    add_learned(home, "scout", "The person lives in Pune", PERSON, owners_words=True)
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert screen.learned_list.option_count == 2
        screen.learned_list.focus()
        await pilot.press("down")  # the second line
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        assert "The person lives in Pune" in str(pilot.app.screen.question)
        await pilot.press("escape")  # the question, answered No: nothing removed
        await settle(pilot)
        assert len(list_learned(home)) == 2
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("y")
        await settle(pilot)
        await wait_for(pilot, lambda: screen.learned_list.option_count == 1)
        assert [line.text for line in list_learned(home)] == ["The person is vegetarian"]
        assert "The person lives in Pune" not in home.about_me_path.read_text(encoding="utf-8")


async def test_the_usage_line_counts_this_months_calls_of_the_bot(llm_home):
    add_bot_row = {
        "at": now_iso(),
        "instance": "local",
        "model": "openai/qwen3-8b",
        "prompt_tokens": 1200,
        "completion_tokens": 80,
        "cost_usd": 0.0125,
        "ok": True,
        "cost": "litellm",
    }
    record_usage(llm_home, {**add_bot_row, "bot": "scout", "job": "capture"})
    record_usage(llm_home, {**add_bot_row, "bot": "scout", "job": "tidy-up", "ok": False})
    record_usage(llm_home, {**add_bot_row, "bot": "quill", "job": "capture"})  # another bot's
    async with make_app(llm_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        usage = shown(screen, "#upkeep-usage")
        assert "2 calls, 1 failed (capture 1, tidy-up 1)" in usage
        assert "2,400 tokens in, 160 out · $0.0250" in usage


async def test_a_bot_the_helper_serves_says_so_and_a_bot_with_no_model_gets_the_specs_sentence(llm_home, tmp_path):
    async with make_app(llm_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert shown(screen, "#upkeep-model").startswith("The helper model runs the model steps")
        assert not visible(screen, "#no-model-upkeep")

    home = no_model_home(tmp_path / "other")
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        # no instance at all: a helper alone would not help, so no "unless"; the model line says how to connect one
        assert shown(screen, "#no-model-upkeep") == f"{what_runs.NO_MODEL}."
        assert shown(screen, "#upkeep-model") == NO_MODEL_CONNECTED
        assert visible(screen, "#no-model-upkeep") and visible(screen, "#no-model-rooms")


async def test_with_an_instance_but_no_helper_the_note_says_unless_a_helper_is_set(tmp_path, fake_llm):
    home = no_model_home(tmp_path / "home")
    write_llm_config(home, fake_llm, helper=None)
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert shown(screen, "#no-model-upkeep") == NO_MODEL
        assert shown(screen, "#upkeep-model").startswith("Why no model: no helper model is set")


async def test_the_last_capture_is_shown_with_what_it_did(llm_home, fake_llm):
    from support.capture import VEG, answer, fact, make_chat

    from omb_tui.core.upkeep.capture import capture

    make_chat(llm_home, [VEG])
    fake_llm.script(answer(fact("The person is vegetarian", ["I'm vegetarian"])))
    capture(llm_home, "scout")
    async with make_app(llm_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        assert "1 turn read, 1 fact saved, 0 skipped." in shown(screen, "#upkeep-capture")


async def test_a_learned_line_with_square_brackets_is_asked_about_and_removed_as_written(tmp_path):
    """Memory text is shown as written: brackets in a line are not markup, in the question or the toast."""
    from textual.widgets._toast import Toast

    from omb_tui.core.upkeep.about_me import add_learned

    home = no_model_home(tmp_path / "home")
    add_learned(home, "scout", "The person keeps [x] lists and edits [/etc/hosts]", PERSON, owners_words=True)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = await open_upkeep(pilot)
        screen.learned_list.focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        assert "The person keeps [x] lists and edits [/etc/hosts]" in str(
            pilot.app.screen.query_one(".dialog-question", Static).render()
        )
        await pilot.press("y")
        await wait_for(pilot, lambda: pilot.app.screen is screen and len(screen.query(Toast)) > 0)
        toast = str(screen.query(Toast).last().render())
        assert "Removed from About me: The person keeps [x] lists and edits [/etc/hosts]" in toast
        assert list_learned(home) == []


async def test_the_guard_section_shows_its_limits_the_recall_checks_and_what_it_last_said(llm_home, fake_llm):
    from omb_tui.core.runs.guard_record import write_guard_record

    write_llm_config(llm_home, fake_llm, upkeep={"guard": {"maxCallsPerNight": 12, "rollback": False}})
    (llm_home.workspace("scout") / "MEMORY.md").parent.mkdir(parents=True, exist_ok=True)
    stopped = {"stopped": "the night's limit of 12 model calls is reached", "steps_left_out": ["compact"]}
    write_guard_record(llm_home, "scout", "20261201T031500-1a2b3c", stopped, "2026-12-01", {})
    from omb_tui.core.guard.night import night_of

    tonight = night_of(clock.now(), 3)
    spent = {"calls": 12, "tokens": 3400, "usd": 0.0125}
    write_guard_record(llm_home, "scout", "20261201T031500-1a2b3c", stopped, tonight, spent)
    async with make_app(llm_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        guard = shown(screen, "#upkeep-guard")
        assert "Guard: at most 12 calls, 200,000 tokens and $0.50 a night" in guard
        assert "a run that fails a check is flagged" in guard
        assert "Recall checks: none yet" in guard
        assert f"Tonight ({tonight}): 12 calls, 3,400 tokens, $0.01." in guard
        assert (
            "Last said, run 20261201T031500-1a2b3c: guard: stopped: the night's limit of 12 model calls is "
            "reached (compact not run)." in guard
        )


async def test_upkeep_names_the_tidy_up_review_shows_when_no_record_holds_it(tmp_path):
    """Upkeep once said "No tidy-up has run for this bot yet" while Review showed last night's tidy-up (a run
    the journal holds and the step's record does not: an earlier version's, a restored home's, the demo's)."""
    from omb_tui.core.memory.store import MemoryStore
    from omb_tui.core.runs.run import UpkeepRun

    home = no_model_home(tmp_path / "home")
    store = MemoryStore(home, "scout")
    run = UpkeepRun("scout")
    store.write("MEMORY.md", EXPIRED.replace("booked", "booked and paid"), run.actor("tidy-up"), note="tidy-up: merged")
    async with make_app(home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        screen = await open_upkeep(pilot)
        said = shown(screen, "#upkeep-tidy")
        assert "No tidy-up has run" not in said and f"run {run.id}: 1 change (see Review)" in said
