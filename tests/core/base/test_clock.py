"""Green on any day: one clock the project reads everywhere (omb_tui/core/base/clock.py), moved for a whole
run by OMB_TUI_CLOCK_SHIFT (scripts/dev.py test --today, --tz); and two lints: nothing else reads the wall clock,
and no test compares a literal date with a fixture dated from today."""

from __future__ import annotations

import ast
import json
import os
import re
import time
from datetime import UTC, date, datetime, timedelta
from datetime import time as dt_time
from zoneinfo import ZoneInfo

import pytest
from conftest import DEMO_FIXTURES
from support.home import BOT_ID
from support.repo import ROOT, load_dev

from omb_tui.core.base import clock
from omb_tui.core.guard.night import night_of
from omb_tui.core.index.recall_index import open_index
from omb_tui.core.schedule import tidy_due

pytestmark = pytest.mark.dates

DAY = 24 * 3600


@pytest.fixture
def prague(time_zone):
    time_zone("Europe/Prague")


# ----- the clock -----


def test_the_shift_moves_now_today_and_utc_together(monkeypatch):
    monkeypatch.delenv(clock.SHIFT_ENV, raising=False)
    real = clock.now_utc()
    monkeypatch.setenv(clock.SHIFT_ENV, str(400 * DAY))
    shifted = clock.now_utc()
    assert timedelta(days=400) <= shifted - real < timedelta(days=400, minutes=5)
    assert clock.now().astimezone(UTC) - shifted < timedelta(minutes=5)
    assert clock.today() == clock.now().date()
    assert clock.moment_of(real.timestamp()).date() == (real + timedelta(days=400)).astimezone().date()
    assert abs(clock.real_time_ns() / 1e9 - time.time()) < 300  # what the file system is compared with never moves


def test_a_shift_that_is_not_a_number_is_said_and_the_machines_clock_is_used(monkeypatch, capsys):
    monkeypatch.setenv(clock.SHIFT_ENV, "tomorrow")
    assert abs(clock.timestamp() - time.time()) < 300
    assert "OMB_TUI_CLOCK_SHIFT='tomorrow' is not a number of seconds" in capsys.readouterr().err


def test_now_is_on_the_right_side_of_a_dst_fold(prague, frozen_clock):
    """02:30 comes twice in Prague on 2026-10-25: the second is CET (+01:00), which a naive local time loses."""
    second = datetime(2026, 10, 25, 1, 30, tzinfo=UTC)
    frozen_clock(second)
    assert clock.now().isoformat() == "2026-10-25T02:30:00+01:00"
    frozen_clock(second - timedelta(hours=1))
    assert clock.now().isoformat() == "2026-10-25T02:30:00+02:00"


def test_the_tidy_up_hour_keeps_its_own_days_offset_across_a_dst_change(prague):
    """Tidy hour 3 in Prague; clocks go back at 03:00 on 2027-10-31. Saturday's tidy-up ran at 03:30 CEST; at 02:30
    CET that Sunday the latest 03:00 passed is still Saturday's (01:00 UTC), so it is not due again, and the night is
    Saturday's. Counting Saturday's 03:00 in Sunday's offset (02:00 UTC) made it due a second time."""
    last = datetime(2027, 10, 30, 1, 30, tzinfo=UTC)  # 03:30 CEST
    now = datetime(2027, 10, 31, 1, 30, tzinfo=UTC)  # 02:30 CET, the second one
    assert now.astimezone().isoformat() == "2027-10-31T02:30:00+01:00"
    assert not tidy_due(last, now, 3)
    assert night_of(now, 3) == "2027-10-30"
    assert tidy_due(last, datetime(2027, 10, 31, 2, 0, tzinfo=UTC), 3)  # 03:00 CET: Sunday's slot
    assert night_of(datetime(2027, 10, 31, 2, 0, tzinfo=UTC), 3) == "2027-10-31"
    # spring forward (2027-03-28, 02:00 CET -> 03:00 CEST): tidy hour 4 is 02:00 UTC that day, 03:00 UTC the day before
    assert clock.latest_passed(datetime(2027, 3, 28, 2, 30, tzinfo=UTC), dt_time(4)).isoformat() == (
        "2027-03-28T04:00:00+02:00"
    )
    assert clock.latest_passed(datetime(2027, 3, 28, 1, 59, tzinfo=UTC), dt_time(4)).isoformat() == (
        "2027-03-27T04:00:00+01:00"
    )
    assert tidy_due(datetime(2027, 3, 27, 3, 30, tzinfo=UTC), datetime(2027, 3, 28, 2, 30, tzinfo=UTC), 4)


