"""A team note's rules: keys, revisions (stale and missing refused), corrections that keep history, the
50-version limit, restore, pins, deletion, and a stale pending card (spec: "Shared team memory integrity")."""

from __future__ import annotations

import pytest
from support.home import make_bot

from omb_tui.core.base.errors import EXIT_STALE, outcome_of
from omb_tui.core.files.paths import MemoryInputError
from omb_tui.core.team import api
from omb_tui.core.team.model import HISTORY_MAX
from omb_tui.core.team.notes import RevisionMissing, StaleRevision
from omb_tui.core.team.storage import create_team

KEY = "tapa/sequence-02/colour"
TEAM = "Tapa crew"


@pytest.fixture
def crew(home):
    make_bot(home, "ledger", "Ledger")
    return create_team(home, TEAM, ["scout", "ledger"])


def accepted(home, key=KEY, title="Sequence 02 colour", text="Warm amber grade, never teal."):
    card = api.propose(home, TEAM, key, title, text)
    return api.accept(home, TEAM, key, card.revision)


def test_a_proposal_is_a_pending_card_that_never_loads_until_accepted(home, crew):
    card = api.propose(home, TEAM, KEY, "Sequence 02 colour", "Warm amber grade.")
    view = api.show(home, TEAM).to_dict()
    assert view["notes"] == [] and view["pending"][0]["status"] == "proposed"
    assert "Warm amber" not in api.gauge(home, TEAM).block
    note = api.accept(home, TEAM, KEY, card.revision)
    assert (note.status, note.revision) == ("accepted", card.revision + 1)
    assert "Warm amber" in api.gauge(home, TEAM).block and api.show(home, TEAM).to_dict()["pending"] == []


def test_a_correction_with_the_same_key_replaces_the_fact_even_with_a_new_title_and_keeps_history(home, crew):
    first = accepted(home)
    card = api.propose(home, TEAM, KEY, "Seq 02 grade", "Cool blue grade after the reshoot.")
    assert card.based_on == first.revision
    note = api.accept(home, TEAM, KEY, card.revision)
    view = api.show(home, TEAM).to_dict()
    assert [(n["key"], n["title"], n["text"]) for n in view["notes"]] == [
        (KEY, "Seq 02 grade", "Cool blue grade after the reshoot.")
    ]
    block = api.gauge(home, TEAM).block
    assert "Cool blue" in block and "Warm amber" not in block
    current, versions = api.history(home, TEAM, KEY)
    assert current.revision == note.revision
    assert [(v.revision, v.title, v.text, v.status) for v in versions] == [
        (first.revision, "Sequence 02 colour", "Warm amber grade, never teal.", "superseded")
    ]


def test_a_stale_revision_is_refused_and_names_the_current_one(home, crew):
    note = accepted(home)
    api.edit(home, TEAM, KEY, note.revision, "Warm amber, softer.")
    for change in (
        lambda r: api.edit(home, TEAM, KEY, r, "mine"),
        lambda r: api.delete_note(home, TEAM, KEY, r),
        lambda r: api.set_pinned(home, TEAM, KEY, r, True),
        lambda r: api.restore(home, TEAM, KEY, note.revision, r),
    ):
        with pytest.raises(StaleRevision, match=f"revision {note.revision + 1} now, not {note.revision}") as refused:
            change(note.revision)
        assert refused.value.current == note.revision + 1 and outcome_of(refused.value).exit_code == EXIT_STALE
    assert api.show(home, TEAM).to_dict()["notes"][0]["text"] == "Warm amber, softer."


def test_a_missing_revision_is_refused(home, crew):
    card = api.propose(home, TEAM, KEY, "Sequence 02 colour", "Warm amber grade.")
    with pytest.raises(RevisionMissing, match="--revision"):
        api.accept(home, TEAM, KEY, None)
    with pytest.raises(RevisionMissing):
        api.reject(home, TEAM, KEY, None)
    assert api.show(home, TEAM).to_dict()["pending"][0]["revision"] == card.revision


def test_a_pending_replacement_card_is_refused_when_the_fact_changed_since_it_was_proposed(home, crew):
    note = accepted(home)
    card = api.propose(home, TEAM, KEY, "Sequence 02 colour", "Cool blue grade.")
    edited = api.edit(home, TEAM, KEY, note.revision, "Warm amber, a touch softer.")
    with pytest.raises(StaleRevision, match="changed since this card was proposed"):
        api.accept(home, TEAM, KEY, card.revision)
    view = api.show(home, TEAM).to_dict()
    assert view["notes"][0]["text"] == "Warm amber, a touch softer." and view["notes"][0]["revision"] == edited.revision
    assert view["pending"][0]["revision"] == card.revision  # still there to reject or propose again
    api.reject(home, TEAM, KEY, card.revision)
    assert api.show(home, TEAM).to_dict()["pending"] == []


