#!/usr/bin/env python3
"""Set-up and everyday commands on a machine that has only Python 3.11+.

    python3 scripts/dev.py demo    # venv from the lock (first use), demo home, open the app
    python3 scripts/dev.py test    # venv from the lock (first use), the checks, then every test
    python3 scripts/dev.py setup   # only the venv from the lock
    python3 scripts/dev.py omb …   # the installed omb-tui with these arguments (as `source .venv/bin/activate` would)

The first set-up takes one to three minutes: it says each step as it starts, counts the packages as pip fetches
them, and says it is still working when pip is silent for a while (installing the wheels says nothing for a minute).

`test` first runs the checks: ruff's formatter and linter, the import contracts, and the type checker (mypy
over omb_tui/core, as configured in pyproject.toml); the tests run only when all of them pass.

The virtual environment lives in .venv and is built from requirements.lock with
pip's --require-hashes and --no-deps, so every installed file matches a pinned hash and
nothing is resolved at install time; `pip check` confirms the set is whole. It is
rebuilt when the lock or pyproject.toml changes.

`test --today WHEN [--tz ZONE]` runs the suite as if the clock said WHEN, in the time zone ZONE (an IANA name such
as Pacific/Auckland; default: the machine's). WHEN is a local time (2027-01-01T02:30, or a day, at the time it is
now), a number of days from now (+400d, -30d), or new-year (the next 1 January at 02:30). The shift goes to every
process of the run in OMB_TUI_CLOCK_SHIFT, which the project's one clock reads (omb_tui/core/base/clock.py,
docs/clock.md); TZ goes the same way. `test --dates` is what CI adds after the suite: the date-sensitive tests
(`-m dates`) once more at the next 1 January, 02:30 in Pacific/Auckland (UTC+13 then, so UTC is still on 31
December of the year before). `test --no-checks --explore` runs only the property tests, on fresh random
examples, and the explore tier the default run leaves out (docs/testing.md).
"""

from __future__ import annotations

import hashlib
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
LOCK = ROOT / "requirements.lock"
STAMP = VENV / ".omb-lock-stamp"
DEMO_HOME = ROOT / ".demo-home"


def _bin(name: str) -> Path:
    return VENV / ("Scripts" if os.name == "nt" else "bin") / name


def _lock_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in (LOCK, ROOT / "pyproject.toml"):
        digest.update(path.read_bytes())
    return digest.hexdigest()


class SetupError(Exception):
    """A set-up step failed: one sentence saying which (pip's own words are above it)."""


# A line at least this often while a step is silent, so a person sees the set-up is still working.
HEARTBEAT_SECONDS = 15.0


def _elapsed(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def lock_package_count(lock: Path = LOCK) -> int:
    """How many packages the lock pins (each `name==version` line)."""
    return sum(1 for line in lock.read_text().splitlines() if re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*==", line))


def _fetched_name(line: str) -> str | None:
    """The package a line of pip's names when pip starts on one (`Collecting x==1`, `Processing /…/x-1.whl`)."""
    head, _, rest = line.partition(" ")
    if head not in ("Collecting", "Processing") or not rest:
        return None
    what = rest.split()[0]
    return Path(what).name.split("-")[0] if head == "Processing" else re.split(r"[=<>!~\[ ]", what)[0]


def run_step(
    command: list[str],
    *,
    total: int | None = None,
    out: TextIO | None = None,
    heartbeat: float = HEARTBEAT_SECONDS,
) -> None:
    """Run one set-up command, saying how it goes on `out`: pip's packages counted against `total` (in place on a
    terminal, every tenth otherwise), then a line whenever it is silent for `heartbeat` seconds. Its stderr goes
    straight through; when it fails, the last lines of its output are shown and SetupError says so."""
    out = out or sys.stdout
    live = out.isatty()
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, errors="replace", bufsize=1)
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(process.stdout, lines), daemon=True).start()
    tail: deque[str] = deque(maxlen=30)  # what pip said, shown when it fails
    fetched, counting, shown = 0, False, ""

    def say(text: str) -> None:
        nonlocal counting
        if counting:  # end the line the count was rewriting
            out.write("\n")
            counting = False
        out.write(f"{text}\n")
        out.flush()

    while True:
        try:
            line = lines.get(timeout=heartbeat)
        except queue.Empty:
            say(f"      still working ({_elapsed(time.monotonic() - started)})…")
            continue
        if line is None:
            break
        tail.append(line)
        if line.startswith("Ignoring ") and total:  # the lock is universal: a package for another platform
            total -= 1
        name = _fetched_name(line)
        if name is not None:
            fetched += 1
            shown = f"      {fetched}/{total} packages ({name})" if total else f"      {fetched} packages ({name})"
            if live:
                out.write(f"\r\033[K{shown}")
                out.flush()
                counting = True
            elif fetched % 10 == 0:
                say(shown)
        elif line.startswith("Installing collected packages:"):
            if fetched % 10 and not live:  # the last count, where the tens left it
                say(shown)
            count = len(line.partition(":")[2].split(","))
            packages = "1 package" if count == 1 else f"{count} packages"
            say(f"      installing {packages} into .venv (pip is silent here; a line every {heartbeat:g} s)…")
    if process.wait() != 0:
        say("".join(f"      | {line}\n" for line in tail).rstrip("\n") or "      (it printed nothing)")
        named = [Path(command[0]).name, *[word for word in command[1:] if not word.startswith("--")][:3]]
        raise SetupError(f"`{' '.join(named)} …` failed (exit {process.returncode}).")