def test_the_installed_command_reads_the_suites_clock(run_exe, home, monkeypatch):
    """The shift reaches a subprocess as the test harness passes it: a note remembered 400 days on is dated then,
    and so is its journal row."""
    monkeypatch.setenv(clock.SHIFT_ENV, str(400 * DAY))
    day = clock.today()
    assert run_exe("remember", BOT_ID, "the lease ends in spring").returncode == 0
    assert clock.today() in (day, day + timedelta(days=1))  # a midnight may fall between
    memory = (home.workspace(BOT_ID) / "MEMORY.md").read_text(encoding="utf-8")
    (line,) = [line for line in memory.splitlines() if "the lease ends in spring" in line]
    assert line.startswith(tuple(f"- {d.isoformat()} ·" for d in (day, clock.today())))
    row = json.loads(home.journal_path(BOT_ID).read_text().splitlines()[-1])
    assert abs(datetime.fromisoformat(row["at"]) - clock.now_utc()) < timedelta(minutes=5)


def test_an_undated_note_takes_no_day_from_its_files_mtime_on_any_clock(home, monkeypatch):
    """An undated note was dated by its file's mtime; it has no day now (docs/recall.md, "Undated notes")."""
    monkeypatch.setenv(clock.SHIFT_ENV, str(400 * DAY))
    (home.workspace(BOT_ID) / "memory" / "plans.md").write_text("# Plans\n\n- ferry to Hydra on Friday\n")
    index = open_index(home, BOT_ID)
    index.refresh()
    days = set(index.db.execute("SELECT day, dated FROM notes WHERE text LIKE '%Hydra%'"))
    assert days == {(None, 0)}


def test_a_file_dated_for_the_clock_reads_back_as_that_day_whatever_the_shift(home, monkeypatch, utc_zone):
    """A benchmark dates its files on the project's clock (clock.file_stamp): a shifted run sees the same days."""
    path = home.workspace(BOT_ID) / "memory" / "plans.md"
    path.write_text("# Plans\n\n- ferry to Hydra on Friday\n")
    moment = datetime(2026, 9, 20, 6, 0, tzinfo=UTC)
    for days in (0, 400, -30):
        monkeypatch.setenv(clock.SHIFT_ENV, str(days * DAY))
        stamp = clock.file_stamp(moment)
        os.utime(path, (stamp, stamp))
        assert clock.moment_of(path.stat().st_mtime) == moment


# ----- scripts/dev.py test --today, --tz -----


def test_today_names_a_local_time_a_day_days_from_now_or_the_next_new_year():
    dev = load_dev()
    zone = ZoneInfo("Pacific/Auckland")
    now = datetime(2026, 12, 3, 11, 21, tzinfo=UTC)
    assert dev.target_moment("new-year", zone, now) == datetime(2027, 1, 1, 2, 30, tzinfo=zone)
    assert dev.target_moment("new-year", zone, now).astimezone(UTC) == datetime(2026, 12, 31, 13, 30, tzinfo=UTC)
    assert dev.target_moment("2027-03-28T02:30", zone, now) == datetime(2027, 3, 28, 2, 30, tzinfo=zone)
    assert dev.target_moment("+400d", zone, now) == now.astimezone(zone) + timedelta(days=400)
    assert dev.target_moment("2027-07-01", zone, now) == datetime(2027, 7, 1, 0, 21, tzinfo=zone)  # 00:21 there now
    with pytest.raises(dev.ClockError, match="is not a time"):
        dev.target_moment("soon", zone, now)


