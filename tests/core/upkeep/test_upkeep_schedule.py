"""Scheduling upkeep (omb_tui/core/schedule.py): when the tidy-up is due, the locks a cron run
respects, and bots run with a bound. Spec: memory.md, "Memory upkeep"."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta, timezone

import pytest

from omb_tui.core.files.locks import held_exclusively
from omb_tui.core.schedule import backup_lock_path, backup_running, run_bounded, tidy_due, upkeep_lock_path

pytestmark = pytest.mark.dates

HOUR = 3


def local(year, month, day, hour, minute=0) -> datetime:
    return datetime(year, month, day, hour, minute).astimezone()


@pytest.mark.parametrize(
    "last, now, due",
    [
        (None, local(2026, 12, 1, 1), True),  # never tidied
        (local(2026, 11, 30, 3, 5), local(2026, 12, 1, 2, 59), False),  # tidied after yesterday's 3 am; not 3 yet
        (local(2026, 11, 30, 3, 5), local(2026, 12, 1, 3, 0), True),  # today's 3 am has come
        (local(2026, 12, 1, 3, 1), local(2026, 12, 1, 23, 0), False),  # once a day
        (local(2026, 11, 27, 4), local(2026, 12, 1, 9, 0), True),  # the machine slept: the next check tidies
        (local(2026, 12, 1, 2, 0), local(2026, 12, 1, 2, 30), False),  # before 3 am, tidied since yesterday's 3 am
    ],
)
def test_the_tidy_up_is_due_once_a_day_after_its_hour(last, now, due):
    assert tidy_due(last, now, HOUR) is due


def test_a_utc_time_is_compared_in_local_time():
    now = local(2026, 12, 1, 9)
    assert tidy_due((now - timedelta(hours=1)).astimezone(UTC), now, HOUR) is False


HOLDER = """
import sys, time
from pathlib import Path
from omb_tui.core.files.locks import held_exclusively
with held_exclusively(Path(sys.argv[1])) as held:
    print("held" if held else "busy", flush=True)
    time.sleep(30)
"""


def test_a_lock_held_by_another_process_is_seen_at_once(tmp_path):
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "home")
    home.root.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(upkeep_lock_path(home))], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        with held_exclusively(upkeep_lock_path(home)) as free:
            assert free is False  # a second `upkeep --due` exits at once
    finally:
        holder.kill()
        holder.wait()
    with held_exclusively(upkeep_lock_path(home)) as free:
        assert free is True


def test_a_backup_holding_its_lock_pauses_upkeep(tmp_path):
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "home")
    home.root.mkdir()
    assert backup_running(home) is False
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(backup_lock_path(home))], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        assert backup_running(home) is True
    finally:
        holder.kill()
        holder.wait()
    assert backup_running(home) is False


def test_bots_run_at_most_the_bound_at_once_and_a_failure_stays_with_its_bot():
    running, most, lock = 0, 0, threading.Lock()
    release = threading.Event()

    def work(bot: str) -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        release.wait(0.05)
        with lock:
            running -= 1
        if bot == "bot-3":
            raise RuntimeError("its model failed")
        return f"{bot} done"

    seen = []
    results = dict(
        run_bounded([f"bot-{n}" for n in range(20)], work, concurrency=4, done=lambda bot, outcome: seen.append(bot))
    )
    assert most == 4
    assert len(results) == len(seen) == 20
    assert isinstance(results["bot-3"], RuntimeError) and results["bot-4"] == "bot-4 done"
    with pytest.raises(ValueError):
        run_bounded(["x"], work, concurrency=0)


# ----- `omb-tui upkeep --due` -----
def upkeep_home(tmp_path):
    """Three bots: scout (due: never tidied, an expired note and a duplicate), quill (upkeep off), atlas."""
    from omb_tui.core.files.paths import Home
    from omb_tui.core.memory.settings import BotSettings, save_bot_settings

    home = Home(tmp_path / "upkeep-home")
    for bot_id, upkeep in (("scout", True), ("quill", False), ("atlas", True)):
        home.workspace(bot_id).mkdir(parents=True)
        save_bot_settings(home, BotSettings(id=bot_id, name=bot_id.title(), upkeep=upkeep))
        (home.workspace(bot_id) / "MEMORY.md").write_text(
            "- 2026-01-01 · flight to Lisbon · until 2026-01-05\n- 2026-02-01 · likes tea\n- 2026-03-01 · likes tea\n"
        )
    return home


def test_upkeep_due_runs_the_rule_steps_and_leaves_bots_alone_as_it_should(tmp_path, run_exe, monkeypatch):
    import json as jsonlib

    from omb_tui.core.turn.turn import bot_turn
    from omb_tui.core.upkeep.tidy import last_tidy

    home = upkeep_home(tmp_path)
    env = {"OMB_HOME": str(home.root), "OMB_HELPER_INSTANCE": ""}
    with bot_turn(home, "atlas"):  # atlas is in a turn while the run goes
        proc = run_exe("upkeep", "--due", "--json", env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    lines = {row["bot"]: row for row in map(jsonlib.loads, proc.stdout.decode().splitlines())}
    assert set(lines) == {"scout", "quill", "atlas"}
    assert "upkeep is switched off" in lines["quill"]["left_alone"]
    assert "in a turn" in lines["atlas"]["left_alone"]
    tidied = lines["scout"]["tidy"]
    assert tidied["expired"] == 1 and tidied["duplicates"] == 1 and "model" in tidied
    assert (home.workspace("scout") / "MEMORY.md").read_text() == "- 2026-03-01 · likes tea\n"
    assert (home.workspace("quill") / "MEMORY.md").read_text().count("likes tea") == 2  # untouched
    assert (home.workspace("atlas") / "MEMORY.md").read_text().count("likes tea") == 2  # untouched
    rows = [jsonlib.loads(r) for r in home.journal_path("scout").read_text().splitlines()]
    assert {r["run"] for r in rows if r["who"] == "Memory upkeep"} == {lines["scout"]["run"]}
    assert last_tidy(home, "scout") is not None

    again = run_exe("upkeep", "--due", "--json", env=env)  # once a day: the next run finds nothing due
    scout = [jsonlib.loads(line) for line in again.stdout.decode().splitlines() if '"scout"' in line][0]
    assert scout["tidy"] is None and scout["capture"] is None
    assert "atlas" in again.stdout.decode() and '"tidy": {' in again.stdout.decode()  # atlas, free now, is tidied


def test_a_second_run_or_a_backup_makes_upkeep_do_nothing_and_say_so(tmp_path, run_exe):
    home = upkeep_home(tmp_path)
    env = {"OMB_HOME": str(home.root), "OMB_HELPER_INSTANCE": ""}
    for lock in (upkeep_lock_path(home), backup_lock_path(home)):
        holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE)
        try:
            assert holder.stdout.readline() == b"held\n"
            proc = run_exe("upkeep", "--due", env=env)
            assert proc.returncode == 0 and proc.stdout == b""
            assert proc.stderr.decode().startswith("Nothing done: ")
        finally:
            holder.kill()
            holder.wait()
        assert (home.workspace("scout") / "MEMORY.md").read_text().count("likes tea") == 2


def test_a_run_s_call_bound_lasts_for_the_run_only(tmp_path):
    """A library caller's process keeps its own bound of calls in flight after upkeep_due with another."""
    from omb_tui.core.files.paths import Home
    from omb_tui.core.models import call
    from omb_tui.core.schedule import upkeep_due

    home = Home(tmp_path / "home")
    home.root.mkdir()
    before = call._call_slots
    upkeep_due(home, concurrency=16)
    assert call._call_slots is before
