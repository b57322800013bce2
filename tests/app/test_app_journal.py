"""The journal screen, used as a person would: Pilot at 80x24, rows made by real changes through the store.

Spec: memory.md, "The journal": newest first with who, how, file and when; the selected row's diff;
undo with a confirmation naming later changes to the same file; rows that cannot be undone say why;
filters by file, who and day; a 100,000-row journal opens without one widget per row.
"""

from __future__ import annotations

import pytest
from support.app_helpers import list_lines, open_journal, wait_for
from support.home import BOT_ID, MEMORY_TEXT, TOPIC_TEXT

from omb_tui.app.app import make_app
from omb_tui.app.dialogs.confirm import ConfirmDialog
from omb_tui.app.screens.journal import JournalScreen
from omb_tui.core.base import clock
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON, JournalRow
from omb_tui.core.memory.store import Actor
from omb_tui.core.turn.bot import Bot

BOT = Actor(WHO_BOT, HOW_TASK, chat="Plans")
PERSON = Actor(WHO_PERSON, HOW_SETTINGS)
CREDENTIAL = "sk-" + "a1B2c3D4" * 6


# Times show in the local zone; the tests fix it so days and snapshots do not depend on the machine.
pytestmark = [pytest.mark.usefixtures("utc_zone"), pytest.mark.dates]


@pytest.fixture
def store(home):
    return Bot(home, BOT_ID).store


@pytest.fixture
def changes(home, store):
    """Three rows, oldest first: person in Settings (MEMORY.md), bot in a task (travel), outside edit (MEMORY.md)."""
    store.write("MEMORY.md", MEMORY_TEXT + "- likes tea\n", PERSON)
    store.write("memory/travel.md", TOPIC_TEXT + "- aisle seats now\n", BOT)
    (home.workspace(BOT_ID) / "MEMORY.md").write_text(MEMORY_TEXT + "- likes coffee\n", encoding="utf-8")
    store.sync_outside_changes()
    return store


# ----- helpers -----


def shown_rows(screen: JournalScreen) -> list[JournalRow]:
    listing = screen.journal_list
    return [listing.row_at(i) for i in range(listing.shown)]


async def set_filter(pilot, screen: JournalScreen, text: str) -> None:
    await pilot.press("slash")
    assert screen.focused is screen.filter_box
    screen.filter_box.value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: not screen.journal_list.filtering)


def capture_notes(app) -> list[str]:
    notes: list[str] = []
    original = app.notify

    def notify(message, **kwargs):
        notes.append(str(message))
        return original(message, **kwargs)

    app.notify = notify
    return notes


def fixed_row(number: int, at: str, **fields) -> JournalRow:
    values = dict(
        id=f"{number:08x}-0001",
        at=at,
        bot=BOT_ID,
        who=WHO_BOT,
        how=HOW_TASK,
        file="MEMORY.md",
        before_hash="a" * 64,
        after_hash="b" * 64,
        diff="--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1,2 +1,2 @@\n # Memory\n-- likes tea\n+- likes coffee\n",
        before_text="# Memory\n- likes tea\n",
        undoable=True,
        chat="Plans",
    )
    values.update(fields)
    return JournalRow(**values)


def write_journal(home, rows: list[JournalRow]) -> None:
    path = home.journal_path(BOT_ID)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(row.to_line() + "\n" for row in rows), encoding="utf-8")


# ----- the list and the diff -----


