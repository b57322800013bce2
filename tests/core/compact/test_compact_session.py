"""One compaction session (omb_tui/core/compact/session.py): the prompt, up to three attempts in one conversation
with the validator's errors sent back, the deadline, and a model that cannot be reached. Spec: compact-memory.en.md,
"The nightly run, step by step"; docs/compact.md."""

from __future__ import annotations

import pytest
from support.compact_helpers import (
    ADA,
    ADA_MERGED,
    BOT,
    DEPLOY,
    FLAKY,
    LAUNCH_OLD,
    MEMORY,
    PEANUTS,
    TEA,
    VALID,
    answer,
    change,
    messages_of,
    read_memory,
    write_memory,
)
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.compact.session import MAX_ATTEMPTS, numbered, propose
from omb_tui.core.models.instances import NO_MODEL_CONNECTED


@pytest.fixture
def memory_home(llm_home):
    write_memory(llm_home)
    return llm_home


def test_a_valid_change_set_is_accepted_in_one_attempt_and_nothing_is_written(memory_home, fake_llm):
    fake_llm.script(VALID)
    proposal = propose(memory_home, BOT)

    assert proposal.ok and len(proposal.attempts) == 1 and proposal.attempts[0].errors == []
    assert [(c.category, c.original) for c in proposal.changes] == [
        ("superseded", LAUNCH_OLD),
        ("detail", DEPLOY),
        ("merge", ADA),
    ]
    assert proposal.changes[2].merged == ADA_MERGED
    assert read_memory(memory_home) == MEMORY  # the session only proposes


def test_the_prompt_shows_the_numbered_file_and_what_already_loads_every_turn(memory_home, fake_llm):
    memory_home.about_me_path.write_text("- I am a vegetarian living in Pune\n", encoding="utf-8")
    (memory_home.workspace(BOT) / "INSTRUCTIONS.md").write_text("Answer in English.\n", encoding="utf-8")
    write_memory(memory_home, "# Keep\n\n- likes green tea in the morning\n", rel="memory/keep.md")
    fake_llm.script(answer())

    proposal = propose(memory_home, BOT)

    system, user = messages_of(fake_llm, 1)
    for category in ("superseded", "detail", "duplicate", "ephemeral", "stale-section", "merge"):
        assert f"- {category}: " in system["content"]
    assert "I am a vegetarian living in Pune" in user["content"]
    assert "Answer in English." in user["content"]
    assert "likes green tea in the morning" in user["content"]
    assert " 6| - 2026-01-05 · from chat · the launch moved to March" in user["content"]
    assert proposal.context == ["About me", "INSTRUCTIONS.md", "memory/keep.md"]
    assert proposal.keep == ["likes green tea in the morning"]


def test_lines_are_numbered_without_changing_them():
    assert numbered("a\n\nb\n") == "1| a\n2| \n3| b"


INVALID = {
    "not verbatim": (change("superseded", LAUNCH_OLD.replace("March", "march")), "is not in the file"),
    "found twice": (change("detail", "Ada leads the launch"), "occurs 2 times in the file"),
    "overlapping": (
        answer(change("superseded", LAUNCH_OLD), change("ephemeral", "the launch moved to March\n- 2026")),
        "overlaps",
    ),
    "merge longer": (change("merge", ADA, merged=ADA + "- and more\n"), "must be shorter"),
    "merge across subsections": (
        change(
            "merge", "- 2026-02-04 · from chat · Ada leads the launch team too\n\n### Debugging\n", merged="- Ada\n"
        ),
        "may not include a heading line",
    ),
    "over half deleted": (change("stale-section", MEMORY.split("## Person")[0]), "more than half"),
    "health line": (change("superseded", PEANUTS), "about health, diet or allergies"),
    "broken JSON": ('{"changes": [', "holds no JSON object"),
    "prose and no JSON": ("I would remove the old launch line.", "holds no JSON object"),
}