def test_a_card_for_a_new_key_is_stale_once_someone_else_created_the_key(home, crew):
    first = api.propose(home, TEAM, KEY, "Colour", "Warm amber.")
    accepted_other = api.propose(home, TEAM, KEY, "Colour", "Cool blue.")  # replaces the first card
    with pytest.raises(StaleRevision):
        api.accept(home, TEAM, KEY, first.revision)
    api.accept(home, TEAM, KEY, accepted_other.revision)
    assert "Cool blue" in api.gauge(home, TEAM).block


def test_only_the_50_newest_earlier_versions_are_kept_and_restoring_is_a_new_revision(home, crew):
    note = accepted(home, text="version 0")
    for number in range(1, HISTORY_MAX + 6):
        note = api.edit(home, TEAM, KEY, note.revision, f"version {number}")
    current, versions = api.history(home, TEAM, KEY)
    assert len(versions) == HISTORY_MAX == 50
    assert versions[0].text == f"version {HISTORY_MAX + 4}" and versions[-1].text == "version 5"
    oldest = versions[-1]
    restored = api.restore(home, TEAM, KEY, oldest.revision, current.revision)
    assert restored.text == "version 5" and restored.revision == current.revision + 1
    assert api.history(home, TEAM, KEY)[1][0].text == f"version {HISTORY_MAX + 5}"
    with pytest.raises(MemoryInputError, match="no earlier version"):
        api.restore(home, TEAM, KEY, 1, restored.revision)  # version 0 fell out of the 50


def test_a_deleted_note_never_loads_and_can_be_restored(home, crew):
    note = accepted(home)
    deleted = api.delete_note(home, TEAM, KEY, note.revision)
    assert "Warm amber" not in api.gauge(home, TEAM).block
    view = api.show(home, TEAM).to_dict()
    assert view["notes"] == [] and view["deleted"][0]["key"] == KEY
    with pytest.raises(MemoryInputError, match="was deleted"):
        api.edit(home, TEAM, KEY, deleted.revision, "x")
    restored = api.restore(home, TEAM, KEY, note.revision, deleted.revision)
    assert restored.status == "accepted" and "Warm amber" in api.gauge(home, TEAM).block


def test_pinning_is_a_new_revision(home, crew):
    note = accepted(home)
    pinned = api.set_pinned(home, TEAM, KEY, note.revision, True)
    assert pinned.pinned and pinned.revision == note.revision + 1
    unpinned = api.set_pinned(home, TEAM, KEY, pinned.revision, False)
    assert not unpinned.pinned and unpinned.revision == pinned.revision + 1


def test_keys_titles_and_texts_are_checked(home, crew):
    with pytest.raises(MemoryInputError, match="not a note key"):
        api.propose(home, TEAM, "Tapa/Colour", "x", "y")
    with pytest.raises(MemoryInputError, match="needs some text"):
        api.propose(home, TEAM, KEY, "x", "  ")
    with pytest.raises(MemoryInputError, match="longer than 2,000"):
        api.propose(home, TEAM, KEY, "x", "y" * 2001)
    accepted(home)
    with pytest.raises(MemoryInputError, match="already says exactly this"):
        api.propose(home, TEAM, KEY, "Sequence 02 colour", "Warm amber grade, never teal.")


def test_two_writers_with_the_same_revision_one_wins_the_other_is_refused(home, crew):
    import threading

    note = accepted(home)
    outcomes = []

    def edit(text):
        try:
            outcomes.append(api.edit(home, TEAM, KEY, note.revision, text).text)
        except StaleRevision:
            outcomes.append("stale")

    writers = [threading.Thread(target=edit, args=(f"writer {n}",)) for n in range(6)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    winners = [o for o in outcomes if o != "stale"]
    assert len(winners) == 1 and outcomes.count("stale") == 5
    assert api.show(home, TEAM).to_dict()["notes"][0]["text"] == winners[0]
    assert len(api.history(home, TEAM, KEY)[1]) == 1


def test_a_rejected_card_s_revision_is_never_given_again_so_an_old_reviewer_cannot_accept_a_new_card(home, crew):
    first = api.propose(home, TEAM, KEY, "Sequence 02 colour", "Warm amber grade.")
    api.reject(home, TEAM, KEY, first.revision)
    second = api.propose(home, TEAM, KEY, "Sequence 02 colour", "Teal grade after all.")
    assert second.revision > first.revision
    with pytest.raises(StaleRevision, match="changed|no longer"):
        api.accept(home, TEAM, KEY, first.revision)  # the reviewer read the first card, never saw the second
    assert api.show(home, TEAM).to_dict()["notes"] == []


def test_a_card_accepted_or_rejected_meanwhile_is_stale_not_missing(home, crew):
    card = api.propose(home, TEAM, KEY, "Sequence 02 colour", "Warm amber grade.")
    api.accept(home, TEAM, KEY, card.revision)
    for late in (api.accept, api.reject):
        with pytest.raises(StaleRevision, match="no longer pending"):
            late(home, TEAM, KEY, card.revision)
    other = "tapa/sequence-03/colour"
    gone = api.propose(home, TEAM, other, "Sequence 03 colour", "Cold blue.")
    api.reject(home, TEAM, other, gone.revision)
    with pytest.raises(StaleRevision, match="no longer pending"):
        api.accept(home, TEAM, other, gone.revision)