async def test_rows_newest_first_with_who_how_file_and_when(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        assert screen.journal_list.total == 3
        lines = list_lines(screen)
        today = clock.now().strftime("%Y-%m-%d")  # the row shows local time
        assert "outside app edited MEMORY.md" in " ".join(lines[0].split()) and today in lines[0]
        assert "bot" in lines[1] and "during a task" in lines[1] and "memory/travel.md" in lines[1]
        assert "person" in lines[2] and "in Settings" in lines[2] and "MEMORY.md" in lines[2]
        assert "3 rows" in str(screen.query_one("#journal-status").render())
        assert screen.has_class("-narrow")  # at 80 columns the diff sits under the list


async def test_each_row_says_what_it_did_to_the_file(home, store):
    store.write("MEMORY.md", MEMORY_TEXT + "- likes tea\n", PERSON)
    store.write("memory/ideas.md", "# Ideas\n", PERSON)
    store.rename_topic("ideas.md", "plans.md", PERSON)
    store.write("MEMORY.md", "", PERSON)
    store.delete("memory/plans.md", PERSON)
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        lines = list_lines(screen)
        expected = [
            ("deleted", "memory/plans.md"),
            ("emptied", "MEMORY.md"),
            ("renamed", "memory/ideas.md → plans.md"),
            ("renamed", "memory/plans.md ← ideas.md"),
            ("created", "memory/ideas.md"),
            ("edited", "MEMORY.md"),
        ]
        for line, (action, file) in zip(lines, expected):
            assert " ".join(line.split()).endswith(f"person in Settings {action} {file}"), line
        await pilot.press("down", "down", "down")
        assert "Renamed from memory/ideas.md · person · in Settings" in screen.diff_view.text


async def test_the_diff_follows_the_cursor(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        diff = screen.diff_view.text
        assert "-- likes tea" in diff and "+- likes coffee" in diff
        assert "changed outside the app" in diff and "u puts MEMORY.md back" in diff
        await pilot.press("down")
        diff = screen.diff_view.text
        assert "memory/travel.md" in diff and "+- aisle seats now" in diff and 'chat "Plans"' in diff
        await pilot.press("end")
        assert "+- likes tea" in screen.diff_view.text
        await pilot.press("home", "enter")
        assert screen.focused is screen.diff_view
        await pilot.press("escape")
        assert screen.focused is screen.journal_list


async def test_undo_after_confirming_puts_the_file_back(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    travel = home.workspace(BOT_ID) / "memory" / "travel.md"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        await pilot.press("down", "u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        question = app.screen.said
        assert "Undo this change to memory/travel.md?" in question
        assert "later change" not in question
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen and screen.journal_list.total == 4)
        assert travel.read_text(encoding="utf-8") == TOPIC_TEXT
        top = screen.journal_list.row_at(0)
        assert top.how == "undo" and top.file == "memory/travel.md"
        assert screen.journal_list.cursor == 0
        assert "undo" in list_lines(screen)[0]


async def test_undo_names_later_changes_and_waits_for_yes(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        await pilot.press("end", "u")  # the oldest row: person in Settings; the outside edit came later
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        question = app.screen.said
        assert "Undo this change to MEMORY.md?" in question
        assert "1 later change to it will be undone too" in question
        assert "· Changed outside the app" in question  # who did it, in the words every screen uses
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert memory.read_text(encoding="utf-8") == MEMORY_TEXT + "- likes coffee\n"
        assert screen.journal_list.total == 3

        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert app.screen.yes_label == "Undo 2 changes"
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen and screen.journal_list.total == 4)
        assert memory.read_text(encoding="utf-8") == MEMORY_TEXT
        assert screen.journal_list.row_at(0).how == "undo"


async def test_revert_takes_back_one_change_and_keeps_the_later_ones(home, store):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    store.write("MEMORY.md", MEMORY_TEXT, PERSON)
    store.write("MEMORY.md", "# Memory\n- likes tea\n" + MEMORY_TEXT[len("# Memory\n") :], PERSON)
    store.write("MEMORY.md", memory.read_text(encoding="utf-8") + "- likes jazz\n", BOT)
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        rows = screen.journal_list.total
        await pilot.press("down", "R")  # "likes tea"; "likes jazz" came later
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "Revert this change to MEMORY.md alone?" in app.screen.said
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen and screen.journal_list.total == rows + 1)
        assert memory.read_text(encoding="utf-8") == MEMORY_TEXT + "- likes jazz\n"
        top = screen.journal_list.row_at(0)
        assert top.how == "revert" and top.undo_of == screen.journal_list.row_at(2).id
        assert any("is taken back; 1 later change kept." in n.message for n in app._notifications)


async def test_a_revert_that_does_not_apply_says_why_and_offers_undo(home, store):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    store.write("MEMORY.md", MEMORY_TEXT, PERSON)
    store.write("MEMORY.md", MEMORY_TEXT.replace("short replies", "brief replies"), PERSON)
    store.write("MEMORY.md", MEMORY_TEXT.replace("short replies", "very brief replies"), BOT)  # the same line
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        rows = screen.journal_list.total
        await pilot.press("down", "R")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ConfirmDialog)
                and "alone" in app.screen.said
                and "touched the same lines of MEMORY.md" in app.screen.said
            ),
        )
        assert memory.read_text(encoding="utf-8") == MEMORY_TEXT.replace("short replies", "very brief replies")
        await pilot.press("y")  # undo instead: the undo's own question names the later change
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog) and "Undo this change" in app.screen.said)
        assert "1 later change to it will be undone too" in app.screen.said
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen and screen.journal_list.total == rows + 1)
        assert memory.read_text(encoding="utf-8") == MEMORY_TEXT
        assert screen.journal_list.row_at(0).how == "undo"


