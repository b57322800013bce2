"""Shared fixtures: a fresh home with one bot, and runners for the command line (in-process and installed)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home

# Tests import their helpers as `support.*` from whichever folder holds them (pytest's default import mode puts this
# folder on the path for its conftest too; this keeps it so under any mode).
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from support.home import make_bot, omb_tui_command  # noqa: E402


def pytest_addoption(parser):
    """The reliability runs have a short mode for CI and a full one by hand (docs/performance.md, "Reliability");
    `--busy` runs the suite while other processes keep every core busy, as on a loaded CI machine (docs/testing.md)."""
    group = parser.getgroup("omb-tui reliability")
    group.addoption("--kills", type=int, default=40, help="SIGKILLs in the kill loop (full run: 500)")
    group.addoption(
        "--appends", type=int, default=60, help="lock-free outside appends in the concurrency run (full run: 150)"
    )
    group.addoption(
        "--disk-fills",
        type=int,
        default=12,
        help="commands run on a real tmpfs filled to a random byte (full run: 200)",
    )
    group.addoption(
        "--busy", action="store_true", help="keep every core busy with a spinning process each while the tests run"
    )
    group = parser.getgroup("omb-tui property tests")
    group.addoption(
        "--explore",
        action="store_true",
        help="run only the property tests and the explore tier, on fresh random examples (docs/testing.md)",
    )
    group.addoption(
        "--explore-examples",
        type=int,
        default=EXPLORE_EXAMPLES,
        help=f"examples for each explore-tier test with --explore (default {EXPLORE_EXAMPLES})",
    )


# Property tests (docs/testing.md). By default every run draws the same examples (derandomized, no example database),
# so a fresh clone, CI and a person's run pass or fail together; no deadline and no "too slow" check, which only a
# busy machine trips. `--explore` draws fresh random examples, by hand, and keeps what fails in .hypothesis/.
EXPLORE_EXAMPLES = 2_000
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "print_blob": True}
settings.register_profile("repeatable", derandomize=True, database=None, **_UNTIMED)
settings.load_profile("repeatable")


def explore_profile(examples: int) -> settings:
    """Random examples, `examples` for each test that does not name its own count (the explore tier's)."""
    return settings(derandomize=False, max_examples=examples, **_UNTIMED)


# The tiers (docs/testing.md) follow the folders: a test file is in the tier of the deepest folder named here that
# holds it, and in the core tier if none does (tests/core/, tests/demo/, ...). `-m core`, `-m "not e2e"` and so on
# pick tiers; a new file joins its folder's tier.
FOLDER_TIERS = {
    "explore": "explore",  # free exploration: only with --explore, never in the default run
    "e2e": "e2e",
    "app/snapshots": "snapshot",
    "app": "app",
    "server": "http",
    "mcp/inspector": "inspector",
    "agents": "agents",
    "mcp": "mcp",
    "stress": "stress",
    "cli": "cli",
    "hooks": "cli",
}
TIERS = (*dict.fromkeys(FOLDER_TIERS.values()), "core")

# The date-sensitive tests (docs/testing.md): each module of the demo home, upkeep, the guard, review, usage or time
# windows says so itself (`pytestmark = pytest.mark.dates`), and so is every test on a demo home dated from today.
# `scripts/dev.py test --dates` (CI, after the suite) runs them once more on the next 1 January at 02:30 in a UTC+13
# zone: `-m dates`.
DEMO_FIXTURES = {"todays_demo", "demo_home", "home_copy"}  # a demo home written for today


def tier_of(path: Path) -> str:
    """The tier of the test file at `path`, by its folder under tests/."""
    if not path.is_relative_to(TESTS):
        return "core"
    folder = path.parent.relative_to(TESTS)
    for at in (folder, *folder.parents):
        if at.as_posix() in FOLDER_TIERS:
            return FOLDER_TIERS[at.as_posix()]
    return "core"


def pytest_configure(config):
    for tier in TIERS:
        config.addinivalue_line("markers", f"{tier}: the {tier} tier (assigned by folder in conftest.FOLDER_TIERS)")
    config.addinivalue_line("markers", "dates: date-sensitive (a module's pytestmark), run again at a shifted day")
    if config.getoption("--explore"):
        settings.register_profile("explore", explore_profile(config.getoption("explore_examples")))
        settings.load_profile("explore")
    if config.getoption("--busy") and not os.environ.get("PYTEST_XDIST_WORKER"):
        config._omb_busy = _start_spinners(os.cpu_count() or 2)


def pytest_unconfigure(config):
    for spinner in getattr(config, "_omb_busy", []):
        spinner.kill()
        spinner.wait()


def _start_spinners(count: int) -> list[subprocess.Popen]:
    """Processes that only spin, one a core, at normal priority: the tests share the machine as on a busy CI host."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def pytest_itemcollected(item):
    """Each test's tier and date mark, as it is collected: before `-m` picks tests by them."""
    item.add_marker(tier_of(item.path))
    if DEMO_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        item.add_marker("dates")


@pytest.hookimpl(trylast=True)  # after Hypothesis's plugin has marked its tests `hypothesis`
def pytest_collection_modifyitems(config, items):
    kept, dropped = split_explore_run(items, explore=config.getoption("--explore"))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def split_explore_run(items: list, *, explore: bool) -> tuple[list, list]:
    """(kept, deselected): with --explore the property tests and the explore tier, else everything but that tier."""
    if explore:
        wanted = [item for item in items if item.get_closest_marker("hypothesis") or item.get_closest_marker("explore")]
    else:
        wanted = [item for item in items if not item.get_closest_marker("explore")]
    chosen = set(map(id, wanted))
    return wanted, [item for item in items if id(item) not in chosen]


@pytest.fixture(autouse=True)
def _no_real_home(monkeypatch, tmp_path):
    """No test may reach ~/.openmausbot, an OMB_HOME or the person's own settings from the outer environment."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("OMB_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)  # a developer's own Codex home never takes part
    monkeypatch.setenv("OMB_TUI_MCP_IDLE_SECONDS", "2")  # an MCP service a test starts ends soon after it


@pytest.fixture(scope="session", autouse=True)
def _pilot_checks_for_idle_in_short_steps():
    """Pilot waits after every key, and in every pause, until the app looks idle, sampling the CPU clock in 20 ms
    steps; that floor was a quarter of the Pilot tests' time. Steps of 5 ms, with the same idle ratio, keep the
    check and drop most of the wait. Each key still waits for the screen's queued messages, and settle() for the
    workers, as before. (textual._wait is private: monkeypatch raises if a Textual upgrade renames it.)"""
    from textual import _wait

    step = 1 / 200
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_wait, "SLEEP_GRANULARITY", step)
        patch.setattr(_wait, "SLEEP_IDLE", step / 20)
        yield


@pytest.fixture(scope="session", autouse=True)
def _textual_parses_each_stylesheet_once():
    """Textual parses the CSS of the app and of every widget class again for each app, and again at each change of
    theme, keeping what it parsed only for that app: 6-12% of the Pilot tests' processor time. Here each CSS
    text is parsed once a process, for the variables (the theme's colours) it was parsed with, and the same rules
    are given to the next app that asks, as Textual already gives them within one app. An app still reads, applies
    and draws its CSS as before; CSS with an error still fails, each time. (Stylesheet._parse_rules is private:
    monkeypatch raises if a Textual upgrade renames it.)"""
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    parsed: dict[tuple, list] = {}

    def parse_once(self, css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(sorted(self._variables.items())))
        if key not in parsed:
            parsed[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        return parsed[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Stylesheet, "_parse_rules", parse_once)
        yield


@pytest.fixture(autouse=True)
def _close_recall_indexes():
    """Recall keeps its SQLite connections open between calls; each test starts without them."""
    yield
    from omb_tui.core.index import recall_index

    recall_index.close_all()


@pytest.fixture
def time_zone(monkeypatch) -> Iterator[Callable[[str], None]]:
    """Set the process's local time zone for the test, as TZ does in a person's shell; the suite's afterwards."""

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def utc_zone(time_zone):
    """Local time is UTC for the test: journal days and shown times do not depend on the machine's zone."""
    time_zone("UTC")


@pytest.fixture(autouse=True)
def _snapshots_are_drawn_in_utc(request):
    """A snapshot is one picture on every machine: the times it shows are local, so its zone is fixed (UTC), as a
    run at another hour and zone (`scripts/dev.py test --tz`) would otherwise move them."""
    if "snap_compare" in request.fixturenames:
        request.getfixturevalue("utc_zone")


@pytest.fixture
def frozen_clock(monkeypatch) -> Callable[[datetime], None]:
    """Stop the project's clock at a moment, in this process (a snapshot's times and ages stay the same): every
    now, today and file day the code reads comes from it. Processes the test starts keep the suite's clock."""

    def freeze(moment: datetime) -> None:
        monkeypatch.setattr(clock, "timestamp", moment.timestamp)

    return freeze


@pytest.fixture
def home(tmp_path) -> Home:
    home = Home(tmp_path / "home")
    make_bot(home)
    return home


@dataclass(frozen=True)
class WrittenDemo:
    """A demo home as `omb-tui demo` writes it (`write_demo_home(home)`, for the real today and time), and when the
    writing finished. Never used itself: a test takes a copy."""

    root: Path
    finished: datetime

    def copy_to(self, root: Path) -> Home:
        """A private copy at `root`; copy2 keeps the modes and mtimes, so nothing in it looks changed outside."""
        shutil.copytree(self.root, root, symlinks=True, copy_function=shutil.copy2)
        return Home(root)


@pytest.fixture(scope="session")
def todays_demo(tmp_path_factory) -> Callable[[], WrittenDemo]:
    """The demo home of this hour, written once a process: writing one takes seconds (hundreds of fsynced files),
    copying it a fifth of a second. A new one is written when the hour or the time zone has changed since, so a
    copy holds what a demo written at that moment would (its days, last night, the tidy hour)."""
    from omb_tui.core.index.recall_index import close_all
    from omb_tui.demo.home import write_demo_home

    written: dict[tuple, WrittenDemo] = {}

    def demo() -> WrittenDemo:
        key = (clock.now().strftime("%Y-%m-%d %H"), time.tzname, time.timezone)
        if key not in written:
            home = Home(tmp_path_factory.mktemp("demo-written") / "home")
            write_demo_home(home)
            close_all()
            written[key] = WrittenDemo(home.root, clock.now_utc())
        return written[key]

    return demo


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(home, capsys, monkeypatch):
    """Run omb_tui.cli.main in-process; `--home` is the fixture's home unless with_home=False."""
    from omb_tui.cli import main

    def run(*argv: str, stdin: bytes = b"", with_home: bool = True) -> CliResult:
        capsys.readouterr()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        args = (["--home", str(home.root)] if with_home else []) + list(argv)
        try:
            code = main(args)
        except SystemExit as exc:  # argparse: --help and usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def run_exe(home, tmp_path):
    """Run the installed command in a subprocess with OMB_HOME set; output stays bytes."""

    def run(
        *argv: str,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
        module: bool = False,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[bytes]:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OMB_", "PYTHONIOENCODING"))}
        full_env.update({"OMB_HOME": str(home.root), "HOME": str(tmp_path / "user"), "PYTHONUTF8": "1"})
        full_env.update(clock.carried_env())  # the suite's clock (scripts/dev.py test --today)
        full_env.update(env or {})
        command = [sys.executable, "-m", "omb_tui.cli"] if module else omb_tui_command()
        return subprocess.run(command + list(argv), input=stdin, capture_output=True, env=full_env, timeout=timeout)

    return run
