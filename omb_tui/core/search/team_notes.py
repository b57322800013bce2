"""What `session_search` finds in team memory: the accepted notes of the bot's teams, loaded or not.

Spec: memory.md, "Shared team memory integrity": omitted notes stay findable with scope `team`, ordinary search
includes accepted team notes, and proposals, superseded and deleted entries are never found. Words are matched
as recall matches them (`index.words`: any word, two of five or more) and ranked by the same BM25 idf, counted
over the team notes searched; without words, the notes changed in the window come newest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..files.paths import Home
from ..index.ranking import idf
from ..index.words import indexed_terms, terms
from ..team.model import Note, Team
from ..team.storage import teams_of_bot


@dataclass(frozen=True)
class TeamHit:
    team: Team
    note: Note
    matched: list[str]  # the query's terms the note holds
    score: float

    @property
    def at(self) -> datetime:
        return datetime.fromisoformat(self.note.at)


def _note_terms(note: Note) -> set[str]:
    return set(indexed_terms(f"{note.title} {note.key.replace('/', ' ')} {note.text}"))


def search_team_notes(
    home: Home,
    bot_id: str,
    query: str | None,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 20,
) -> list[TeamHit]:
    """Accepted notes of the bot's active teams holding the query's words (best first), or, without words,
    those last changed between `since` and `until` (newest first)."""
    notes = [(team, note) for team in teams_of_bot(home, bot_id) for note in team.accepted()]
    notes = [(team, note) for team, note in notes if _within(note, since, until)]
    if not notes:
        return []
    wanted = terms(query or "")
    if not wanted:
        hits = [TeamHit(team, note, [], 0.0) for team, note in notes]
        return sorted(hits, key=lambda hit: hit.at, reverse=True)[:limit]
    held = [(team, note, _note_terms(note)) for team, note in notes]
    weights = {term: idf(len(held), sum(term in found for _, _, found in held)) for term in wanted}
    hits = []
    for team, note, found in held:
        matched = [term for term in wanted if term in found]
        if matched:  # any word: session_search has no two-word rule (docs/recall.md, "session_search")
            hits.append(TeamHit(team, note, matched, sum(weights[term] for term in matched)))
    return sorted(hits, key=lambda hit: (-hit.score, -hit.at.timestamp()))[:limit]


def _within(note: Note, since: datetime | None, until: datetime | None) -> bool:
    at = datetime.fromisoformat(note.at)
    return (since is None or at >= since) and (until is None or at <= until)
