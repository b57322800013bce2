#!/usr/bin/env python3
"""Set-up and everyday commands on a machine that has only Python 3.11+.

    python3 scripts/dev.py demo    # venv from the lock (first use), demo home, open the app
    python3 scripts/dev.py test    # venv from the lock (first use), the checks, then every test

`test` first runs the checks: ruff's formatter and linter, the import contracts, and the type checker (mypy
over omb_tui/core, as configured in pyproject.toml); the tests run only when all of them pass.

The virtual environment lives in .venv and is built from requirements.lock with
pip's --require-hashes and --no-deps, so every installed file matches a pinned hash and
nothing is resolved at install time; `pip check` confirms the set is whole. It is
rebuilt when the lock or pyproject.toml changes.

`test --today WHEN [--tz ZONE]` runs the suite as if the clock said WHEN, in the time zone ZONE (an IANA name such
as Pacific/Auckland; default: the machine's). WHEN is a local time (2027-01-01T02:30, or a day, at the time it is
now), a number of days from now (+400d, -30d), or new-year (the next 1 January at 02:30). The shift goes to every
process of the run in OMB_TUI_CLOCK_SHIFT, which the project's one clock reads (omb_tui/core/memory/clock.py,
docs/clock.md); TZ goes the same way. `test --dates` is what CI adds after the suite: the date-sensitive tests
(`-m dates`) once more at the next 1 January, 02:30 in Pacific/Auckland (UTC+13 then, so UTC is still on 31
December of the year before).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

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


def ensure_venv() -> None:
    """Create .venv from the lock unless it already matches it."""
    fingerprint = _lock_fingerprint()
    if STAMP.exists() and STAMP.read_text().strip() == fingerprint and _bin("omb-tui").exists():
        return
    if sys.version_info < (3, 11):
        sys.exit("omb-tui needs Python 3.11 or newer.")
    print("Setting up .venv from requirements.lock (first use only)…", flush=True)
    if not _bin("python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(_bin("python")), "-m", "pip", "--disable-pip-version-check", "-q"]
    # The lock holds every package the project needs, each pinned with its hashes: nothing is resolved here
    # (--no-deps). Resolving again let a release published after the lock take part: a new httpx made pip
    # refuse the lock, as an extra of it (httpx[http2]) was not pinned by itself. `pip check`, after the project is
    # in, confirms that the packages (the project's own requirements too) satisfy one another.
    subprocess.run([*pip, "install", "--require-hashes", "--no-deps", "-r", str(LOCK)], check=True)
    # The project itself: editable, built with the hatchling the lock just installed.
    subprocess.run([*pip, "install", "--no-deps", "--no-build-isolation", "-e", str(ROOT)], check=True)
    subprocess.run([*pip, "check"], check=True)
    STAMP.write_text(fingerprint)


def byte_compile() -> None:
    """Compile the package as pip does for an installed wheel: an editable checkout is otherwise compiled
    again at every start when PYTHONDONTWRITEBYTECODE is set (as on many servers and containers). Before the
    tests too: the commands they run in a subprocess then take a fifth less processor time."""
    subprocess.run([str(_bin("python")), "-m", "compileall", "-q", str(ROOT / "omb_tui")], check=True)


# The checks that run before the tests, each failing the command when it fails (README, "Testing").
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
    if not argv or argv[0] not in {"demo", "test", "setup"}:
        print(__doc__)
        return 2
    ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "setup":
        return 0
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
