"""Taking changes back (docs/review.md): one change reverted alone while later changes stay, a conflict that
says why and writes nothing, and a whole run undone (refusing, naming them, when later changes would go too)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.home import MEMORY_TEXT, TOPIC_TEXT

from omb_tui.core.base.errors import EXIT_NEEDS_CONFIRMATION, EXIT_STALE, outcome_of
from omb_tui.core.files.paths import MemoryInputError
from omb_tui.core.journal.changes import Actor, NotUndoable, RevertConflict
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.review.revert import RunHasLaterChanges, revert_change, run_undo_later, undo_run
from omb_tui.core.review.runs import review
from omb_tui.core.runs.run import UpkeepRun

pytestmark = pytest.mark.dates

PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)
RUN = UpkeepRun("scout", "20260310T020000-abcdef")
CAPTURE = RUN.actor("capture")


def text(home, rel="MEMORY.md"):
    return (home.workspace("scout") / rel).read_text(encoding="utf-8")


def append(store, rel, line, actor):
    return store.write(rel, store.read(rel).text + line, actor).row_id


def rows(store):
    return store.journal.rows()


def test_a_change_reverted_alone_keeps_the_later_edit(home):
    store = MemoryStore(home, "scout")
    captured = append(store, "MEMORY.md", "- vegetarian\n", CAPTURE)
    append(store, "MEMORY.md", "- by hand, later\n", PERSON)
    done = revert_change(home, "scout", captured)
    assert text(home) == MEMORY_TEXT + "- by hand, later\n"
    newest = rows(store)[0]
    assert (newest.id, newest.undo_of, newest.who, newest.how) == (done.reverted_by, captured, "person", "revert")
    assert done.message() == f"Reverted row {captured} in MEMORY.md alone (1 later change kept)."
    change = review(home, bot_ids=["scout"]).bots[0].runs[0].changes[0]
    assert change.undone_by == done.reverted_by
    with pytest.raises(NotUndoable, match=f"already taken back by row {done.reverted_by}"):
        revert_change(home, "scout", captured)


def test_a_change_in_the_middle_of_a_file_goes_while_edits_above_and_below_stay(home):
    store = MemoryStore(home, "scout")
    changed = store.write("MEMORY.md", MEMORY_TEXT.replace("Pune", "Mumbai"), CAPTURE).row_id
    store.write("MEMORY.md", "# Notes\n" + store.read("MEMORY.md").text[len("# Memory\n") :] + "- tea\n", PERSON)
    revert_change(home, "scout", changed)
    assert text(home) == "# Notes\n" + MEMORY_TEXT[len("# Memory\n") :] + "- tea\n"


def test_a_revert_that_conflicts_says_why_and_leaves_the_file_as_it_is(home):
    store = MemoryStore(home, "scout")
    changed = store.write("MEMORY.md", MEMORY_TEXT.replace("Pune", "Mumbai"), CAPTURE).row_id
    later = store.write("MEMORY.md", MEMORY_TEXT.replace("Pune", "Mumbai, Bandra"), PERSON).row_id
    before = text(home)
    count = len(rows(store))
    with pytest.raises(RevertConflict) as raised:
        revert_change(home, "scout", changed)
    assert str(raised.value) == (
        f"Row {changed} cannot be reverted alone: 1 later change ({later}) touched the "
        "same lines of MEMORY.md; undo puts the whole file back as it was before it instead."
    )
    assert outcome_of(raised.value).exit_code == EXIT_STALE
    assert text(home) == before and len(rows(store)) == count


def test_reverting_a_new_topic_with_nothing_since_removes_it_as_undo_would(home):
    store = MemoryStore(home, "scout")
    created = store.write("memory/family.md", "# Family\n\n- Asha in Goa\n", CAPTURE).row_id
    revert_change(home, "scout", created)
    assert not (home.workspace("scout") / "memory" / "family.md").exists()


def night_run(home):
    """The run: a line added to MEMORY.md, then to travel.md, then MEMORY.md tidied; returns the rows."""
    store = MemoryStore(home, "scout")
    first = append(store, "MEMORY.md", "- vegetarian\n", CAPTURE)
    travel = append(store, "memory/travel.md", "- Goa in March\n", CAPTURE)
    tidy = store.write("MEMORY.md", store.read("MEMORY.md").text.replace("short", "brief"), RUN.actor("tidy-up")).row_id
    return store, first, travel, tidy


def test_a_whole_run_goes_back_file_by_file(home):
    store, first, travel, _ = night_run(home)
    done = undo_run(home, "scout", RUN.id)
    assert text(home) == MEMORY_TEXT and text(home, "memory/travel.md") == TOPIC_TEXT
    assert [(f["file"], f["undo_of"]) for f in done.files] == [("MEMORY.md", first), ("memory/travel.md", travel)]
    undo_rows = {r.id: r for r in rows(store) if r.undo_of}
    assert {undo_rows[f["undo_row"]].undo_of for f in done.files} == {first, travel}
    assert done.later == []
    assert review(home, bot_ids=["scout"]).bots[0].runs[0].undone


def test_a_run_with_later_changes_is_refused_naming_them_and_goes_with_yes(home):
    store, first, _, _ = night_run(home)
    by_hand = append(store, "MEMORY.md", "- by hand, later\n", PERSON)
    before, count = text(home), len(rows(store))
    with pytest.raises(RunHasLaterChanges) as raised:
        undo_run(home, "scout", RUN.id)
    assert f"1 later change would be undone too: {by_hand} (MEMORY.md, person, command line" in str(raised.value)
    assert (
        outcome_of(raised.value).exit_code == EXIT_NEEDS_CONFIRMATION
        and text(home) == before
        and len(rows(store)) == count
    )
    done = undo_run(home, "scout", RUN.id, yes=True)
    assert text(home) == MEMORY_TEXT and done.later == [by_hand]


def test_an_earlier_run_after_a_later_one_was_undone_asks_about_nothing(home):
    """Two agent sessions wrote MEMORY.md; the later one was undone first: its rows and its undo leave the file as
    they found it, so undoing the earlier one takes nothing that is still there and asks no --yes."""
    store, _, _, _ = night_run(home)
    later_run = UpkeepRun("scout", "20260311T090000-fedcba")
    append(store, "MEMORY.md", "- the later session's note\n", later_run.actor("capture"))
    append(store, "MEMORY.md", "- and its second\n", later_run.actor("capture"))
    undo_run(home, "scout", later_run.id)
    done = undo_run(home, "scout", RUN.id)
    assert text(home) == MEMORY_TEXT and text(home, "memory/travel.md") == TOPIC_TEXT and done.later == []


def test_a_change_after_an_undone_run_is_still_named(home):
    store, _, _, _ = night_run(home)
    later_run = UpkeepRun("scout", "20260311T090000-fedcba")
    append(store, "MEMORY.md", "- the later session's note\n", later_run.actor("capture"))
    undo_run(home, "scout", later_run.id)
    by_hand = append(store, "MEMORY.md", "- by hand, after both\n", PERSON)
    with pytest.raises(RunHasLaterChanges) as raised:
        undo_run(home, "scout", RUN.id)
    assert [row.id for row in raised.value.later] == [by_hand]


def test_a_run_undone_with_the_later_changes_named_never_takes_one_that_came_after_the_question(home):
    store, first, _, _ = night_run(home)
    by_hand = append(store, "MEMORY.md", "- by hand, later\n", PERSON)
    asked = run_undo_later(home, "scout", RUN.id)
    assert [row.id for row in asked.later] == [by_hand]
    newer = append(store, "MEMORY.md", "- while the question was open\n", PERSON)
    before = text(home)
    with pytest.raises(RunHasLaterChanges) as raised:
        undo_run(home, "scout", RUN.id, agreed=[by_hand])
    assert newer in str(raised.value) and text(home) == before
    done = undo_run(home, "scout", RUN.id, agreed=[newer, by_hand])  # newest first, as named
    assert text(home) == MEMORY_TEXT and done.later == [newer, by_hand]


def test_a_change_reverted_alone_is_not_named_as_a_later_change_of_its_run(home):
    store, first, _, tidy = night_run(home)
    revert_change(home, "scout", tidy)
    undo_run(home, "scout", RUN.id)  # no yes needed: the revert only took back part of the run
    assert text(home) == MEMORY_TEXT


def test_a_run_whose_change_cannot_be_undone_is_refused_whole(home):
    secret = "- api key sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6\n"
    (home.workspace("scout") / "memory" / "travel.md").write_text(TOPIC_TEXT + secret, encoding="utf-8")
    store, _, travel, _ = night_run(home)
    before = text(home)
    with pytest.raises(NotUndoable, match=f"its change to memory/travel.md \\(row {travel}\\) cannot be undone"):
        undo_run(home, "scout", RUN.id)
    assert text(home) == before


def test_an_unknown_run_is_one_sentence(home):
    with pytest.raises(MemoryInputError, match="There is no run 20260101T000000-000000 in the journal"):
        undo_run(home, "scout", "20260101T000000-000000")


# ----- the merge itself -----
def test_the_merge_keeps_a_line_appended_right_after_the_reverted_one():
    from omb_tui.core.journal.revert_text import reverse_change

    assert reverse_change("a\nb\n", "a\nb\nX\n", "a\nb\nX\nY\n") == "a\nb\nY\n"
    assert reverse_change("a\nb\n", "a\nb\nX\n", "a\nb\nY\nX\n") == "a\nb\nY\n"
    assert reverse_change("a\nb\nc\nd\n", "a\nB\nc\nD\n", "z\na\nB\nc\nD\ne\n") == "z\na\nb\nc\nd\ne\n"
    assert reverse_change("x\n", "", "") == "x\n"  # a file the row emptied gets its text back


def test_the_merge_refuses_what_it_would_have_to_guess():
    from omb_tui.core.journal.revert_text import reverse_change

    assert reverse_change("a\nb\nc\n", "a\nB\nc\n", "a\nBB\nc\n") is None  # the same line changed again
    assert reverse_change("a\nX\nc\n", "a\nc\n", "a\nY\nc\n") is None  # lines added where X would go back


def test_about_me_changed_by_another_bot_since_the_run_is_named_before_undoing_the_run(home):
    from support.home import make_bot

    make_bot(home, "nova", "Nova")
    scout, nova = MemoryStore(home, "scout"), MemoryStore(home, "nova")
    scout.write("about-me.md", "# About me\n\n- vegetarian\n", CAPTURE)
    nova.write("about-me.md", "# About me\n\n- vegetarian\n- tea\n", PERSON)
    with pytest.raises(RunHasLaterChanges, match="about-me.md changed since where this journal cannot see"):
        undo_run(home, "scout", RUN.id)
    undo_run(home, "scout", RUN.id, yes=True)
    assert not home.about_me_path.exists()  # it did not exist before the run


def test_an_about_me_change_reverts_alone_after_another_bot_added_a_line(home):
    """The row's after-text is rebuilt from its earlier text and its diff (the hash says it is right), so the
    change merges out of About me while the other bot's line stays."""
    from support.home import make_bot

    make_bot(home, "nova", "Nova")
    scout, nova = MemoryStore(home, "scout"), MemoryStore(home, "nova")
    scout.write("about-me.md", "# About me\n\n- lives in Pune\n", PERSON)
    changed = scout.write("about-me.md", "# About me\n\n- lives in Pune\n- vegetarian\n", CAPTURE).row_id
    nova.write("about-me.md", "# About me\n\n- likes rain\n- lives in Pune\n- vegetarian\n", PERSON)
    revert_change(home, "scout", changed)
    assert home.about_me_path.read_text(encoding="utf-8") == "# About me\n\n- likes rain\n- lives in Pune\n"


