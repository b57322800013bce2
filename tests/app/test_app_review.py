"""The Review area (docs/review.md): opened from the bots screen with `v`, the runs of
the last nights as bot → run → change, moving with j/k, a change's diff and quotes, undo of one change alone and of a
whole run (naming later changes), n/p between bots, reviewed marks that last across restarts, and the bots screen's
count of last night's changes.

Every home is written through the core: the person's edits as the person, the upkeep steps as `UpkeepRun(bot).actor`.
"""

from __future__ import annotations

import pytest
from support.app_helpers import add_bot, listed_bots, settle, wait_for
from support.review_screen import answer, open_review, question

from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore
from omb_tui.core.review.marks import load_marks
from omb_tui.core.runs.run import UpkeepRun

pytestmark = pytest.mark.dates


PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)
MEMORY = "# Memory\n\n- flies to Lisbon on 2026-12-03\n- flight to Lisbon booked, seat 12A\n- likes tea\n- old note\n"


def edit(store: MemoryStore, old: str, new: str, actor: Actor, note: str | None = None) -> str:
    text = store.read("MEMORY.md").text
    assert old in text
    return store.write("MEMORY.md", text.replace(old, new), actor, note=note).row_id


@pytest.fixture
def review_home(home):
    """scout: a compaction run (two changes to MEMORY.md) and, after it, the person's own edit; quill: a capture run
    whose row carries the quotes it rests on. `home` (conftest) already has scout with a journaled MEMORY.md."""
    scout = MemoryStore(home, "scout")
    scout.write("MEMORY.md", MEMORY, PERSON)
    compact = UpkeepRun("scout").actor("compact")
    rows = {
        "merge": edit(
            scout,
            "- flies to Lisbon on 2026-12-03\n- flight to Lisbon booked, seat 12A\n",
            "- flies to Lisbon on 2026-12-03, seat 12A\n",
            compact,
            "merge: two lines on the same trip",
        ),
        "stale": edit(scout, "- old note\n", "", compact, "ephemeral: a note for a day that is over"),
    }
    rows["person"] = edit(scout, "- likes tea\n", "- likes green tea\n", PERSON)
    quill = add_bot(home, "quill", files={"MEMORY.md": "# Memory\n"})
    capture = UpkeepRun("quill").actor("capture")
    rows["capture"] = quill.write(
        "MEMORY.md",
        "# Memory\n\n- lives in Porto\n",
        capture,
        note='quotes: "I moved to Porto last spring" · "Porto is home now"',
    ).row_id
    rows["capture2"] = quill.write(
        "memory/people.md", "# People\n\n- Rui, a neighbour\n", capture, note='quotes: "my neighbour Rui"'
    ).row_id
    home.rows = rows
    return home


def memory(home, bot="scout") -> str:
    return (home.workspace(bot) / "MEMORY.md").read_text(encoding="utf-8")


def upkeep_runs(screen) -> list:
    """The tree's lines of upkeep runs (another writer's group names its writer: `who`)."""
    return [line for line in screen.tree.lines if line.kind == "run" and line.group.run and line.group.run.who is None]


def cursor_text(screen) -> str:
    line = screen.tree.line_at_cursor()
    return "" if line is None else "".join(text for text, _ in screen.tree._parts(line))


