"""Recall's block and session_search's hits on the benchmark's bot, compared with a recorded sample.

Spec: memory.md, "Recall before each turn" and "What a bot knows about its other conversations". The
index is tuned for speed (docs/recall.md, "The index"); what a person sees must not move by a byte:
`benchmarks/recall.py --scale 0.1 --sample-only` builds the benchmark's bot (200 topics, 500
conversations, 10 MB) and compares the blocks and hits with those recorded before the index was
changed (`tests/support/fixtures/recall_sample_0.1.json.gz`, written with `--record`). It runs in a process of
its own, with the time zone fixed, and twice, with two hash seeds: a set of words comes in another order
under another seed, and a score summed in that order once ranked two near-equal hits the other way.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.repo import ROOT

pytestmark = pytest.mark.dates  # notes ranked by their age on the clock's day


@pytest.mark.parametrize("hash_seed", [0, 2])
def test_recall_and_search_give_the_recorded_sample_byte_for_byte_whatever_the_hash_seed(hash_seed):
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "recall.py"),
            "--scale",
            "0.1",
            "--sample-only",
            "--hash-seed",
            str(hash_seed),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert "byte for byte as recorded" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0