def test_today_and_tz_become_the_environment_of_the_run():
    dev = load_dev()
    rest, env = dev.clock_env(["--today", "+400d", "--tz", "America/New_York", "-k", "guard"])
    assert rest == ["-k", "guard"] and env["TZ"] == "America/New_York"
    assert abs(float(env[clock.SHIFT_ENV]) - 400 * DAY) < 300
    rest, env = dev.clock_env(["--dates"])
    assert rest == ["--no-checks", "-m", "dates"] and env["TZ"] == "Pacific/Auckland"
    local = datetime.fromtimestamp(time.time() + float(env[clock.SHIFT_ENV]), ZoneInfo("Pacific/Auckland"))
    new_year = datetime(local.year, 1, 1, 2, 30, tzinfo=ZoneInfo("Pacific/Auckland"))
    assert abs(local - new_year) < timedelta(minutes=5)
    # CI's second run: the same new year's 02:30 in UTC-11, where the local day is behind UTC's
    rest, env = dev.clock_env(["--dates", "--tz", "Pacific/Pago_Pago"])
    assert rest == ["--no-checks", "-m", "dates"] and env["TZ"] == "Pacific/Pago_Pago"
    local = datetime.fromtimestamp(time.time() + float(env[clock.SHIFT_ENV]), ZoneInfo("Pacific/Pago_Pago"))
    assert abs(local - datetime(local.year, 1, 1, 2, 30, tzinfo=ZoneInfo("Pacific/Pago_Pago"))) < timedelta(minutes=5)
    assert "--dates --tz Pacific/Pago_Pago" in (ROOT / ".ci" / "run").read_text()
    with pytest.raises(dev.ClockError, match="not a time zone"):
        dev.clock_env(["--tz", "Mars/Olympus"])


# ----- lints -----

WALL_CLOCK_READS = {
    ("datetime", "now"),
    ("datetime", "today"),
    ("datetime", "utcnow"),
    ("date", "today"),
    ("time", "localtime"),
    ("time", "gmtime"),
    ("time", "strftime"),
    ("time", "ctime"),
    ("time", "asctime"),
}
ALSO_IN_THE_PACKAGE = {("time", "time"), ("time", "time_ns")}
# the number of arguments with which these convert a stored time instead of reading the clock
CONVERTING = {"localtime": 1, "gmtime": 1, "ctime": 1, "asctime": 1, "strftime": 2}
CLOCK_MODULE = ROOT / "omb_tui" / "core" / "base" / "clock.py"


def wall_clock_reads(source: str, names: set[tuple[str, str]]) -> list[int]:
    """Lines that read the machine's clock directly: datetime.now(), date.today(), time.time() and the like
    (time.localtime, gmtime, ctime and asctime only without an argument, time.strftime only without a time: with
    one they convert a stored time)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and (owner.id, node.func.attr) in names:
                if len(node.args) >= CONVERTING.get(node.func.attr, 99):
                    continue
                lines.append(node.lineno)
    return lines


def test_only_the_clock_module_reads_the_wall_clock():
    """Every now and today goes through omb_tui/core/base/clock.py (so a shifted run moves them all); the tests
    and the benchmarks (which tests run) read it too, so what they date is dated from the clock the code reads."""
    found = []
    sources = [*(ROOT / "omb_tui").rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    for path in sorted(sources):
        if path == CLOCK_MODULE:
            continue
        names = WALL_CLOCK_READS | (ALSO_IN_THE_PACKAGE if "omb_tui" in path.parts else set())
        found += [f"{path.relative_to(ROOT)}:{line}" for line in wall_clock_reads(path.read_text(), names)]
    assert found == []


def test_the_wall_clock_lint_finds_each_way_of_reading_it():
    sample = (
        "a = datetime.now(UTC)\nb = date.today()\nc = time.time()\nd = time.localtime()\ne = time.localtime(0)\n"
        'f = time.strftime("%Y-%m-%d")\ng = time.strftime("%Y", time.gmtime(0))\nh = time.ctime()\n'
    )
    assert wall_clock_reads(sample, WALL_CLOCK_READS | ALSO_IN_THE_PACKAGE) == [1, 2, 3, 4, 6, 8]


DATE_LITERAL = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
TODAY_CALLS = {("clock", "now"), ("clock", "today"), ("clock", "now_utc")}


def _today_dated(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a test builds on today: the clock read, a demo home written without a day of its own."""
    arguments = {arg.arg for arg in function.args.args}
    if "frozen_clock" in arguments:  # the test sets the day itself
        return False
    if DEMO_FIXTURES & arguments:
        return True
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if (func.value.id, func.attr) in TODAY_CALLS:
                return True
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name == "write_demo_home" and not {kw.arg for kw in node.keywords} & {"today", "now"}:
            if len(node.args) < 2:
                return True
        if name == "run_exe" and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "demo":
            return True
    return False


