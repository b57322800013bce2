"""The recall preview screen, used as a person would: Pilot at 80x24, homes built through the core."""

from __future__ import annotations

from datetime import date, timedelta, timezone

import pytest
from support.app_helpers import add_bot, open_recall, settle, wait_for
from support.recall_home import AS_OF, build_home, memory_text
from support.scripted_model import model  # noqa: F401 (the fixture)
from textual.widgets import Input, Select, Static

from omb_tui.app.app import make_app
from omb_tui.app.recall_sentences import skip_sentence
from omb_tui.app.screens.recall import TYPING_PAUSE_SECONDS, RecallScreen
from omb_tui.app.widgets.load_preview import EXPIRED, LOADING, PAST_CUT, LoadPreview, memory_load
from omb_tui.app.widgets.recall_block import RecallBlock
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory.budget import MEMORY_MAX_LINES, loaded_memory
from omb_tui.core.memory.store import Actor, MemoryStore
from omb_tui.core.recall.recall import (
    MAX_BLOCK_CHARS,
    SKIP_AUTO_RECALL_OFF,
    SKIP_INDEX_UNREADABLE,
    RecallResult,
    recall,
)
from omb_tui.core.team import api as team_api
from omb_tui.core.team.storage import create_team
from omb_tui.core.turn.bot import Bot

pytestmark = pytest.mark.dates

PERSON = Actor(WHO_PERSON, HOW_SETTINGS)
MESSAGE = "Lisbon hotel for the offsite"


@pytest.fixture
def home(tmp_path) -> Home:
    return build_home(tmp_path / "home", until=clock.today() - timedelta(days=1))


async def type_message(pilot, screen: RecallScreen, text: str, *, keys: bool = False) -> None:
    """Put `text` in the message field, key by key or at once (both go through the typing pause)."""
    field = screen.query_one("#message", Input)
    field.focus()
    if keys:
        await pilot.press(*text)
    else:
        field.value = text
    await pilot.pause(TYPING_PAUSE_SECONDS + 0.1)
    await settle(pilot)


def summary(screen: RecallScreen, which: str = "recall") -> str:
    return str(screen.query_one(f"#{which}-summary", Static).render())


async def test_typing_shows_exactly_the_recall_block(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        assert screen.focused is screen.query_one("#message", Input)
        await type_message(pilot, screen, MESSAGE, keys=True)
        expected = recall(home, "scout", MESSAGE, kind="person")
        block = screen.query_one(RecallBlock)
        assert expected.block and expected.passages  # the home gives notes and a passage
        assert block.text.plain == expected.block
        assert f"{len(expected.block):,} / {MAX_BLOCK_CHARS:,} characters" in summary(screen)
        assert f"{len(expected.notes)} note" in summary(screen)
        assert f"{len(expected.passages)} passage" in summary(screen)
        assert "Words: lisbon, hotel, offsite · any one of them is enough" in summary(screen)


async def test_matched_words_are_highlighted_as_whole_words(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, MESSAGE)
        block = screen.query_one(RecallBlock)
        match = block.match_style
        marked = [block.text.plain[span.start : span.end] for span in block.text.spans if span.style == match]
        assert marked
        assert {word.casefold() for word in marked} <= {"lisbon", "hotel", "offsite"}
        assert "Lisbon" in marked and "Hotel" in marked  # case does not matter
        # the opening line is recall's own sentence, never marked
        first_mark = min(span.start for span in block.text.spans if span.style == match)
        assert first_mark > block.text.plain.index("\n\n")


def test_each_reason_recall_did_not_run_has_its_sentence():
    def skipped(code: str, reason: str) -> RecallResult:
        return RecallResult(
            bot="scout", message="m", kind="person", chat=None, passages_allowed=True, skipped=reason, skip_code=code
        )

    assert skip_sentence(skipped(SKIP_AUTO_RECALL_OFF, "features.autoRecall is false")) == (
        "Recall is off: features.autoRecall is false in config.json."
    )
    # no sentence of its own: the core's, which names what went wrong
    assert skip_sentence(skipped(SKIP_INDEX_UNREADABLE, "the index could not be read (disk I/O error)")) == (
        "Not recalled: the index could not be read (disk I/O error)."
    )


async def test_short_message_says_why_and_shows_no_block(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, "Lisbon!", keys=True)  # seven characters
        assert "messages under 8 characters are not recalled" in summary(screen)
        assert screen.query_one(RecallBlock).text.plain == ""
        assert screen.result is not None and screen.result.skipped


async def test_kind_room_recalls_notes_only(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, MESSAGE)
        assert screen.result.passages
        await pilot.press("escape", "k")  # leave the field; k moves person -> room
        await settle(pilot)
        assert screen.query_one("#kind", Select).value == "room"
        expected = recall(home, "scout", MESSAGE, kind="room")
        assert not expected.passages and expected.notes
        assert screen.query_one(RecallBlock).text.plain == expected.block
        assert not screen.result.passages
        assert "0 passages · room: notes only" in summary(screen)


async def test_a_chat_decides_and_is_never_recalled_into_itself(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, MESSAGE)
        assert screen.chat_ids == ["lisbon-plans"]
        screen.query_one("#chat", Select).value = "lisbon-plans"
        await settle(pilot)
        expected = recall(home, "scout", MESSAGE, chat_id="lisbon-plans", kind="person")
        assert screen.query_one(RecallBlock).text.plain == expected.block
        assert not screen.result.passages


async def test_memory_off_says_recall_is_off(tmp_path):
    home = build_home(tmp_path / "home", until=clock.today(), memory=False)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, MESSAGE)
        assert "Recall is off: this bot's memory is switched off" in summary(screen)
        assert screen.query_one(RecallBlock).text.plain == ""
        assert "Memory is off for this bot" in summary(screen, "memory")
        assert screen.prompt_text == ""


