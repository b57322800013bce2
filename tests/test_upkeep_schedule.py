"""Scheduling upkeep (omb_tui/core/upkeep/schedule.py): when the tidy-up is due, the locks a cron run
respects, and bots run with a bound. Spec: memory.md, "Memory upkeep"."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone

import pytest

from omb_tui.core.memory.locks import held_exclusively
from omb_tui.core.upkeep.schedule import (
    backup_lock_path,
    backup_running,
    run_bounded,
    tidy_due,
    upkeep_lock_path,
)

HOUR = 3


def local(year, month, day, hour, minute=0) -> datetime:
    return datetime(year, month, day, hour, minute).astimezone()


@pytest.mark.parametrize("last, now, due", [
    (None, local(2026, 12, 1, 1), True),  # never tidied
    (local(2026, 11, 30, 3, 5), local(2026, 12, 1, 2, 59), False),  # tidied after yesterday's 3 am; not 3 yet
    (local(2026, 11, 30, 3, 5), local(2026, 12, 1, 3, 0), True),  # today's 3 am has come
    (local(2026, 12, 1, 3, 1), local(2026, 12, 1, 23, 0), False),  # once a day
    (local(2026, 11, 27, 4), local(2026, 12, 1, 9, 0), True),  # the machine slept: the next check tidies
    (local(2026, 12, 1, 2, 0), local(2026, 12, 1, 2, 30), False),  # before 3 am, tidied since yesterday's 3 am
])
def test_the_tidy_up_is_due_once_a_day_after_its_hour(last, now, due):
    assert tidy_due(last, now, HOUR) is due


def test_a_utc_time_is_compared_in_local_time():
    now = local(2026, 12, 1, 9)
    assert tidy_due((now - timedelta(hours=1)).astimezone(timezone.utc), now, HOUR) is False


HOLDER = """
import sys, time
from pathlib import Path
from omb_tui.core.memory.locks import held_exclusively
with held_exclusively(Path(sys.argv[1])) as held:
    print("held" if held else "busy", flush=True)
    time.sleep(30)
"""


def test_a_lock_held_by_another_process_is_seen_at_once(tmp_path):
    from omb_tui.core.memory.paths import Home

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
    from omb_tui.core.memory.paths import Home

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
    results = dict(run_bounded([f"bot-{n}" for n in range(20)], work, concurrency=4,
                               done=lambda bot, outcome: seen.append(bot)))
    assert most == 4
    assert len(results) == len(seen) == 20
    assert isinstance(results["bot-3"], RuntimeError) and results["bot-4"] == "bot-4 done"
    with pytest.raises(ValueError):
        run_bounded(["x"], work, concurrency=0)
