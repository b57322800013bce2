"""How fast the journal screen opens on a 100,000-row journal, and with how much memory.

Generates a journal for one bot in a temporary home (short diffs; every row keeps its earlier text, a few
KB on one row in five), then opens the app headless, presses `j` and waits until the list draws its first
rows. Prints the time from app start and from the key press, the time until every row is indexed, the peak
memory (tracemalloc peak, and the process's maxrss), and the same for a 1,000-row journal with the ratio.
Targets (docs/performance.md): under 0.3 s and 150 MB. Each measurement runs in a fresh process so they cannot share
caches or memory peaks. Figures only; nothing is asserted.

    .venv/bin/python benchmarks/journal_open.py [--rows 100000] [--small 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

BOT_ID = "bench"
ROOT = Path(__file__).resolve().parent.parent
WORDS = (
    "the person prefers short replies lives in Pune likes window seats trains office project deadline "
    "friday notes invoice client meeting Berlin tea coffee report draft weekly review plan"
).split()


def _text(rng: random.Random, size: int) -> str:
    lines, total = [], 0
    while total < size:
        line = (
            f"- 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} · "
            + " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
            + "\n"
        )
        lines.append(line)
        total += len(line)
    return "".join(lines)


def _diff(rng: random.Random, file: str) -> str:
    removed = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))
    added = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))
    return (
        f"--- a/{file}\n+++ b/{file}\n@@ -{rng.randint(1, 80)},3 +{rng.randint(1, 80)},3 @@\n"
        f" - context line\n-- {removed}\n+- {added}\n - context line\n"
    )


def make_home(root: Path, rows: int, seed: int = 4) -> int:
    """A home with one bot and a journal of `rows` rows, written the way the core writes them."""
    from omb_tui.core.files.paths import Home
    from omb_tui.core.journal.journal import REASON_CREDENTIAL
    from omb_tui.core.turn.bot import Bot

    home = Home(root)
    workspace = home.workspace(BOT_ID)
    (workspace / "memory" / "log").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\n- short replies, always\n", encoding="utf-8")
    home.bots_dir.mkdir(parents=True, exist_ok=True)
    home.settings_path(BOT_ID).write_text('{"name": "Bench"}\n', encoding="utf-8")
    Bot(home, BOT_ID).look()

    rng = random.Random(seed)
    small = [_text(rng, rng.randint(150, 900)) for _ in range(64)]
    large = [_text(rng, rng.randint(2000, 6000)) for _ in range(64)]
    topics = [f"memory/{name}.md" for name in ("travel", "clients", "health", "projects", "family", "food")]
    kinds = [
        ("bot", "during a task"),
        ("bot", "during a task"),
        ("bot", "during a task"),
        ("person", "in Settings"),
        ("person", "changed outside the app"),
        ("import", "command line"),
        ("Memory upkeep", "upkeep step"),
        ("person", "undo"),
    ]
    start = datetime(2025, 12, 1, tzinfo=UTC)
    path = home.journal_path(BOT_ID)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as journal:
        for number in range(rows):
            roll = rng.random()
            file = (
                "MEMORY.md"
                if roll < 0.55
                else rng.choice(topics)
                if roll < 0.85
                else f"memory/log/2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}.md"
            )
            who, how = rng.choice(kinds)
            before = rng.choice(large) if rng.random() < 0.2 else rng.choice(small)
            undoable = rng.random() > 0.01
            at = start + timedelta(seconds=number * 300 + rng.randint(0, 200))
            # the same keys in the same order as JournalRow.to_line, without paying for asdict per row
            row = {
                "id": f"{int(at.timestamp() * 1e6):x}-{number % 0xFFFF:04x}",
                "at": at.isoformat(timespec="milliseconds"),
                "bot": BOT_ID,
                "who": who,
                "how": how,
                "file": file,
                "before_hash": f"{rng.getrandbits(256):064x}",
                "after_hash": f"{rng.getrandbits(256):064x}",
                "diff": _diff(rng, file),
                "before_text": before if undoable else None,
                "undoable": undoable,
                "not_undoable_reason": None if undoable else REASON_CREDENTIAL,
                "chat": rng.choice(["Plans", "Follow-up", "Invoices", None]) if who == "bot" else None,
                "undo_of": None,
                "step": None,
                "note": None,
            }
            journal.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    return path.stat().st_size


def _maxrss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


async def _wait(condition) -> None:
    while not condition():
        await asyncio.sleep(0.0005)


async def _open(root: Path) -> dict:
    from omb_tui.app.app import make_app
    from omb_tui.core.files.paths import Home

    figures: dict = {}
    marks: dict[str, float] = {}
    started = time.perf_counter()
    from omb_tui.app.screens import journal
    from omb_tui.app.widgets import journal_list

    figures["import_s"] = time.perf_counter() - started
    # Marks: when the screen starts reading (composed, mounted, styled) and when a row is first drawn.
    reload, render_row = journal.JournalScreen.reload, journal_list.JournalList._render_row

    def marked_reload(self, **kwargs):
        marks.setdefault("reading", time.perf_counter())
        return reload(self, **kwargs)

    def marked_render_row(self, *args):
        marks.setdefault("drawn", time.perf_counter())
        return render_row(self, *args)

    journal.JournalScreen.reload = marked_reload
    journal_list.JournalList._render_row = marked_render_row

    app = make_app(Home(root), watch=False, bot_id=BOT_ID)
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(lambda: app.screen.__class__.__name__ == "FilesScreen")
        await pilot.pause()
        await app.workers.wait_for_complete()
        figures["app_ready_s"] = time.perf_counter() - started
        await pilot.press("escape")  # out of the files screen's editor, where j would be typed
        await pilot.pause()
        rss_before = _maxrss_mb()
        pressed = time.perf_counter()
        await pilot.press("j")
        await _wait(lambda: "drawn" in marks)
        figures["first_rows_from_key_s"] = marks["drawn"] - pressed + figures["import_s"]
        figures["screen_switch_s"] = marks["reading"] - pressed + figures["import_s"]
        figures["list_first_rows_s"] = marks["drawn"] - marks["reading"]
        figures["first_rows_from_start_s"] = marks["drawn"] - started
        listing = app.screen.journal_list
        await _wait(lambda: not listing.reading)
        figures["all_rows_indexed_from_key_s"] = time.perf_counter() - pressed
        figures["rows"] = listing.total
        await pilot.pause()

        # the list's own part again, without the first-time cost of switching to a new screen
        marks.clear()
        reread = time.perf_counter()
        listing.open(listing.path)
        await _wait(lambda: "drawn" in marks)
        figures["reread_first_rows_s"] = marks["drawn"] - reread
        await _wait(lambda: not listing.reading)
        figures["reread_all_rows_s"] = time.perf_counter() - reread

        filtered = time.perf_counter()
        app.screen.filter_box.value = "who:person day:2025-12"
        app.screen.apply_filter()
        await _wait(lambda: not listing.filtering)
        figures["filter_s"] = time.perf_counter() - filtered
        figures["filter_matches"] = listing.shown
        await pilot.press("end")
        await pilot.pause()
        figures["widgets_on_screen"] = len(list(app.screen.query("*")))
        figures["maxrss_mb"] = _maxrss_mb()
        figures["maxrss_growth_mb"] = figures["maxrss_mb"] - rss_before
    return figures


def measure(root: Path, trace: bool) -> dict:
    """One measurement in this process: times, or (with trace) the tracemalloc peak."""
    if trace:
        import tracemalloc

        tracemalloc.start()
    figures = asyncio.run(_open(root))
    if trace:
        _, peak = tracemalloc.get_traced_memory()
        figures = {"tracemalloc_peak_mb": peak / (1024 * 1024)}
    return figures


def _child(root: Path, trace: bool) -> dict:
    command = [sys.executable, __file__, "--measure", str(root)] + (["--trace"] if trace else [])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.trace)))
        return

    sys.path.insert(0, str(ROOT))
    results = {}
    with tempfile.TemporaryDirectory(prefix="omb-journal-bench-") as folder:
        for rows in (args.rows, args.small):
            root = Path(folder) / f"home-{rows}"
            began = time.perf_counter()
            size = make_home(root, rows)
            made = time.perf_counter() - began
            figures = _child(root, trace=False)
            figures.update(_child(root, trace=True))
            figures["journal_mb"] = size / (1024 * 1024)
            figures["generated_s"] = made
            results[rows] = figures
            print(f"\n{rows:,} rows · journal {figures['journal_mb']:.1f} MB (generated in {made:.1f} s)")
            print(f"  first rows drawn, from the key press : {figures['first_rows_from_key_s'] * 1000:7.1f} ms")
            print(
                f"    switching to the new screen         : {figures['screen_switch_s'] * 1000:7.1f} ms"
                f"  (import, compose, first-time CSS; the same for any journal)"
            )
            print(f"    the list: first rows read and drawn : {figures['list_first_rows_s'] * 1000:7.1f} ms")
            print(
                f"  first rows drawn, from app start     : {figures['first_rows_from_start_s'] * 1000:7.1f} ms"
                f"  (app ready {figures['app_ready_s'] * 1000:.0f} ms)"
            )
            print(
                f"  every row indexed, from the key press: {figures['all_rows_indexed_from_key_s'] * 1000:7.1f} ms"
                f"  ({figures['rows']:,} rows)"
            )
            print(
                f"  read again (Ctrl+R): first rows drawn : {figures['reread_first_rows_s'] * 1000:7.1f} ms"
                f"  (every row {figures['reread_all_rows_s'] * 1000:.0f} ms)"
            )
            print(
                f"  filter who:person day:2025-12        : {figures['filter_s'] * 1000:7.1f} ms"
                f"  ({figures['filter_matches']:,} match)"
            )
            print(f"  tracemalloc peak                     : {figures['tracemalloc_peak_mb']:7.1f} MB")
            print(
                f"  maxrss (whole process)               : {figures['maxrss_mb']:7.1f} MB"
                f"  (+{figures['maxrss_growth_mb']:.1f} MB while on the journal)"
            )
            print(f"  widgets on the journal screen        : {figures['widgets_on_screen']:7d}")
    big, small = results[args.rows], results[args.small]
    print(f"\nratio {args.rows:,} / {args.small:,} rows:")
    for key, label in (
        ("first_rows_from_key_s", "first rows from the key"),
        ("list_first_rows_s", "the list's part"),
        ("reread_first_rows_s", "first rows, read again"),
        ("reread_all_rows_s", "every row, read again"),
        ("tracemalloc_peak_mb", "tracemalloc peak"),
        ("maxrss_mb", "maxrss"),
    ):
        print(f"  {label:24s} {big[key] / small[key]:.2f}x")
    print("\ntargets: under 0.3 s and 150 MB")


if __name__ == "__main__":
    main()
