"""Recall and search in a turn acting for a person of a Team Cloud home (docs/team-cloud.md): the notes of
that person's own layer of the bot are searched beside the bot's, each through its own index (a layer's index holds
its notes only: no conversation is a layer's), and no other person's layer is opened."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date

from ..files.paths import Home, layer_id
from ..index.notes import NoteHit
from ..index.recall_index import RecallIndex, open_index


def layer_label(person: str, file: str) -> str:
    """How a note of the person's layer is named in a recall block or a search hit."""
    return f"{person}'s own {file}"


RECALL_OPTIONS = {"topics_only": True, "limit": 12}  # recall's: topics only (MEMORY.md loads), its pool of notes


def layer_notes(
    home: Home, bot_id: str, person: str | None, terms: list[str], *, need: int, today: date, **options
) -> list[NoteHit]:
    """The person's layer's notes holding at least `need` of the terms, best first, each named as theirs (none
    without a person). `options`: search_notes's; recall's by default."""
    options = options or RECALL_OPTIONS
    if person is None:
        return []
    return _from_layer(home, bot_id, person, lambda index: index.search_notes(terms, need=need, today=today, **options))


def layer_recent_notes(
    home: Home, bot_id: str, person: str, *, since: date | None, until: date | None, limit: int
) -> list[NoteHit]:
    """The person's layer's notes dated in a window, newest first, each named as theirs (search by time)."""
    return _from_layer(
        home, bot_id, person, lambda index: index.recent_notes(since=since, until=until, topics_only=False, limit=limit)
    )


def _from_layer(home: Home, bot_id: str, person: str, search: Callable[[RecallIndex], list[NoteHit]]) -> list[NoteHit]:
    """`search` on the layer's index, brought up to date first (a layer is small: its notes only), each hit named as
    the person's; none when the layer has no folder."""
    workspace_id = layer_id(bot_id, person)
    if not home.workspace(workspace_id).is_dir():
        return []
    index = open_index(home, workspace_id)
    index.refresh()
    with index.reading():
        hits = search(index)
    return [dataclasses.replace(hit, file=layer_label(person, hit.file)) for hit in hits]


def merged(own: list[NoteHit], theirs: list[NoteHit]) -> list[NoteHit]:
    """The bot's notes and the person's, best first by score (a tie: the person's first, being about them)."""
    return sorted([*theirs, *own], key=lambda hit: -hit.score)
