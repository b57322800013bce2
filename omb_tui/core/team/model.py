"""A team and its notes as they are kept on disk: the version-2 format, read field by field, and version 1.

Spec: memory.md, "Shared team memory integrity". The format (docs/team.md):

    {"version": 2, "key": "team-3f9a2c1b", "name": "Tapa crew", "bots": ["scout", "ledger"],
     "created": ISO, "retired": null | ISO, "next_seq": N,
     "notes": [{"key", "title", "text", "pinned", "status": "accepted" | "deleted", "revision", "seq",
                "at", "by", "history": [{"revision", "title", "text", "status": "superseded" | "deleted",
                                         "at", "by"}]}],
     "cards": [{"key", "title", "text", "status": "proposed", "revision", "based_on", "at", "by",
                "quotes", "chat"}],
     "last_revisions": {"<key>": N}}

Version 1 (what came before keys and revisions): a plain list of notes, each `{"title", "text"}` (an optional
`pinned`) or a bare string, either as the whole file or under `"notes"` beside `"name"` and `"bots"`, with
`"version": 1` or no version at all. It has no keys, revisions, statuses or cards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..base import clock
from ..files.paths import MemoryInputError, quoted, validate_bot_id
from ..redaction.redact import redact

FORMAT_VERSION = 2
PROPOSED, ACCEPTED, SUPERSEDED, DELETED = "proposed", "accepted", "superseded", "deleted"
STATUSES = (PROPOSED, ACCEPTED, SUPERSEDED, DELETED)
HISTORY_MAX = 50  # the spec's "up to 50" recent text versions kept per note
TITLE_MAX_CHARS = 120
TEXT_MAX_CHARS = 2_000
KEY_MAX_CHARS = 120
NAME_MAX_CHARS = 60
QUOTES_MAX = 10
BY_PERSON = "person"

# A team's key names its file: lower-case letters, digits, `-` and `_`. New ones are `team-` and 8 hex digits.
TEAM_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# A note's key: lower-case segments joined by `/`, such as `tapa/sequence-02/colour`.
NOTE_KEY = re.compile(r"^[a-z0-9][a-z0-9._-]*(?:/[a-z0-9][a-z0-9._-]*)*$")


class DamagedTeamFile(MemoryInputError):
    """A team file whose fields are not as written; nothing is guessed."""


def now_iso() -> str:
    return clock.now_utc().isoformat(timespec="seconds")


def by_bot(bot_id: str) -> str:
    """Who proposed: `person`, or `bot:<id>` (a colon is never in a bot id, so the two cannot be confused)."""
    return f"bot:{bot_id}"


# ----- the inputs a person or a bot gives -----
def validate_note_key(key: object) -> str:
    if not isinstance(key, str) or len(key) > KEY_MAX_CHARS or not NOTE_KEY.fullmatch(key):
        raise MemoryInputError(
            f"{quoted(key)} is not a note key: use lower-case letters, digits, dots, dashes and underscores, "
            f"in parts joined by '/', such as 'tapa/sequence-02/colour' (at most {KEY_MAX_CHARS} characters)."
        )
    return key


def clean_title(title: object) -> str:
    """One line, redacted (what is kept is what the caller is given back)."""
    if not isinstance(title, str) or not " ".join(title.split()):
        raise MemoryInputError("A team note needs a title.")
    title = " ".join(title.split())
    if len(title) > TITLE_MAX_CHARS:
        raise MemoryInputError(f"The title is longer than {TITLE_MAX_CHARS} characters.")
    return redact(title).text


def clean_text(text: object) -> str:
    """The note's text, redacted: line breaks kept (CRLF as LF), trailing spaces and blank lines at either end
    dropped."""
    if not isinstance(text, str) or not text.strip():
        raise MemoryInputError("A team note needs some text.")
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    text = "\n".join(lines).strip("\n")
    if len(text) > TEXT_MAX_CHARS:
        raise MemoryInputError(f"The text is longer than {TEXT_MAX_CHARS:,} characters.")
    return redact(text).text


def clean_team_name(name: object) -> str:
    if not isinstance(name, str) or not " ".join(name.split()):
        raise MemoryInputError("A team needs a name.")
    name = " ".join(name.split())
    if len(name) > NAME_MAX_CHARS or not name.isprintable():
        raise MemoryInputError(f"{quoted(name)} is not a team name: one line of at most {NAME_MAX_CHARS} characters.")
    return name


# ----- the records -----
@dataclass
class Version:
    """An earlier text of a note, kept in its history: replaced (superseded) or deleted."""

    revision: int
    title: str
    text: str
    status: str
    at: str
    by: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Note:
    """The current entry for a key: accepted (it loads) or deleted (kept for its history, never loaded)."""

    key: str
    title: str
    text: str
    pinned: bool
    status: str
    revision: int
    seq: int  # the order of the key's first acceptance: the block's stable order after the pins
    at: str
    by: str
    history: list[Version] = field(default_factory=list)

    def to_dict(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k != "history"}
        data["history"] = [version.to_dict() for version in self.history]
        return data

    def shown(self) -> dict:
        """What `team show` lists for it."""
        return {
            "key": self.key,
            "title": self.title,
            "text": self.text,
            "pinned": self.pinned,
            "status": self.status,
            "revision": self.revision,
            "at": self.at,
            "by": self.by,
        }

    def keep_in_history(self, status: str) -> None:
        """Put the current text into the history (the newest HISTORY_MAX kept) before it is replaced."""
        self.history.append(Version(self.revision, self.title, self.text, status, self.at, self.by))
        del self.history[:-HISTORY_MAX]


@dataclass
class Card:
    """A pending proposal for a key, reviewed by a person; `based_on` is the note's revision when proposed."""

    key: str
    title: str
    text: str
    revision: int
    based_on: int | None
    at: str
    by: str
    quotes: list[str] = field(default_factory=list)
    chat: str | None = None
    status: str = PROPOSED

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def shown(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "text": self.text,
            "pinned": False,
            "status": self.status,
            "revision": self.revision,
            "based_on": self.based_on,
            "at": self.at,
            "by": self.by,
            "quotes": list(self.quotes),
            "chat": self.chat,
        }


