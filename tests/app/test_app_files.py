"""The bots screen and the memory files screen, used as a person would: Pilot at 80x24."""

from __future__ import annotations

import re
import shutil
from datetime import date, timedelta

import pytest
from support.app_helpers import add_bot, listed_bots, open_files, settle, wait_for
from textual.widgets import OptionList, Static, TextArea

from omb_tui.app.app import make_app
from omb_tui.app.dialogs.conflict import ConflictDialog
from omb_tui.app.screens.files import FilesScreen
from omb_tui.app.widgets.bot_list import BotList
from omb_tui.app.widgets.gauge import GaugeBar
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import Actor, MemoryStore

BOT = Actor(WHO_BOT, HOW_TASK, chat="Follow-up")
PERSON = Actor(WHO_PERSON, HOW_SETTINGS)


@pytest.fixture
def home(tmp_path):
    home = Home(tmp_path / "home")
    add_bot(
        home,
        actor=BOT,
        files={
            "MEMORY.md": '- 2026-11-01 · from chat "Plans" · likes short replies\n',
            "memory/travel.md": "---\ntitle: Travel\n---\n# Travel\n",
            "memory/log/2026-11-29.md": "- said hello\n",
        },
    )
    add_bot(home, "quill", memory=False)
    return home


def memory_path(home):
    return home.workspace("scout") / "MEMORY.md"


async def type_at_end(pilot, screen, *keys):
    screen.editor.focus()
    screen.editor.move_cursor(screen.editor.document.end)
    await pilot.press(*keys)


async def choose_file(pilot, rel: str):
    screen = pilot.app.screen
    option_list = screen.query_one("#file-list", OptionList)
    option_list.focus()
    index = next(i for i, (r, _) in enumerate(screen.files) if r == rel)
    option_list.highlighted = index
    await pilot.press("enter")
    await settle(pilot)


def drawn(bot_list: BotList) -> list[list[str]]:
    """The list's lines as drawn, split into their columns."""
    return [bot_list.render_line(y).text.split() for y in range(bot_list.size.height)]


async def test_bots_screen_lists_every_bot_and_opens_one(home):
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        lines = drawn(bot_list)
        assert lines[0] == ["Bot", "Name", "Memory", "Gauge", "Lines", "Night", "Last", "change"]
        assert lines[1][:4] == ["quill", "Quill", "off", "ok"]
        assert lines[2][:4] == ["scout", "Scout", "on", "ok"]
        assert lines[2][6] != "never"  # last change comes from the journal
        assert lines[1][6] == "never"
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, FilesScreen) and app.bot_id == "scout"
        assert "likes short replies" in app.screen.query_one("#editor", TextArea).text


async def test_bots_list_names_are_drawn_before_the_engine_reads_any_bot(home):
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = app.screen.query_one(BotList)
        lines = drawn(bot_list)
        assert "Last change" in bot_list.render_line(0).text
        # the first frame names every bot; the gauge, lines and last change follow the engine's read
        assert lines[1:3] == [["quill", "Quill", "off"], ["scout", "Scout", "on"]]
        assert "Reading the bots" in str(app.screen.query_one("#bots-intro", Static).render())
        await listed_bots(pilot)
        assert drawn(bot_list)[2][:4] == ["scout", "Scout", "on", "ok"]
        assert "2 bots in" in str(app.screen.query_one("#bots-intro", Static).render())


async def test_bots_list_cursor_keys_and_refresh_keep_the_chosen_bot(home):
    for name in ("alpha", "zulu"):
        add_bot(home, name)
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        await pilot.press("end")
        assert bot_list.highlighted.id == "zulu"
        await pilot.press("home", "down")
        assert bot_list.highlighted.id == "quill"
        add_bot(home, "aaron")  # a new bot sorts above the chosen one
        await pilot.press("ctrl+r")
        for _ in range(50):
            await settle(pilot)
            if bot_list.row_count == 5:
                break
        assert [line[0] for line in drawn(bot_list)[1:6]] == ["aaron", "alpha", "quill", "scout", "zulu"]
        assert bot_list.highlighted.id == "quill"  # the cursor followed its bot, not its row number
        await pilot.press("enter")
        await settle(pilot)
        assert app.bot_id == "quill"


