"""One story of a night on every screen (docs/review.md, "One count, one word"): the bots screen, the Review area's
status line, tree and detail, the Upkeep screen's last capture, `omb-tui changes` and `omb-tui review` say the same
figures in the same words for the same home. An agent's session is a run everywhere; a chat's turns, an edit
outside the app and the person's own edits are other groups everywhere."""

from __future__ import annotations

import json

import pytest
from support.app_helpers import listed_bots, open_area, wait_for
from support.review_screen import line_text, open_review
from textual.widgets import Static

from omb_tui.core.journal.journal import HOW_COMMAND_LINE, HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore
from omb_tui.core.runs.run import UpkeepRun
from omb_tui.core.turn.agent_session import open_session

pytestmark = pytest.mark.dates

SESSION = "0b7e5d0c-3f43-4c7e-9a52-6d1f2e8a9b10"
# scout's night: the person's own set-up (seen already), a capture run, a Claude Code session of two writes, two
# turns in one chat, an edit outside the app, and two compaction proposals waiting
NIGHT = "7 changes in 2 runs + 3 other groups (6 new), 2 proposals waiting"
RUNS_ONLY = "3 changes in 2 runs (3 new), 2 proposals waiting"  # `review` lists the runs alone


def append(store: MemoryStore, line: str, actor: Actor, note: str | None = None) -> None:
    store.write("MEMORY.md", store.read("MEMORY.md").text + line + "\n", actor, note=note)


@pytest.fixture
def night_home(home):
    from omb_tui.core.compact.pending import add_pending
    from omb_tui.core.compact.validator import Change as Proposed

    store = MemoryStore(home, "scout")
    append(store, "- by hand", Actor(WHO_PERSON, HOW_COMMAND_LINE))
    capture = UpkeepRun("scout")
    append(store, "- vegetarian", capture.actor("capture"), note='quotes: "I am vegetarian"')
    session = open_session(home, "scout", SESSION, title="Claude Code")
    agent = Actor(WHO_BOT, HOW_TASK, chat=session.chat, run=session.run)
    append(store, "- the repo uses uv", agent)
    append(store, "- tests run with pytest", agent)
    for line in ("- hotel in Alfama", "- flight at 9"):
        append(store, line, Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip"))
    append(store, "- edited by a script", Actor(WHO_PERSON, HOW_OUTSIDE))
    add_pending(
        home,
        "scout",
        "20261129T031500-abcdef",
        [
            Proposed("ephemeral", "- edited by a script\n", "a note for a day that is over"),
            Proposed("merge", "- a\n", "b"),
        ],
    )
    home.capture_run = capture.id
    return home


async def test_every_screen_and_the_command_line_tell_one_story_of_the_night(night_home, run_cli):
    from omb_tui.app.app import make_app
    from omb_tui.app.screens.upkeep import UpkeepScreen

    changes = run_cli("changes").out.splitlines()
    assert changes[0].startswith(f"scout: {NIGHT} (since ")
    review = run_cli("review").out.splitlines()
    assert review[0] == f"scout: {RUNS_ONLY}"
    assert any(line.endswith("  Claude Code, session 0b7e5d0c") for line in review)  # a run, named by its writer
    (bot,) = json.loads(run_cli("changes", "--json").out)["bots"]
    assert (bot["changes"], bot["runs"], bot["others"], bot["unreviewed"], bot["pending"]) == (7, 2, 3, 6, 2)

    async with make_app(night_home, watch=False).run_test(size=(80, 24)) as pilot:
        bot_list = await listed_bots(pilot)
        header = "".join(segment.text for segment in bot_list.render_line(0))
        night_cell = "".join(segment.text for segment in bot_list.render_line(1))[header.index("Night") :]
        assert night_cell.startswith("7, 2 wait")
        intro = str(pilot.app.screen.query_one("#bots-intro").render())
        assert intro == f"scout, last night: {NIGHT}. v reviews them."

        screen = await open_review(pilot)
        status = str(screen.query_one("#review-status").render())
        assert status.startswith("Since ") and f": {NIGHT} · ? keys" in status
        (bot_line,) = [line for line in screen.tree.lines if line.kind == "bot"]
        assert line_text(screen, bot_line) == f" scout  {NIGHT}"
        screen.tree.move_cursor(screen.tree.lines.index(bot_line))
        await wait_for(pilot, lambda: f"{NIGHT}." in screen.detail.text)
        capture_lines = [
            line for line in screen.tree.lines if line.kind == "run" and "capture" in line_text(screen, line)
        ]
        assert [line.group.run_id for line in capture_lines] == [night_home.capture_run]

    async with make_app(night_home, watch=False, bot_id="scout").run_test(size=(80, 24)) as pilot:
        upkeep = await open_area(pilot, "e", UpkeepScreen)
        await wait_for(pilot, lambda: upkeep.view is not None)
        said = str(upkeep.query_one("#upkeep-capture", Static).content)
        assert f"run {night_home.capture_run}: 1 change (see Review)" in said  # the capture Review lists
