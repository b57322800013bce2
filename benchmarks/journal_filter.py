"""How fast the core's journal filter goes through a 100,000-row journal, against a baseline in the same run.

Builds the journal benchmarks/journal_open.py builds (short diffs, every row keeping its earlier text, a few
KB on one row in five), then times, each best of --runs:

  - the scan the app's filter runs in its thread: every line from the end backwards, matched on the few
    fields the filter reads (core journal_reader.lines_backward + JournalFilter.matches_line), keeping offsets;
  - `omb-tui journal --filter`'s read: the same scan, then each matching row parsed whole (JournalFilter.rows);
  - the baseline: json.loads of every line, testing the same fields (the plain way to filter ndjson);
  - with ripgrep (or grep) on PATH: counting the lines that hold "who":"person", a floor for reading the file.

Figures only; no time is asserted (the three ways must agree on what matches).

    .venv/bin/python benchmarks/journal_filter.py [--rows 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from journal_open import BOT_ID, make_home  # noqa: E402  (the same journal as the open benchmark)

from omb_tui.core.files.paths import Home  # noqa: E402
from omb_tui.core.journal.filter import JournalFilter  # noqa: E402
from omb_tui.core.journal.journal import Journal  # noqa: E402
from omb_tui.core.journal.reader import lines_backward  # noqa: E402
from omb_tui.core.journal.when import local_time  # noqa: E402

FILTERS = ("who:person day:2025-12", "plans file:travel", "how:undo")


def best_of(runs: int, measure) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        began = time.perf_counter()
        result = measure()
        times.append(time.perf_counter() - began)
    return min(times), result


def app_scan(path: Path, journal_filter: JournalFilter) -> int:
    """What the journal list's filter thread does, without handing batches to the screen."""
    chat = journal_filter.needs_chat
    matches_line = journal_filter.matches_line
    found = []
    with open(path, "rb") as handle:
        size = handle.seek(0, 2)
        for offset, block, start, stop in lines_backward(handle, size):
            if matches_line(block, start, stop, chat=chat):
                found.append(offset)
    return len(found)


def json_baseline(path: Path, text: str) -> int:
    """Every line through json.loads, then the same tests as the filter (case-folded, the local day)."""
    journal_filter = JournalFilter.parse(text)
    count = 0
    with open(path, "rb") as handle:
        for line in handle:
            row = json.loads(line)
            ok = True
            for name, value in journal_filter.fields:
                if name == "day":
                    moment = local_time(row["at"])
                    ok = ok and moment is not None and moment.strftime("%Y-%m-%d").startswith(value)
                else:
                    ok = ok and value in (row.get(name) or "").casefold()
            seen = " ".join(row.get(name) or "" for name in ("file", "who", "how", "chat")).casefold()
            ok = ok and all(word in seen for word in journal_filter.words)
            count += ok
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="omb-journal-filter-") as folder:
        root = Path(folder) / "home"
        size = make_home(root, args.rows)
        path = Home(root).journal_path(BOT_ID)
        journal = Journal(path)
        print(f"{args.rows:,} rows · journal {size / (1024 * 1024):.0f} MB · best of {args.runs} runs\n")
        print(f"{'filter':28s} {'app scan':>10s} {'CLI rows':>10s} {'json.loads':>11s}  matches")
        for text in FILTERS:
            journal_filter = JournalFilter.parse(text)
            scan_s, matches = best_of(args.runs, lambda f=journal_filter: app_scan(path, f))
            rows_s, rows = best_of(args.runs, lambda f=journal_filter: f.rows(journal))
            json_s, baseline = best_of(args.runs, lambda t=text: json_baseline(path, t))
            assert matches == len(rows) == baseline, (text, matches, len(rows), baseline)
            print(
                f"{text:28s} {scan_s:9.2f}s {rows_s:9.2f}s {json_s:10.2f}s  {matches:,}"
                f"  (app scan {json_s / scan_s:.1f}x faster than json.loads)"
            )
        tool = shutil.which("rg") or shutil.which("grep")
        if tool:
            command = [tool, "-c", '"who":"person"', str(path)]
            grep_s, _ = best_of(args.runs, lambda: subprocess.run(command, capture_output=True, check=False))
            print(f'\n{Path(tool).name} -c \'"who":"person"\' (reading the file, no filter logic): {grep_s:.2f}s')


if __name__ == "__main__":
    main()