async def test_bots_list_marks_a_bot_whose_settings_are_broken(home):
    home.settings_path("scout").write_text("{ not json")
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        scout = next(line for line in drawn(bot_list) if line and line[0] == "scout")
        assert scout[3] == "error"
        await pilot.press("down")
        await settle(pilot)
        assert "scout:" in str(app.screen.query_one("#bots-intro", Static).render())


async def test_edit_and_save_is_journaled_as_person_in_settings(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, "enter", *"- hand note")
        assert "modified" in str(screen.query_one("#file-status", Static).render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert memory_path(home).read_text().endswith("- hand note")
        row = MemoryStore(home, "scout").journal.rows(limit=1)[0]
        assert (row.who, row.how, row.file) == (WHO_PERSON, HOW_SETTINGS, "MEMORY.md")


async def test_conflict_reload_keeps_the_draft_beside(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *" and my draft")
        MemoryStore(home, "scout").write("MEMORY.md", "- the bot's new version\n", BOT)
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConflictDialog)
        assert "Scout changed this file while you were editing." in str(
            dialog.query_one(".dialog-question", Static).render()
        )
        await pilot.press("r")
        await settle(pilot)
        assert screen.editor.text == "- the bot's new version\n"
        assert screen.query_one("#draft-pane").display
        assert "and my draft" in screen.query_one("#draft", TextArea).text
        assert memory_path(home).read_text() == "- the bot's new version\n"


async def test_the_draft_kept_after_reload_is_focused_paged_compared_and_closed(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        screen.editor.focus()
        screen.editor.insert("".join(f"- my line {i}\n" for i in range(40)), screen.editor.document.end)
        MemoryStore(home, "scout").write("MEMORY.md", "- the bot's new version\n", BOT)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictDialog))
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("f5")  # into the draft
        draft = screen.query_one("#draft", TextArea)
        assert screen.focused is draft
        await pilot.press("pagedown")
        assert draft.scroll_offset.y > 0
        await pilot.press("d")  # compared with the editor: what is only in the draft is added
        diff = screen.query_one("#draft-diff")
        assert screen.focused is diff
        shown = str(screen.query_one("#draft-diff-text", Static).render())
        assert "-- the bot's new version" in shown and "+- my line 39" in shown
        await pilot.press("f5")  # back to the editor, which stays as reloaded
        assert screen.focused is screen.editor
        await pilot.press("f5", "x")  # close it, after a question
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmDialog")
        await pilot.press("y")
        await settle(pilot)
        assert not screen.query_one("#draft-pane").display and screen.focused is screen.editor
        assert screen.editor.text == "- the bot's new version\n"
        assert memory_path(home).read_text() == "- the bot's new version\n"


async def test_conflict_overwrite_with_mine(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *" (mine)")
        MemoryStore(home, "scout").write("MEMORY.md", "- bot version\n", BOT)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("o")
        await settle(pilot)
        assert "(mine)" in memory_path(home).read_text()
        rows = MemoryStore(home, "scout").journal.rows(limit=2)
        assert rows[0].who == WHO_PERSON and rows[0].before_text == "- bot version\n"


