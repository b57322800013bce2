"""The team block in every member bot's system prompt, and its gauge.

Spec: memory.md, "Shared team memory integrity": accepted notes load within 6,000 bytes, pinned ones first;
the rest stay findable with `session_search` scope `team`. Decisions (docs/team.md): after the pins, notes come
in the order their keys were first accepted (oldest first), so a new note never pushes out one that loaded
before; the 6,000 bytes count the whole block (heading, notes, the closing line); a note that does not fit is
left out and a shorter one after it may still load. Proposals, superseded and deleted entries never load.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.text import plural
from ..files.paths import Home
from .model import Note, Team
from .storage import teams_of_bot

TEAM_BLOCK_MAX_BYTES = 6_000
# Room kept for the closing line when notes are left out ("N more team notes did not load: …").
_CLOSING_ROOM = 160


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogateescape"))


@dataclass(frozen=True)
class TeamLoad:
    team: Team
    block: str
    loaded: list[Note]
    not_loaded: list[Note]

    @property
    def bytes(self) -> int:
        return utf8_size(self.block)

    def gauge(self) -> dict:
        return {
            "team": self.team.key,
            "name": self.team.name,
            "bytes": self.bytes,
            "max_bytes": TEAM_BLOCK_MAX_BYTES,
            "loaded": len(self.loaded),
            "not_loaded": len(self.not_loaded),
            "loaded_keys": [n.key for n in self.loaded],
            "not_loaded_keys": [n.key for n in self.not_loaded],
        }


def load_order(team: Team) -> list[Note]:
    """Accepted notes, pinned first, then by when their key was first accepted."""
    return sorted(team.accepted(), key=lambda note: (not note.pinned, note.seq, note.key))


def note_line(note: Note) -> str:
    """`- Title (key): text`, a multi-line text's later lines indented under it."""
    text = note.text.replace("\n", "\n  ")
    return f"- {note.title} ({note.key}): {text}\n"


def _heading(team: Team) -> str:
    return (
        f"## Team memory: {team.name}\n\n"
        f'Notes your team "{team.name}" shares with its other bots; a person reviewed each one.\n'
    )


def _closing(left_out: int) -> str:
    return (
        f'\n{plural(left_out, "more team note")} did not load: session_search with scope "team" finds '
        f"{'it' if left_out == 1 else 'them'}.\n"
    )


def team_load(team: Team) -> TeamLoad:
    """The team's block exactly as it loads, with what loaded and what did not."""
    ordered = load_order(team)
    if not ordered:
        return TeamLoad(team, "", [], [])
    heading = _heading(team)
    lines = [note_line(note) for note in ordered]
    if utf8_size(heading) + sum(utf8_size(line) for line in lines) <= TEAM_BLOCK_MAX_BYTES:
        return TeamLoad(team, heading + "".join(lines), ordered, [])
    room = TEAM_BLOCK_MAX_BYTES - utf8_size(heading) - _CLOSING_ROOM
    loaded, left_out, body = [], [], []
    for note, line in zip(ordered, lines):
        size = utf8_size(line)
        if size <= room:
            loaded.append(note)
            body.append(line)
            room -= size
        else:
            left_out.append(note)
    return TeamLoad(team, heading + "".join(body) + _closing(len(left_out)), loaded, left_out)


def team_blocks(home: Home, bot_id: str) -> str:
    """Every team block the bot loads, one after another, its teams by name; empty when it is in none."""
    blocks = [team_load(team).block for team in teams_of_bot(home, bot_id)]
    return "\n".join(block for block in blocks if block)
