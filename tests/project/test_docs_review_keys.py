"""docs/app.md's Review keys say what the keys do (omb_tui/app/screens/review_keys.py): a key that asks first is
documented as asking, and no page says the cursor marks a run reviewed."""

from __future__ import annotations

import re
from pathlib import Path

from omb_tui.app.screens.review_keys import BINDINGS

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def review_table() -> dict[str, str]:
    """The Review section's key table: each key named in a row's first cell → the row's words."""
    text = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    section = text[text.index("| `j` `k`, ↓ ↑ | move (on Review") :]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("|"):
            break
        first, _, rest = line[1:].partition("|")
        for key in re.findall(r"`([^`]+)`", first):
            rows[key] = rest
    return rows


def test_every_review_key_that_asks_first_is_documented_as_asking():
    rows = review_table()
    asking = [b.key for b in BINDINGS if "asks first" in (b.tooltip or "")]
    assert {"a", "x", "A", "X", "u", "U", "M"} <= set(asking)
    for key in asking:
        assert key in rows, f"docs/app.md's Review table has no row for `{key}`"
        words = rows[key].lower()
        assert "question" in words and "at once" not in words, f"`{key}` asks first; docs/app.md says: {rows[key]}"


def test_no_page_says_the_cursor_marks_a_run_reviewed():
    claims = re.compile(r"cursor (has )?rest(ed|s|ing) on [^.]*(marked|reviewed)|once the cursor has", re.I)
    for page in PAGES:
        text = " ".join(page.read_text(encoding="utf-8").split())
        for sentence in re.split(r"(?<=[.!?])\s", text):
            if "marks nothing" in sentence:
                continue
            assert not claims.search(sentence), f"{page.name}: {sentence}"