async def test_a_row_that_cannot_be_undone_says_why(home, store):
    memory = home.workspace(BOT_ID) / "MEMORY.md"
    memory.write_text(MEMORY_TEXT + f"- key {CREDENTIAL}\n", encoding="utf-8")
    store.sync_outside_changes()
    store.write("MEMORY.md", MEMORY_TEXT, PERSON)  # its earlier text held the credential
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        notes = capture_notes(app)
        assert list_lines(screen)[0].lstrip().startswith("⊘")
        assert "Cannot be undone: its earlier text held a credential" in screen.diff_view.text
        await pilot.press("u")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ConfirmDialog)
        assert any("cannot be undone" in note and "credential" in note for note in notes)
        assert memory.read_text(encoding="utf-8") == MEMORY_TEXT
        assert screen.journal_list.total == 2
        assert CREDENTIAL not in screen.diff_view.text


async def test_a_damaged_line_is_shown_not_raised(home, changes):
    with open(home.journal_path(BOT_ID), "ab") as journal:
        journal.write(b'{"id": "broken", "at": \n')
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        assert "damaged row" in list_lines(screen)[0]
        assert "Damaged journal line" in screen.diff_view.text
        notes = capture_notes(app)
        await pilot.press("u")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ConfirmDialog)
        assert any("damaged and cannot be undone" in note for note in notes)  # u says why, never silent
        assert screen.journal_list.total == 4
        await pilot.press("down")
        assert "changed outside the app" in screen.diff_view.text


async def test_odd_bytes_and_control_characters_are_drawn_safely(home):
    odd = fixed_row(
        1,
        "2026-11-29T09:00:00.000+00:00",
        file="memory/\x1b[31mred\udc80.md",
        diff="--- a/x\n+++ b/x\n@@ -1 +1 @@\n-\x07bell\n+caf\udce9\n",
    )
    path = home.journal_path(BOT_ID)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((odd.to_line() + "\n").encode("utf-8", "surrogateescape"))
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        line = list_lines(screen)[0]
        assert "red" in line and "\x1b" not in line
        assert "+caf" in screen.diff_view.text and "\x07" not in screen.diff_view.text


# ----- filters -----


