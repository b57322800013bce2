"""Snapshots at 80x24 of what the first pictures (test_snapshots.py) leave out: Upkeep below the fold, the recall
preview's Send after a turn, and the dialogs a person meets most (delete, topic name, conflict, unsaved changes,
make room).

The homes are the same as test_snapshots.py's (drawn at one fixed path, journal times fixed), the model is the
scripted one (no server, no port), today's month is fixed, and no cursor blinks, so the pictures only change when
the app does. Update after a deliberate change with: pytest tests/app/snapshots/test_snapshots_more.py --snapshot-update
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest
from support.app_helpers import PicturedHome, listed_bots, open_area, settle, wait_for
from support.recall_home import AS_OF, build_home
from support.scripted_model import Answer, model  # noqa: F401 (model: the fixture)
from test_snapshots import BOT, files_screen_with_a_still_cursor, snapshot_home  # noqa: F401 (a fixture)
from textual.widgets import Input, OptionList

from omb_tui.core.memory.store import MemoryStore

pytestmark = pytest.mark.dates  # pictures with times and ages in them

SIZE = (80, 24)
FIXED_AT = '"at":"2026-11-29T09:00:00.000+00:00"'


def fix_journal_times(store: MemoryStore) -> None:
    """Every row of the bot's journal written at one fixed time, as snapshot_home's are."""
    journal = store.journal.path
    journal.write_text(re.sub(r'"at":"[^"]+"', FIXED_AT, journal.read_text()))


async def wait_for_dialog(pilot, name: str):
    """The dialog on top, drawn, its fields' cursors not blinking. (settle would wait for the worker that waits for
    the dialog's answer.)"""
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == name)
    shown = pilot.app.screen
    for field in shown.query(Input):
        field.cursor_blink = False
    await pilot.pause()
    return shown


async def highlight_file(pilot, rel: str) -> None:
    """The file highlighted in the list, the list focused: where the list's keys (Delete, F2, m) act."""
    screen = pilot.app.screen
    files = screen.query_one("#file-list", OptionList)
    files.focus()
    files.highlighted = next(i for i, (r, _) in enumerate(screen.files) if r == rel)
    await pilot.pause()


# ----- Upkeep, below the fold: About me's lines added by the bots, with Remove -----


def test_upkeep_screen_about_me_lines_added_by_the_bots(snap_compare, snapshot_home, frozen_clock):
    from omb_tui.app.screens import upkeep
    from omb_tui.core.upkeep.about_me import add_learned

    frozen_clock(datetime(2026, 11, 29, 9, 0, tzinfo=UTC))  # the month the usage line names
    for text in ("The person is vegetarian", "The person lives in Porto"):
        add_learned(snapshot_home.home, "scout", text, BOT, owners_words=True, today=date(2026, 11, 29))

    async def scrolled_to_about_me(pilot):
        screen = await open_area(pilot, "e", upkeep.UpkeepScreen)
        await wait_for(pilot, lambda: screen.view is not None and screen.learned_list.option_count == 2)
        screen.learned_list.focus()  # Tab's way down: the body scrolls the list into view
        body = screen.query_one("#upkeep-body")
        await wait_for(pilot, lambda: body.scroll_y > 0 and body.scroll_y == body.scroll_target_y)
        await settle(pilot)

    app = snapshot_home.app(bot_id="scout")
    assert snap_compare(app, terminal_size=SIZE, run_before=scrolled_to_about_me)


# ----- The recall preview's Send: the answer, and the tool call the bot made on the way -----

REMEMBER = {
    "id": "c1",
    "type": "function",
    "function": {"name": "memory_update", "arguments": '{"action": "add", "text": "Short answers"}'},
}


SENT = "Short answers about the Lisbon offsite, please"


def test_recall_send_shows_the_answer_and_its_tool_call(snap_compare, model):  # noqa: F811 (the fixture)
    from omb_tui.app.screens.recall import RecallScreen
    from omb_tui.app.widgets.turn_answer import TurnAnswer

    model.answers += [Answer(tool_calls=[REMEMBER]), Answer("Got it: short answers from now on.")]
    with PicturedHome("/tmp/omb-tui-snapshots/recall") as pictured:
        build_home(pictured.home.root, until=date(2026, 11, 29))

        async def sent(pilot):
            screen = await open_area(pilot, "r", RecallScreen)
            await pilot.press("escape", "a", *AS_OF.isoformat(), "enter")  # a fixed day: the blocks as of then
            message = screen.query_one("#message", Input)
            message.focus()
            message.value = SENT
            # the block shown for the message before it is sent: recall must not run again once the turn has
            # written the preview chat (its messages, at today's time, would be a passage of their own)
            await wait_for(pilot, lambda: screen.result is not None and screen.request.message == SENT)
            await settle(pilot)
            assert len(screen.result.passages) == 1
            await pilot.press("ctrl+s")
            answer = screen.query_one(TurnAnswer)
            await wait_for(pilot, lambda: "answered" in answer.text.plain and not screen.sending)
            await settle(pilot)

        assert snap_compare(pictured.app(bot_id="scout"), terminal_size=SIZE, run_before=sent)
    assert len(model.requests) == 2  # the tool call, then the answer: the turn the picture shows ran


# ----- The dialogs a person meets most, over the memory files screen -----


def picture_of_dialog(snap_compare, pictured, dialog: str, *keys: str, on: str | None = None, typed=()) -> bool:
    """The files screen's dialog that `keys` open (on the file `on`, highlighted in the list), once `typed` is in
    its name field, whose cursor does not blink."""

    async def opened(pilot):
        await files_screen_with_a_still_cursor(pilot)
        if on:
            await highlight_file(pilot, on)
        await pilot.press(*keys)
        await wait_for_dialog(pilot, dialog)
        await pilot.press(*typed)
        await pilot.pause()

    return snap_compare(pictured.app(bot_id="scout"), terminal_size=SIZE, run_before=opened)