@dataclass
class Team:
    key: str
    name: str
    bots: list[str]
    created: str
    retired: str | None = None
    next_seq: int = 1
    notes: dict[str, Note] = field(default_factory=dict)
    cards: dict[str, Card] = field(default_factory=dict)
    # the last revision each key was given: a key whose card was rejected never reuses a number
    last_revisions: dict[str, int] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.retired is None

    def accepted(self) -> list[Note]:
        return [note for note in self.notes.values() if note.status == ACCEPTED]

    def to_dict(self) -> dict:
        return {
            "version": FORMAT_VERSION,
            "key": self.key,
            "name": self.name,
            "bots": list(self.bots),
            "created": self.created,
            "retired": self.retired,
            "next_seq": self.next_seq,
            "notes": [note.to_dict() for note in self.notes.values()],
            "cards": [card.to_dict() for card in self.cards.values()],
            "last_revisions": dict(self.last_revisions),
        }

    def summary(self) -> dict:
        return {
            "key": self.key,
            "name": self.name,
            "bots": list(self.bots),
            "created": self.created,
            "retired": self.retired,
            "accepted": len(self.accepted()),
            "pending": len(self.cards),
        }


# ----- reading version 2, field by field -----
class _Fields:
    """Reads one object's fields, naming the file and the field when one is not as written."""

    def __init__(self, data: object, where: str, file: str) -> None:
        if not isinstance(data, dict):
            raise DamagedTeamFile(f"The team file {quoted(file)} is damaged: {where} is not an object.")
        self.data, self.where, self.file = data, where, file

    def fail(self, name: str, wanted: str) -> DamagedTeamFile:
        return DamagedTeamFile(
            f"The team file {quoted(self.file)} is damaged: {self.where}'s {name!r} is not {wanted}."
        )

    def text(self, name: str) -> str:
        value = self.data.get(name)
        if not isinstance(value, str):
            raise self.fail(name, "text")
        return value

    def text_or_none(self, name: str) -> str | None:
        return None if self.data.get(name) is None else self.text(name)

    def number(self, name: str) -> int:
        value = self.data.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.fail(name, "a whole number")
        return value

    def number_or_none(self, name: str) -> int | None:
        return None if self.data.get(name) is None else self.number(name)

    def flag(self, name: str) -> bool:
        value = self.data.get(name, False)
        if not isinstance(value, bool):
            raise self.fail(name, "true or false")
        return value

    def items(self, name: str) -> list:
        value = self.data.get(name, [])
        if not isinstance(value, list):
            raise self.fail(name, "a list")
        return value

    def choice(self, name: str, allowed: tuple[str, ...]) -> str:
        value = self.data.get(name)
        if value not in allowed:
            raise self.fail(name, " or ".join(allowed))
        return value


