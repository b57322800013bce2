"""The rules of a team's notes: proposals become pending cards, a person accepts, rejects, edits, deletes, pins
and restores, and every one of those carries the revision it was based on.

Spec: memory.md, "Shared team memory integrity". Decisions (docs/team.md):

- A key has one revision counter, shared by its note and its pending card: every proposal, acceptance, edit,
  pin, deletion and restore takes the next number. So a card's revision and its note's never look alike.
- One pending card per key: a new proposal for the key replaces the card (with a new revision).
- Accepting a card needs the card's revision; it is refused when the note changed since the card was proposed
  (`based_on` is no longer the note's revision). The note keeps its key and its pin; the text it replaces goes
  into the history as superseded, even when the title changed.
- Editing, deleting, pinning and restoring need the note's revision.
- A deleted note (never loaded or found) keeps its last text in its record and in its history (status deleted); restoring or
  accepting a card over it brings it back as a new revision.
- A rejected card is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..files.paths import MemoryInputError, NotFound, quoted
from .model import (
    ACCEPTED,
    BY_PERSON,
    DELETED,
    QUOTES_MAX,
    SUPERSEDED,
    Card,
    Note,
    Team,
    Version,
    clean_text,
    clean_title,
    now_iso,
    validate_note_key,
)


class RevisionMissing(MemoryInputError):
    """A change that must say which revision it was based on did not (428 in the routes, exit 2 in the CLI)."""


class StaleRevision(MemoryInputError):
    """The note or card changed since the revision given (409 in the routes, exit 3 in the CLI)."""

    def __init__(self, message: str, current: int | None) -> None:
        super().__init__(message)
        self.current = current


def _next_revision(team: Team, key: str) -> int:
    """The next number for `key`, never one it had before (a rejected card's number included)."""
    note, card = team.notes.get(key), team.cards.get(key)
    revision = max(note.revision if note else 0, card.revision if card else 0, team.last_revisions.get(key, 0)) + 1
    team.last_revisions[key] = revision
    return revision


def _check_revision(given: int | None, current: int, what: str) -> None:
    if given is None:
        raise RevisionMissing(
            f"Say which revision of {what} this change is based on (--revision); it is at revision {current}."
        )
    if given != current:
        raise StaleRevision(
            f"{what[:1].upper()}{what[1:]} is at revision {current} now, not {given}: it changed "
            "since it was read; nothing was changed.",
            current,
        )


def _note(team: Team, key: str, *, live: bool = True) -> Note:
    note = team.notes.get(validate_note_key(key))
    if note is None:
        raise NotFound(f"The team {quoted(team.name)} has no note {quoted(key)}.")
    if live and note.status != ACCEPTED:
        raise MemoryInputError(
            f"The note {quoted(key)} was deleted; restore it first (`team history` lists its versions)."
        )
    return note


def _card(team: Team, key: str, revision: int | None = None) -> Card:
    """The key's pending card; one gone since `revision` was read (accepted or rejected meanwhile) is stale."""
    card = team.cards.get(validate_note_key(key))
    if card is None:
        note = team.notes.get(key)
        last = max(team.last_revisions.get(key, 0), note.revision if note else 0)
        note_has_last = note is not None and note.revision == last
        # the key moved past `revision`, or its last number went to a card that is gone (rejected)
        if revision is not None and 0 < revision and (revision < last or (revision == last and not note_has_last)):
            current = last
            raise StaleRevision(
                f"The card for {quoted(key)} is no longer pending: it was accepted or rejected since "
                f"revision {revision} was read (the key is at revision {current} now); nothing was "
                "changed.",
                current,
            )
        raise NotFound(f"The team {quoted(team.name)} has no pending card for {quoted(key)}.")
    return card


# ----- proposals -----
def propose(
    team: Team,
    key: str,
    title: str,
    text: str,
    *,
    by: str = BY_PERSON,
    quotes: Sequence[str] = (),
    chat: str | None = None,
) -> Card:
    """A pending card for the key; it replaces a pending card for the same key."""
    key = validate_note_key(key)
    note = team.notes.get(key)
    card = Card(
        key=key,
        title=clean_title(title),
        text=clean_text(text),
        revision=_next_revision(team, key),
        based_on=note.revision if note else None,
        at=now_iso(),
        by=by,
        quotes=[" ".join(q.split()) for q in quotes][:QUOTES_MAX],
        chat=chat,
    )
    if note is not None and note.status == ACCEPTED and (note.title, note.text) == (card.title, card.text):
        raise MemoryInputError(f"The team's note {quoted(key)} already says exactly this.")
    team.cards[key] = card
    return card


def accept(
    team: Team,
    key: str,
    revision: int | None,
    *,
    reviewer: str = BY_PERSON,
    title: str | None = None,
    text: str | None = None,
) -> Note:
    """The card becomes the accepted note (a correction keeps the key; the earlier text goes to the history).
    With `title` or `text` the reviewer edited the card before accepting it: the note is theirs (`by` the reviewer)."""
    card = _card(team, key, revision)
    _check_revision(revision, card.revision, f"the card for {quoted(key)}")
    new_title = clean_title(title) if title is not None else card.title
    new_text = clean_text(text) if text is not None else card.text
    by = card.by if (new_title, new_text) == (card.title, card.text) else reviewer
    note = team.notes.get(card.key)
    current = note.revision if note else None
    if card.based_on != current:
        then = "no note" if card.based_on is None else f"revision {card.based_on}"
        raise StaleRevision(
            f"The note {quoted(key)} changed since this card was proposed ({then} then, revision "
            f"{current} now); nothing was changed: reject the card, or propose it again.",
            current,
        )
    revision_now = _next_revision(team, card.key)
    del team.cards[card.key]
    if note is None:
        note = Note(card.key, new_title, new_text, False, ACCEPTED, revision_now, team.next_seq, now_iso(), by)
        team.next_seq += 1
        team.notes[card.key] = note
        return note
    if note.status == ACCEPTED:  # a deleted note's text went into the history when it was deleted
        note.keep_in_history(SUPERSEDED)
    note.title, note.text, note.status = new_title, new_text, ACCEPTED
    note.revision, note.at, note.by = revision_now, now_iso(), by
    return note


def reject(team: Team, key: str, revision: int | None) -> Card:
    card = _card(team, key, revision)
    _check_revision(revision, card.revision, f"the card for {quoted(key)}")
    del team.cards[card.key]
    return card


# ----- a person's changes to an accepted note -----
def edit(team: Team, key: str, revision: int | None, text: str, *, title: str | None = None) -> Note:
    note = _note(team, key)
    _check_revision(revision, note.revision, f"the note {quoted(key)}")
    new_text, new_title = clean_text(text), clean_title(title) if title is not None else note.title
    if (new_title, new_text) == (note.title, note.text):
        return note
    note.keep_in_history(SUPERSEDED)
    note.title, note.text = new_title, new_text
    note.revision, note.at, note.by = _next_revision(team, note.key), now_iso(), BY_PERSON
    return note


def delete_note(team: Team, key: str, revision: int | None) -> Note:
    note = _note(team, key)
    _check_revision(revision, note.revision, f"the note {quoted(key)}")
    note.keep_in_history(DELETED)
    note.status, note.pinned = DELETED, False
    note.revision, note.at, note.by = _next_revision(team, note.key), now_iso(), BY_PERSON
    return note


def set_pinned(team: Team, key: str, revision: int | None, pinned: bool) -> Note:
    note = _note(team, key)
    _check_revision(revision, note.revision, f"the note {quoted(key)}")
    if note.pinned != pinned:
        note.pinned = pinned
        note.revision = _next_revision(team, note.key)
    return note


def history(team: Team, key: str) -> tuple[Note, list[Version]]:
    """The note as it is now, and its earlier versions, newest first (at most 50)."""
    note = _note(team, key, live=False)
    return note, list(reversed(note.history))


def restore(team: Team, key: str, version: int, revision: int | None) -> Note:
    """Bring back an earlier version's title and text as a new revision (a deleted note comes back too)."""
    note = _note(team, key, live=False)
    _check_revision(revision, note.revision, f"the note {quoted(key)}")
    earlier = next((v for v in note.history if v.revision == version), None)
    if earlier is None:
        kept = ", ".join(str(v.revision) for v in reversed(note.history)) or "none"
        raise NotFound(f"The note {quoted(key)} has no earlier version {version} (kept: {kept}).")
    if note.status == ACCEPTED:  # a deleted note's text went into the history when it was deleted
        note.keep_in_history(SUPERSEDED)
    note.title, note.text, note.status = earlier.title, earlier.text, ACCEPTED
    note.revision, note.at, note.by = _next_revision(team, note.key), now_iso(), BY_PERSON
    return note
