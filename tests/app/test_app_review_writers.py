"""The Review area lists every writer's changes, not only upkeep runs (docs/review.md):
an agent's session, a bot's turns in a chat and an edit outside the app are each a group naming its
writer, which can be read, marked reviewed and undone whole, as upkeep runs can."""

from __future__ import annotations

import pytest
from support.app_helpers import settle, wait_for
from support.review_screen import answer, line_text, open_review, question

from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.journal.when import when_text
from omb_tui.core.memory.store import Actor, MemoryStore
from omb_tui.core.review.changes import changes
from omb_tui.core.review.marks import load_marks
from omb_tui.core.turn.agent_session import open_session

pytestmark = pytest.mark.dates

SESSION = "0b7e5d0c-3f43-4c7e-9a52-6d1f2e8a9b10"


def append(store: MemoryStore, line: str, actor: Actor) -> str:
    return store.write("MEMORY.md", store.read("MEMORY.md").text + line + "\n", actor).row_id


def writers(home) -> dict:
    """scout's MEMORY.md changed by a Claude Code session (two writes), a bot's two turns in one chat, and a
    script outside the app; what the file was before each writer."""
    store = MemoryStore(home, "scout")
    before = {"session": store.read("MEMORY.md").text}
    session = open_session(home, "scout", SESSION, title="Claude Code")
    agent = Actor(WHO_BOT, HOW_TASK, chat=session.chat, run=session.run)
    append(store, "- the repo uses uv", agent)
    append(store, "- tests run with pytest", agent)
    before["chat"] = store.read("MEMORY.md").text
    for n, line in enumerate(("- hotel in Alfama", "- flight at 9")):
        append(store, line, Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip", run=f"turn-{n}"))
    append(store, "- edited by a script", Actor(WHO_PERSON, HOW_OUTSIDE))
    return {"before": before, "run": session.run}


def added_line(diff: str) -> str:
    """The first line a diff adds (or takes out), as the detail shows it."""
    return next(line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))


def group_line(screen, words: str) -> int:
    return next(
        n for n, line in enumerate(screen.tree.lines) if line.kind == "run" and words in line_text(screen, line)
    )