async def test_gauge_follows_the_draft_and_marks_lines_past_the_cut(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        gauge = screen.query_one(GaugeBar)
        assert gauge.has_class("-level-ok")
        assert "only the first 200 lines load each turn" in str(gauge.render())
        screen.editor.load_text("".join(f"- line {i}\n" for i in range(205)))
        await pilot.pause()
        assert gauge.has_class("-level-red")
        assert "5 lines not loaded" in str(gauge.render())  # 205 lines, 200 load
        assert screen.editor.cut_line == 200
        assert "strike" in str(screen.editor.get_line(200).spans[0].style)
        assert not screen.editor.get_line(199).spans
        screen.editor.load_text("".join(f"- line {i}\n" for i in range(170)))
        await pilot.pause()
        assert gauge.has_class("-level-amber") and screen.editor.cut_line is None


async def test_logs_are_read_only_and_memory_md_is_emptied_not_deleted(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await choose_file(pilot, "memory/log/2026-11-29.md")
        assert screen.editor.read_only
        assert "read-only" in str(screen.query_one("#file-status", Static).render())
        await choose_file(pilot, "MEMORY.md")
        await pilot.press("f8")
        await pilot.pause()
        assert "never deleted" in str(app.screen.query_one(".dialog-question", Static).render())
        await pilot.press("y")
        await settle(pilot)
        assert memory_path(home).exists() and memory_path(home).read_text() == ""


async def test_delete_a_log_after_confirming(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await choose_file(pilot, "memory/log/2026-11-29.md")
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press("escape")  # cancel first: nothing happens
        await settle(pilot)
        assert (home.workspace("scout") / "memory/log/2026-11-29.md").exists()
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert not (home.workspace("scout") / "memory/log/2026-11-29.md").exists()


async def test_create_rename_and_delete_a_topic(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press(*".bad", "enter")  # refused by the name rules
        await pilot.pause()
        assert not (home.workspace("scout") / "memory/.bad.md").exists()
        await pilot.press(*["backspace"] * 4, *"clients", "enter")
        await settle(pilot)
        topic = home.workspace("scout") / "memory/clients.md"
        assert topic.exists() and screen.current.rel == "memory/clients.md"
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press(*["backspace"] * 10, *"customers", "enter")
        await settle(pilot)
        assert not topic.exists() and (home.workspace("scout") / "memory/customers.md").exists()
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert not (home.workspace("scout") / "memory/customers.md").exists()


async def test_live_refresh_reloads_a_clean_editor_and_flags_a_dirty_one(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        memory_path(home).write_text("- changed in Obsidian\n")
        app.note_disk_change()
        await settle(pilot)
        assert screen.editor.text == "- changed in Obsidian\n"
        rows = MemoryStore(home, "scout").journal.rows(limit=1)
        assert rows[0].how == "changed outside the app"
        await type_at_end(pilot, screen, *" typed")
        MemoryStore(home, "scout").write("MEMORY.md", "- bot wrote\n", BOT)
        app.note_disk_change()
        await settle(pilot)
        banner = screen.query_one("#conflict-banner", Static)
        assert banner.display and "Scout changed this file while you were editing." in str(banner.render())
        assert screen.editor.text.endswith(" typed")  # nothing typed is lost


async def test_watchfiles_notices_a_change_within_a_second(home):
    app = make_app(home, watch=True, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.pause(0.3)
        memory_path(home).write_text("- from another editor\n")
        for _ in range(20):
            await pilot.pause(0.1)
            if screen.editor.text == "- from another editor\n":
                break
        assert screen.editor.text == "- from another editor\n"


async def test_help_lists_the_keys_of_the_screen(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await pilot.press("f1")
        await pilot.pause()
        described = " ".join(what for _, what in app.screen.rows)
        assert "Save" in described and "$EDITOR" in described and "Quit" in described
        await pilot.press("escape")
        assert isinstance(app.screen, FilesScreen)


async def test_alt_letter_switches_area_even_from_the_editor(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        assert screen.focused is screen.query_one("#file-list")  # an opened bot: the list has the keys
        await pilot.press("enter")  # MEMORY.md is open already: Enter goes into the editor
        assert screen.focused is screen.editor
        await pilot.press("j")  # a plain letter is typed into the note
        assert screen.editor.text.startswith("j")
        await pilot.press("alt+j")
        await settle(pilot)
        assert app.screen.__class__.__name__ == "JournalScreen"


@pytest.mark.parametrize("raw", [b"- a\r\n- b\n- c\n", b"- a\rstill a\n- b\n", "- a\u2028b\n".encode()])
async def test_saving_untouched_never_changes_the_bytes(home, raw):
    memory_path(home).write_bytes(raw)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        assert not screen.modified
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert memory_path(home).read_bytes() == raw


async def test_b_goes_back_to_the_bots_and_only_the_shown_bots_screen_reads_on_a_change(home):
    from omb_tui.app.screens.bots import BotsScreen

    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await listed_bots(pilot)
        first = app.screen
        await pilot.press("down", "enter")  # scout
        await settle(pilot)
        assert isinstance(app.screen, FilesScreen)
        await pilot.press("escape", "b")
        await settle(pilot)
        assert isinstance(app.screen, BotsScreen) and app.screen is not first
        bot_list = await listed_bots(pilot)
        assert [line[0] for line in drawn(bot_list)[1:3]] == ["quill", "scout"]
        reads = []
        for screen in (first, app.screen):
            original = screen.load_bots
            screen.load_bots = lambda original=original, screen=screen: reads.append(screen) or original()
        home.workspace("aaron").mkdir(parents=True)
        app.note_disk_change()  # what the watcher does
        for _ in range(50):
            await settle(pilot)
            if bot_list.row_count == 3:
                break
        assert drawn(bot_list)[1][0] == "aaron"
        assert reads == [app.screen]  # the first screen, hidden in its own mode, did not read


async def test_bots_list_click_selects_and_double_click_opens(home):
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        await pilot.click(BotList, offset=(3, 2))  # line 2: the second bot, under the header
        await settle(pilot)
        assert bot_list.highlighted.id == "scout" and app.bot_id is None
        await pilot.click(BotList, offset=(3, 0))  # the header selects nothing
        assert bot_list.highlighted.id == "scout"
        await pilot.double_click(BotList, offset=(3, 1))
        await settle(pilot)
        assert app.bot_id == "quill" and isinstance(app.screen, FilesScreen)


async def test_the_bots_list_stays_put_while_the_intro_changes_with_the_cursor(home):
    """The intro names the highlighted bot's night or the bots: one line, so a double click lands where aimed."""
    app = make_app(home, watch=False)
    async with app.run_test(size=(60, 20)) as pilot:
        bot_list = await listed_bots(pilot)
        intro = app.screen.query_one("#bots-intro", Static)
        places = set()
        for key in ("down", "up", "down"):
            places.add((bot_list.region.y, intro.region.height))
            await pilot.press(key)
            await settle(pilot)
        assert places == {(bot_list.region.y, 1)}


async def test_bots_list_cuts_a_long_name_and_keeps_the_last_change_on_an_80_column_line(home):
    settings = BotSettings(id="scout", name="Scout, the very long-named research assistant of the studio")
    save_bot_settings(home, settings)
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        line = next(bot_list.render_line(y).text for y in range(1, 3) if "scout" in bot_list.render_line(y).text)
        assert "Scout, the very lon…" in line
        assert line.rstrip().endswith(drawn(bot_list)[2][-1])  # the time of the last change is still there
        assert re.search(r"\d\d:\d\d\s*$", line)


async def test_help_on_the_bots_screen_puts_open_first_and_lists_no_sideways_scrolling(home):
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await listed_bots(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        described = [what for _, what in app.screen.rows]
        # the screen's own key comes before the app's keys
        assert described.index("Open the selected bot's memory files") < described.index("Quit omb-tui")
        assert "The row below" in described
        assert not any("Scroll" in what for what in described)  # a row list has nothing to scroll sideways


async def test_opening_straight_on_a_bot_reads_no_bots_until_they_are_shown(home, monkeypatch):
    from omb_tui.app.screens.bots import BotsScreen

    reads = []
    original = BotsScreen.load_bots
    monkeypatch.setattr(BotsScreen, "load_bots", lambda screen: reads.append(screen) or original(screen))
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await settle(pilot)
        assert reads == []  # the first bots screen is there, underneath, but reads nothing while hidden
        await pilot.press("escape", "b")
        bot_list = await listed_bots(pilot)
        assert bot_list.row_count == 2 and reads == [app.screen]


# ----- drafts are never lost without a question; another bot's files never stay on screen -----


async def test_an_opened_bot_gives_the_keys_to_the_list_so_area_letters_type_nothing(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        before = memory_path(home).read_text()
        await pilot.press("t")
        await settle(pilot)
        assert app.screen.__class__.__name__ == "TopicsScreen"
        assert not screen.modified and memory_path(home).read_text() == before


async def test_quitting_with_unsaved_changes_asks_first(home):
    from omb_tui.app.dialogs.confirm import ConfirmDialog

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"typed")
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog) and "scout" in app.screen.question.lower()
        assert "MEMORY.md" in app.screen.question
        await pilot.press("escape")  # stay
        await settle(pilot)
        assert app.is_running and screen.editor.text.endswith("typed")
        await pilot.press("ctrl+q", "ctrl+q")  # asked, and asked again: quit means quit
        await settle(pilot)
        assert not app.is_running


async def test_quitting_without_unsaved_changes_does_not_ask(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert not app.is_running


async def test_opening_another_bot_with_unsaved_changes_asks_first(home):
    from omb_tui.app.dialogs.confirm import ConfirmDialog

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"draft")
        app.open_bot("quill")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog) and "Open quill" in app.screen.question
        await pilot.press("escape")
        await settle(pilot)
        assert app.bot_id == "scout" and screen.editor.text.endswith("draft")
        app.open_bot("quill")
        await settle(pilot)
        await pilot.press("y")  # discard
        await settle(pilot)
        assert app.bot_id == "quill" and "likes short replies" not in screen.editor.text


async def test_a_bot_whose_files_cannot_be_read_shows_nothing_of_the_previous_bot(home, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("- not quill's\n")
    quill_memory = home.workspace("quill") / "MEMORY.md"
    quill_memory.symlink_to(outside)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        assert "likes short replies" in screen.editor.text
        app.open_bot("quill")
        for _ in range(20):
            await settle(pilot)
        assert screen.editor.text == "" and screen.editor.read_only
        assert screen.query_one("#file-list", OptionList).option_count == 0
        status = str(screen.query_one("#file-status", Static).render())
        assert "quill" in status and "cannot be shown" in status and "scout" not in status
        assert screen.check_action("save", ()) is None and screen.check_action("delete_file", ()) is None
        assert outside.read_text() == "- not quill's\n"


async def test_a_broken_settings_file_does_not_stop_the_memory_files(home):
    home.settings_path("scout").write_text('{"name": 5, "memory": "yes"}')
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        assert "likes short replies" in screen.editor.text
        assert screen.bot_name == "scout"  # its id stands in for the name it cannot read


async def test_delete_in_the_list_acts_on_the_highlighted_file(home):
    from omb_tui.app.dialogs.confirm import ConfirmDialog

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        assert screen.current.rel == "MEMORY.md"
        option_list = screen.query_one("#file-list", OptionList)
        option_list.focus()
        option_list.highlighted = next(i for i, (rel, _) in enumerate(screen.files) if rel == "memory/travel.md")
        await pilot.press("delete")
        await pilot.pause()  # (settle would wait for the dialog's worker, which waits for an answer)
        assert isinstance(app.screen, ConfirmDialog) and "memory/travel.md" in app.screen.question
        await pilot.press("y")
        await settle(pilot)
        assert not (home.workspace("scout") / "memory" / "travel.md").exists()
        assert "likes short replies" in memory_path(home).read_text()
        assert screen.current.rel == "MEMORY.md"


async def test_a_new_topic_opens_even_when_a_disk_change_arrives_meanwhile(home):
    from omb_tui.app.dialogs.topic_name import TopicNameDialog

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, TopicNameDialog)
        await pilot.press(*"ideas", "enter")
        app.note_disk_change()  # what the watcher does when it sees the new file
        for _ in range(10):
            await settle(pilot)
        assert screen.current.rel == "memory/ideas.md"


async def test_back_on_the_bots_the_cursor_is_on_the_bot_you_came_from(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await pilot.press("b")
        bot_list = await listed_bots(pilot)
        assert bot_list.highlighted.id == "scout"  # not the first bot, quill


async def test_a_topic_name_that_exists_keeps_the_dialog_open_and_says_so(home):
    from omb_tui.app.dialogs.topic_name import TopicNameDialog

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press(*"travel")
        await pilot.pause()
        hint = str(app.screen.query_one("#name-hint", Static).render())
        assert "memory/travel.md already exists" in hint
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicNameDialog)  # still open, the name as typed
        assert app.screen.query_one("#topic-name").value == "travel"
        await pilot.press("s", "enter")
        await settle(pilot)
        assert (home.workspace("scout") / "memory" / "travels.md").exists()


async def test_ctrl_home_and_ctrl_end_jump_to_the_ends_of_the_file(home):
    memory_path(home).write_text("".join(f"- note {n}\n" for n in range(300)))
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("enter", "ctrl+end")
        assert screen.editor.cursor_location == screen.editor.document.end
        await pilot.press("ctrl+home")
        assert screen.editor.cursor_location == (0, 0)


def test_the_bots_last_change_is_local_time_like_the_journal(monkeypatch):
    import time as time_module

    from omb_tui.app.widgets.bot_list import bot_cells
    from omb_tui.core.turn.bot import BotSummary

    monkeypatch.setenv("TZ", "Europe/Amsterdam")
    time_module.tzset()
    try:
        summary = BotSummary(
            id="scout",
            name="Scout",
            memory=True,
            upkeep=True,
            level="ok",
            lines=3,
            bytes=40,
            last_change="2026-11-30T08:12:00.000+00:00",
        )
        assert bot_cells(summary)[-1] == "2026-11-30 09:12"  # the row was written at 08:12 UTC
    finally:
        monkeypatch.undo()
        time_module.tzset()


async def test_coming_back_to_files_gives_the_keys_to_the_list_so_letters_type_nothing(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("enter")  # into MEMORY.md's editor
        assert screen.focused is screen.editor
        await pilot.press("alt+j")
        await settle(pilot)
        await pilot.press("f")  # back to the files
        await settle(pilot)
        assert app.screen is screen and screen.focused is screen.query_one("#file-list")
        await pilot.press("x")
        await settle(pilot)
        assert not screen.modified and not screen.editor.text.startswith("x")
        await pilot.press("enter", "x")  # entered by the person: now a letter is typed
        assert screen.editor.text.startswith("x")


async def test_a_dialog_closing_leaves_the_keys_in_the_editor(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("enter", "f1")
        await pilot.pause()
        await pilot.press("escape")
        await settle(pilot)
        assert screen.focused is screen.editor


async def test_memory_switched_off_says_nothing_loads_instead_of_the_first_200_lines(home):
    app = make_app(home, watch=False, bot_id="quill")  # quill's memory is switched off
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        shown = str(screen.query_one(GaugeBar).render())
        assert "Memory is switched off for Quill: nothing loads" in shown
        assert "first 200 lines" not in shown and "not loaded" not in shown


@pytest.mark.parametrize(
    "change, named",
    [
        (
            lambda home: MemoryStore(home, "scout").write(
                "MEMORY.md", "- from the shell\n", Actor(WHO_PERSON, "command line")
            ),
            "You changed this file from the command line while you were editing it here.",
        ),
        (
            lambda home: memory_path(home).write_text("- from another editor\n"),
            "The file was changed outside the app while you were editing.",
        ),
        (
            lambda home: MemoryStore(home, "scout").write(
                "MEMORY.md", "- tidied\n", Actor("Memory upkeep", "upkeep step")
            ),
            "Memory upkeep changed this file while you were editing.",
        ),
    ],
)
async def test_the_conflict_names_who_changed_the_file_from_its_journal_row(home, change, named):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *" and my draft")
        change(home)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictDialog))
        question = str(app.screen.query_one(".dialog-question", Static).render())
        assert question == named and "Scout" not in question


async def test_make_room_shows_what_would_move_then_moves_it_to_the_archive(home):
    full = "# Notes\n" + "".join(f"- {date(2026, 1, 1) + timedelta(days=i)} · fact number {i}\n" for i in range(204))
    memory_path(home).write_text(full)  # 205 lines: 5 past the cut
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        assert "5 lines not loaded" in str(screen.query_one(GaugeBar).render())
        await pilot.press("m")  # the list has the keys
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "MakeRoomDialog")
        listed = str(app.screen.query_one("#moving-list", Static).render())
        assert "fact number 0" in listed and "fact number 4" in listed and "fact number 5" not in listed
        await pilot.press("escape")  # nothing moves
        await settle(pilot)
        assert memory_path(home).read_text() == full
        await pilot.press("m")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "MakeRoomDialog")
        await pilot.press("y")
        await settle(pilot)
        assert "fact number 0" not in memory_path(home).read_text()
        assert "fact number 0" in (home.workspace("scout") / "memory/archive.md").read_text()
        assert "0 lines not loaded" in str(screen.query_one(GaugeBar).render())
        assert "fact number 0" not in screen.editor.text
        row = MemoryStore(home, "scout").journal.rows(limit=1)[0]
        assert (row.who, row.file) == (WHO_PERSON, "MEMORY.md") and row.note.startswith("make room")


async def test_renaming_a_topic_offers_to_update_the_pointers_to_it(home):
    MemoryStore(home, "scout").write("MEMORY.md", "- 2026-11-01 · flights: see memory/travel.md\n", PERSON)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await choose_file(pilot, "memory/travel.md")
        await pilot.press("f2")
        await pilot.pause()
        offer = app.screen.query_one("#update-links")
        assert offer.value and "1 pointer in MEMORY.md" in str(offer.label)
        await pilot.press(*["backspace"] * 9, *"trips", "enter")
        await settle(pilot)
        assert memory_path(home).read_text() == "- 2026-11-01 · flights: see memory/trips.md\n"
        assert (home.workspace("scout") / "memory/trips.md").exists()


async def test_a_broken_frontmatter_is_flagged_in_the_list_and_says_what_is_wrong(home):
    MemoryStore(home, "scout").write("memory/trips.md", "---\ntitle: Trips\ndescription: abroad: twice\n---\n", PERSON)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        labels = [str(option.prompt) for option in screen.query_one("#file-list", OptionList).options]
        assert "  trips.md ⚠" in labels and "  travel.md" in labels
        await choose_file(pilot, "memory/trips.md")
        warning = screen.query_one("#frontmatter-warning", Static)
        assert warning.display
        assert "line 3: mapping values are not allowed" in str(warning.render())
        assert "lists it by name only" in str(warning.render())
        screen.editor.replace("description: abroad twice\n", (2, 0), (3, 0))  # fixed as typed
        await pilot.pause()
        assert not warning.display


@pytest.mark.parametrize("settings_too", [False, True], ids=["workspace", "whole-bot"])
async def test_a_bot_whose_files_are_deleted_while_open_says_its_workspace_is_gone(home, settings_too):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        shutil.rmtree(home.workspace("scout"))
        if settings_too:
            home.settings_path("scout").unlink()
        app.note_disk_change()
        status = screen.query_one("#file-status", Static)
        await wait_for(pilot, lambda: "workspace is gone" in str(status.render()))  # (a failed read's message)
        assert f"scout's workspace is gone: {home.workspace('scout')}" in str(status.render())
        assert screen.editor.text == "" and screen.editor.read_only and screen.current is None
        assert not screen.check_action("save", ())
        titles = [notification.title for notification in app._notifications]
        assert "Something went wrong" not in titles


async def test_unsaved_typing_stays_when_the_workspace_is_deleted(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"- not saved yet")
        shutil.rmtree(home.workspace("scout"))
        app.note_disk_change()
        banner = screen.query_one("#conflict-banner", Static)
        await wait_for(pilot, lambda: "workspace is gone" in str(banner.render()))
        assert "Your unsaved text stays here." in str(banner.render())
        assert screen.editor.text.endswith("- not saved yet")


# ----- the editor: wrap, delete line, the divider at the cut, the place kept on reload -----


async def test_soft_wrap_is_on_and_f4_turns_it_off_and_f9_deletes_the_line(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("enter")
        assert screen.editor.soft_wrap
        await pilot.press("f4")
        assert not screen.editor.soft_wrap
        await type_at_end(pilot, screen, *"- second", "ctrl+home", "f9")
        assert screen.editor.text == "- second"  # F9: a key xterm and tmux can send


async def test_ctrl_f_finds_in_the_file_and_escape_leaves_the_editor_at_the_match(home):
    memory_path(home).write_text(
        "".join(f"- 2026-11-01 · note {i}\n" for i in range(60)) + "- Tom likes tea\n- 2026-11-02 · tom's birthday\n"
    )
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("enter", "ctrl+f", *"tom")  # as typed, the first match below the cursor
        result = screen.query_one("#find-result", Static)
        assert screen.editor.selection == ((60, 2), (60, 5)) and str(result.render()) == "1 of 2"
        await pilot.press("enter")  # case does not matter
        assert screen.editor.selection == ((61, 15), (61, 18)) and str(result.render()) == "2 of 2"
        await pilot.press("f3")  # on past the last: round to the first
        assert screen.editor.selection.start == (60, 2)
        await pilot.press("up")  # back
        assert screen.editor.selection.start == (61, 15)
        assert screen.editor.scroll_offset.y > 0  # scrolled to it
        await pilot.press(*"xyz")
        assert str(result.render()) == "not found" and screen.editor.selection.start == (61, 15)
        await pilot.press(*["backspace"] * 3, "escape")
        assert screen.focused is screen.editor and not screen.query_one("#find-bar").display
        await pilot.press("x")  # the editor has the keys, at the match (which the key replaces)
        assert "- 2026-11-02 · x's birthday" in screen.editor.text


async def test_the_last_line_that_loads_is_underlined_as_a_divider(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        screen.editor.load_text("".join(f"- line {i}\n" for i in range(205)))
        screen.editor.move_cursor((199, 0), center=True)
        await pilot.pause()
        underlined = [
            y
            for y in range(screen.editor.size.height)
            if any(seg.style and seg.style.underline for seg in screen.editor.render_line(y))
        ]
        assert len(underlined) == 1
        assert "- line 199" in screen.editor.render_line(underlined[0]).text


async def test_the_cursor_and_scroll_stay_when_the_file_is_read_again_or_saved_redacted(home):
    memory_path(home).write_text("".join(f"- 2026-11-01 · note {i}\n" for i in range(60)))
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await pilot.press("enter")
        screen.editor.move_cursor((40, 5))
        await pilot.pause()
        scrolled = screen.editor.scroll_offset
        assert scrolled.y > 0
        with memory_path(home).open("a") as handle:
            handle.write("- 2026-11-02 · added elsewhere\n")
        app.note_disk_change()
        await settle(pilot)
        assert screen.editor.text.endswith("added elsewhere\n")
        assert screen.editor.cursor_location == (40, 5) and screen.editor.scroll_offset == scrolled
        await pilot.press("end", *" password: Quokka-hunter-77")
        await pilot.pause()
        scrolled = screen.editor.scroll_offset  # (typing at the end of a wrapped line may scroll a row)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "redacted" in memory_path(home).read_text()
        assert "1 credential was redacted before saving." in [n.message for n in app._notifications]
        assert screen.editor.cursor_location[0] == 40 and screen.editor.scroll_offset == scrolled


# ----- dialogs: y / n and first letters, Save offered before leaving, F2 and F8 on the highlighted file -----


async def test_dialogs_answer_n_and_the_first_letter_of_a_button(home):
    log = home.workspace("scout") / "memory/log/2026-11-29.md"
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_files(pilot)
        await choose_file(pilot, "memory/log/2026-11-29.md")
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press("n")  # no
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "FilesScreen")
        await settle(pilot)
        assert log.exists()
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press("d")  # the Delete button's first letter
        await settle(pilot)
        assert not log.exists()


async def test_switching_file_with_unsaved_changes_offers_save(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"- kept by saving")
        option_list = screen.query_one("#file-list", OptionList)
        option_list.focus()
        option_list.highlighted = next(i for i, (r, _) in enumerate(screen.files) if r == "memory/travel.md")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "SaveChoiceDialog")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.current is not None and screen.current.rel == "memory/travel.md")
        assert memory_path(home).read_text().endswith("- kept by saving")


async def test_quitting_with_unsaved_changes_offers_save(home):
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *"- saved on the way out")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "SaveChoiceDialog")
        await pilot.press("s")
        await wait_for(pilot, lambda: not app.is_running)
        assert memory_path(home).read_text().endswith("- saved on the way out")


async def test_f2_in_the_list_renames_the_highlighted_topic(home):
    add = MemoryStore(home, "scout")
    add.write("memory/clients.md", "# Clients\n", PERSON)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)  # MEMORY.md open, the list has the keys
        option_list = screen.query_one("#file-list", OptionList)
        option_list.highlighted = next(i for i, (r, _) in enumerate(screen.files) if r == "memory/clients.md")
        await pilot.pause()
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "RenameTopicDialog")
        await pilot.press(*["backspace"] * 10, *"customers", "enter")
        await settle(pilot)
        assert (home.workspace("scout") / "memory/customers.md").exists()
        assert screen.current.rel == "MEMORY.md"


