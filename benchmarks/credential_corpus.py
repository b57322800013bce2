"""The credential corpus against redaction: prints figures, asserts nothing.

Issue 8, "Credentials". Runs omb_tui/core/redact.py over tests/credential_corpus_data.py and prints
how many fake credentials leaked (any 8-character piece of a secret left counts) and which
harmless lookalikes were changed, then how long redaction takes on a 24 KB note (redaction runs
on every write).

    .venv/bin/python benchmarks/credential_corpus.py
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from credential_corpus_data import CREDENTIALS, LOOKALIKES, score  # noqa: E402

from omb_tui.core.memory.redact import redact  # noqa: E402


def _note(lines: list[str], size: int) -> str:
    """``lines`` repeated, one a line, up to ``size`` characters."""
    out: list[str] = []
    total = 0
    while total < size:
        line = lines[len(out) % len(lines)]
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def _millis(text: str) -> float:
    redact(text)  # the first call imports detect-secrets' patterns
    number = 50
    return min(timeit.repeat(lambda: redact(text), number=number, repeat=5)) / number * 1000


def main() -> None:
    result = score(lambda text: redact(text).text)
    print(result.summary())
    for credential in result.leaked:
        print(f"  leaked: {credential.kind}: {credential.note!r}")
    harmless = _note(LOOKALIKES, 24_000)
    mixed = _note([line for pair in zip(LOOKALIKES, [c.note for c in CREDENTIALS]) for line in pair], 24_000)
    print(f"redact on 24 KB of lookalikes: {_millis(harmless):.2f} ms")
    print(f"redact on 24 KB of lookalikes and credentials: {_millis(mixed):.2f} ms")


if __name__ == "__main__":
    main()
