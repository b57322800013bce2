"""The credential corpus against redaction: prints figures, asserts nothing.

docs/redaction.md. Runs omb_tui/core/redact.py over tests/support/credential_corpus_data.py and prints
how many fake credentials leaked (any 8-character piece of a secret left counts) and which
harmless lookalikes were changed, then how long redaction takes on a 24 KB note (redaction runs
on every write); then how many of the credentials' escaped forms (JSON and YAML escapes, inside a
model's answer) still show a secret once decoded, with redaction of the text alone and with
omb_tui/core/redaction/data.py's redact_answer.

    .venv/bin/python benchmarks/credential_corpus.py
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.credential_corpus_data import CREDENTIALS, LOOKALIKES, escaped_forms, score  # noqa: E402

from omb_tui.core.redaction.data import decode_escapes, redact_answer  # noqa: E402
from omb_tui.core.redaction.redact import redact  # noqa: E402


def _note(lines: list[str], size: int) -> str:
    """``lines`` repeated, one a line, up to ``size`` characters."""
    out: list[str] = []
    total = 0
    while total < size:
        line = lines[len(out) % len(lines)]
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def _millis(text: str, redact_text=lambda text: redact(text).text) -> float:
    redact_text(text)  # the first call imports detect-secrets' patterns
    number = 50
    return min(timeit.repeat(lambda: redact_text(text), number=number, repeat=5)) / number * 1000


def _decoded(text: str) -> str:
    """What any number of JSON parses of the text could show."""
    while (decoded := decode_escapes(text)) != text:
        text = decoded
    return text


def _escaped_leaks(redact_text) -> tuple[int, set[str]]:
    """How many escaped forms (tests/credential_corpus_data.escaped_forms, inside a JSON answer) still show their
    secret once decoded, and of how many kinds."""
    leaked = [
        (c.kind, form)
        for c in CREDENTIALS
        for form, escaped in escaped_forms(c).items()
        if c.secret in _decoded(redact_text(f'{{"reason": "{escaped}"}}'))
    ]
    return len(leaked), {kind for kind, _ in leaked}


def main() -> None:
    result = score(lambda text: redact(text).text)
    print(result.summary())
    for credential in result.leaked:
        print(f"  leaked: {credential.kind}: {credential.note!r}")
    harmless = _note(LOOKALIKES, 24_000)
    mixed = _note([line for pair in zip(LOOKALIKES, [c.note for c in CREDENTIALS]) for line in pair], 24_000)
    print(f"redact on 24 KB of lookalikes: {_millis(harmless):.2f} ms")
    print(f"redact on 24 KB of lookalikes and credentials: {_millis(mixed):.2f} ms")
    forms = sum(len(escaped_forms(c)) for c in CREDENTIALS)
    for name, redact_text in (
        ("redact on the JSON text", lambda text: redact(text).text),
        ("redact_answer (escapes decoded)", redact_answer),
    ):
        count, kinds = _escaped_leaks(redact_text)
        print(f"escaped forms, {name}: {count} of {forms} leaked, {len(kinds)} kinds")
    answer = _note([f'{{"reason": "{escaped_forms(c)["quotes"]}"}}' for c in CREDENTIALS], 24_000)
    print(f"redact_answer on a 24 KB answer of escaped credentials: {_millis(answer, redact_answer):.2f} ms")


if __name__ == "__main__":
    main()
