"""About me's learned lines: list them, remove one for good, and add one (for capture) under the same checks.

Spec: memory.md, "Memory upkeep" (About me: a lasting fact about the person, from their own words, becomes a
dated line `- 2026-09-25 · learned by Scout · …`; **Added by your bots** lists each with **Remove**; a removed fact
is never added again; another person's messages never add to the owner's About me), "Remember and forget, in chat"
(forgotten words are never learned again) and "Checks before a dream saves a fact" (nothing that looks like a secret).

A learned line's id is its record's in `profile-learned.json` `learned` ({id, text, bot, at, removed}); a learned
line About me holds with no record (edited by hand, or the file lost) gets an id made from its text, so it can still
be removed. docs/upkeep-about-me.md gives every decision.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date

from ..files.disk import encode, read_text
from ..files.locks import home_lock
from ..files.paths import Home, MemoryInputError, NotFound, layer_id, quoted, split_layer
from ..journal.changes import Actor
from ..journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from ..memory.entries import Entry, parse_entries, render_entries
from ..memory.memory_update import MemoryUpdate, forgotten_matches, same_fact
from ..memory.settings import load_profile_learned, save_profile_learned
from ..memory.store import ABOUT_ME_REL, MemoryStore
from ..redaction.redact import contains_credential, redact

LEARNED_BY = "learned by "
NOTE_REMOVED = "removed a learned line from About me"


@dataclass(frozen=True)
class LearnedLine:
    id: str
    text: str  # the fact, as About me holds it
    bot: str  # the bot's id from the record, else the name the line gives
    at: str | None  # the day it was learned (YYYY-MM-DD)
    line: str  # the whole line in about-me.md

    def to_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "bot": self.bot, "at": self.at}


def _is_learned(entry: Entry) -> bool:
    return entry.kind == "dated" and (entry.source or "").startswith(LEARNED_BY) and not entry.struck


def _text_id(fact: str) -> str:
    """The id of a learned line with no record: stable for its words (spacing and a final stop ignored)."""
    words = " ".join(fact.split()).rstrip(".")
    return "t" + hashlib.sha256(encode(words)).hexdigest()[:11]


def _record_for(fact: str, records: list[dict]) -> dict | None:
    matching = [r for r in records if same_fact(str(r.get("text") or ""), fact)]
    return next((r for r in matching if not r.get("removed")), matching[0] if matching else None)


def _about_me_text(home: Home, person: str | None = None) -> str:
    try:
        return read_text(home.about_me_of(person))
    except FileNotFoundError:
        return ""


def list_learned(home: Home, person: str | None = None) -> list[LearnedLine]:
    """The learned lines About me holds now, newest first (`person`: a Team Cloud person's own About me)."""
    records = load_profile_learned(home, person).learned
    found = []
    for entry in parse_entries(_about_me_text(home, person)):
        if not _is_learned(entry):
            continue
        record = _record_for(entry.fact, records)
        bot = str(record.get("bot") or "") if record else ""
        found.append(
            LearnedLine(
                id=str(record.get("id") or "") if record and record.get("id") else _text_id(entry.fact),
                text=entry.fact,
                bot=bot or (entry.source or "")[len(LEARNED_BY) :],
                at=entry.day.isoformat() if entry.day else None,
                line=entry.raw.rstrip("\r\n"),
            )
        )
    return sorted(found, key=lambda line: line.at or "", reverse=True)


def was_removed(home: Home, text: str, person: str | None = None) -> bool:
    """Did the person remove this fact from About me (the exact-fact rule)? Then it is never added again."""
    saved = redact(text).text  # records keep the redacted text
    return any(
        record.get("removed")
        and (same_fact(str(record.get("text") or ""), text) or same_fact(str(record.get("text") or ""), saved))
        for record in load_profile_learned(home, person).learned
    )


# ----- removing -----
@dataclass
class RemoveResult:
    line: LearnedLine
    row_id: str | None
    journaled: bool = True

    def message(self) -> str:
        return f"Removed from About me: {self.line.text} (no bot adds it again)."

    def to_dict(self) -> dict:
        return {"removed": self.line.to_dict(), "row_id": self.row_id, "message": self.message()}


def _journal_store(home: Home, bot_id: str, person: str | None = None) -> MemoryStore:
    """About me is shared; its row goes in the journal of the bot that learned the line, else the first bot's (a
    person's About me: in that person's layer of the bot)."""
    if not (bot_id and home.has_bot(bot_id)):
        bots = home.bot_ids()
        if not bots:
            raise MemoryInputError("There is no bot whose journal could record the change to About me.")
        bot_id = bots[0]
    return MemoryStore(home, layer_id(bot_id, person) if person else bot_id)


def remove_learned(home: Home, learned_id: str, actor: Actor | None = None, person: str | None = None) -> RemoveResult:
    """Take a learned line out of About me (journaled, undoable) and mark its fact removed for good. `person`: a
    Team Cloud person's own About me."""
    actor = actor or Actor(WHO_PERSON, HOW_COMMAND_LINE)
    found = next((line for line in list_learned(home, person) if line.id == learned_id), None)
    if found is None:
        raise NotFound(f"About me has no learned line {quoted(learned_id)}; `omb-tui about-me` lists them.")
    store = _journal_store(home, found.bot, person)
    with store.locked(), home_lock(home):  # the order every About me writer takes them in
        about = store.read(ABOUT_ME_REL)
        entries = parse_entries(about.text)
        kept = [e for e in entries if not (_is_learned(e) and same_fact(e.fact, found.text))]
        if len(kept) == len(entries):
            raise NotFound(f"About me no longer holds the learned line {quoted(learned_id)}.")
        write = store.write(ABOUT_ME_REL, render_entries(kept), actor, expected_hash=about.hash, note=NOTE_REMOVED)
        profile = load_profile_learned(home, person)
        records = [r for r in profile.learned if same_fact(str(r.get("text") or ""), found.text)]
        for record in records:
            record["removed"] = True
        if not records:  # a line About me held with no record: recorded now, so it is never added again
            profile.learned.append(
                {"id": found.id, "text": found.text, "bot": found.bot, "at": found.at or "", "removed": True}
            )
        save_profile_learned(home, profile, person)
    return RemoveResult(found, write.row_id, write.journaled)


# ----- adding (capture calls this) -----
@dataclass
class LearnResult:
    text: str
    added: bool
    id: str | None = None
    reason: str | None = None  # why it was not added: one sentence

    def to_dict(self) -> dict:
        return {"text": self.text, "added": self.added, "id": self.id, "reason": self.reason}


def add_learned(
    home: Home, bot_id: str, text: str, actor: Actor, *, owners_words: bool, today: date | None = None
) -> LearnResult:
    """Add a lasting fact about the person to About me as a learned line, unless a rule refuses it.

    `owners_words`: the caller says whether the fact rests on the words of the person whose About me it is
    (their own 1:1 chat, their own lines in a room); another person's words never add to it. `bot_id` may name a
    Team Cloud person's layer of the bot: the fact then goes to that person's own About me.
    """
    bot, person = split_layer(bot_id)
    shown = redact(" ".join((text or "").split())).text
    if not owners_words:
        return LearnResult(shown, False, reason="Another person's words never add to the owner's About me.")
    if contains_credential(text or ""):
        return LearnResult(shown, False, reason="It looks like a secret, and About me never keeps one.")
    profile = load_profile_learned(home, person)
    if any(forgotten_matches(forgotten, text) for forgotten in profile.forgotten):
        return LearnResult(shown, False, reason="It mentions words the person asked to forget.")
    store = MemoryStore(home, bot_id)
    with store.locked(), home_lock(home):  # checked and written under one hold: a Remove cannot slip in between
        if was_removed(home, text, person):
            return LearnResult(
                shown, False, reason="The person removed this fact from About me; it is never added again."
            )
        try:
            result = MemoryUpdate(home, bot_id, actor, store=store).prefer(text, today=today)
        except MemoryInputError as exc:
            return LearnResult(shown, False, reason=str(exc))
        if not result.added:
            return LearnResult(result.text, False, reason="About me holds this fact already.")
        record = next(
            r
            for r in reversed(load_profile_learned(home, person).learned)
            if r.get("text") == result.text and r.get("bot") == bot
        )
        return LearnResult(result.text, True, id=str(record.get("id")))


__all__ = ["LearnResult", "LearnedLine", "RemoveResult", "add_learned", "list_learned", "remove_learned", "was_removed"]
