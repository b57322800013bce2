"""The **Still true?** queue and the person's answers (docs/guard.md, "Still true?").

An entry of MEMORY.md or a topic joins the queue when it was written (or last confirmed) more than
`memory.reviewAfterDays` days ago (180 by default) and has no until date, when its until date is within 7 days,
or when a tidy-up found a newer entry contradicting it but could not strike it (its limit). At most
QUEUE_PER_DAY entries a day are asked about per bot. Each answer is one journal row by the person, undoable:
keep (`· confirmed DATE`, out of the queue for another period), strike (`~~…~~ · superseded DATE`), or a new
until date. The queue's state (answers counted per day, the contradictions tidy-ups left) is
`memory-journal/<bot>.still-true.json`, beside the journal.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from ..base import clock
from ..base.text import plural
from ..files.disk import read_json_object, write_private_json
from ..files.paths import (
    ARCHIVE_NAME,
    MEMORY_DIR,
    MEMORY_FILE,
    Home,
    MemoryInputError,
    NotFound,
    quoted,
    validate_bot_id,
)
from ..journal.changes import Actor
from ..journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from ..memory.entries import SEPARATOR, Entry, line_content, line_ending, parse_entries, render_entries
from ..memory.store import MemoryStore
from ..upkeep.tidy import strike_entry
from .probes import STEP_STILL_TRUE
from .settings import review_after_days

QUEUE_PER_DAY = 5  # "a handful a day": asked about, answers included, per bot
UNTIL_SOON_DAYS = 7
KEEP_CONTRADICTED = 100
OVER_THE_LIMIT = "over the limit"  # how a tidy-up's refusal of a pair for its limit begins
KEEP, STRIKE, UNTIL, EDIT = "keep", "strike", "until", "edit"  # edit: the app's, with the new line
_CONFIRMED = re.compile(r"[ \t]+·[ \t]+confirmed[ \t]+(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2})")
_UNTIL = re.compile(r"(?P<lead>[ \t]+·[ \t]+until[ \t]+)(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2})")
_TRAILING = re.compile(r"(?:[ \t]+·[ \t]+(?:until|superseded|moved)[ \t]+[0-9]{4}-[0-9]{2}-[0-9]{2})*[ \t]*\Z")
WHY_CONTRADICTED = "a tidy-up found a newer entry saying otherwise but could not strike this one (its limit)"


class StillTrueRefused(MemoryInputError):
    """An answer that cannot be made as asked (a date in the past, a line that would not read back)."""


@dataclass(frozen=True)
class StillTrueItem:
    id: str
    file: str
    text: str  # the entry's first line, as written
    why: str

    def to_dict(self) -> dict:
        return {"id": self.id, "file": self.file, "text": self.text, "why": self.why}

    def line(self) -> str:
        return f"{self.id}  {self.file}  {self.text}  ({self.why})"


@dataclass(frozen=True)
class Answered:
    id: str
    file: str
    answer: str
    text: str  # the line as it is now
    row_id: str | None

    def to_dict(self) -> dict:
        return {"id": self.id, "file": self.file, "answer": self.answer, "text": self.text, "row_id": self.row_id}


# ----- the state beside the journal -----
def state_path(home: Home, bot_id: str) -> Path:
    return home.journal_dir / f"{validate_bot_id(bot_id)}.still-true.json"


def _state(home: Home, bot_id: str) -> dict:
    data = read_json_object(state_path(home, bot_id))
    answered = data.get("answered") if isinstance(data.get("answered"), dict) else {}
    contradicted = [c for c in data.get("contradicted") or [] if isinstance(c, dict) and isinstance(c.get("text"), str)]
    return {"answered": answered, "contradicted": contradicted}


def _save(store: MemoryStore, change) -> None:
    with store.locked():
        state = _state(store.home, store.bot_id)
        change(state)
        state["answered"] = dict(sorted(state["answered"].items())[-14:])
        state["contradicted"] = state["contradicted"][-KEEP_CONTRADICTED:]
        write_private_json(state_path(store.home, store.bot_id), state)


def note_contradicted(home: Home, bot_id: str, tidy_report: dict | None, today: date) -> None:
    """Keep what a tidy-up found contradicted but could not strike (its limit), for the queue."""
    skipped = (tidy_report or {}).get("skipped") or []
    texts = [item["text"] for item in skipped if str(item.get("reason", "")).startswith(OVER_THE_LIMIT)]
    if not texts:
        return

    def add(state: dict) -> None:
        known = {item["text"] for item in state["contradicted"]}
        state["contradicted"] += [{"text": t, "at": today.isoformat()} for t in texts if t not in known]

    _save(MemoryStore(home, bot_id), add)


# ----- the queue -----
def item_id(rel: str, content: str) -> str:
    return hashlib.sha256(f"{rel}\n{content}".encode()).hexdigest()[:8]


def _files(store: MemoryStore) -> list[str]:
    rels = [MEMORY_FILE]
    folder = store.workspace / MEMORY_DIR
    if folder.is_dir():
        rels += [
            f"{MEMORY_DIR}/{p.name}"
            for p in sorted(folder.glob("*.md"))
            if p.is_file() and not p.is_symlink() and p.name != ARCHIVE_NAME
        ]
    return rels


def candidates(home: Home, bot_id: str, today: date | None = None) -> list[StillTrueItem]:
    """Every entry the queue's rules pick, contradicted first, then an until date soonest, then the oldest."""
    home = Home.of(home)
    today = today or clock.today()
    after = review_after_days(home)
    store = MemoryStore(home, bot_id)
    contradicted = {item["text"] for item in _state(home, bot_id)["contradicted"]}
    ranked: list[tuple[tuple, StillTrueItem]] = []
    for rel in _files(store):
        for entry in parse_entries(store.read(rel).text):
            if not entry.is_bullet or entry.struck or entry.expired(today) or not entry.fact.strip():
                continue
            content = line_content(entry.lines[0]).rstrip(" \t")
            confirmed = _confirmed(content)
            if confirmed is not None and (today - confirmed).days < after:
                continue
            found = _why(entry, content, confirmed, contradicted, today, after)
            if found is not None:
                rank, why = found
                ranked.append((rank, StillTrueItem(item_id(rel, content), rel, content, why)))
    ranked.sort(key=lambda pair: pair[0])
    return [item for _, item in ranked]