def _pump(stream, lines: queue.Queue) -> None:
    """A step's output, line by line, into `lines`; None at its end."""
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def ensure_venv(out: TextIO | None = None, step: Callable[..., None] = run_step) -> None:
    """Create .venv from the lock unless it already matches it, saying each step (`step` runs one)."""
    out = out or sys.stdout
    fingerprint = _lock_fingerprint()
    if STAMP.exists() and STAMP.read_text().strip() == fingerprint and _bin("omb-tui").exists():
        return
    if sys.version_info < (3, 11):
        sys.exit("omb-tui needs Python 3.11 or newer.")
    started = time.monotonic()
    total = lock_package_count()

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    say("Setting up .venv from requirements.lock (first use only; one to three minutes):")
    if not _bin("python").exists():
        say(f"[1/4] Creating .venv with Python {sys.version.split()[0]}…")
        step([sys.executable, "-m", "venv", str(VENV)], out=out)
    pip = [str(_bin("python")), "-m", "pip", "--disable-pip-version-check"]
    install = [*pip, "install", "--progress-bar", "off"]  # (the count below says how far it is)
    # The lock holds every package the project needs, each pinned with its hashes: nothing is resolved here
    # (--no-deps). Resolving again let a release published after the lock take part: a new httpx made pip
    # refuse the lock, as an extra of it (httpx[http2]) was not pinned by itself. `pip check`, after the project is
    # in, confirms that the packages (the project's own requirements too) satisfy one another.
    say(f"[2/4] Fetching the {total} pinned packages, each checked against its hash…")
    step([*install, "--require-hashes", "--no-deps", "-r", str(LOCK)], total=total, out=out)
    # The project itself: editable, built with the hatchling the lock just installed.
    say("[3/4] Installing omb-tui itself (editable)…")
    step([*install, "--no-deps", "--no-build-isolation", "-e", str(ROOT)], out=out)
    say("[4/4] Checking that the packages satisfy one another (pip check)…")
    step([*pip, "check"], out=out)
    STAMP.write_text(fingerprint)
    say(f".venv is ready ({_elapsed(time.monotonic() - started)}). {on_path_hint()}")


def _shown(path: Path) -> str:
    """A path as a person types it here: relative to the current folder when inside it, else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def on_path_hint() -> str:
    """How to type `omb-tui …` as the README does, printed once the set-up is done (two ways that work as written)."""
    activate = _shown(_bin("activate"))
    return f"To type `omb-tui …`: `source {activate}` (fish: {activate}.fish), or `python3 {_shown(Path(__file__).resolve())} omb …`."


def omb_command(argv: list[str]) -> list[str]:
    """The command `dev.py omb ARGS` runs: the venv's omb-tui with ARGS, as if .venv/bin were on PATH."""
    return [str(_bin("omb-tui")), *argv]


def byte_compile() -> None:
    """Compile the package as pip does for an installed wheel: an editable checkout is otherwise compiled
    again at every start when PYTHONDONTWRITEBYTECODE is set (as on many servers and containers). Before the
    tests too: the commands they run in a subprocess then take a fifth less processor time."""
    subprocess.run([str(_bin("python")), "-m", "compileall", "-q", str(ROOT / "omb_tui")], check=True)


# The checks that run before the tests, each failing the command when it fails (docs/testing.md, "The test command").
CHECKS = (
    ("ruff format", ["ruff", "format", "--check", "--quiet", "."]),
    ("ruff check", ["ruff", "check", "--quiet", "."]),
    ("import contracts", ["lint-imports", "--no-cache"]),
    ("mypy", ["mypy"]),
)