def test_a_change_whose_after_text_cannot_be_rebuilt_says_the_file_changed_elsewhere(home, monkeypatch):
    """A diff cut short for size cannot rebuild the text; the sentence then says what happened, truly."""
    from support.home import make_bot

    from omb_tui.core.journal import journal

    make_bot(home, "nova", "Nova")
    scout, nova = MemoryStore(home, "scout"), MemoryStore(home, "nova")
    scout.write("about-me.md", "# About me\n\n- lives in Pune\n", PERSON)
    monkeypatch.setattr(journal, "SHORT_DIFF_MAX_LINES", 2)  # the row's diff is cut
    changed = scout.write("about-me.md", "# About me\n\n- lives in Pune\n- vegetarian\n", CAPTURE).row_id
    monkeypatch.undo()
    nova.write("about-me.md", "# About me\n\n- likes rain\n- lives in Pune\n- vegetarian\n", PERSON)
    with pytest.raises(RevertConflict, match="about-me.md changed since by another bot or outside the app"):
        revert_change(home, "scout", changed)
    assert "likes rain" in home.about_me_path.read_text(encoding="utf-8")


def test_agreeing_to_an_unseen_about_me_change_does_not_agree_to_a_later_row(home):
    from support.home import make_bot

    make_bot(home, "nova", "Nova")
    scout, nova = MemoryStore(home, "scout"), MemoryStore(home, "nova")
    scout.write("about-me.md", "# About me\n\n- vegetarian\n", CAPTURE)
    nova.write("about-me.md", "# About me\n\n- vegetarian\n- tea\n", PERSON)
    asked = run_undo_later(home, "scout", RUN.id)
    assert (asked.later, asked.outside) == ([], ["about-me.md"])
    scout.write("about-me.md", "# About me\n\n- vegetarian\n- tea\n- rain\n", PERSON)  # while asking
    with pytest.raises(RunHasLaterChanges):
        undo_run(home, "scout", RUN.id, agreed=[], unseen_ok=True)
    assert "rain" in home.about_me_path.read_text(encoding="utf-8")
    undo_run(
        home, "scout", RUN.id, agreed=[row.id for row in run_undo_later(home, "scout", RUN.id).later], unseen_ok=True
    )
    assert not home.about_me_path.exists()


