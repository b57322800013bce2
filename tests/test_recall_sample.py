"""Recall's block and session_search's hits on the benchmark's bot, compared with a recorded sample.

Spec: memory.md, "Recall before each turn" and "What a bot knows about its other conversations". The
index is tuned for speed (docs/recall.md, "The index"); what a person sees must not move by a byte:
`benchmarks/recall.py --scale 0.1` builds the same bot (200 topics, 500 conversations, 10 MB), and
the blocks and hits it gives were recorded before the index was changed
(`tests/fixtures/recall_sample_0.1.json.gz`, written by `benchmarks/recall.py --scale 0.1 --record`).
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from omb_tui.core.memory.paths import Home
from omb_tui.core.recall.recall_index import RecallIndex

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "recall.py"


def _benchmark():
    spec = importlib.util.spec_from_file_location("recall_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")  # the sample's times and days were recorded in UTC
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_recall_and_search_give_the_recorded_sample_byte_for_byte(tmp_path, utc):
    bench = _benchmark()
    home = Home(tmp_path / "home")
    maker = bench.TextMaker()
    bench.generate(home, 200, 500, maker)
    bench.settle_times(home)
    with RecallIndex(home, bench.BOT) as index:
        index.refresh(full=True)
        messages = bench.make_messages(maker, bench.SAMPLE_RECALLS)
        items = bench.take_sample(home, index, messages, bench.chats_for(500, len(messages)))
    assert sum(bool(item["result"].get("block")) for item in items) > bench.SAMPLE_RECALLS // 2  # recall finds things
    assert bench.compare_sample(items, bench.sample_path(0.1)) == []