def _why(
    entry: Entry, content: str, confirmed: date | None, contradicted: set[str], today: date, after: int
) -> tuple[tuple, str] | None:
    if content in contradicted:
        return (0, ""), WHY_CONTRADICTED
    if entry.until is not None and today <= entry.until <= today + timedelta(days=UNTIL_SOON_DAYS):
        return (1, entry.until.isoformat()), f"it holds until {entry.until.isoformat()}, within a week"
    written = confirmed or entry.day
    if entry.until is None and written is not None and (today - written).days >= after:
        said = "confirmed" if confirmed else "written"
        return (2, written.isoformat()), f"{said} {plural((today - written).days, 'day')} ago, with no until date"
    return None


def still_true_queue(home: Home, bot_id: str, today: date | None = None) -> list[StillTrueItem]:
    """What to ask about today: at most QUEUE_PER_DAY a day, less what was answered today."""
    home = Home.of(home)
    today = today or clock.today()
    answered = _state(home, bot_id)["answered"].get(today.isoformat(), 0)
    room = max(0, QUEUE_PER_DAY - (answered if isinstance(answered, int) else 0))
    return candidates(home, bot_id, today)[:room]


# ----- the answers -----
def answer_still_true(
    home: Home,
    bot_id: str,
    answer: str,
    ids: list[str],
    *,
    until: date | None = None,
    today: date | None = None,
    how: str = HOW_COMMAND_LINE,
    text: str | None = None,
) -> list[Answered]:
    """Keep, strike or set the until date of each entry named, or edit one to `text` (one journal row each, by the
    person). Every id is checked first: one that is not in the queue's picks writes nothing."""
    home = Home.of(home)
    today = today or clock.today()
    if answer not in (KEEP, STRIKE, UNTIL, EDIT):
        raise MemoryInputError(f"{quoted(answer)} is not an answer: keep, strike or until.")
    if answer == EDIT:
        text = _edited_line(text, len(ids))
    if not ids:
        raise MemoryInputError("Name at least one entry by its id (omb-tui still-true BOT lists them).")
    if answer == UNTIL and (until is None or until < today):
        raise StillTrueRefused(f"The until date must be today ({today.isoformat()}) or later.")
    picked = {item.id: item for item in candidates(home, bot_id, today)}
    missing = [item for item in ids if item not in picked]
    if missing:
        raise NotFound(
            f"{plural(len(missing), 'id')} not in the still-true queue of {bot_id}: {', '.join(missing)} "
            "(`omb-tui still-true BOT` lists them)."
        )
    store = MemoryStore(home, bot_id)
    actor = Actor(WHO_PERSON, how, step=STEP_STILL_TRUE)
    done = []
    for item_key in dict.fromkeys(ids):
        item = picked[item_key]
        snapshot = store.read(item.file)
        entries = parse_entries(snapshot.text)
        index = next(
            (i for i, e in enumerate(entries) if e.is_bullet and line_content(e.lines[0]).rstrip(" \t") == item.text),
            None,
        )
        if index is None:
            raise NotFound(f"The entry {item.id} is no longer in {item.file}.")
        entries[index] = _answered(entries[index], answer, today, until, text)
        note = f"still true? {answer}" + (f" {until.isoformat()}" if answer == UNTIL and until else "")
        write = store.write(item.file, render_entries(entries), actor, expected_hash=snapshot.hash, note=note)
        now_text = line_content(entries[index].lines[0]).rstrip(" \t")
        done.append(Answered(item.id, item.file, answer, now_text, write.row_id))

    def count(state: dict) -> None:
        key = today.isoformat()
        before = state["answered"].get(key, 0)
        state["answered"][key] = (before if isinstance(before, int) else 0) + len(done)

    _save(store, count)
    return done


