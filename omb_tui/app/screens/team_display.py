"""What the Team memory screen shows, read and worded: the home's teams and the one shown (read in the screen's
worker), its rows (notes in load order, pending cards, a note's earlier versions) and the texts beside them (the
gauge, a note or a card shown whole, what changed under a stale card). Pure functions over core.team's records, no
widgets, so they can be read and tested without the screen (`team.py`).

Spec: memory.md, "Shared team memory integrity"; docs/team.md for the rules, docs/app.md "Team memory".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from textual.content import Content

from ...core.base.text import plural
from ..widgets.row_list import printable
from ..widgets.team_rows import Column, Row

BAR_WIDTH = 10
NOTE_COLUMNS = (
    Column("Loads", 5),
    Column("Pin", 3),
    Column("Key", 26),
    Column("Title", None),
    Column("Rev", 4),
    Column("Bytes", 6),
)
CARD_COLUMNS = (Column("State", 5), Column("Key", 26), Column("Title", None), Column("By", 12), Column("Rev", 4))
VERSION_COLUMNS = (Column("Was", 10), Column("Rev", 4), Column("When", 16), Column("By", 12), Column("Title", None))


# ----- what the screen read (in a worker) -----
@dataclass(frozen=True)
class TeamState:
    """The home's teams and the one shown: `view` is core.team.api.TeamView; `error` says why none is shown."""

    teams: list = field(default_factory=list)  # core.team.model.Team, by name
    view: object | None = None
    error: str | None = None

    @property
    def team(self):
        return self.view.team if self.view is not None else None


def read_state(home, wanted: str | None) -> TeamState:
    """The teams, and the wanted one's notes, cards and load (the first team when it is gone or not given)."""
    from ...core.files.paths import MemoryInputError
    from ...core.team import api
    from ...core.team.storage import list_teams

    try:
        teams = list_teams(home)
        if not teams:
            return TeamState(teams, None, "No teams in this home. Create one: omb-tui team create NAME --bots ID,ID")
        team = next((t for t in teams if t.key == wanted), teams[0])
        return TeamState(teams, api.show(home, team.key))
    except (MemoryInputError, OSError) as exc:
        return TeamState([], None, str(exc))


# ----- words -----
def local_time(at: str) -> str:
    """An ISO time as the person's local "YYYY-MM-DD HH:MM" (the text itself when it is not one)."""
    try:
        return datetime.fromisoformat(at).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return at


def said(record) -> str:
    """A note's, card's or version's title and text on one line, safe to draw."""
    return printable(f"{record.title}: {record.text}", keep="\n")


def gauge_text(load) -> str:
    """The team block against 6,000 bytes, as `omb-tui team gauge` counts it."""
    from ...core.team.prompt import TEAM_BLOCK_MAX_BYTES

    filled = round(min(1.0, load.bytes / TEAM_BLOCK_MAX_BYTES) * BAR_WIDTH)
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    return (
        f"{bar} {load.bytes:,}/{TEAM_BLOCK_MAX_BYTES:,} bytes · {plural(len(load.loaded), 'note', grouped=True)} load · "
        f"{len(load.not_loaded):,} do not"
    )


def note_rows(view) -> list[Row]:
    from ...core.team.prompt import load_order, note_line, utf8_size

    loaded = {note.key for note in view.load.loaded}
    return [
        Row(
            note.key,
            (
                "✓ yes" if note.key in loaded else "✗ no",
                "▲" if note.pinned else "",
                note.key,
                note.title,
                str(note.revision),
                f"{utf8_size(note_line(note)):,}",
            ),
            "loads" if note.key in loaded else "not-loaded",
        )
        for note in load_order(view.team)
    ]


def pending_cards(team) -> list:
    """The cards in the order `team show` lists them: oldest proposal first."""
    return sorted(team.cards.values(), key=lambda card: (card.at, card.key))


def card_is_stale(team, card) -> bool:
    note = team.notes.get(card.key)
    return card.based_on != (note.revision if note else None)