@pytest.mark.parametrize("kind", list(INVALID))
def test_each_invalid_kind_goes_back_with_its_errors_and_the_second_attempt_is_accepted(memory_home, fake_llm, kind):
    first, expected = INVALID[kind]
    first_answer = first if isinstance(first, str) else answer(first)
    fake_llm.script(first_answer, answer(change("ephemeral", FLAKY, "A resolved incident.")))

    proposal = propose(memory_home, BOT)

    assert proposal.ok and len(proposal.attempts) == 2
    assert any(expected in error for error in proposal.attempts[0].errors), proposal.attempts[0].errors
    assert [c.original for c in proposal.changes] == [FLAKY]
    second = messages_of(fake_llm, 2)
    assert second[:2] == messages_of(fake_llm, 1)[:2]  # the same session: the opening as it was
    assert second[2] == {"role": "assistant", "content": first_answer}
    assert second[3]["role"] == "user"
    for error in proposal.attempts[0].errors:
        assert f"- {error}" in second[3]["content"]


def test_a_keep_list_line_is_refused_and_named_in_the_retry(memory_home, fake_llm):
    write_memory(memory_home, "- likes green tea in the morning\n", rel="memory/keep.md")
    fake_llm.script(answer(change("duplicate", TEA, "On the keep list already.")), answer())

    proposal = propose(memory_home, BOT)

    assert "is on the keep list" in proposal.attempts[0].errors[0]
    assert "is on the keep list" in messages_of(fake_llm, 2)[3]["content"]
    assert proposal.ok and proposal.changes == []


def test_prose_around_a_valid_json_object_is_accepted(memory_home, fake_llm):
    fake_llm.script("Here is my audit:\n```json\n" + answer(change("ephemeral", FLAKY, "Resolved.")) + "\n```\n")
    proposal = propose(memory_home, BOT)
    assert proposal.ok and len(proposal.attempts) == 1 and proposal.changes[0].original == FLAKY


def test_three_rejected_answers_give_an_error_and_no_change(memory_home, fake_llm):
    fake_llm.script(*[answer(change("superseded", PEANUTS))] * MAX_ATTEMPTS, VALID)

    proposal = propose(memory_home, BOT)

    assert not proposal.ok and proposal.changes == []
    assert len(proposal.attempts) == MAX_ATTEMPTS and len(fake_llm.requests) == MAX_ATTEMPTS
    assert proposal.error.startswith("The model's change-set was rejected 3 times; the last time: Change 1: ")
    assert len(messages_of(fake_llm, 3)) == 6  # two answers and two lists of errors after the opening


def test_a_slow_answer_past_the_deadline_ends_the_session(memory_home, fake_llm):
    fake_llm.script(answer(change("superseded", PEANUTS)), {"delay": 30, "content": VALID})

    proposal = propose(memory_home, BOT, deadline_s=2)

    assert not proposal.ok and proposal.changes == []
    assert proposal.error == "No valid change-set within the 2-second limit (1 attempt answered)."
    assert not proposal.model_unreachable


def test_a_model_that_cannot_be_reached_is_one_sentence(home):
    write_memory(home)
    proposal = propose(home, BOT)
    assert proposal.model_unreachable and proposal.changes == []
    assert proposal.error == NO_MODEL_CONNECTED  # config.json names no instance: how to connect one, whole


def test_a_model_that_cannot_serve_the_bot_is_one_sentence_saying_why(home, fake_llm):
    write_memory(home)
    write_llm_config(home, fake_llm, helper=None)
    proposal = propose(home, BOT)
    assert proposal.model_unreachable and proposal.changes == [] and fake_llm.requests == []
    assert proposal.error.startswith("No model answered: no helper model is set")


def test_an_empty_file_needs_no_call(llm_home, fake_llm):
    write_memory(llm_home, "")
    proposal = propose(llm_home, BOT)
    assert proposal.ok and proposal.changes == [] and fake_llm.requests == []
