"""The topic index screen, used as a person would: Pilot at 80x24, homes built through the core."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.app_helpers import add_bot, open_topics, settle
from textual.widgets import DataTable, Input, Static, TextArea

from omb_tui.app.app import make_app
from omb_tui.app.screens.files import FilesScreen
from omb_tui.app.screens.topics import CUT_ROW_KEY, NOT_LISTED, TopicsScreen
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.budget import TOPIC_INDEX_MAX_TOPICS, topic_index
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.turn.bot import Bot

TRAVEL = "---\ntitle: Travel\ndescription: trips and bookings\naliases: [trips, flights]\n---\n# Travel\n"
CLIENTS = "---\ntitle: Clients\ndescription: who pays for what\n---\n# Clients\n"
BROKEN = "---\ntitle: [unclosed\n---\n# Broken\n"


def build_home(root: Path, topics: dict[str, str]) -> Home:
    home = Home(root)
    add_bot(
        home,
        files={"MEMORY.md": "- short replies, always\n", **{f"memory/{name}": text for name, text in topics.items()}},
    )
    return home


def summary(screen: TopicsScreen) -> str:
    return str(screen.query_one("#topics-summary", Static).render())


def table_rows(screen: TopicsScreen) -> dict[str, list[str]]:
    table = screen.query_one(DataTable)
    rows = {}
    for index in range(table.row_count):
        key = table.coordinate_to_cell_key((index, 0)).row_key.value
        rows[key] = [str(cell).strip() for cell in table.get_row_at(index)]
    return rows


def row_order(screen: TopicsScreen) -> list[str]:
    table = screen.query_one(DataTable)
    return [table.coordinate_to_cell_key((i, 0)).row_key.value for i in range(table.row_count)]


def bot_index(home: Home):
    return topic_index(Bot(home, "scout").topics())


async def test_topics_are_listed_with_title_description_aliases_and_size(tmp_path):
    home = build_home(tmp_path / "home", {"travel.md": TRAVEL, "clients.md": CLIENTS})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_topics(pilot)
        rows = table_rows(screen)
        assert row_order(screen) == ["clients.md", "travel.md"]  # the index's order
        assert rows["travel.md"] == [
            "2",
            "travel",
            "Travel",
            "trips and bookings",
            "trips, flights",
            f"{len(TRAVEL.encode())} B",
        ]
        assert rows["clients.md"][:5] == ["1", "clients", "Clients", "who pays for what", ""]
        text = len(bot_index(home).text)
        assert summary(screen).startswith(
            f"The index lists 2 of 2 topics ({text:,} of 2,000 characters); none are left out."
        )
        assert CUT_ROW_KEY not in rows
        detail = str(screen.query_one("#topic-detail", Static).render())
        assert "- memory/clients.md — Clients: who pays for what" in detail  # the line the bot gets


async def test_forty_five_topics_cut_at_forty_and_exactly_the_last_five_are_not_listed(tmp_path):
    names = [f"t{number:02d}.md" for number in range(45)]
    home = build_home(tmp_path / "home", {name: f"# {name}\n" for name in names})
    index = bot_index(home)
    assert (index.listed, index.omitted) == (TOPIC_INDEX_MAX_TOPICS, 5)  # short lines: the count cuts
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        assert summary(screen).startswith(
            f"The index lists 40 of 45 topics ({len(index.text):,} of 2,000 characters); 5 are left out.\n"
            "The cut falls after topic 40: at most 40 topics are listed."
        )
        rows = table_rows(screen)
        assert row_order(screen) == names[:40] + [CUT_ROW_KEY] + names[40:]
        for position, name in enumerate(names[:40], start=1):
            assert rows[name][0] == str(position)
        assert [rows[name][0] for name in names[40:]] == [NOT_LISTED] * 5
        # c jumps to the cut; the row below it says what the bot sees instead
        await pilot.press("c", "down")
        detail = str(screen.query_one("#topic-detail", Static).render())
        assert "memory/t40.md is not listed" in detail
        assert "… and 5 more topics not listed." in detail


async def test_long_descriptions_cut_at_two_thousand_characters(tmp_path):
    topics = {
        f"note-{number}.md": f"---\ntitle: Note {number}\ndescription: {'word ' * 60}\n---\n" for number in range(12)
    }
    home = build_home(tmp_path / "home", topics)
    index = bot_index(home)
    assert index.listed < TOPIC_INDEX_MAX_TOPICS and index.omitted > 0  # the characters cut first
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        assert summary(screen).startswith(
            f"The index lists {index.listed} of 12 topics ({len(index.text):,} of 2,000 characters); "
            f"{index.omitted} {'is' if index.omitted == 1 else 'are'} left out.\n"
            f"The cut falls after topic {index.listed}: one more line would pass 2,000 characters."
        )
        assert len(index.text) <= 2000
        rows = table_rows(screen)
        order = [key for key in row_order(screen) if key != CUT_ROW_KEY]
        assert row_order(screen).index(CUT_ROW_KEY) == index.listed
        assert [rows[name][0] for name in order] == (
            [str(n) for n in range(1, index.listed + 1)] + [NOT_LISTED] * index.omitted
        )
        # every listed row's line is the bot's own line, in the bot's order
        listed = [
            screen.shown[i].index_line
            for i in range(len(screen.shown))
            if screen.shown[i] is not None and screen.shown[i].listed
        ]
        assert tuple(listed) == index.lines


async def test_broken_frontmatter_is_flagged(tmp_path):
    home = build_home(tmp_path / "home", {"broken.md": BROKEN, "travel.md": TRAVEL})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        rows = table_rows(screen)
        assert rows["broken.md"][0] == "1"  # still listed, by name
        assert rows["broken.md"][2].startswith("⚠")
        assert "frontmatter could not be read" in rows["broken.md"][3].replace("…", "") or rows["broken.md"][
            3
        ].startswith("frontmatter")
        assert "1 topic has frontmatter that could not be read: listed by name only." in summary(screen)
        detail = str(screen.query_one("#topic-detail", Static).render())
        assert "listed by name only: frontmatter could not be read: line 2: did not find expected" in detail
        assert "- memory/broken.md\n" in detail + "\n"


async def test_filter_narrows_rows_as_you_type_and_the_cut_stays(tmp_path):
    names = [f"t{number:02d}.md" for number in range(43)]
    topics = {name: f"# {name}\n" for name in names}
    topics["trips.md"] = TRAVEL.replace("Travel", "Trips")
    home = build_home(tmp_path / "home", topics)
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        statement = summary(screen).splitlines()[0]
        assert statement.startswith("The index lists 40 of 44 topics")
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press("t", "4")
        assert row_order(screen) == [CUT_ROW_KEY, "t40.md", "t41.md", "t42.md"]
        await pilot.press("1")
        assert row_order(screen) == [CUT_ROW_KEY, "t41.md"]
        assert summary(screen).splitlines()[0] == statement  # the cut is about the whole index
        assert "Filter shows 1 of 44" in summary(screen)
        await pilot.press("backspace", "backspace", "backspace", *"flights")  # aliases match too
        assert row_order(screen) == [CUT_ROW_KEY, "trips.md"]  # it sorts after t42: past the cut
        assert summary(screen).splitlines()[0] == statement
        # escape leaves the filter, a second escape clears it
        await pilot.press("escape")
        assert isinstance(app.focused, DataTable)
        await pilot.press("escape")
        assert screen.query_one(Input).value == ""
        assert len(row_order(screen)) == 45  # 44 topics and the cut


async def test_the_filter_matches_the_start_of_words_not_letters_inside_them(tmp_path):
    home = build_home(
        tmp_path / "home",
        {
            "clients.md": "---\ntitle: Clients\ndescription: our customers and what they pay\n---\n",
            "tom.md": "---\ntitle: Tom Hale\ndescription: the neighbour\n---\n",
            "cafes.md": "---\ntitle: Cafés\n---\n",
        },
    )
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        await pilot.press("slash", *"tom")
        assert row_order(screen) == ["tom.md"]  # not clients.md, for "cusTOMers"
        await pilot.press(*["backspace"] * 3, *"cust")
        assert row_order(screen) == ["clients.md"]  # the start of a word, as you type it
        await pilot.press(*["backspace"] * 4, *"CAFE")
        assert row_order(screen) == ["cafes.md"]  # case and accents do not matter


async def test_index_text_panel_is_exactly_what_the_bot_gets(tmp_path):
    home = build_home(tmp_path / "home", {"broken.md": BROKEN, "travel.md": TRAVEL, "clients.md": CLIENTS})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        assert not screen.query_one("#index-pane").display
        await pilot.press("i")
        panel = screen.query_one("#index-text", TextArea)
        assert screen.query_one("#index-pane").display and app.focused is panel
        assert panel.text == bot_index(home).text
        assert panel.read_only
        await pilot.press("i")
        assert not screen.query_one("#index-pane").display
        assert isinstance(app.focused, DataTable)


async def test_a_topic_added_on_disk_appears(tmp_path):
    home = build_home(tmp_path / "home", {"travel.md": TRAVEL})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        assert row_order(screen) == ["travel.md"]
        (home.workspace("scout") / "memory" / "books.md").write_text("---\ntitle: Books\n---\n", encoding="utf-8")
        app.memory_version += 1
        await settle(pilot)
        assert row_order(screen) == ["books.md", "travel.md"]
        assert table_rows(screen)["books.md"][2] == "Books"
        assert summary(screen).startswith("The index lists 2 of 2 topics")


async def test_enter_opens_the_topic_in_the_files_screen(tmp_path):
    home = build_home(tmp_path / "home", {"travel.md": TRAVEL, "clients.md": CLIENTS})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_topics(pilot)
        app.memory_version += 1  # the files screen is stale now: it reloads when shown, before the topic opens
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, FilesScreen)
        assert app.screen.current is not None and app.screen.current.rel == "memory/travel.md"
        assert app.screen.editor.text == TRAVEL


async def test_no_topics_and_memory_off_are_said(tmp_path):
    home = build_home(tmp_path / "home", {})
    save_bot_settings(home, BotSettings(id="scout", name="Scout", memory=False))
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        assert "no topic files" in summary(screen)
        assert "Memory is off for this bot" in summary(screen)
        assert screen.query_one(DataTable).row_count == 0


async def test_light_theme_redraws_the_table(tmp_path):
    names = [f"t{number:02d}.md" for number in range(42)]
    home = build_home(tmp_path / "home", {name: f"# {name}\n" for name in names})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        app.theme = "textual-light"
        await settle(pilot)
        table = screen.query_one(DataTable)
        cut_cell = table.get_row(CUT_ROW_KEY)[0]
        assert app.get_css_variables()["text-warning"].lower() in str(cut_cell.style).lower()


# ----- snapshot -----
@pytest.fixture
def snapshot_home(tmp_path):
    topics = {f"t{number:02d}.md": f"---\ntitle: Topic {number}\n---\n" for number in range(38)}
    topics.update({"broken.md": BROKEN, "travel.md": TRAVEL, "clients.md": CLIENTS})
    return build_home(tmp_path / "home", topics)  # the topics screen never shows the home's path


def test_snapshot_topics(snap_compare, snapshot_home):
    async def run_before(pilot) -> None:
        await open_topics(pilot)
        await pilot.press("c", "down")  # the last listed topics, the cut, and the first one left out

    app = make_app(snapshot_home, watch=False, bot_id="scout")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_the_footer_and_f1_say_c_goes_to_the_cut(tmp_path):
    """`c` moves the cursor; a footer saying "Cut" read as cutting text out."""
    from support.app_helpers import screen_lines

    names = [f"t{number:02d}.md" for number in range(45)]
    home = build_home(tmp_path / "home", {name: f"# {name}\n" for name in names})
    app = make_app(home, watch=False, bot_id="scout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_topics(pilot)
        footer = screen_lines(app)[-1]
        assert "c Go to cut" in footer and "c Cut " not in footer + " "
        await pilot.press("f1")
        await settle(pilot)
        assert any("where the topic index is cut" in line for line in screen_lines(app))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert row_order(screen)[screen.query_one(DataTable).cursor_row] == CUT_ROW_KEY
