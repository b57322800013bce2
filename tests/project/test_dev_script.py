"""scripts/dev.py: the first set-up says how it goes, and `omb …` runs the installed command (docs/testing.md)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.repo import ROOT, load_dev

# A stand-in for pip: says what pip says, then stays silent (as pip does while it installs the wheels) until the
# file named by its argument exists.
FAKE_PIP = textwrap.dedent(
    """
    import os, sys, time
    print("Looking in indexes: https://pypi.org/simple", flush=True)
    print("Collecting alpha==1.0 (from -r requirements.lock (line 3))", flush=True)
    print("  Using cached alpha-1.0-py3-none-any.whl", flush=True)
    print("Ignoring pywin32: markers 'sys_platform == \\"win32\\"' don't match your environment", flush=True)
    print("Collecting beta[extra]==2.0 (from -r requirements.lock (line 7))", flush=True)
    print("Processing /opt/files/gamma_lib-3.0-py3-none-any.whl (from -r requirements.lock (line 9))", flush=True)
    print("Installing collected packages: alpha, beta, gamma-lib", flush=True)
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.01)
    print("Successfully installed alpha-1.0 beta-2.0 gamma-lib-3.0", flush=True)
    """
)


class Screen(io.StringIO):
    """What the set-up prints; the first 'still working' line lets the fake pip finish."""

    def __init__(self, release: Path, tty: bool = False):
        super().__init__()
        self.release, self.tty = release, tty

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        if "still working" in text:
            self.release.touch()
        return super().write(text)


@pytest.mark.parametrize("tty", [False, True], ids=["log", "terminal"])
def test_the_set_up_counts_the_packages_and_speaks_while_pip_is_silent(tmp_path, tty):
    dev = load_dev()
    screen = Screen(tmp_path / "release", tty=tty)
    dev.run_step([sys.executable, "-c", FAKE_PIP, str(screen.release)], total=4, out=screen, heartbeat=0.05)
    shown = screen.getvalue()
    assert "3/3 packages (gamma_lib)" in shown
    assert "installing 3 packages into .venv" in shown
    assert "still working (" in shown  # a silent stretch is never silent on the screen
    assert "Looking in indexes" not in shown and "Successfully" not in shown  # pip's chatter stays out
    if tty:  # one line rewritten in place, ended before the next line
        assert "\r\033[K      1/4 packages (alpha)\r\033[K      2/3 packages (beta)" in shown
        assert "(gamma_lib)\n      installing" in shown


def test_a_failing_step_shows_pips_last_words_and_the_command_says_one_sentence(tmp_path, monkeypatch, capsys):
    dev = load_dev()
    failing = (
        "print('Collecting alpha==1.0'); print('ERROR: THESE PACKAGES DO NOT MATCH THE HASHES'); raise SystemExit(1)"
    )
    screen = Screen(tmp_path / "never")
    with pytest.raises(dev.SetupError, match=r"failed \(exit 1\)"):
        dev.run_step([sys.executable, "-c", failing], out=screen, heartbeat=30)
    assert "| ERROR: THESE PACKAGES DO NOT MATCH THE HASHES" in screen.getvalue()

    def broken(out=None):
        raise dev.SetupError("pip install … failed (exit 1).")

    monkeypatch.setattr(dev, "ensure_venv", broken)
    assert dev.main(["setup"]) == 1
    err = capsys.readouterr().err
    assert err == "Setting up .venv failed: pip install … failed (exit 1).\n" and "Traceback" not in err


def test_the_first_set_up_says_each_step_and_how_to_type_omb_tui(tmp_path, monkeypatch):
    dev = load_dev()
    monkeypatch.setattr(dev, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(dev, "STAMP", tmp_path / ".venv" / ".omb-lock-stamp")
    monkeypatch.chdir(tmp_path)  # the paths it names are typed from here
    commands = []

    def step(command, *, total=None, out=None):  # the venv's files appear as the real steps would make them
        commands.append((command[1:4], total))
        (tmp_path / ".venv" / "bin").mkdir(parents=True, exist_ok=True)
        for name in ("python", "omb-tui"):
            (tmp_path / ".venv" / "bin" / name).touch()

    screen = io.StringIO()
    dev.ensure_venv(screen, step=step)
    shown = screen.getvalue()
    assert [line[:5] for line in shown.splitlines() if line.startswith("[")] == ["[1/4]", "[2/4]", "[3/4]", "[4/4]"]
    total = dev.lock_package_count()
    assert total > 50 and f"Fetching the {total} pinned packages" in shown
    assert [given for _, given in commands] == [None, total, None, None]  # pip's install of the lock is counted
    assert ".venv is ready (" in shown and "`source .venv/bin/activate`" in shown
    assert f"`python3 {ROOT / 'scripts' / 'dev.py'} omb …`" in shown  # outside the current folder: in full
    screen = io.StringIO()
    dev.ensure_venv(screen, step=step)  # the lock unchanged: nothing to do, nothing said
    assert screen.getvalue() == "" and len(commands) == 4


def test_dev_omb_runs_the_venvs_omb_tui_with_the_arguments_as_given(monkeypatch):
    dev = load_dev()
    ran = []
    monkeypatch.setattr(dev, "ensure_venv", lambda out=None: None)

    def execv(path, argv):
        ran.append((path, argv))
        raise SystemExit(0)  # as the real one, which never returns

    monkeypatch.setattr(dev.os, "execv", execv)
    with pytest.raises(SystemExit):
        dev.main(["omb", "--home", "my home", "search", "scout", "ORS"])
    omb_tui = str(ROOT / ".venv" / "bin" / "omb-tui")
    assert ran == [(omb_tui, [omb_tui, "--home", "my home", "search", "scout", "ORS"])]


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "activate").exists(), reason="needs the set-up's .venv")
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to source the activate script")
def test_the_printed_way_to_type_omb_tui_works_as_written(monkeypatch):
    dev = load_dev()
    monkeypatch.chdir(ROOT)
    hint = dev.on_path_hint()
    activate = hint.split("`source ", 1)[1].split("`", 1)[0]
    without_venv = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not Path(p, "omb-tui").exists())
    found = subprocess.run(
        ["bash", "-c", f"source {activate} && command -v omb-tui"],
        cwd=ROOT,
        env={**os.environ, "PATH": without_venv},
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0 and Path(found.stdout.strip()) == ROOT / ".venv" / "bin" / "omb-tui"