def card_rows(team) -> list[Row]:
    rows = []
    for card in pending_cards(team):
        stale = card_is_stale(team, card)
        state = "stale" if stale else "new" if card.based_on is None else "fix"
        rows.append(Row(card.key, (state, card.key, card.title, card.by, str(card.revision)), "stale" if stale else ""))
    return rows


def version_rows(note) -> list[Row]:
    return [
        Row(str(v.revision), (v.status, str(v.revision), local_time(v.at), v.by, v.title), "muted")
        for v in reversed(note.history)
    ]


def what_changed(team, card) -> list[Content]:
    """Why a stale card cannot be accepted: how the note it was proposed over differs now.

    The text at the card's `based_on` is the oldest kept version at or after it (between the two only pins, which
    keep no history, can have happened), or the note as it is when no version came after.
    """
    from ...core.team.model import DELETED, HISTORY_MAX

    note = team.notes.get(card.key)
    now = note.revision if note else None
    if card.based_on is None:
        lines = [Content(f"A note {card.key} was accepted after this card was proposed (it is at revision {now}).")]
        return lines + [Content.styled("Now: " + said(note), "italic")]
    head = Content(f"The note changed after this card was proposed (revision {card.based_on} then, {now} now): ")
    later = [v for v in note.history if v.revision >= card.based_on]
    if note.history and len(note.history) >= HISTORY_MAX and note.history[0].revision > card.based_on:
        return [head + Content("it changed more times than its history keeps.")]
    then = later[0] if later else note
    if note.status == DELETED:
        return [head + Content("it was deleted.")]
    if (then.title, then.text) == (note.title, note.text):
        return [head + Content("its text is the same; it was pinned or unpinned, or changed and changed back.")]
    what = (
        "its title and text"
        if then.title != note.title and then.text != note.text
        else "its title"
        if then.title != note.title
        else "its text"
    )
    return [
        head + Content(f"{what} changed."),
        Content.styled("- then: " + said(then), "$text-error"),
        Content.styled("+ now:  " + said(note), "$text-success"),
    ]


def card_detail(team, card, position: int, count: int) -> Content:
    """The card shown whole; a stale one says first what changed, since accepting it is refused."""
    note = team.notes.get(card.key)
    kind = "a new note" if card.based_on is None else f"a correction of revision {card.based_on}"
    lines = [Content.styled(f"Card {position} of {count} · {card.key} · {kind} · revision {card.revision}", "bold")]
    if card_is_stale(team, card):
        lines.extend(what_changed(team, card))
        lines.append(Content.styled("Accepting it is refused: reject it (x), or propose it again.", "bold"))
    lines += [Content(""), Content.styled(card.title, "bold"), Content(printable(card.text, keep="\n"))]
    where = f" · in {card.chat}" if card.chat else ""
    lines.append(Content.styled(f"Proposed by {card.by} · {local_time(card.at)}{where}", "italic"))
    for quote in card.quotes:
        lines.append(Content.styled(f"Rests on: \u201c{quote}\u201d", "italic"))
    if note is not None and not card_is_stale(team, card):
        lines.append(Content.styled("It replaces: " + said(note), "italic"))
    return Content("\n").join(lines)


def note_detail(view, note) -> Content:
    from ...core.team.prompt import note_line, utf8_size

    loads = any(n.key == note.key for n in view.load.loaded)
    state = (
        f"loads ({utf8_size(note_line(note)):,} bytes)"
        if loads
        else "does not load: it is past the 6,000 bytes; session_search with scope team finds it"
    )
    pin = " · pinned (loads first)" if note.pinned else ""
    earlier = plural(len(note.history), "earlier version", grouped=True)
    return Content("\n").join(
        [
            Content.styled(f"{note.key} · revision {note.revision} · {state}{pin}", "bold"),
            Content.styled(note.title, "bold"),
            Content(printable(note.text, keep="\n")),
            Content.styled(f"by {note.by} · {local_time(note.at)} · {earlier} (h)", "italic"),
        ]
    )
