"""The demo written at any hour of the day (docs/clock.md): nothing in it is later than the moment it was written,
and every group `omb-tui changes` lists of one day or one run holds only that day's rows. Written just after
midnight, a demo once held log lines of 08:45 and 09:30 that day, its rows squeezed to the second before now."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, time

import pytest

from omb_tui.cli import main
from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.store import MemoryStore
from omb_tui.demo.home import DEMO_BOT_IDS, write_demo_home

pytestmark = pytest.mark.dates

LOG_LINE = re.compile(r"^- (\d\d):(\d\d) · ", re.MULTILINE)


def set_clock_to(monkeypatch, at: time) -> datetime:
    """The project's clock moved to `at`, local time, on today (this process only; it goes on from there)."""
    target = datetime.combine(clock.today(), at).astimezone()
    monkeypatch.setenv(clock.SHIFT_ENV, str(clock.shift() + (target - clock.now()).total_seconds()))
    return target


@pytest.mark.parametrize("at", [time(0, 5), time(6, 0), time(17, 59), time(18, 1), time(23, 58)], ids=str)
def test_the_demo_holds_nothing_later_than_when_it_was_written(tmp_path, monkeypatch, capsys, at):
    set_clock_to(monkeypatch, at)
    home = Home(tmp_path / "home")
    write_demo_home(home)
    now = clock.now()  # a few seconds after `at` (on a loaded machine, past midnight: the checks still hold)

    for bot_id in DEMO_BOT_IDS:
        rows = MemoryStore(home, bot_id).journal.rows()
        late = [(row.at, row.file) for row in rows if datetime.fromisoformat(row.at) > now]
        assert late == [], (bot_id, now)
        for log in sorted((home.workspace(bot_id) / "memory" / "log").glob("*.md")):
            day = date.fromisoformat(log.stem)
            for hour, minute in LOG_LINE.findall(log.read_text(encoding="utf-8")):
                said = datetime.combine(day, time(int(hour), int(minute))).astimezone()
                assert said <= now, (bot_id, log.name, f"{hour}:{minute}", now)

    for path in (home.root / "conversations").rglob("*.ndjson"):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            moment = record.get("at") or record.get("created")
            assert datetime.fromisoformat(moment) <= now, (path.name, moment, now)

    assert main(["--home", str(home.root), "changes", "--json", "--since", "60d"]) == 0
    listed = json.loads(capsys.readouterr().out)
    groups = [(bot["bot"], group) for bot in listed["bots"] for group in bot["groups"]]
    assert {group["kind"] for _, group in groups} >= {"upkeep", "agent", "chat", "person", "outside"}
    for bot_id, group in groups:
        days = {datetime.fromisoformat(change["at"]).astimezone().date() for change in group["changes"]}
        assert max(datetime.fromisoformat(change["at"]) for change in group["changes"]) <= now, (bot_id, group["who"])
        if group["kind"] != "chat":  # a chat's turns are one group over its days; a run or a day's edits, one day
            assert days == {datetime.fromisoformat(group["at"]).astimezone().date()}, (bot_id, group["who"], days)