async def test_filter_by_file_and_by_who(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        await set_filter(pilot, screen, "file:travel")
        assert [row.file for row in shown_rows(screen)] == ["memory/travel.md"]
        assert "1 of 3 rows match" in screen.status_text()
        assert screen.focused is screen.journal_list

        await pilot.press("escape")  # clears the filter
        await wait_for(pilot, lambda: screen.journal_list.shown == 3)
        assert screen.filter_box.value == ""

        await set_filter(pilot, screen, "who:person")
        assert {row.who for row in shown_rows(screen)} == {"person"} and screen.journal_list.shown == 2
        await set_filter(pilot, screen, "who:person outside")  # a plain word narrows further
        assert [row.how for row in shown_rows(screen)] == ["changed outside the app"]
        await set_filter(pilot, screen, "who:nobody")
        assert screen.journal_list.shown == 0
        assert "No rows match" in list_lines(screen)[0]


async def test_typing_in_the_filter_box_filters_after_a_pause(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        await pilot.press("slash", *"plans")  # the bot's row came from chat "Plans"
        await wait_for(pilot, lambda: screen.journal_list.shown == 1 and not screen.journal_list.filtering)
        assert shown_rows(screen)[0].file == "memory/travel.md"
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.journal_list.shown == 3)


async def test_filter_by_day(home):
    write_journal(
        home,
        [
            fixed_row(1, "2026-11-29T09:00:00.000+00:00"),
            fixed_row(2, "2026-11-29T23:30:00.000+00:00", file="memory/travel.md"),
            fixed_row(3, "2026-11-30T08:15:00.000+00:00", who=WHO_PERSON, how=HOW_SETTINGS),
        ],
    )
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        await set_filter(pilot, screen, "day:2026-11-29")
        assert [row.id for row in shown_rows(screen)] == ["00000002-0001", "00000001-0001"]
        await set_filter(pilot, screen, "day:2026-11-30 file:MEMORY")
        assert [row.id for row in shown_rows(screen)] == ["00000003-0001"]
        await set_filter(pilot, screen, "day:2026-11")
        assert screen.journal_list.shown == 3
        await set_filter(pilot, screen, "day:2026-13-45")  # no such day: said, not "no rows match"
        assert screen.journal_list.shown == 0
        lines = list_lines(screen)
        assert "day:2026-13-45 is not a date" in lines[0]
        said = " ".join(" ".join(lines).split())  # the whole sentence, wrapped to the width, none of it cut
        assert "use YYYY-MM-DD, YYYY-MM, YYYY, today or yesterday. Escape clears the filter." in said


# ----- following the disk -----


async def test_rows_appended_on_disk_appear(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        with open(home.journal_path(BOT_ID), "a", encoding="utf-8") as journal:
            journal.write(fixed_row(99, "2026-11-30T08:15:00.000+00:00", file="memory/new-topic.md").to_line() + "\n")
        app.note_disk_change()
        await wait_for(pilot, lambda: screen.journal_list.total == 4)
        assert "memory/new-topic.md" in list_lines(screen)[0]

        # an edit made outside the app is journaled by the screen's look and shows up too
        (home.workspace(BOT_ID) / "memory" / "travel.md").write_text("# Travel\n", encoding="utf-8")
        app.memory_version += 1
        await wait_for(pilot, lambda: screen.journal_list.total == 5)
        assert "outside app" in list_lines(screen)[0]


def append_rows(home, rows: list[JournalRow]) -> None:
    with open(home.journal_path(BOT_ID), "a", encoding="utf-8") as journal:
        journal.write("".join(row.to_line() + "\n" for row in rows))


async def test_new_rows_while_reading_old_ones_are_announced_and_the_selected_row_stays(home):
    write_journal(home, [fixed_row(n, f"2026-11-{1 + n // 24:02d}T{n % 24:02d}:00:00.000+00:00") for n in range(40)])
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        listing = screen.journal_list
        for _ in range(15):  # well below the first screenful: the list has scrolled
            await pilot.press("down")
        selected = listing.row_at_cursor().id
        assert listing.scroll_offset.y > 0
        append_rows(
            home,
            [
                fixed_row(100, "2026-11-30T08:00:00.000+00:00", file="memory/new-a.md"),
                fixed_row(101, "2026-11-30T08:01:00.000+00:00", file="memory/new-b.md"),
            ],
        )
        app.note_disk_change()
        await wait_for(pilot, lambda: listing.total == 42)
        status = str(screen.query_one("#journal-status").render())
        assert "42 rows" in status
        assert "2 new rows above: Home shows them" in status
        assert listing.row_at_cursor().id == selected  # still the row the person was reading
        assert selected in screen.diff_view.text
        await pilot.press("home")
        await pilot.pause()
        assert "memory/new-b.md" in list_lines(screen)[0]
        assert "new row" not in str(screen.query_one("#journal-status").render())


async def test_new_rows_show_at_the_top_and_the_selected_row_stays_selected(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        listing = screen.journal_list
        selected = listing.row_at_cursor().id  # the newest row, at the top
        append_rows(home, [fixed_row(99, "2026-11-30T08:15:00.000+00:00", file="memory/new-topic.md")])
        app.note_disk_change()
        await wait_for(pilot, lambda: listing.total == 4)
        assert "memory/new-topic.md" in list_lines(screen)[0]  # in view at once
        assert listing.row_at_cursor().id == selected
        assert listing.cursor == 1


async def test_a_replaced_journal_is_read_again(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        write_journal(home, [fixed_row(1, "2026-11-29T09:00:00.000+00:00")])
        app.note_disk_change()
        await wait_for(pilot, lambda: screen.journal_list.total == 1 and not screen.journal_list.reading)
        assert screen.journal_list.row_at(0).id == "00000001-0001"


async def test_light_theme_and_wide_terminal(home, changes):
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await open_journal(pilot)
        assert screen.has_class("-wide")
        assert screen.diff_view.region.x > screen.journal_list.region.x  # side by side
        app.theme = "textual-light"
        await pilot.pause()
        assert "MEMORY.md" in list_lines(screen)[0]


# ----- a big journal -----


async def test_a_100000_row_journal_opens_without_a_widget_per_row(home):
    count = 100_000
    files = ["MEMORY.md", "memory/travel.md", "memory/log/2026-11-29.md", "memory/clients.md"]
    # one real row per kind, with the id and time filled in per line: a second or two for 100,000 rows
    templates = {
        (file, who): fixed_row(0, "@AT@", id="@ID@", file=file, who=who).to_line() + "\n"
        for file in files
        for who in (WHO_PERSON, WHO_BOT)
    }
    path = home.journal_path(BOT_ID)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as journal:
        for number in range(count):
            line = templates[files[number % 4], WHO_PERSON if number % 10 == 0 else WHO_BOT]
            at = f"2026-{1 + number * 12 // count:02d}-{1 + number % 28:02d}T09:00:00.000+00:00"
            journal.write(line.replace("@ID@", f"{number:08x}-0001").replace("@AT@", at))
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        assert screen.journal_list.total == count
        assert len(list(screen.query("*"))) < 100
        assert screen.journal_list.row_at(0).id == f"{count - 1:08x}-0001"
        await pilot.press("end")
        assert screen.journal_list.cursor == count - 1
        assert f"row {0:08x}-0001" in screen.diff_view.text
        await pilot.press("home", "pagedown")
        assert screen.journal_list.cursor > 5
        await set_filter(pilot, screen, "who:person file:MEMORY.md")
        assert screen.journal_list.shown == count // 20
        assert all(row.who == WHO_PERSON and row.file == "MEMORY.md" for row in shown_rows(screen)[:50])
        assert len(list(screen.query("*"))) < 100


# ----- how it looks -----


def test_journal_screen_snapshot(home, snap_compare):
    write_journal(
        home,
        [
            fixed_row(
                1,
                "2026-11-28T16:40:00.000+00:00",
                who=WHO_PERSON,
                how=HOW_SETTINGS,
                chat=None,
                file="memory/travel.md",
                diff="--- a/memory/travel.md\n+++ b/memory/travel.md\n@@ -3 +3 @@\n-- window seats\n+- aisle seats\n",
            ),
            fixed_row(
                2,
                "2026-11-29T09:00:00.000+00:00",
                file="memory/log/2026-11-29.md",
                before_hash=None,
                before_text=None,
                diff="--- a/memory/log/2026-11-29.md\n+++ b/memory/log/2026-11-29.md\n"
                "@@ -0,0 +1 @@\n+- 09:00 · answered a question about trains\n",
            ),
            fixed_row(
                3,
                "2026-11-29T18:20:00.000+00:00",
                who=WHO_PERSON,
                how="changed outside the app",
                chat=None,
                undoable=False,
                before_text="# Memory\n- key [redacted]\n",
                not_undoable_reason="its earlier text held a credential, and the kept copy is redacted",
            ),
            fixed_row(4, "2026-11-30T08:15:00.000+00:00"),
        ],
    )
    app = make_app(home, watch=False, bot_id=BOT_ID)

    async def opened(pilot):
        await open_journal(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=opened)


async def test_help_lists_the_screens_own_keys_first(home, changes):
    from omb_tui.app.dialogs.help import HelpDialog

    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_journal(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpDialog))
        does = [what for _, what in app.screen.rows]
        own = [does.index(what) for what in does if what.startswith(("Undo the selected", "Take back the selected"))]
        app_keys = does.index("Quit omb-tui")
        widget_keys = does.index("The newer row")
        assert max(own) < app_keys < widget_keys
        assert does[0].startswith("Undo the selected")  # not Textual's generic Tab or copy before them
        assert does.index("Focus Next") > app_keys


async def test_undo_of_about_me_changed_by_another_bot_says_so_and_goes_ahead_on_yes(home, store):
    """About me is shared: a change made through another bot is not in this journal, so the undo question says
    the file changed since, and yes puts About me back (it once asked the same question after every yes)."""
    from support.app_helpers import add_bot

    store.write("about-me.md", "# About me\n\n- lives in Pune\n", PERSON)
    store.write("about-me.md", "# About me\n\n- lives in Pune\n- likes tea\n", PERSON)
    add_bot(home, "atlas").write("about-me.md", "# About me\n\n- lives in Pune\n- likes tea\n- likes jazz\n", PERSON)
    app = make_app(home, watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_journal(pilot)
        assert screen.journal_list.row_at(0).file == "about-me.md"
        rows = screen.journal_list.total
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog) and "another bot" in app.screen.said)
        assert "Undo this change to about-me.md?" in app.screen.said
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen and screen.journal_list.total == rows + 1)
        assert home.about_me_path.read_text(encoding="utf-8") == "# About me\n\n- lives in Pune\n"
        assert screen.journal_list.row_at(0).how == "undo"