async def test_memory_panel_marks_expired_cut_and_loading_lines(tmp_path):
    yesterday = clock.today() - timedelta(days=1)
    home = build_home(tmp_path / "home", until=yesterday)
    text = memory_text(yesterday) + "".join(f"- filler line {n}\n" for n in range(205))
    MemoryStore(home, "scout").write("MEMORY.md", text, PERSON)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        load = screen.memory
        states = {line.number: line.state for line in load.lines}
        assert states[3] == LOADING  # likes short replies
        assert states[4] == EXPIRED and load.reason(load.lines[3]) == f"not loading: expired (until {yesterday})"
        assert states[MEMORY_MAX_LINES] == LOADING
        assert states[MEMORY_MAX_LINES + 1] == PAST_CUT
        assert load.reason(load.lines[MEMORY_MAX_LINES]) == "not loading: past the 200-line cut"
        # what the panel marks as loading is exactly what the core loads
        loading = "".join(line.text + "\n" for line in load.lines if line.state == LOADING)
        assert loading == loaded_memory(text, clock.today())
        assert "199 of 210 lines load · 1 expired · 10 past the 200-line cut" in summary(screen, "memory")
        preview = screen.query_one(LoadPreview)
        assert preview.load is load
        await pilot.press("tab", "tab")  # message -> recall block -> system prompt (shown, narrow)
        await settle(pilot)
        assert screen.focused is screen.query_one("#memory-view")
        assert screen.query_one("#memory-pane").display and not screen.query_one("#recall-pane").display
        await pilot.press("p")
        await settle(pilot)
        shown = str(screen.query_one("#prompt-text", Static).render())
        assert "likes short replies" in shown and "in Lisbon this week" not in shown
        assert "MEMORY.md was cut off here: 10 more lines did not load." in shown


async def test_the_system_prompt_carries_the_team_block_as_the_bot_gets_it(home):
    add_bot(home, "ledger")
    create_team(home, "Tapa crew", ["scout", "ledger"])
    card = team_api.propose(home, "Tapa crew", "tapa/colour", "Sequence 02 colour", "Warm amber, never teal.")
    team_api.accept(home, "Tapa crew", "tapa/colour", card.revision)
    team_api.propose(home, "Tapa crew", "tapa/fps", "Frame rate", "24 frames a second.")  # pending: never loads
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await pilot.press("tab", "tab", "p")  # message -> recall block -> system prompt, as the prompt text
        await settle(pilot)
        shown = str(screen.query_one("#prompt-text", Static).render())
        assert "## Team memory: Tapa crew" in shown and "Sequence 02 colour (tapa/colour): Warm amber" in shown
        assert "Frame rate" not in shown
        assert shown.index("lives in Pune") < shown.index("## Team memory")  # after the bot's own memory
        assert screen.prompt_text == Bot(home, "scout").prompt()  # the block `omb-tui prompt` prints


def test_memory_load_takes_the_byte_cut_and_expiry_from_the_core():
    text = "- 2026-01-01 · old · until 2026-01-02\n" + "x" * 30_000 + "\n- after\n"
    load = memory_load(text, date(2026, 1, 2))
    assert [line.state for line in load.lines] == [LOADING, PAST_CUT, PAST_CUT]
    assert load.cut_by == "bytes" and load.reason(load.lines[1]) == "not loading: past the 24 KB cut"
    assert memory_load(text, date(2026, 1, 3)).lines[0].state == EXPIRED  # the day after its until date


async def test_memory_panel_refreshes_when_memory_changes_on_disk(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        assert not any("brand new line" in line.text for line in screen.memory.lines)
        path = home.workspace("scout") / "MEMORY.md"
        path.write_text(path.read_text(encoding="utf-8") + "- brand new line\n", encoding="utf-8")
        app.memory_version += 1
        await settle(pilot)
        assert screen.memory.lines[-1].text == "- brand new line" and screen.memory.lines[-1].state == LOADING


async def test_a_file_that_cannot_be_read_becomes_a_notification(home):
    path = home.workspace("scout") / "MEMORY.md"
    path.unlink()
    path.mkdir()
    app = make_app(home, watch=False, bot_id="scout")
    notes: list[str] = []
    original = app.notify
    app.notify = lambda message, **kwargs: (notes.append(str(message)), original(message, **kwargs))[1]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, MESSAGE)
        assert "MEMORY.md is a folder, not a file." in notes
        assert "MEMORY.md could not be read: MEMORY.md is a folder" in summary(screen, "memory")
        assert screen.result is not None  # recall itself never reads MEMORY.md: it still runs


