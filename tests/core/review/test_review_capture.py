# ruff: noqa: F811 - the fixtures imported from fake_llm are the test arguments
"""Capture rows carry the quotes they rest on, so Review shows for each captured fact the person's
own words. Model answers come from the scripted server in tests/support/fake_llm.py on 127.0.0.1."""

from __future__ import annotations

import pytest
from support.capture import VEG, answer, fact, make_chat
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures

from omb_tui.core.journal.journal import Journal
from omb_tui.core.review.runs import review
from omb_tui.core.upkeep.capture import capture, quotes_note

pytestmark = pytest.mark.dates


def test_each_captured_row_notes_its_quotes_and_review_shows_them(llm_home, fake_llm):
    make_chat(
        llm_home,
        [VEG, ("My sister Asha lives in Goa.", "Lovely."), ("Let's go with the Friday launch then.", "Friday it is.")],
    )
    fake_llm.script(
        answer(
            fact("The person is vegetarian", ["I'm vegetarian", "by the way"]),
            fact("The person's sister Asha lives in Goa", ["My sister Asha lives in Goa"], target="memory/family.md"),
            fact("The launch is on Friday", kind="decision", target="memory/travel.md"),
        )
    )
    result = capture(llm_home, "scout")
    rows = {r.file: r for r in Journal(llm_home.journal_path("scout")).rows() if r.run == result.run}
    assert rows["MEMORY.md"].note == 'quotes: "I\'m vegetarian" · "by the way"'
    assert rows["memory/family.md"].note == 'quotes: "My sister Asha lives in Goa"'
    assert rows["memory/travel.md"].note is None  # a decision rests on no quote
    changes = {c.file: c for c in review(llm_home).bots[0].runs[0].changes}
    assert changes["MEMORY.md"].quotes == ["I'm vegetarian", "by the way"]
    assert changes["memory/travel.md"].quotes == [] and changes["memory/travel.md"].reason is None


def test_a_quote_note_is_redacted_and_on_one_line():
    note = quotes_note(["my key is sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6", "two\nlines"])
    assert "a1B2c3D4e5F6" not in note and note.endswith('"two lines"') and "\n" not in note
