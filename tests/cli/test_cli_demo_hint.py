"""`omb-tui demo` ends with the command that opens the home it wrote: one a person can type as printed."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from omb_tui.core.files.paths import Home

VENV_BIN = str(Path(sys.executable).parent)  # where the set-up put omb-tui


def path_without_omb_tui() -> str:
    """PATH as right after the two set-up commands: no folder on it holds omb-tui."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(folder for folder in folders if not Path(folder, "omb-tui").exists())


def test_the_demos_hint_works_as_printed_when_omb_tui_is_not_on_path(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", path_without_omb_tui())
    home = tmp_path / "demo home"
    result = run_cli("--home", str(home), "demo", with_home=False)
    assert result.code == 0
    hint = result.out.splitlines()[-1]
    assert hint.startswith("Open it with: ")
    words = shlex.split(hint.removeprefix("Open it with: "))
    assert words[-2:] == ["--home", str(home)]
    # typed as printed (a shell finds the command by PATH), with a command that does not open the app
    env = {key: value for key, value in os.environ.items() if not key.startswith("OMB_")}
    ran = subprocess.run([*words, "bots"], env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "scout" in ran.stdout


def test_the_hint_names_omb_tui_alone_when_that_is_the_one_on_path(tmp_path, monkeypatch):
    from omb_tui.cli.demo import open_command

    monkeypatch.setenv("PATH", os.pathsep.join([VENV_BIN, path_without_omb_tui()]))
    home = Home(tmp_path / "home")
    assert open_command(home) == shlex.join(["omb-tui", "--home", str(home.root)])
