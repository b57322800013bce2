"""The morning review, in keys and seconds: a person back in the morning sees every change's diff, undoes
one agent session and one upkeep change, and marks the rest reviewed. Prints figures, asserts nothing.

The home: the demo (`omb-tui demo`: last night's pass, an evening Claude Code session, the bots' chats, an outside
edit, the person's own edits) and, on each of its five bots, what a busy evening adds: a Claude Code session of
two notes, two turns of a chat, an edit outside the app. Every key is pressed through Textual's Pilot at 80x24
(a terminal over SSH), and the seconds are the wall time of those presses with the app answering each.

- Review (`v`): space reads on (a group's detail holds every change's diff; space pages it, then goes to the
  next group), U and y undo Scout's Claude Code session when space reaches it, j u y revert the first change of
  the first upkeep run, M y mark the rest reviewed.
- The journal, bot by bot, as before this work (the baseline): for each bot, down to it on the bots screen,
  Enter, j (its journal), down once per row of the window (the highlighted row's diff shows in its pane; one
  taller than the pane is read with Tab, PageDown to its end, Shift+Tab, as space pages Review's), u y on the
  session's first row, R y on the upkeep change, b back to the bots. The journal has no marks: the next morning starts from the same rows.

    .venv/bin/python benchmarks/review_keys.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.app_helpers import listed_bots, settle, wait_for  # noqa: E402 (the tests' own Pilot helpers)

from omb_tui.core.files.paths import Home  # noqa: E402
from omb_tui.core.journal.changes import Actor  # noqa: E402
from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON, Journal  # noqa: E402
from omb_tui.core.memory.store import MemoryStore  # noqa: E402
from omb_tui.core.review.changes import changes  # noqa: E402
from omb_tui.core.runs.run import new_run_id  # noqa: E402
from omb_tui.core.turn.agent_session import chat_id_for  # noqa: E402
from omb_tui.demo.home import DEMO_BOT_IDS, write_demo_home  # noqa: E402

SIZE = (80, 24)
EVENING = ("- the repo uses uv for its environments\n", "- the tests run with pytest -n 2\n")


def busy_evening(home: Home) -> None:
    """On every bot: a Claude Code session of two notes, two chat turns, an outside edit (5 changes each)."""
    for n, bot_id in enumerate(DEMO_BOT_IDS):
        store = MemoryStore(home, bot_id)
        session = Actor(
            WHO_BOT, HOW_TASK, chat=chat_id_for(f"00000000-0000-4000-8000-00000000000{n}"), run=new_run_id()
        )
        for line in EVENING:
            store.write("MEMORY.md", store.read("MEMORY.md").text + line, session)
        for turn in (1, 2):
            actor = Actor(WHO_BOT, HOW_TASK, chat="Evening", run=new_run_id())
            store.write("MEMORY.md", store.read("MEMORY.md").text + f"- evening turn {turn} of {bot_id}\n", actor)
        store.write("MEMORY.md", store.read("MEMORY.md").text + "- added in Obsidian\n", Actor(WHO_PERSON, HOW_OUTSIDE))


class Keys:
    """Presses keys through Pilot, counting them; a key that asks (u, U, R, M) is answered by the next key once
    its question is on screen."""

    ASKING = ("u", "U", "R", "M")

    def __init__(self, pilot) -> None:
        self.pilot, self.count = pilot, 0

    async def __call__(self, *keys: str) -> None:
        from omb_tui.app.dialogs.confirm import ConfirmDialog

        for key in keys:
            self.count += 1
            screen = self.pilot.app.screen
            await self.pilot.press(key)
            if key in self.ASKING:
                await wait_for(self.pilot, lambda: isinstance(self.pilot.app.screen, ConfirmDialog))
            elif isinstance(screen, ConfirmDialog):  # the answer: the flow finishes, the screen reads again
                await wait_for(self.pilot, lambda: not isinstance(self.pilot.app.screen, ConfirmDialog))
                await settle(self.pilot)
            else:
                await settle(self.pilot)


async def review_path(home: Home) -> tuple[int, float, int, int, int]:
    """(keys, seconds, changes whose diff was seen, changes undone unseen (named in an undo's question and agreed
    to), changes waiting for review) through the Review area."""
    from omb_tui.app.app import make_app

    app = make_app(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await listed_bots(pilot)
        began = time.perf_counter()
        press = Keys(pilot)
        await press("v")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.tree.row_count)
        listed = {c.id for line in screen.tree.lines if line.kind == "run" for c in line.group.changes}
        waiting = {
            c.id for line in screen.tree.lines if line.kind == "run" and line.group.is_new for c in line.group.changes
        }
        seen: set[str] = set()
        undone_session = reverted = False
        newest_session = max(  # the busy evening's Claude Code session of Scout: the one to take back
            line.group.run_id
            for line in screen.tree.lines
            if line.kind == "run"
            and line.bot.bot == "scout"
            and line.group.run is not None
            and line.group.run.kind == "agent"
        )

        def look() -> None:
            line, shown = screen.tree.line_at_cursor(), screen.detail.text
            found = line.group.changes if line.kind == "run" else [line.change] if line.change else []
            seen.update(c.id for c in found if _diff_line(c.diff) in shown)

        look()
        for _ in range(500):
            await press("space")
            look()
            line = screen.tree.line_at_cursor()
            run = line.group.run if line.kind == "run" else None
            if run is not None and not undone_session and line.group.run_id == newest_session:
                await press("U", "y")
                undone_session = True
            elif run is not None and not reverted and run.kind == "upkeep" and run.who is None and run.changes:
                await press("j")
                look()
                await press("u", "y")
                reverted = True
            at_end = screen.detail.scroll_y >= screen.detail.max_scroll_y
            line = screen.tree.line_at_cursor()
            more = screen.tree.next_group(1, new_only=True) is not None or (
                line.kind == "change"
                and screen.tree.cursor + 1 < len(screen.tree.lines)
                and screen.tree.lines[screen.tree.cursor + 1].kind == "change"
            )
            if at_end and not more:  # space would say "Nothing new below"
                break
        await press("M", "y")
        await wait_for(pilot, lambda: not changes(home).bots or all(not b.unreviewed for b in changes(home).bots))
        listed = waiting  # the person's own changes are seen already (they made them): not read again
        undone = {c.id for line in screen.tree.lines if line.kind == "run" for c in line.group.changes if c.undone}
        missed = listed - seen - undone
        if missed and os.environ.get("REVIEW_KEYS_DEBUG"):
            for line in screen.tree.lines:
                for change in line.group.changes if line.kind == "run" else []:
                    if change.id in missed:
                        print(
                            "not seen:", line.bot.bot, line.group.run.kind, change.file, repr(_diff_line(change.diff))
                        )
        return press.count, time.perf_counter() - began, len(seen & listed), len((undone - seen) & listed), len(listed)


async def journal_path(home: Home, since: datetime) -> tuple[int, float, int]:
    """(keys, seconds, rows shown) bot by bot through each bot's journal."""
    from omb_tui.app.app import make_app

    app = make_app(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        bots = await listed_bots(pilot)
        began = time.perf_counter()
        press = Keys(pilot)
        shown = 0
        for index, bot_id in enumerate(home.bot_ids()):
            rows = [row for row in Journal(home.journal_path(bot_id)).iter_newest_first() if _moment(row.at) >= since]
            if not rows:
                continue
            while bots.cursor < index:
                await press("down")
            await press("enter", "j")
            for n in range(len(rows)):
                if n:
                    await press("down")
                shown += 1
                await read_whole(pilot, press)
            if bot_id == "scout":
                await press("u", "y", "R", "y")  # a session row undone, an upkeep change reverted
            await press("b")
            bots = await listed_bots(pilot)
        return press.count, time.perf_counter() - began, shown


async def read_whole(pilot, press: Keys) -> None:
    """A row's diff taller than its pane is read to its end: Tab into it, PageDown to the end, Shift+Tab back."""
    diff = pilot.app.screen.query_one("#journal-diff")
    if diff.max_scroll_y <= 0:
        return
    await press("tab")
    while diff.scroll_y < diff.max_scroll_y:
        await press("pagedown")
    await press("shift+tab")


def _diff_line(diff: str) -> str:
    return next((line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")), "")


def _moment(at: str) -> datetime:
    return datetime.fromisoformat(at)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
        for path_name in ("review", "journal"):
            home = Home(Path(folder) / path_name)
            write_demo_home(home)
            busy_evening(home)
            found = changes(home)
            count = sum(bot.count for bot in found.bots)
            since = min(bot.since for bot in found.bots)
            if path_name == "review":
                keys, seconds, seen, gone, listed = asyncio.run(review_path(home))
                kinds = sorted({g.kind for bot in found.bots for g in bot.groups})
                print(
                    f"home: {count} changes over {len(found.bots)} bots since {since:%Y-%m-%d %H:%M}; writers: {', '.join(kinds)}"
                )
                print(
                    f"Review (v, space, U, u, M)      {keys:4d} keys  {seconds:5.1f} s  {seen} of {listed} diffs seen, {gone} undone with the session (named in its question); all marked reviewed"
                )
            else:
                keys, seconds, shown = asyncio.run(journal_path(home, since))
                print(
                    f"journal per bot (the baseline)  {keys:4d} keys  {seconds:5.1f} s  rows shown: {shown}; nothing marked (no marks)"
                )
        print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


if __name__ == "__main__":
    main()
