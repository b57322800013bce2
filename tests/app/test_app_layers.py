"""The app on a Team Cloud home (docs/team-cloud.md, "The app"): a bot's Files area shows each person's layer of it
under the bot's own files, read-only until Ctrl+L opens one for editing (a save then goes through the layer's store,
journaled as the owner's edit in the layer's journal); the Review area lists a layer's changes under its bot, naming
the person, undone through the layer's store. Pilot at 80x24."""

from __future__ import annotations

import pytest
from support.app_helpers import add_bot, open_files, screen_lines, settle, wait_for
from support.review_screen import answer, line_text, open_review, question
from test_app_review_writers import group_line
from textual.widgets import OptionList

from omb_tui.app.app import make_app
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore
from omb_tui.core.people.layers import layer_store
from omb_tui.core.people.people import add_person
from omb_tui.core.review.marks import load_marks

DANA_NOTE = "- Dana prefers answers in bullet points\n"
SCOUT_NOTE = "- the team ships on Fridays\n"


@pytest.fixture
def team(tmp_path):
    """scout, with its own MEMORY.md and dana's layer of it: a note scout wrote in a chat with dana."""
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "home")
    add_bot(home, files={"MEMORY.md": SCOUT_NOTE})
    add_person(home, "dana")
    layer_store(home, "scout", "dana").write("MEMORY.md", DANA_NOTE, Actor(WHO_BOT, HOW_TASK, chat="Standup"))
    return home


def dana_memory(home) -> str:
    return (home.workspace("scout--member-dana") / "MEMORY.md").read_text(encoding="utf-8")


async def highlight(pilot, screen, key: str) -> None:
    option_list = screen.query_one("#file-list", OptionList)
    option_list.focus()
    option_list.highlighted = option_list.get_option_index(key)
    await pilot.pause()


async def test_the_layer_shows_under_the_bot_read_only_until_ctrl_l_and_a_save_is_the_owners_in_its_journal(team):
    app = make_app(team, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        shown = " ".join(" ".join(line.split()) for line in screen_lines(app))
        assert "What it remembers" in shown and "about dana" in shown  # (the list's column wraps it)
        await highlight(pilot, screen, "dana:MEMORY.md")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.layer_person == "dana" and screen.editor.text == DANA_NOTE
        assert screen.editor.read_only
        assert any("read-only (Ctrl+L edits)" in line for line in screen_lines(app))
        assert any("Edit layer" in line for line in screen_lines(app))  # the footer names the key
        await pilot.press("f1")
        await settle(pilot)
        assert any("Open the person's layer file" in line for line in screen_lines(app))  # and F1 says what it does
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("end", *"typed", "ctrl+s")
        await settle(pilot)
        assert screen.editor.text == DANA_NOTE and dana_memory(team) == DANA_NOTE  # nothing typed, nothing saved

        await pilot.press("ctrl+l")
        await settle(pilot)
        assert not screen.editor.read_only
        screen.editor.move_cursor(screen.editor.document.end)
        await pilot.press(*"- and short ones", "ctrl+s")
        await wait_for(pilot, lambda: dana_memory(team) == DANA_NOTE + "- and short ones")
    assert (team.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8") == SCOUT_NOTE  # the bot's untouched
    newest = MemoryStore(team, "scout--member-dana").journal.rows(limit=1)[0]
    assert (newest.who, newest.how, newest.file) == (WHO_PERSON, HOW_SETTINGS, "MEMORY.md")
    assert all("short ones" not in row.diff for row in MemoryStore(team, "scout").journal.rows())


async def test_a_home_without_people_lists_the_bots_files_alone(tmp_path):
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "home")
    add_bot(home, files={"MEMORY.md": SCOUT_NOTE})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_files(pilot)
        option_list = screen.query_one("#file-list", OptionList)
        assert [option_list.get_option_at_index(i).id for i in range(option_list.option_count)] == ["MEMORY.md"]
        assert not any("Edit layer" in line or "remembers about" in line for line in screen_lines(app))


async def test_review_names_the_persons_layer_and_U_puts_the_layer_file_back(team):
    before = dana_memory(team)
    layer_store(team, "scout", "dana").write(
        "MEMORY.md", before + "- Dana is on call this week\n", Actor(WHO_BOT, HOW_TASK, chat="On call")
    )
    app = make_app(team, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        at = group_line(screen, 'scout in chat "On call", in dana\'s layer')
        assert screen.tree.lines[at].bot.bot == "scout"  # listed under its bot
        screen.tree.move_cursor(at)
        await pilot.press("U")
        assert (await question(pilot)).startswith('Undo everything scout wrote in chat "On call" in dana\'s layer?')
        await answer(pilot, "y", screen)
        assert dana_memory(team) == before
        await wait_for(pilot, lambda: screen.tree.lines[group_line(screen, '"On call"')].group.run.undone)
        screen.tree.move_cursor(group_line(screen, '"Standup"'))
        await pilot.press("m")
        await wait_for(pilot, lambda: load_marks(team, "scout--member-dana").rows)
        assert "in dana's layer" in line_text(screen, screen.tree.lines[group_line(screen, '"Standup"')])
    assert not load_marks(team, "scout").rows and not load_marks(team, "scout").runs  # the layer's marks, apart
