"""Start-up: launch to first screen painted, to the bot names painted and to every column read, omb-tui on the
demo home vs a bare Textual app.

Each app runs for real in a pseudo-terminal of 80x24 that this script owns; the clock stops at the first
byte of output that carries the awaited text, read as it arrives (no polling that would compete for the
CPU). Runs are interleaved (bare, then omb-tui) so a busy moment hits both alike. Prints the median of
each with its quartiles, the ratio of the medians, and the median of the per-round ratios (each omb-tui
run against the bare run just before it), which a CPU whose speed drifts during the run disturbs least.
Target: omb-tui's first screen, bot names included, at most 1.2x the bare app (the gauge, lines and last
change follow once the engine has read each bot: shown for information).

    .venv/bin/python benchmarks/startup.py [--runs 25]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static
class Bare(App):
    def compose(self):
        yield Header()
        yield Static("bare textual app ready")
        yield Footer()
Bare().run()
"""


def time_to_text(command: list[str], expected: bytes, timeout: float = 30.0) -> tuple[float, float]:
    """Seconds from launch until `expected` is written to the terminal, and the CPU seconds used by then."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of 80x24, as over SSH
        fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.environ.update(TERM="xterm-256color", COLUMNS="80", LINES="24")
        os.execv(command[0], command)
    output = b""
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # the app ended
                break
            if not chunk:
                break
            output += chunk
            if expected in output:
                return time.perf_counter() - start, _stop(pid, fd)
        raise TimeoutError(f"{expected!r} never appeared for {command}: {output[-300:]!r}")
    except BaseException:
        _stop(pid, fd)
        raise


def _stop(pid: int, fd: int) -> float:
    """End the app at once and return the CPU seconds it used."""
    os.kill(pid, signal.SIGKILL)
    _, _, usage = os.wait4(pid, 0)
    os.close(fd)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    omb = Path(sys.executable).with_name("omb-tui")
    # Measured as installed: pip byte-compiles a wheel, an editable checkout may not be (PYTHONDONTWRITEBYTECODE).
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parents[1] / "omb_tui")], check=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        subprocess.run([str(omb), "demo", "--home", str(home)], check=True, capture_output=True)
        bare = Path(tmp) / "bare.py"
        bare.write_text(BARE_APP)
        measured = {
            "bare Textual app": ([sys.executable, str(bare)], b"bare textual app ready"),
            "omb-tui, first screen painted": ([str(omb), "--home", str(home)], b"Last change"),
            # as a person sees it: the first screen is done when the bot names are painted (the demo's first is Atlas)
            "omb-tui, bot names painted": ([str(omb), "--home", str(home)], b"Atlas"),
            # then the engine reads each bot (gauge, lines, last change) and the intro says how many there are
            "omb-tui, every column read": ([str(omb), "--home", str(home)], b"bots in"),  # the demo has several
        }
        for command, expected in measured.values():  # warm the disk cache for each
            time_to_text(command, expected)
        times: dict[str, list[float]] = {name: [] for name in measured}
        cpu: dict[str, list[float]] = {name: [] for name in measured}
        for _ in range(args.runs):
            for name, (command, expected) in measured.items():
                wall, used = time_to_text(command, expected)
                times[name].append(wall)
                cpu[name].append(used)
    bare_times = times["bare Textual app"]
    bare_wall, bare_cpu = statistics.median(bare_times), statistics.median(cpu["bare Textual app"])
    print(f"runs: {args.runs} rounds, interleaved, 80x24 pseudo-terminal, demo home (5 bots)")
    for name in measured:
        wall = statistics.median(times[name])
        low, _, high = statistics.quantiles(times[name], n=4)
        line = f"{name:<30}: median {wall * 1000:6.1f} ms (quartiles {low * 1000:.0f}-{high * 1000:.0f})"
        if name != "bare Textual app":
            paired = statistics.median(mine / bare for mine, bare in zip(times[name], bare_times))
            line += (
                f"  ratio of medians {wall / bare_wall:.2f}x, per round {paired:.2f}x"
                f"  cpu {statistics.median(cpu[name]) / bare_cpu:.2f}x"
            )
            if name != "omb-tui, every column read":  # the target is the first screen as a person sees it
                line += "  (target <= 1.2x)"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
