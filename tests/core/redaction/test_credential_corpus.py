"""The credential corpus (tests/support/credential_corpus_data.py) against redaction (omb_tui/core/redact.py).

docs/redaction.md: not one fake credential may leak, and every harmless lookalike must
come back unchanged except the few named in KNOWN_FALSE_HITS, each with the reason it remains.
benchmarks/credential_corpus.py prints the same figures.
"""

from __future__ import annotations

import pytest
from support.credential_corpus_data import CREDENTIALS, KNOWN_FALSE_HITS, LOOKALIKES, Credential, score

from omb_tui.core.redaction.redact import Redaction, mark, redact


def _redacted(text: str) -> str:
    return redact(text).text


def test_the_corpus_is_large_enough() -> None:
    assert len(CREDENTIALS) >= 80
    assert len({c.kind for c in CREDENTIALS}) >= 40
    assert len(LOOKALIKES) >= 60
    assert len(set(LOOKALIKES)) == len(LOOKALIKES)


@pytest.mark.parametrize("credential", CREDENTIALS, ids=[f"{i}-{c.kind}" for i, c in enumerate(CREDENTIALS)])
def test_each_credential_is_redacted_and_nothing_else(credential: Credential) -> None:
    result = redact(credential.note)
    assert result.text == credential.before + mark(len(credential.secret)) + credential.after
    assert result.count == 1
    assert redact(result.text) == Redaction(result.text, 0)


@pytest.mark.parametrize("line", LOOKALIKES)
def test_each_lookalike_is_untouched(line: str) -> None:
    result = redact(line)
    if line in KNOWN_FALSE_HITS:
        # Still a false hit: when this fails, it was fixed; take it off KNOWN_FALSE_HITS.
        assert result.changed, f"no longer a false hit, remove it from KNOWN_FALSE_HITS: {line!r}"
    else:
        assert result == Redaction(line, 0)


def test_known_false_hits_are_lookalikes() -> None:
    assert set(KNOWN_FALSE_HITS) <= set(LOOKALIKES)
    assert all(reason.strip() for reason in KNOWN_FALSE_HITS.values())


def test_score_no_leaks_and_only_the_named_false_hits() -> None:
    result = score(_redacted)
    assert result.leaked == []
    assert result.false_hits == [line for line in LOOKALIKES if line in KNOWN_FALSE_HITS]


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_the_whole_corpus_as_one_note(ending: str) -> None:
    # Neighbours must not hide a secret or drag a lookalike in: one long note with
    # every credential and every lookalike, alternating.
    lines = [c.note for c in CREDENTIALS]
    mixed = [line for pair in zip(lines, LOOKALIKES) for line in pair]
    mixed += lines[len(LOOKALIKES) :] + LOOKALIKES[len(lines) :]
    text = ending.join(mixed)
    out = redact(text).text
    for credential in CREDENTIALS:
        assert credential.secret not in out, credential.kind
    for line in LOOKALIKES:
        if line not in KNOWN_FALSE_HITS:
            assert line in out, line
    assert redact(out) == Redaction(out, 0)


def test_same_result_when_lower_casing_changes_the_length() -> None:
    # "İ".lower() is two characters, so positions in the lower-cased text no longer
    # match the original and the detector takes its slower path: it must find the same.
    for line in [c.note for c in CREDENTIALS] + LOOKALIKES:
        assert redact("İ " + line).text == "İ " + redact(line).text, line
