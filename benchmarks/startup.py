"""Start-up: launch to first screen painted, omb-tui on the demo home vs a bare Textual app.

Both run for real in a tmux pane (80x24); the clock stops when the pane first shows the app's text.
Prints the median of several runs of each and the ratio (target: omb-tui at most 1.2x the bare app).

    .venv/bin/python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE_APP = '''
from textual.app import App
from textual.widgets import Footer, Header, Static
class Bare(App):
    def compose(self):
        yield Header()
        yield Static("bare textual app ready")
        yield Footer()
Bare().run()
'''


KEEPALIVE = "omb-bench-keepalive"


def keep_tmux_server() -> None:
    """A session that outlives the measured ones, so tmux's server never exits between runs."""
    subprocess.run(["tmux", "new-session", "-d", "-s", KEEPALIVE, "sleep", "3600"], capture_output=True)


def time_to_text(command: list[str], expected: str, timeout: float = 30.0) -> float:
    keep_tmux_server()
    session = f"omb-bench-{time.monotonic_ns()}"
    start = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24", *command], check=True)
    try:
        while time.perf_counter() - start < timeout:
            pane = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True)
            if expected in pane.stdout:
                return time.perf_counter() - start
            time.sleep(0.005)
        raise TimeoutError(f"{expected!r} never appeared for {command}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if not shutil.which("tmux"):
        print("tmux is needed to measure a real terminal start-up.")
        return 1
    omb = Path(sys.executable).with_name("omb-tui")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        subprocess.run([str(omb), "demo", "--home", str(home)], check=True, capture_output=True)
        bare = Path(tmp) / "bare.py"
        bare.write_text(BARE_APP)
        omb_cmd = [str(omb), "--home", str(home)]
        bare_cmd = [sys.executable, str(bare)]
        time_to_text(omb_cmd, "bot(s) in")  # warm the disk cache for both
        time_to_text(bare_cmd, "bare textual app ready")
        painted, listed, bare_times = [], [], []
        for _ in range(args.runs):  # interleaved, so a busy moment hits both alike
            bare_times.append(time_to_text(bare_cmd, "bare textual app ready"))
            painted.append(time_to_text(omb_cmd, "Last change"))  # the bots screen, its table drawn
            listed.append(time_to_text(omb_cmd, "bot(s) in"))  # ... and every bot read and listed
    bare_median = statistics.median(bare_times)
    subprocess.run(["tmux", "kill-session", "-t", KEEPALIVE], capture_output=True)
    print(f"runs: {args.runs} each, 80x24 tmux pane, demo home")
    print(f"bare Textual app              : median {bare_median * 1000:6.1f} ms")
    for label, times in (("omb-tui, first screen painted", painted), ("omb-tui, every bot listed", listed)):
        median = statistics.median(times)
        print(f"{label:<30}: median {median * 1000:6.1f} ms  ratio {median / bare_median:.2f}x (target <= 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