def _literal_dates(node: ast.AST) -> list[str]:
    return [
        found
        for child in ast.walk(node)
        if isinstance(child, ast.Constant) and isinstance(child.value, str)
        for found in DATE_LITERAL.findall(child.value)
    ]


def dates_beside_today(source: str) -> list[str]:
    """Test functions that build on today and compare with a literal date in an assert or a comparison (theirs,
    or a module constant they use): what failed on 2026-12-03, when the demo's "yesterday" was no longer 2026-12-01."""
    tree = ast.parse(source)
    constants = {
        target.id: _literal_dates(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            compared = [part for part in ast.walk(node) if isinstance(part, ast.Assert | ast.Compare)]
            dates = [day for part in compared for day in _literal_dates(part)] + [
                day
                for part in compared
                for name in ast.walk(part)
                if isinstance(name, ast.Name)
                for day in constants.get(name.id, [])
            ]
            if dates and _today_dated(node):
                found.append(f"{node.name} ({', '.join(sorted(set(dates)))})")
    return found


# Tests the lint names whose literal dates are their fixtures' own, true on any day: each says why.
DATES_OF_THEIR_OWN = {
    "test_app_guard.py: test_the_queue_is_listed_and_each_key_answers_the_entry_under_the_cursor": (
        "OLDER and OLD are entries written in 2025, old on any day; the confirmed date is the clock's"
    ),
    "test_mcp.py: test_every_tool_answers_as_in_a_chat_turn": (
        "a search until 2020-01-01 finds nothing on a demo written on any later day"
    ),
    "test_memory_update.py: test_forget_whole_words_every_file_keeps_headers": (
        "the entries' own dates, kept as written; only forget's count is dated by the clock"
    ),
    "test_when.py: test_every_caller_reads_days_the_same_way": (
        "the dates are parsed against a now of the test's own; only day:today reads the clock"
    ),
}


def test_no_test_compares_a_literal_date_with_a_fixture_dated_from_today():
    """A test dated from today that asserts a literal date fails on another day (unless it is named above, with
    why its dates hold on any day)."""
    found = {
        f"{path.name}: {where.rpartition(' (')[0]}"
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        for where in dates_beside_today(path.read_text())
    }
    assert found == set(DATES_OF_THEIR_OWN)


def test_the_literal_date_lint_finds_the_line_that_broke_on_2026_12_03():
    broken = (
        'CONFIRMED = "- 2026-12-01 · from chat \\"Invoice reconciliation\\" (noticed) · Invoices"\n'
        "def test_guard(run_exe, home):\n"
        '    run_exe("demo", "--home", str(home.root))\n'
        "    assert CONFIRMED in memory()\n"
    )
    assert dates_beside_today(broken) == ["test_guard (2026-12-01)"]
    fixed_day = broken.replace('run_exe("demo", "--home", str(home.root))', "write_demo_home(home, date(2026, 12, 2))")
    assert dates_beside_today(fixed_day) == []
    on_todays_demo = "def test_x(todays_demo):\n    assert '2026-11-30' in todays_demo().text\n"
    assert dates_beside_today(on_todays_demo) == ["test_x (2026-11-30)"]