def _edited_line(text: str | None, count: int) -> str:
    """An edit's new line: one entry, one line, a bullet, of at most 1,000 characters (an entry's limit)."""
    line = (text or "").strip()
    if count != 1:
        raise StillTrueRefused("Edit one entry at a time.")
    if not line or "\n" in line or "\r" in line or len(line) > 1000:
        raise StillTrueRefused("The edited entry must be one line of at most 1,000 characters.")
    line = line if line.startswith(("- ", "* ")) else f"- {line}"
    if not parse_entries(line + "\n")[0].is_bullet:
        raise StillTrueRefused("The edited entry must read back as one entry.")
    return line


def _answered(entry: Entry, answer: str, today: date, until: date | None, text: str | None = None) -> Entry:
    first = entry.lines[0]
    content = line_content(first).rstrip(" \t")
    if answer == EDIT:
        assert text is not None
        replaced = parse_entries(text + line_ending(first))[0]
        replaced.lines = [text + line_ending(first), *entry.lines[1:]]
        return replaced
    if answer == STRIKE:
        struck = strike_entry(entry, today)
        if struck is None:
            raise StillTrueRefused(f"“{content}” would not read back as the same fact once struck through.")
        return struck
    if answer == KEEP:
        mark = f"{SEPARATOR}confirmed {today.isoformat()}"
        if _CONFIRMED.search(content):
            new = _CONFIRMED.sub(lambda m: mark, content, count=1)
        else:
            tail = _TRAILING.search(content)
            at = tail.start() if tail else len(content)
            new = content[:at] + mark + content[at:]
    else:
        assert until is not None
        if _UNTIL.search(content):
            new = _UNTIL.sub(lambda m: m.group("lead") + until.isoformat(), content, count=1)
        else:
            new = f"{content}{SEPARATOR}until {until.isoformat()}"
    replaced = parse_entries(new + line_ending(first))[0]
    replaced.lines = [new + line_ending(first), *entry.lines[1:]]
    return replaced


def _confirmed(content: str) -> date | None:
    found = _CONFIRMED.findall(content)
    if not found:
        return None
    with contextlib.suppress(ValueError):
        return date.fromisoformat(found[-1])
    return None
