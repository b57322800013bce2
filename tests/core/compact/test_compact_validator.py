"""The compaction change-set validator: what it accepts, each kind of rejection with its sentence, and applying."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from support.compact_helpers import ADA, ADA_MERGED, DEPLOY, LAUNCH_OLD, MEMORY  # noqa: E402 (the shared MEMORY.md)

from omb_tui.core.compact.validator import (
    FileChangedMeanwhile,
    apply_changes,
    apply_validation,
    check_unchanged,
    keep_lines,
    validate,
)
from omb_tui.core.files.disk import text_hash
from omb_tui.core.files.paths import MemoryInputError


def change(category: str, original: str, reason: str = "It no longer holds.", merged: str | None = None) -> dict:
    item = {"category": category, "original": original, "reason": reason}
    if merged is not None:
        item["merged"] = merged
    return item


def check(*changes: dict, text: str = MEMORY, keep: list[str] | None = None, read_hash: str | None = None):
    answer = json.dumps({"changes": list(changes)})
    return validate(text, answer, keep_lines=keep or [], read_hash=read_hash or text_hash(text))


def only_error(validation) -> str:
    assert not validation.ok
    assert len(validation.errors) == 1, validation.errors
    return validation.errors[0]


# ----- a valid change-set -----
def test_a_valid_change_set_is_applied_exactly():
    validation = check(
        change("superseded", LAUNCH_OLD, "The launch date is now set."),
        change("detail", DEPLOY, "A command belongs in a skill."),
        change("merge", ADA, "Two lines say the same of Ada.", merged=ADA_MERGED),
    )
    assert validation.ok, validation.errors
    expected = MEMORY.replace(LAUNCH_OLD, "").replace(DEPLOY, "").replace(ADA, ADA_MERGED)
    assert apply_validation(MEMORY, validation) == expected
    assert [c.start for c in validation.changes] == [MEMORY.index(LAUNCH_OLD), MEMORY.index(DEPLOY), MEMORY.index(ADA)]


def test_prose_and_a_code_fence_around_the_json_are_tolerated():
    answer = 'Here is my audit:\n```json\n{"changes": [' + json.dumps(change("ephemeral", LAUNCH_OLD)) + "]}\n```\n"
    validation = validate(MEMORY, answer, keep_lines=[], read_hash=text_hash(MEMORY))
    assert validation.ok and validation.changes[0].original == LAUNCH_OLD


def test_an_empty_change_set_is_valid_and_changes_nothing():
    validation = check()
    assert validation.ok and apply_validation(MEMORY, validation) == MEMORY


def test_broken_json_is_one_error():
    validation = validate(MEMORY, '{"changes": [', keep_lines=[], read_hash=text_hash(MEMORY))
    assert only_error(validation).startswith("The answer holds no JSON object")


# ----- each kind of invalid change -----
def test_an_original_not_copied_verbatim_is_refused():
    error = only_error(check(change("superseded", LAUNCH_OLD.replace("March", "march"))))
    assert error == (
        "Change 1: the original is not in the file; copy one block character for character so it occurs exactly once."
    )


def test_an_original_found_twice_is_refused():
    error = only_error(check(change("detail", "Ada leads the launch")))
    assert error.startswith("Change 1: the original occurs 2 times in the file;")


def test_overlapping_changes_are_refused():
    error = only_error(
        check(change("superseded", LAUNCH_OLD), change("ephemeral", "the launch moved to March\n- 2026"))
    )
    assert error == "Change 2: its original overlaps the original of change 1; no two may overlap."


def test_a_merge_longer_than_its_original_is_refused():
    error = only_error(check(change("merge", ADA, merged=ADA + "- and more\n")))
    assert error == "Change 1: the merged text must be shorter than the original it replaces."


def test_a_merge_across_subsections_is_refused():
    across = "- 2026-02-04 · from chat · Ada leads the launch team too\n\n### Debugging\n"
    error = only_error(check(change("merge", across, merged="- Ada leads the launch team\n")))
    assert error == "Change 1: a merge may not include a heading line; merge bullets within one ### subsection."


def test_a_merge_outside_a_subsection_is_refused():
    lines = (
        "- 2026-01-03 · from chat · likes green tea in the morning\n- 2026-01-04 · from chat · prefers short replies\n"
    )
    error = only_error(check(change("merge", lines, merged="- 2026-01-04 · likes tea, short replies\n")))
    assert error == "Change 1: a merge must stay inside one ### subsection."


def test_deleting_more_than_half_the_file_is_refused():
    big = MEMORY.split("## Person")[0]
    error = only_error(check(change("stale-section", big)))
    assert error.startswith("The change-set deletes ") and error.endswith("more than half; propose less.")


def test_a_keep_list_line_may_not_be_removed():
    keep = keep_lines("# Keep\n\n- likes green tea in the morning\n")
    tea = "- 2026-01-03 · from chat · likes green tea in the morning\n"
    error = only_error(check(change("ephemeral", tea), keep=keep))
    assert error == (
        "Change 1: the line '- 2026-01-03 · from chat · likes green tea in the morning' is on the keep "
        "list and may not be removed or rewritten."
    )


def test_a_health_line_may_not_be_removed():
    error = only_error(check(change("superseded", "- 2026-01-01 · from chat · allergic to peanuts\n")))
    assert error.endswith("is about health, diet or allergies and may not be removed or rewritten.")


def test_a_rule_the_person_gave_may_not_be_removed():
    error = only_error(check(change("duplicate", "- 2026-01-02 · from chat · never send messages after 22:00\n")))
    assert error.endswith("is a rule the person gave and may not be removed or rewritten.")


def test_a_protected_line_may_not_be_trimmed_either():
    error = only_error(check(change("detail", " after 22:00")))
    assert "is a rule the person gave" in error


def test_an_unknown_category_is_refused():
    error = only_error(check(change("obsolete", LAUNCH_OLD)))
    assert error == (
        "Change 1: the category 'obsolete' is not one of superseded, detail, duplicate, ephemeral, "
        "stale-section, merge."
    )


def test_a_reason_too_long_is_refused():
    error = only_error(check(change("superseded", LAUNCH_OLD, reason="x" * 201)))
    assert error == "Change 1: the reason is 201 characters; keep it to 200 or fewer."


def test_a_reason_over_two_lines_is_refused():
    error = only_error(check(change("superseded", LAUNCH_OLD, reason="Old.\nVery old.")))
    assert error == "Change 1: the reason must be one short sentence on one line."


def test_merged_on_a_non_merge_is_refused():
    error = only_error(check(change("superseded", LAUNCH_OLD, merged="- shorter\n")))
    assert error == 'Change 1: only a merge gives "merged"; a superseded change deletes its original.'


def test_a_merge_without_merged_text_is_refused():
    error = only_error(check(change("merge", ADA)))
    assert error == 'Change 1: a merge must give the "merged" text that replaces its original.'


def test_errors_are_numbered_by_change():
    validation = check(change("superseded", LAUNCH_OLD), change("detail", "not in the file"), change("bogus", DEPLOY))
    assert [e.split(":")[0] for e in validation.errors] == ["Change 2", "Change 3"]


# ----- the file changed meanwhile -----
def test_applying_refuses_when_the_file_changed_since_the_model_read_it():
    validation = check(change("superseded", LAUNCH_OLD))
    assert validation.ok
    edited = MEMORY + "- 2026-03-01 · from chat · a new fact\n"
    with pytest.raises(FileChangedMeanwhile) as refused:
        apply_validation(edited, validation)
    assert isinstance(refused.value, MemoryInputError)
    assert str(refused.value) == "MEMORY.md changed since the model read it; nothing was applied."
    with pytest.raises(FileChangedMeanwhile):
        check_unchanged(edited, validation.read_hash)


def test_validating_against_a_file_other_than_the_one_read_is_an_error():
    validation = check(change("superseded", LAUNCH_OLD), read_hash=text_hash("something else"))
    assert only_error(validation).startswith("MEMORY.md changed since it was read")


# ----- the keep list -----
def test_keep_lines_reads_bullets_and_plain_lines_and_ignores_headings():
    keep = keep_lines(
        "# Keep these\n\n- likes green tea\n* 2026-01-01 · from chat · the dog is Rex\nplain line\n## More\n   \n"
    )
    assert keep == ["likes green tea", "the dog is Rex", "plain line"]


# ----- property: a single valid deletion removes exactly its span -----
line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n#"), min_size=1, max_size=30
)


@given(st.lists(line_text, min_size=2, max_size=12), st.data())
def test_a_single_valid_deletion_removes_exactly_its_span(lines, data):
    text = "".join(f"- {number} {line}\n" for number, line in enumerate(lines))
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, min(len(text), start + len(text) // 2)))
    original = text[start:end]
    validation = validate(text, {"changes": [change("ephemeral", original)]}, keep_lines=[], read_hash=text_hash(text))
    assume(text.find(original, text.find(original) + 1) == -1)  # found exactly once (refusal tested above)
    assume(len(original.encode()) * 2 <= len(text.encode()))  # at most half the bytes (refusal tested above)
    assert validation.ok, validation.errors
    assert validation.changes[0].start == start
    assert apply_changes(text, validation.changes) == text[:start] + text[end:]


def test_every_change_inside_a_longer_one_is_an_overlap():
    both = LAUNCH_OLD + "- 2026-02-01 · from chat · the launch is on March 14\n"
    validation = check(
        change("superseded", both), change("detail", "the launch is on"), change("ephemeral", "moved to")
    )
    assert validation.errors == [
        "Change 2: its original overlaps the original of change 1; no two may overlap.",
        "Change 3: its original overlaps the original of change 1; no two may overlap.",
    ]


def test_a_merge_may_touch_a_health_line_only_when_it_carries_the_fact_over_unchanged():
    text = (
        "### Food\n- 2026-01-01 · from chat · allergic to peanuts\n"
        "- 2026-01-02 · from chat · allergic to peanuts, says so often\n"
    )
    both = text.split("\n", 1)[1]
    text += "### Other\n" + "- 2026-01-03 · from chat · a line that keeps the file long enough\n" * 3
    kept = check(
        change("merge", both, merged="- 2026-01-02 · from chat · allergic to peanuts, says so often\n"), text=text
    )
    assert kept.ok, kept.errors
    reworded = check(change("merge", both, merged="- 2026-01-02 · from chat · a peanut allergy\n"), text=text)
    assert only_error(reworded).endswith("is about health, diet or allergies and may not be removed or rewritten.")
