"""Agent CLIs from npm for the `agents` tier: each package installed once per test session into a folder of its own,
with its own npm cache, or the test skipped with the reason (npm missing, no network, the program not running here).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

NPM = shutil.which("npm")
INSTALL_TIMEOUT = 300  # seconds: a first fetch, or a loaded machine

CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.332"
CODEX = "@openai/codex@0.171.0"
CLAUDE_CODE_ACP = "@zed-industries/claude-code-acp@0.16.2"

needs_npm = pytest.mark.skipif(NPM is None, reason="npm is not on PATH (the agent CLIs are installed with it)")


class NotInstalled(Exception):
    """The package could not be installed or its program does not run here: one sentence why."""


def npm_install(folder: Path, package: str, program: str) -> Path:
    """The path of `program` from `package`, installed into `folder` with its own npm cache (kept when already
    there); NotInstalled with the reason when it cannot be."""
    binary = folder / "node_modules" / ".bin" / program
    if NPM is None:
        raise NotInstalled("npm is not on PATH")
    if not binary.exists():
        env = {**os.environ, "npm_config_cache": str(folder / "npm"), "npm_config_update_notifier": "false"}
        try:
            done = subprocess.run(
                [NPM, "install", "--no-audit", "--no-fund", "--prefix", str(folder), package],
                capture_output=True,
                text=True,
                env=env,
                timeout=INSTALL_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            raise NotInstalled(
                f"{package} could not be fetched from the npm registry within {INSTALL_TIMEOUT} s"
            ) from None
        if done.returncode != 0 or not binary.exists():
            lines = done.stderr.strip().splitlines()
            raise NotInstalled(
                f"{package} could not be installed (no network?): {lines[-1] if lines else 'no message'}"
            )
    version = subprocess.run(  # stdin at its end: an ACP agent reads it for the protocol and stops there
        [str(binary), "--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=INSTALL_TIMEOUT
    )
    if version.returncode != 0 and program != "claude-code-acp":  # an ACP agent speaks only the protocol
        raise NotInstalled(f"{package} does not run on this machine: {version.stderr.strip()[:200]}")
    return binary


def install(tmp_path_factory: pytest.TempPathFactory, package: str, program: str) -> Path:
    """The path of `program` from `package`, installed into a fresh folder; skips the test when it cannot be."""
    try:
        return npm_install(tmp_path_factory.mktemp(program), package, program)
    except NotInstalled as why:
        pytest.skip(str(why))


def processes_running_from(folder: Path) -> list[int]:
    """The processes whose command line names `folder` (an install's own) still running; a zombie has ended."""
    root, found = str(folder).encode(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if root in command and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found