def memory(home) -> str:
    return (home.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8")


async def test_each_writer_is_a_group_naming_who_and_U_takes_an_agent_session_back_whole(home):
    from omb_tui.app.app import make_app

    made = writers(home)
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        runs = [line_text(screen, line) for line in screen.tree.lines if line.kind == "run"]
        assert any("Claude Code, session 0b7e5d0c" in text and "new" in text for text in runs)
        assert any('scout in chat "Lisbon trip"' in text for text in runs)
        assert any("Changed outside the app" in text and "new" in text for text in runs)
        status = str(screen.query_one("#review-status").render())
        assert ": 5 changes in 1 run + 2 other groups (5 new) · " in status  # the session is a run
        screen.tree.move_cursor(group_line(screen, "Claude Code, session"))
        await pilot.press("U")
        asked = await question(pilot)
        assert asked.startswith("Undo the whole session of Claude Code on scout?\n")
        assert "2 changes to MEMORY.md by Claude Code in session 0b7e5d0c" in asked
        assert "later change" in asked  # the chat's turns and the script's edit came after: named, they go too
        await answer(pilot, "y", screen)
        assert memory(home) == made["before"]["session"]  # byte for byte, as before the session
        await wait_for(pilot, lambda: screen.tree.lines[group_line(screen, "Claude Code, session")].group.run.undone)


async def test_U_on_a_chats_turns_puts_the_file_back_as_before_the_first_turn(home):
    from omb_tui.app.app import make_app

    store = MemoryStore(home, "scout")
    before = store.read("MEMORY.md").text
    for n, line in enumerate(("- hotel in Alfama", "- flight at 9")):
        append(store, line, Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip", run=f"turn-{n}"))
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        screen.tree.move_cursor(group_line(screen, 'in chat "Lisbon trip"'))
        await pilot.press("U")
        assert await question(pilot) == (
            'Undo everything scout wrote in chat "Lisbon trip"?\n'
            f"  {when_text(screen.tree.line_at_cursor().group.started)} · 2 changes to MEMORY.md by scout in chat "
            '"Lisbon trip"\nEach file goes back as it was before the first of them. The undo is journaled.'
        )
        await answer(pilot, "y", screen)
        assert memory(home) == before  # both turns, byte for byte


async def test_m_marks_a_session_reviewed_and_the_command_line_agrees(home):
    from omb_tui.app.app import make_app

    made = writers(home)
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        screen.tree.move_cursor(group_line(screen, "Changed outside the app"))
        await pilot.press("m")  # a group of no run: its rows are marked
        screen.tree.move_cursor(group_line(screen, "Claude Code, session"))
        await pilot.press("m")
        await settle(pilot)
        await wait_for(pilot, lambda: load_marks(home, "scout").has_run(made["run"]))
        await wait_for(pilot, lambda: len(load_marks(home, "scout").rows) == 1)
    (bot,) = changes(home).bots
    reviewed = {group.kind: group.reviewed for group in bot.groups}
    assert reviewed["agent"] and reviewed["outside"] and not reviewed["chat"]


async def test_space_reads_every_diff_group_by_group_and_M_marks_everything_after_asking(home):
    """The morning review in a few keys: space pages a group's diffs and then goes to the next group; M marks
    everything listed, after one question."""
    from omb_tui.app.app import make_app

    writers(home)
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        seen: set[str] = set()
        groups = [line for line in screen.tree.lines if line.kind == "run"]

        def look() -> None:  # what the detail shows now: a group's every diff, or one change's
            line, shown = screen.tree.line_at_cursor(), screen.detail.text
            changes = line.group.changes if line.kind == "run" else [line.change] if line.change else []
            seen.update(c.id for c in changes if added_line(c.diff) in shown)

        look()  # Review opens on the first new change
        for _ in range(60):  # space only, as a person reads on
            await pilot.press("space")
            await settle(pilot)
            look()
            line = screen.tree.line_at_cursor()
            if line.key == groups[-1].key and screen.detail.scroll_y >= screen.detail.max_scroll_y:
                break
        assert seen == {change.id for group in groups for change in group.group.changes}
        await pilot.press("M")
        assert "Mark all" in await question(pilot)
        await answer(pilot, "y", screen)
        await wait_for(pilot, lambda: all(line.group.run.reviewed for line in screen.tree.lines if line.kind == "run"))
    (bot,) = changes(home).bots
    assert bot.unreviewed == 0


async def test_U_on_edits_outside_the_app_asks_and_answers_in_words_never_an_id(home):
    """The question, its button and the toast name what goes, as a person would: never "Undo run" on a day's
    edits, never the group's own id ("outside-2026-12-06")."""
    from omb_tui.app.app import make_app

    store = MemoryStore(home, "scout")
    before = store.read("MEMORY.md").text
    append(store, "- edited by a script", Actor(WHO_PERSON, HOW_OUTSIDE))
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        screen.tree.move_cursor(group_line(screen, "Changed outside the app"))
        group = screen.tree.line_at_cursor().group
        await pilot.press("U")
        asked = await question(pilot)
        assert asked.startswith("Undo the edits made outside the app to scout on ")
        assert "1 change to MEMORY.md made outside the app" in asked
        assert pilot.app.screen.yes_label == "Undo 1 change"
        await answer(pilot, "y", screen)
        assert memory(home) == before
        toasts = [str(note.message) for note in app._notifications]
        said = [text for text in toasts if text.startswith("Undid ")]
        assert said == [
            f"Undid the edits made outside the app to scout on {group.run_id[8:]}: MEMORY.md back as before them."
        ]
        assert group.run_id not in said[0]
