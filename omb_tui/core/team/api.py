"""Team memory for the command line, the app and the routes: each change is read, checked and written under the
teams lock in one step (storage.change_team); each answer is the record as `team show` lists it."""

from __future__ import annotations

from dataclasses import dataclass

from ..files.paths import Home
from . import notes
from .model import BY_PERSON, DELETED, Card, Note, Team, Version
from .prompt import TeamLoad, load_order, team_load
from .storage import change_team, get_team


@dataclass(frozen=True)
class TeamView:
    """What `team show` prints: the accepted notes (in load order, each marked loaded or not), the pending
    cards and the deleted notes (restorable)."""

    team: Team
    load: TeamLoad

    def to_dict(self) -> dict:
        loaded = {note.key for note in self.load.loaded}
        return {
            "team": self.team.summary(),
            "gauge": self.load.gauge(),
            "notes": [dict(note.shown(), loads=note.key in loaded) for note in load_order(self.team)],
            "pending": [card.shown() for card in sorted(self.team.cards.values(), key=lambda c: (c.at, c.key))],
            "deleted": [note.shown() for note in self.team.notes.values() if note.status == DELETED],
        }


def show(home: Home, ref: str) -> TeamView:
    team = get_team(home, ref)
    return TeamView(team, team_load(team))


def propose(
    home: Home,
    ref: str,
    key: str,
    title: str,
    text: str,
    *,
    by: str = BY_PERSON,
    quotes: list[str] | None = None,
    chat: str | None = None,
) -> Card:
    return change_team(
        home, ref, lambda team: notes.propose(team, key, title, text, by=by, quotes=quotes or (), chat=chat)
    )


def accept(
    home: Home, ref: str, key: str, revision: int | None, *, title: str | None = None, text: str | None = None
) -> Note:
    """Accept the card; with `title`/`text`, as the reviewer edited it (the app's edit-before-accepting)."""
    return change_team(home, ref, lambda team: notes.accept(team, key, revision, title=title, text=text))


def reject(home: Home, ref: str, key: str, revision: int | None) -> Card:
    return change_team(home, ref, lambda team: notes.reject(team, key, revision))


def edit(home: Home, ref: str, key: str, revision: int | None, text: str, *, title: str | None = None) -> Note:
    return change_team(home, ref, lambda team: notes.edit(team, key, revision, text, title=title))


def delete_note(home: Home, ref: str, key: str, revision: int | None) -> Note:
    return change_team(home, ref, lambda team: notes.delete_note(team, key, revision))


def set_pinned(home: Home, ref: str, key: str, revision: int | None, pinned: bool) -> Note:
    return change_team(home, ref, lambda team: notes.set_pinned(team, key, revision, pinned))


def history(home: Home, ref: str, key: str) -> tuple[Note, list[Version]]:
    return notes.history(get_team(home, ref), key)


def restore(home: Home, ref: str, key: str, version: int, revision: int | None) -> Note:
    return change_team(home, ref, lambda team: notes.restore(team, key, version, revision))


def gauge(home: Home, ref: str) -> TeamLoad:
    return team_load(get_team(home, ref))