def run_checks_then_tests(pytest_args: list[str], env: dict[str, str] | None = None) -> int:
    """The formatter, the linter, the import contracts and the type checker, then the suite on every core.

    `--no-checks` skips them (to run a few tests quickly); `-n 0` runs the tests in one process."""
    if "--no-checks" in pytest_args:
        pytest_args = [arg for arg in pytest_args if arg != "--no-checks"]
    else:
        for name, command in CHECKS:
            print(f"{name}…", flush=True)
            if subprocess.call([str(_bin(command[0])), *command[1:]], cwd=ROOT) != 0:
                print(f"{name} failed: the tests were not run.", flush=True)
                return 1
    workers = [] if any(arg == "-n" or arg.startswith("-n") for arg in pytest_args) else ["-n", "auto"]
    return subprocess.call(
        [str(_bin("python")), "-m", "pytest", *workers, *pytest_args], cwd=ROOT, env={**os.environ, **(env or {})}
    )


# What `test --dates` runs (CI, after the suite): the date-sensitive tests at a year's end, before the tidy hour,
# in a zone whose local day and month and year are not UTC's.
DATES_RUN = ["--today", "new-year", "--tz", "Pacific/Auckland", "-m", "dates"]


class ClockError(ValueError):
    """--today or --tz as typed cannot be used: one sentence saying why."""


def local_zone(name: str | None):
    """The zone a --today time is read in: --tz's, or the machine's."""
    if name is None:
        return datetime.now().astimezone().tzinfo
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ClockError(f"--tz {name!r} is not a time zone this machine knows (try Europe/Prague).") from None


def target_moment(when: str, zone, now: datetime) -> datetime:
    """The moment --today names, aware: a local time or day in `zone`, days from `now`, or the next new year."""
    local_now = now.astimezone(zone)
    if when == "new-year":
        return datetime(local_now.year + 1, 1, 1, 2, 30, tzinfo=zone)
    days = re.fullmatch(r"([+-]\d{1,5})d", when)
    if days:
        return local_now + timedelta(days=int(days.group(1)))
    try:
        moment = datetime.fromisoformat(when)
    except ValueError:
        raise ClockError(
            f"--today {when!r} is not a time: use 2027-01-01T02:30, 2027-01-01, +400d or new-year."
        ) from None
    if moment.tzinfo is not None:
        return moment
    if len(when) == 10:  # a day alone: at the time it is now
        moment = datetime.combine(moment.date(), local_now.time().replace(tzinfo=None))
    return moment.replace(tzinfo=zone)


def clock_env(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    """Take --today, --tz and --dates out of the test's arguments; return the rest and the environment they set."""
    rest, env, when, zone_name = [], {}, None, None
    args = iter(argv)
    for arg in args:
        if arg == "--dates":
            rest.extend(["--no-checks", *DATES_RUN[4:]])
            when, zone_name = DATES_RUN[1], DATES_RUN[3]
        elif arg in ("--today", "--tz"):
            value = next(args, None)
            if value is None:
                raise ClockError(f"{arg} needs a value.")
            when, zone_name = (value, zone_name) if arg == "--today" else (when, value)
        elif arg.startswith(("--today=", "--tz=")):
            name, value = arg.split("=", 1)
            when, zone_name = (value, zone_name) if name == "--today" else (when, value)
        else:
            rest.append(arg)
    zone = local_zone(zone_name)
    if zone_name is not None:
        env["TZ"] = zone_name
    if when is not None:
        now = datetime.now().astimezone()
        target = target_moment(when, zone, now)
        env["OMB_TUI_CLOCK_SHIFT"] = f"{target.timestamp() - time.time():.3f}"
        print(
            f"The tests' clock: {target.astimezone(zone):%Y-%m-%d %H:%M %Z (UTC%z)} (a shift of {env['OMB_TUI_CLOCK_SHIFT']} s).",
            flush=True,
        )
    elif zone_name is not None:
        print(f"The tests' time zone: {zone_name} ({datetime.now(zone):%Z, UTC%z}).", flush=True)
    return rest, env


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"demo", "test", "setup", "omb"}:
        print(__doc__)
        return 2
    try:
        ensure_venv(sys.stderr if argv[0] == "omb" else sys.stdout)  # `omb`'s stdout is the command's own
    except SetupError as exc:
        print(f"Setting up .venv failed: {exc}", file=sys.stderr)
        return 1
    command, rest = argv[0], argv[1:]
    if command == "setup":
        return 0
    if command == "omb":
        run = omb_command(rest)
        os.execv(run[0], run)
    if command == "test":
        try:
            rest, env = clock_env(rest)
        except ClockError as exc:
            print(exc, file=sys.stderr)
            return 2
        byte_compile()  # the tests start the installed command hundreds of times: each loads the compiled package
        return run_checks_then_tests(rest, env)
    # demo: write the sample home once, then open the app on it.
    byte_compile()
    omb = str(_bin("omb-tui"))
    if not (DEMO_HOME / "workspaces").exists():
        subprocess.run([omb, "demo", "--home", str(DEMO_HOME)], check=True)
    os.execv(omb, [omb, "--home", str(DEMO_HOME), *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
