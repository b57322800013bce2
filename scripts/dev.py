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
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
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


def run_checks_then_tests(pytest_args: list[str]) -> int:
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
    return subprocess.call([str(_bin("python")), "-m", "pytest", *workers, *pytest_args], cwd=ROOT)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"demo", "test", "setup"}:
        print(__doc__)
        return 2
    ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "setup":
        return 0
    if command == "test":
        byte_compile()  # the tests start the installed command hundreds of times: each loads the compiled package
        return run_checks_then_tests(rest)
    # demo: write the sample home once, then open the app on it.
    byte_compile()
    omb = str(_bin("omb-tui"))
    if not (DEMO_HOME / "workspaces").exists():
        subprocess.run([omb, "demo", "--home", str(DEMO_HOME)], check=True)
    os.execv(omb, [omb, "--home", str(DEMO_HOME), *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