def test_confirm_dialog_deleting_a_topic(snap_compare, snapshot_home):
    assert picture_of_dialog(snap_compare, snapshot_home, "ConfirmDialog", "delete", on="memory/travel.md")


def test_topic_name_dialog_for_a_new_topic(snap_compare, snapshot_home):
    assert picture_of_dialog(snap_compare, snapshot_home, "TopicNameDialog", "ctrl+n", typed="clients")


def test_topic_name_dialog_for_a_rename_offers_to_update_the_pointers(snap_compare, snapshot_home):
    store = MemoryStore(snapshot_home.home, "scout")
    text = store.read("MEMORY.md").text + "- 2026-11-01 · flights: see memory/travel.md\n"
    store.write("MEMORY.md", text, BOT)
    fix_journal_times(store)
    typed = ["backspace"] * len("travel.md") + list("trips")
    assert picture_of_dialog(snap_compare, snapshot_home, "RenameTopicDialog", "f2", on="memory/travel.md", typed=typed)


async def type_a_draft(pilot):
    await files_screen_with_a_still_cursor(pilot)
    screen = pilot.app.screen
    screen.editor.focus()
    screen.editor.move_cursor(screen.editor.document.end)
    await pilot.press(*"- my own line")
    await pilot.pause()
    return screen


def test_conflict_dialog_when_the_bot_changed_the_file_meanwhile(snap_compare, snapshot_home):
    async def conflict(pilot):
        await type_a_draft(pilot)
        store = MemoryStore(snapshot_home.home, "scout")
        store.write("MEMORY.md", store.read("MEMORY.md").text + "- the bot's new line\n", BOT)
        fix_journal_times(store)
        await pilot.press("ctrl+s")
        await wait_for_dialog(pilot, "ConflictDialog")

    assert snap_compare(snapshot_home.app(bot_id="scout"), terminal_size=SIZE, run_before=conflict)


def test_save_choice_dialog_when_leaving_unsaved_changes(snap_compare, snapshot_home):
    async def leaving(pilot):
        screen = await type_a_draft(pilot)
        await pilot.press("escape")  # out of the editor, into the list
        await highlight_file(pilot, "memory/travel.md")
        await pilot.press("enter")
        await wait_for_dialog(pilot, "SaveChoiceDialog")
        assert screen.modified

    assert snap_compare(snapshot_home.app(bot_id="scout"), terminal_size=SIZE, run_before=leaving)


@pytest.fixture
def full_memory_home(snapshot_home):
    """scout's MEMORY.md at 205 lines: 5 past the 200 that load, which make room would move."""
    store = MemoryStore(snapshot_home.home, "scout")
    lines = "".join(f"- 2026-{1 + i // 28:02d}-{1 + i % 28:02d} · fact number {i}\n" for i in range(204))
    store.write("MEMORY.md", "# Scout's notes\n" + lines, BOT)
    fix_journal_times(store)
    return snapshot_home


def test_make_room_dialog_lists_what_would_move(snap_compare, full_memory_home):
    assert picture_of_dialog(snap_compare, full_memory_home, "MakeRoomDialog", "m", on="MEMORY.md")


# ----- Review's Still true?: the entries to ask about today, each with why -----


def still_true_queue(snapshot_home, frozen_clock):
    """The still-true queue on snapshot_home: two old entries and one ending this week, today fixed; returns what
    opens it (run_before) and waits for its lines."""
    from omb_tui.app.screens.still_true import StillTrueScreen
    from omb_tui.core.guard import still_true

    frozen_clock(datetime(2026, 11, 29, 12, 0))  # local noon: the ages the queue's reasons give stay the same
    store = MemoryStore(snapshot_home.home, "scout")
    old = "- 2025-01-05 · from chat · works at Acme\n- 2025-03-01 · from chat · drives a blue car\n"
    soon = "- 2026-10-01 · flat lease runs out · until 2026-12-03\n"
    store.write("memory/travel.md", store.read("memory/travel.md").text + old + soon, BOT)
    fix_journal_times(store)

    async def open_still_true(pilot):
        await listed_bots(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, StillTrueScreen) and pilot.app.screen.lines)
        await settle(pilot)

    return open_still_true


def test_still_true_queue_with_the_reason_of_the_highlighted_entry(snap_compare, snapshot_home, frozen_clock):
    open_still_true = still_true_queue(snapshot_home, frozen_clock)
    assert snap_compare(snapshot_home.app(), terminal_size=SIZE, run_before=open_still_true)


@pytest.mark.parametrize(("key", "dialog"), [("u", "UntilDateDialog"), ("e", "EntryEditDialog")])
def test_still_true_dialogs_for_an_until_date_and_new_words(snap_compare, snapshot_home, frozen_clock, key, dialog):
    open_still_true = still_true_queue(snapshot_home, frozen_clock)

    async def opened(pilot):
        await open_still_true(pilot)
        await pilot.press(key)
        await wait_for_dialog(pilot, dialog)

    assert snap_compare(snapshot_home.app(), terminal_size=SIZE, run_before=opened)


def test_duplicate_bot_dialog_offers_a_free_id(snap_compare, snapshot_home):
    async def opened(pilot):
        await listed_bots(pilot)
        await pilot.press("d")
        await wait_for_dialog(pilot, "DuplicateBotDialog")

    assert snap_compare(snapshot_home.app(), terminal_size=SIZE, run_before=opened)