def test_the_merge_refuses_rather_than_guess_which_copy_of_a_repeated_line_went():
    from omb_tui.core.journal.revert_text import reverse_change

    # "x" was added after the first "a"; since, the last "a" became "x". The line diff pairs "a a" with the
    # wrong copies and once gave "a x a": reverted, the file must read "a a x", or the revert is refused.
    assert reverse_change("a\na\na\n", "a\nx\na\na\n", "a\nx\na\nx\n") in (None, "a\na\nx\n")
    # one "a" of three went; a line was added since among the copies: where the "a" comes back is a guess
    assert reverse_change("a\na\na\nc\n", "a\na\nc\n", "a\ny\na\nc\n") is None


REVERT_LINES = st.sampled_from(["a\n", "b\n", "\n", "- tea\n", "a\n"])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(REVERT_LINES, max_size=9),
    st.lists(st.sampled_from(["x\n", "a\n", "\n"]), max_size=3),
    st.lists(st.sampled_from(["y\n", "a\n", "\n"]), max_size=3),
    st.data(),
)
def test_a_revert_gives_the_later_change_alone_or_refuses(lines, change, later, data):
    """A row changed one place of a file and a later change another: reverting the row leaves exactly the file
    with the later change alone (built here from where each change was made), or refuses; never a guess."""
    from omb_tui.core.journal.revert_text import reverse_change

    points = sorted(data.draw(st.lists(st.integers(0, len(lines)), min_size=4, max_size=4)))
    row_first = data.draw(st.booleans())  # which of the two places the row's change is
    (p, q), (r, s) = points[:2], points[2:]

    def with_changes(row: bool, since: bool) -> str:
        first = (change if row else lines[p:q]) if row_first else (later if since else lines[p:q])
        second = (later if since else lines[r:s]) if row_first else (change if row else lines[r:s])
        return "".join(lines[:p] + first + lines[q:r] + second + lines[s:])

    before, after, current = with_changes(False, False), with_changes(True, False), with_changes(True, True)
    assume(before != after)
    assert reverse_change(before, after, current) in (None, with_changes(False, True))