def team_from_json(data: object, file: str) -> Team:
    fields = _Fields(data, "the team", file)
    key = fields.text("key")
    if not TEAM_KEY.fullmatch(key):
        raise fields.fail("key", "a team key")
    bots = fields.items("bots")
    if not all(isinstance(bot, str) for bot in bots):
        raise fields.fail("bots", "a list of bot ids")
    team = Team(
        key=key,
        name=fields.text("name"),
        bots=bots,
        created=fields.text("created"),
        retired=fields.text_or_none("retired"),
        next_seq=fields.number("next_seq"),
    )
    for index, raw in enumerate(fields.items("notes")):
        note = _note_from_json(_Fields(raw, f"note {index + 1}", file))
        team.notes[note.key] = note
    for index, raw in enumerate(fields.items("cards")):
        card = _card_from_json(_Fields(raw, f"card {index + 1}", file))
        team.cards[card.key] = card
    last = data.get("last_revisions", {}) if isinstance(data, dict) else {}  # absent in files written before it
    if not isinstance(last, dict) or not all(isinstance(k, str) and type(v) is int for k, v in last.items()):
        raise fields.fail("last_revisions", "an object of key → revision number")
    team.last_revisions = dict(last)
    return team


def _note_from_json(fields: _Fields) -> Note:
    history = []
    for index, raw in enumerate(fields.items("history")):
        version = _Fields(raw, f"{fields.where}'s version {index + 1}", fields.file)
        history.append(
            Version(
                version.number("revision"),
                version.text("title"),
                version.text("text"),
                version.choice("status", (SUPERSEDED, DELETED)),
                version.text("at"),
                version.text("by"),
            )
        )
    return Note(
        key=fields.text("key"),
        title=fields.text("title"),
        text=fields.text("text"),
        pinned=fields.flag("pinned"),
        status=fields.choice("status", (ACCEPTED, DELETED)),
        revision=fields.number("revision"),
        seq=fields.number("seq"),
        at=fields.text("at"),
        by=fields.text("by"),
        history=history,
    )


def _card_from_json(fields: _Fields) -> Card:
    quotes = fields.items("quotes")
    if not all(isinstance(quote, str) for quote in quotes):
        raise fields.fail("quotes", "a list of text")
    return Card(
        key=fields.text("key"),
        title=fields.text("title"),
        text=fields.text("text"),
        revision=fields.number("revision"),
        based_on=fields.number_or_none("based_on"),
        at=fields.text("at"),
        by=fields.text("by"),
        quotes=quotes,
        chat=fields.text_or_none("chat"),
        status=fields.choice("status", (PROPOSED,)),
    )


# ----- version 1 -----
def is_version_1(data: object) -> bool:
    return isinstance(data, list) or (isinstance(data, dict) and data.get("version", 1) == 1)


def team_from_version_1(data: object, key: str, file: str) -> Team:
    """A version-1 team as version 2: each note accepted at revision 1, keyed by its title, order kept."""
    if isinstance(data, list):
        name, bots, notes = key, [], data
    else:
        fields = _Fields(data, "the team", file)
        name = fields.text_or_none("name") or key
        bots = fields.items("bots")
        notes = fields.items("notes")
    for bot in bots:
        try:
            validate_bot_id(bot)
        except MemoryInputError:
            raise DamagedTeamFile(
                f"The team file {quoted(file)} is damaged: {bot!r} in 'bots' is not a bot id."
            ) from None
    at = now_iso()
    team = Team(key=key, name=" ".join(str(name).split()) or key, bots=list(bots), created=at)
    for index, raw in enumerate(notes):
        if isinstance(raw, str):
            title, text, pinned = raw, raw, False
        else:
            fields = _Fields(raw, f"note {index + 1}", file)
            text = fields.text("text")
            title, pinned = fields.text_or_none("title") or text, fields.flag("pinned")
        if not text.strip():
            continue
        title = " ".join(title.split())[:TITLE_MAX_CHARS]
        note_key = _unused_key(slug(title), team)
        team.notes[note_key] = Note(note_key, title, text.strip(), pinned, ACCEPTED, 1, team.next_seq, at, "version 1")
        team.next_seq += 1
    return team


def slug(title: str) -> str:
    """A note key from a version-1 title: lower-case ASCII words joined by dashes (`note` when none are left)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)[:60].strip("-") or "note"


def _unused_key(base: str, team: Team) -> str:
    key, number = base, 2
    while key in team.notes:
        key, number = f"{base}-{number}", number + 1
    return key
