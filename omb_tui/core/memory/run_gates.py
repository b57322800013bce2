"""A gate an upkeep run can hold over its own writes: the nightly guard (docs/guard.md) refuses a change that
undoes a recent upkeep change (a loop) or would pass the night's share of MEMORY.md, and counts a write that
leaves a file byte for byte as it was. It stands here, on the floor of the store that consults it, so the guard
above can hold it without the steps knowing; a write whose actor carries no run, or a run with no gate, is
never touched.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Protocol


class WriteGate(Protocol):
    def refusal(self, rel: str, before: str | None, after: str | None, step: str | None) -> str | None:
        """Why this write must not happen (one sentence), or None to let it through."""

    def unchanged(self, rel: str, step: str | None) -> None:
        """The step wrote a file byte for byte as it was: nothing is written, the guard counts it."""


# What a step says of a change its gate refused (the guard's record says which rule and why).
REFUSED_BY_GUARD = (
    "the nightly guard did not let it be written: a loop, the night's share, or the step is skipped tonight"
)

_gates: dict[str, WriteGate] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def gated_run(run_id: str, gate: WriteGate) -> Iterator[None]:
    """Every write of the run `run_id` passes `gate` while this lasts."""
    with _lock:
        _gates[run_id] = gate
    try:
        yield
    finally:
        with _lock:
            _gates.pop(run_id, None)


def gate_of(run_id: str | None) -> WriteGate | None:
    if run_id is None:
        return None
    with _lock:
        return _gates.get(run_id)