def test_a_run_that_moved_a_line_to_the_archive_is_undone_so_the_line_is_never_in_neither_file(home, monkeypatch):
    """The run wrote the archive first, then MEMORY.md; undone the same way round, a kill between the two
    undos once left the line in neither file. Undone in reverse, a kill between them leaves it in MEMORY.md."""
    import omb_tui.core.review.revert as revert

    store = MemoryStore(home, "scout")
    line = "- 2025-01-01 · a trip that is over\n"
    store.write("MEMORY.md", store.read("MEMORY.md").text + line, PERSON)
    tidy = UpkeepRun("scout").actor("tidy-up")
    store.write("memory/archive.md", "# Archive\n\n" + line, tidy)
    store.write("MEMORY.md", store.read("MEMORY.md").text.replace(line, ""), tidy)
    whole = revert._undo_file
    undone: list[str] = []

    def killed_after_the_first(store, plan, actor):
        if undone:
            raise KeyboardInterrupt("killed between the two undos")
        undone.append(plan.first.file)
        return whole(store, plan, actor)

    monkeypatch.setattr(revert, "_undo_file", killed_after_the_first)
    with pytest.raises(KeyboardInterrupt):
        undo_run(home, "scout", tidy.run)
    assert undone == ["MEMORY.md"]
    assert line in text(home) or line in text(home, "memory/archive.md")
    monkeypatch.setattr(revert, "_undo_file", whole)
    undo_run(home, "scout", tidy.run, yes=True)  # run again, it finishes: the line in MEMORY.md alone
    assert line in text(home) and not (home.workspace("scout") / "memory/archive.md").exists()
