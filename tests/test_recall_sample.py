"""Recall's block and session_search's hits on the benchmark's bot, compared with a recorded sample.

Spec: memory.md, "Recall before each turn" and "What a bot knows about its other conversations". The
index is tuned for speed (docs/recall.md, "The index"); what a person sees must not move by a byte:
`benchmarks/recall.py --scale 0.1 --sample-only` builds the benchmark's bot (200 topics, 500
conversations, 10 MB) and compares the blocks and hits with those recorded before the index was
changed (`tests/fixtures/recall_sample_0.1.json.gz`, written with `--record`). It runs in a process of
its own: the benchmark fixes the hash seed (the order a set of words is summed in) and the time zone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_recall_and_search_give_the_recorded_sample_byte_for_byte():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "recall.py"), "--scale", "0.1", "--sample-only"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert "byte for byte as recorded" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0
