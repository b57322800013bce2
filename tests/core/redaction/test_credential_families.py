"""Fresh credential shapes by family (tests/support/credential_fresh_data.py): each family's keys, drawn at random in the
shape of their kind, are redacted whole as one mark, and the lookalikes next to them are left as written. The same
credentials are part of the corpus (tests/support/credential_corpus_data.py), so every write path's corpus test runs them."""

from __future__ import annotations

import pytest
from support.credential_fresh_data import FAMILIES, FRESH_LOOKALIKES, VENDOR_SHAPES

from omb_tui.core.redaction.redact import Redaction, mark, redact


@pytest.mark.parametrize("family", FAMILIES)
def test_every_credential_of_the_family_is_redacted_whole(family: str) -> None:
    missed = []
    for credential in FAMILIES[family]:
        result = redact(credential.note)
        if result != Redaction(credential.before + mark(len(credential.secret)) + credential.after, 1):
            missed.append((credential.kind, result.text))
    assert missed == []


def test_the_families_cover_the_vendors_and_forms_asked_for() -> None:
    assert len(VENDOR_SHAPES) >= 40
    kinds = {c.kind for family in FAMILIES.values() for c in family}
    assert {"auth-digest", "auth-custom", "npmrc-auth", "composer-github", "jdbc-oracle", "owner-token"} <= kinds


@pytest.mark.parametrize("line", FRESH_LOOKALIKES)
def test_each_fresh_lookalike_is_untouched(line: str) -> None:
    assert redact(line) == Redaction(line, 0)