async def test_review_opens_with_v_on_the_first_new_change(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        kinds = [(line.kind, line.bot.bot) for line in screen.tree.lines]
        assert kinds == [
            ("bot", "quill"),
            ("run", "quill"),
            ("change", "quill"),
            ("change", "quill"),
            ("run", "quill"),  # the person's own edits (setting the bot up): listed, seen already, folded, last
            ("bot", "scout"),
            ("run", "scout"),
            ("change", "scout"),
            ("change", "scout"),
            ("run", "scout"),
        ]
        assert screen.tree.line_at_cursor().change.id == review_home.rows["capture"]
        status = str(screen.query_one("#review-status").render())
        assert status.startswith("Since ") and ": 7 changes in 2 runs + 2 other groups (4 new) · " in status
        # a capture's change shows the quotes it rests on
        assert "“I moved to Porto last spring”" in screen.detail.text
        assert "+- lives in Porto" in screen.detail.text


async def test_j_k_move_and_enter_opens_the_diff_then_escape_comes_back(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("j", "j", "j", "j", "j")  # past quill's second change, its folded edits, scout's line and run
        change = screen.tree.line_at_cursor().change
        assert change.id == review_home.rows["merge"]
        assert "merge" in cursor_text(screen) and "two lines on the same trip" in cursor_text(screen)
        assert "category merge" in screen.detail.text
        assert "+- flies to Lisbon on 2026-12-03, seat 12A" in screen.detail.text
        await pilot.press("k")
        assert screen.tree.line_at_cursor().kind == "run"
        await pilot.press("j", "enter")
        assert screen.focused is screen.detail
        await pilot.press("escape")
        assert screen.focused is screen.tree


async def test_u_undoes_one_change_alone_keeping_the_later_edit(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("n")  # quill's run was the first new one; n goes to scout's
        assert screen.tree.line_at_cursor().change.id == review_home.rows["merge"]
        await pilot.press("u")
        assert "Undo this change to MEMORY.md of scout alone?" in await question(pilot)
        await answer(pilot, "y", screen)
        text = memory(review_home)
        assert "- flies to Lisbon on 2026-12-03\n- flight to Lisbon booked, seat 12A\n" in text
        assert "- likes green tea\n" in text and "old note" not in text  # the later edit and the other change stay
        newest = MemoryStore(review_home, "scout").journal.rows()[0]
        assert (newest.undo_of, newest.how) == (review_home.rows["merge"], "revert")
        await wait_for(pilot, lambda: screen.tree.line_at_cursor().change.undone)
        assert cursor_text(screen).startswith("     ↶")


async def test_u_on_a_change_that_cannot_go_alone_offers_the_whole_file_naming_later_changes(review_home):
    from omb_tui.app.app import make_app

    scout = MemoryStore(review_home, "scout")
    edit(scout, "- flies to Lisbon on 2026-12-03, seat 12A\n", "- flies to Lisbon, seat 12A\n", PERSON)
    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("n", "u")
        await question(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: "cannot be reverted alone" in str(getattr(pilot.app.screen, "question", "")))
        asked = await question(pilot)
        assert "3 later changes to it will be undone too" in asked and "You (from the command line)" in asked
        await answer(pilot, "y", screen)
        assert memory(review_home) == MEMORY


async def test_U_undoes_the_whole_run_after_naming_the_later_change(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("n", "U")
        asked = await question(pilot)  # one question, naming what would go too
        assert "Undo the whole run of scout" in asked
        assert memory(review_home) != MEMORY  # nothing written until the yes
        await answer(pilot, "y", screen)
        assert memory(review_home) == MEMORY
        await wait_for(pilot, lambda: screen.tree.line_at_cursor().group.run.undone)


async def test_escape_on_the_run_question_writes_nothing(review_home):
    from omb_tui.app.app import make_app

    before = memory(review_home)
    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("n", "U")
        await question(pilot)
        await answer(pilot, "escape", screen)
    assert memory(review_home) == before


async def test_n_and_p_go_to_the_next_and_previous_bot_with_something_new(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("n")
        assert screen.tree.line_at_cursor().bot.bot == "scout"
        await pilot.press("p")
        assert screen.tree.line_at_cursor().change.id == review_home.rows["capture"]


async def test_the_cursor_passing_over_every_change_marks_nothing_and_m_marks_or_takes_back(review_home):
    """Arrowing past a run once marked it "✓ reviewed" unread. A mark is the person's word: only m makes it."""
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        run_id = screen.tree.line_at_cursor().group.run_id  # quill's capture
        for _ in range(len(screen.tree.lines)):  # down past every line, every change shown
            await pilot.press("j")
        await settle(pilot)
        for bot in ("quill", "scout"):
            assert load_marks(review_home, bot).runs == {}
        upkeep = [line for line in screen.tree.lines if line.group and line.group.run and line.group.run.who is None]
        assert not any("✓ reviewed" in "".join(t for t, _ in screen.tree._parts(line)) for line in upkeep)
        screen.tree.move_cursor(
            next(n for n, line in enumerate(screen.tree.lines) if line.group and line.group.run_id == run_id)
        )
        await pilot.press("m")
        await settle(pilot)
        assert load_marks(review_home, "quill").has_run(run_id)

        def at() -> int:
            return next(
                n for n, line in enumerate(screen.tree.lines) if line.kind == "run" and line.group.run_id == run_id
            )

        await wait_for(
            pilot, lambda: "✓ reviewed" in "".join(t for t, _ in screen.tree._parts(screen.tree.lines[at()]))
        )
        assert screen.tree.lines[at() + 1].kind == "change"  # a run marked under your eyes stays open
        assert screen.tree.line_at_cursor().group.run_id == run_id  # and the cursor stays on it
    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert [line.kind for line in screen.tree.lines][:4] == ["bot", "run", "run", "bot"]  # quill's runs folded
        screen.tree.move_cursor(
            next(n for n, line in enumerate(screen.tree.lines) if line.group and line.group.run_id == run_id)
        )
        await pilot.press("m")  # m on a marked run takes the mark back
        await settle(pilot)
        assert not load_marks(review_home, "quill").has_run(run_id)


async def test_m_marks_the_run_reviewed_without_looking_at_each_change(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await pilot.press("n", "k", "m")  # on scout's run line
        await settle(pilot)
        assert load_marks(review_home, "scout").has_run(screen.tree.line_at_cursor().group.run_id)


async def test_the_bots_screen_counts_last_nights_changes_per_bot(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        header = "".join(segment.text for segment in bot_list.render_line(0))
        lines = {bot_list.summaries[i].id: "".join(s.text for s in bot_list.render_line(i + 1)) for i in range(2)}
        night = header.index("Night")  # every writer, as Review counts: the run, and the person's own edits
        assert lines["scout"][night] == "4" and lines["quill"][night] == "3"
        intro = str(pilot.app.screen.query_one("#bots-intro").render())
        highlighted = bot_list.highlighted.id
        said = {
            "quill": "3 changes in 1 run + 1 other group (2 new)",
            "scout": "4 changes in 1 run + 1 other group (2 new)",
        }
        assert intro == f"{highlighted}, last night: {said[highlighted]}. v reviews them."
        await pilot.press("v")
        await settle(pilot)
        assert pilot.app.screen.__class__.__name__ == "ReviewScreen"


# ----- compaction proposals waiting (propose-only) -----

PROPOSED_RUN = "20261129T031500-abcdef"
SECTIONED = (
    "# Memory\n\n### Travel\n- flies to Lisbon on 2026-12-03\n- flight to Lisbon booked, seat 12A\n\n"
    "### Other\n- likes tea\n- old note\n"
)


@pytest.fixture
def proposals_home(home):
    """scout's MEMORY.md, and two proposals a propose-only compaction left waiting (no journal row yet)."""
    from omb_tui.core.compact.pending import add_pending
    from omb_tui.core.compact.validator import Change as Proposed

    MemoryStore(home, "scout").write("MEMORY.md", SECTIONED, PERSON)
    add_pending(
        home,
        "scout",
        PROPOSED_RUN,
        [
            Proposed(
                "merge",
                "- flies to Lisbon on 2026-12-03\n- flight to Lisbon booked, seat 12A\n",
                "two lines on the same trip",
                "- flies to Lisbon on 2026-12-03, seat 12A\n",
            ),
            Proposed("ephemeral", "- old note\n", "a note for a day that is over"),
        ],
    )
    return home


def waiting(home) -> list[str]:
    from omb_tui.core.compact.pending import pending_changes

    return [proposal.category for proposal in pending_changes(home, "scout")]


async def test_proposals_wait_under_their_run_and_a_accepts_one_x_rejects_another(proposals_home):
    from omb_tui.app.app import make_app

    app = make_app(proposals_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert [line.kind for line in screen.tree.lines] == ["bot", "run", "proposal", "proposal", "run"]
        assert "compact (proposed only)" in "".join(t for t, _ in screen.tree._parts(screen.tree.lines[1]))
        assert screen.tree.line_at_cursor().proposal.category == "merge"
        assert "+ - flies to Lisbon on 2026-12-03, seat 12A" in screen.detail.text
        await pilot.press("a")  # a key that writes asks first
        assert "Accept 1 proposal of scout?" in await question(pilot)
        await answer(pilot, "y", screen)
        await wait_for(pilot, lambda: waiting(proposals_home) == ["ephemeral"])
        assert "- flies to Lisbon on 2026-12-03, seat 12A\n" in memory(proposals_home)
        row = MemoryStore(proposals_home, "scout").journal.rows()[0]
        assert (row.step, row.note) == ("compact", "merge: two lines on the same trip")
        assert (row.who, row.how) == ("person", "in Settings")  # decided in the app, as its other edits
        await settle(pilot)
        # the accepted change is a run of its own, marked reviewed: the person just decided it
        assert load_marks(proposals_home, "scout").has_run(row.run)
        assert screen.tree.line_at_cursor().proposal.category == "ephemeral"
        await pilot.press("x")
        assert "Reject 1 proposal of scout?" in await question(pilot)
        await answer(pilot, "y", screen)
        await wait_for(pilot, lambda: waiting(proposals_home) == [])
        assert "- old note\n" in memory(proposals_home)  # rejected: MEMORY.md as it was


async def test_A_accepts_every_proposal_of_the_run_after_asking_and_one_that_no_longer_fits_says_why(proposals_home):
    from omb_tui.app.app import make_app

    scout = MemoryStore(proposals_home, "scout")
    edit(scout, "- old note\n", "- old note, kept\n", PERSON)  # the ephemeral proposal's text is gone
    notes = []
    app = make_app(proposals_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        pilot.app.notify = lambda message, **kw: notes.append(message)
        screen = await open_review(pilot)
        await pilot.press("A")
        assert "Accept 2 proposals of scout?" in await question(pilot)
        await answer(pilot, "y", screen)
        assert waiting(proposals_home) == ["ephemeral"]
        assert "Its original is no longer in MEMORY.md, so it cannot be applied." in notes
        assert memory(proposals_home) == SECTIONED.replace(
            "2026-12-03\n- flight to Lisbon booked,", "2026-12-03,"
        ).replace("old note", "old note, kept")


async def test_the_bots_screen_says_how_many_proposals_wait(proposals_home):
    from omb_tui.app.app import make_app

    app = make_app(proposals_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        header = "".join(segment.text for segment in bot_list.render_line(0))
        line = "".join(segment.text for segment in bot_list.render_line(1))
        assert line[header.index("Night") :].startswith("1, 2 wait")  # the person's own edits, and what waits
        intro = str(pilot.app.screen.query_one("#bots-intro").render())
        assert intro == "scout, last night: 1 change in 1 other group, 2 proposals waiting. v reviews them."


async def test_a_run_written_while_review_is_open_appears_when_files_change(review_home):
    from omb_tui.app.app import make_app

    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        scout = MemoryStore(review_home, "scout")
        edit(scout, "- likes green tea\n", "", UpkeepRun("scout").actor("tidy-up"), "duplicate of About me")
        pilot.app.note_disk_change()  # what the file watcher posts
        await wait_for(pilot, lambda: len(upkeep_runs(screen)) == 3)
        assert any(
            "duplicate of About me" in "".join(t for t, _ in screen.tree._parts(line)) for line in screen.tree.lines
        )


async def test_a_damaged_pending_file_is_named_in_the_status_line_and_the_runs_still_show(review_home):
    from omb_tui.app.app import make_app
    from omb_tui.core.compact.records import compact_files

    pending = compact_files(review_home, "quill").pending
    pending.parent.mkdir(parents=True, exist_ok=True)
    pending.write_text("{broken", encoding="utf-8")
    app = make_app(review_home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert [line.bot.bot for line in upkeep_runs(screen)] == ["quill", "scout"]
        status = str(screen.query_one("#review-status").render())
        assert "pending.json is not valid JSON" in status


async def test_U_over_another_bots_about_me_change_never_undoes_a_row_written_while_asking(home):
    """About me changed through another bot is named; a change of scout's own written while the question was
    open was not, so the yes undoes nothing and says so."""
    from omb_tui.app.app import make_app

    scout = MemoryStore(home, "scout")
    scout.write("about-me.md", "# About me\n\n- vegetarian\n", UpkeepRun("scout").actor("capture"))
    add_bot(home, "nova").write("about-me.md", "# About me\n\n- vegetarian\n- tea\n", PERSON)
    notes = []
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        pilot.app.notify = lambda message, **kw: notes.append(str(message))
        await pilot.press("U")
        assert "about-me.md changed outside the journal since" in await question(pilot)
        scout.write("about-me.md", "# About me\n\n- vegetarian\n- tea\n- rain\n", PERSON)  # meanwhile
        await answer(pilot, "y", screen)
        assert home.about_me_path.read_text(encoding="utf-8") == "# About me\n\n- vegetarian\n- tea\n- rain\n"
        assert any("nothing was undone" in note for note in notes)