async def test_as_of_moves_expiry_and_light_theme_recolours(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        assert screen.memory.lines[3].state == EXPIRED
        await pilot.press("escape", "a", *(clock.today() - timedelta(days=1)).isoformat())
        await settle(pilot)
        assert screen.memory.lines[3].state == LOADING  # it still loads on its until date
        await type_message(pilot, screen, MESSAGE)
        dark = screen.query_one(RecallBlock).match_style
        app.theme = "textual-light"
        await settle(pilot)
        block = screen.query_one(RecallBlock)
        assert block.match_style != dark
        assert any(span.style == block.match_style for span in block.text.spans)


def test_snapshot_recall(snap_compare, tmp_path):
    home = build_home(tmp_path / "home", until=date(2026, 11, 29))

    async def run_before(pilot) -> None:
        screen = await open_recall(pilot)
        await pilot.press("escape", "a", *AS_OF.isoformat(), "enter")
        await type_message(pilot, screen, MESSAGE)
        await pilot.press("escape")  # out of the field: no text cursor in the picture
        await settle(pilot)

    app = make_app(home, watch=False, bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_tab_never_goes_back_into_the_message_where_letters_type(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, "lisbon shuttle", keys=True)
        message = screen.query_one("#message", Input)
        kinds = []
        for _ in range(4):  # round and round the panels: k keeps changing the kind, never types
            await pilot.press("tab")
            await pilot.pause()
            assert screen.focused is not message
            await pilot.press("k")
            kinds.append(screen.kind)
        assert message.value == "lisbon shuttle" and len(set(kinds)) == 4
        await pilot.press("slash")  # going back into the message is on purpose
        assert screen.focused is message
        await pilot.press("x")
        assert message.value == "lisbon shuttlex"  # typed at the end, not over the whole message


async def test_a_day_that_is_no_date_is_said_and_the_field_shows_the_day_used(home):
    app = make_app(home, watch=False, bot_id="scout")
    notes: list[str] = []
    original = app.notify
    app.notify = lambda message, **kwargs: (notes.append(str(message)), original(message, **kwargs))[1]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await pilot.press("escape", "a", *"2026-13-45", "escape")
        await settle(pilot)
        assert screen.query_one("#as-of", Input).value == ""  # empty: today, the day both blocks are for
        assert "2026-13-45 is not a day (YYYY-MM-DD): both blocks are for today." in notes


# ----- a screen where a person types keeps the cursor in its box; a preview changes nothing -----
async def test_opening_the_preview_again_puts_the_cursor_in_the_message_and_a_burst_of_keys_stays_text(home):
    app = make_app(home, bot_id="scout", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        screen.query_one("#recall-view").focus()  # left on the block, where letters are keys
        await pilot.press("f")  # away to Files, and back with r
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert app.screen is screen and app.focused is screen.query_one("#message", Input)
        typed = "Which hotel did we pick for Lisbon"  # s, e, r, b, c, k, a: every letter an area or a key
        await pilot.press(*typed)  # all at once, as a slow link delivers them
        await settle(pilot)
        assert app.screen is screen and screen.query_one("#message", Input).value == typed


async def test_a_send_no_model_answers_keeps_the_words_marked_not_answered_and_no_log_line(home, model):
    from support.scripted_model import Unavailable

    from omb_tui.app.screens.recall import PREVIEW_CHAT_ID
    from omb_tui.app.widgets.turn_answer import TurnAnswer
    from omb_tui.core.memory import conversations as conv

    model.answers.append(Unavailable("No model is set up for scout: give it an instance or set the helper."))
    log_folder = home.workspace("scout") / "memory" / "log"
    logs_before = sorted(p.read_bytes() for p in log_folder.glob("*.md")) if log_folder.is_dir() else []
    app = make_app(home, bot_id="scout", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recall(pilot)
        await type_message(pilot, screen, "Which hotel did we pick?")
        await pilot.press("ctrl+s")
        answer = screen.query_one(TurnAnswer)
        await wait_for(pilot, lambda: "could not answer" in answer.text.plain and not screen.sending)
        assert "marked not answered" in answer.text.plain
        assert app.focused is screen.query_one("#message", Input)  # the cursor stays in the box
    # as `omb-tui chat` keeps it: the person's words, then the app's notice; nothing in the bot's name, no log line
    messages = conv.find_conversation(home, "scout", PREVIEW_CHAT_ID, with_messages=True).messages
    assert [(m.author_kind, m.failed, m.text) for m in messages] == [
        ("person", False, "Which hotel did we pick?"),
        ("harness", True, "Not answered: No model is set up for scout: give it an instance or set the helper."),
    ]
    logs_after = sorted(p.read_bytes() for p in log_folder.glob("*.md")) if log_folder.is_dir() else []
    assert logs_after == logs_before