async def test_keys_typed_ahead_after_enter_go_into_the_note_not_to_the_areas(home):
    # Over a slow link the terminal delivers Enter and the words after it in one read: every key is queued before
    # the first is handled. Enter in the list must hand the keys to the editor at once, or "typed" would run t
    # (topics) and r (recall) instead of being typed.
    from textual import events

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        assert screen.focused is screen.query_one("#file-list")
        for key, character in [("enter", "\r"), *((c if c != " " else "space", c) for c in "typed fast")]:
            app.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: "typed fast" in screen.editor.text)
        await settle(pilot)
        assert app.screen is screen and screen.focused is screen.editor
        assert "modified" in str(screen.query_one("#file-status", Static).render())
        # And back: Escape and an area's letter in one read leave the note and open the area.
        before = screen.editor.text
        for key, character in [("escape", "\x1b"), ("j", "j")]:
            app.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: app.screen is not screen)
        assert type(app.screen).__name__ == "JournalScreen" and screen.editor.text == before


async def test_the_banner_names_the_person_after_an_edit_from_the_command_line(home):
    """The banner once said "Scout changed this file" after the person edited it with `omb-tui write`."""
    from omb_tui.core.journal.changes import Actor
    from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON

    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        await type_at_end(pilot, screen, *" typed")
        MemoryStore(home, "scout").write("MEMORY.md", "- from the shell\n", Actor(WHO_PERSON, HOW_COMMAND_LINE))
        app.note_disk_change()
        await settle(pilot)
        said = str(screen.query_one("#conflict-banner", Static).render())
        assert "You changed this file from the command line" in said and "Scout" not in said
