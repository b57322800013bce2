"""memory_update: add (with archive overflow), forget and prefer.

Spec: memory.md, "What loads, and the budget" (MEMORY.md never fills up: the oldest dated entries move
to memory/archive.md in the same step, struck ones first, then expired, then the oldest live ones, each
marked `· moved DATE`, the archive written first; undated lines, health and safety facts and the entry
just written never move) and "Remember and forget, in chat" (forget by whole words in every file,
headers kept, never a date left with no words, the words kept in profile-learned.json; a preference of
at most 300 characters goes once into About me).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import uuid
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ..base import clock
from ..base.text import plural
from ..files.disk import encode, read_text, write_private_json
from ..files.locks import home_lock
from ..files.paths import ARCHIVE_NAME, MEMORY_DIR, MEMORY_FILE, Home, MemoryInputError, split_layer
from ..journal.changes import Actor, FileSnapshot, StaleHash, WriteResult
from ..journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from ..redaction.forgotten import forgotten_entry, forgotten_matches, same_forgotten
from .budget import MEMORY_MAX_BYTES, MEMORY_MAX_LINES
from .entries import (
    Entry,
    format_dated_entry,
    is_health_or_safety,
    line_ending,
    mark_moved,
    parse_entries,
    render_entries,
    split_lines,
)
from .preference import PreferResult, removed_records, same_fact
from .settings import load_bot_settings, load_profile_learned, save_profile_learned
from .store import ABOUT_ME_REL, MemoryStore

ARCHIVE_REL = f"{MEMORY_DIR}/{ARCHIVE_NAME}"
ENTRY_MAX_CHARS = 1000
ENTRY_MAX_LINES = 20
PREFERENCE_MAX_CHARS = 300
MOVED_NAMED = 3
ADD_ATTEMPTS = 20  # an add is done again on top of a lock-free editor's save, this many times at most  # the result names the first few moved entries, then how many
ABOUT_ME_HEADER = "# About me\n\n"


@dataclass
class AddResult:
    entry: str  # the line(s) written to MEMORY.md
    moved: list[str] = field(default_factory=list)  # the facts moved to the archive, in file order
    must_trim: bool = False  # the lines that never move fill the budget by themselves
    redactions: int = 0
    row_id: str | None = None  # the journal row of the MEMORY.md write
    journaled: bool = True  # False: saved, but the journal could not be written (the next look journals it)

    def message(self) -> str:
        parts = ["Saved to MEMORY.md."]
        if self.redactions:
            was = "was" if self.redactions == 1 else "were"
            parts.append(f"{plural(self.redactions, 'credential')} {was} redacted before saving.")
        if self.moved:
            named = "; ".join(_clip(fact) for fact in self.moved[:MOVED_NAMED])
            more = f" and {len(self.moved) - MOVED_NAMED} more" if len(self.moved) > MOVED_NAMED else ""
            parts.append(
                f"Moved {plural(len(self.moved), 'older entry', 'older entries')} to {ARCHIVE_REL}: {named}{more}."
            )
        if not self.journaled:
            parts.append("The journal could not be written; the next look at this bot will journal the change.")
        if self.must_trim:
            parts.append(
                f"MEMORY.md is still over its budget ({MEMORY_MAX_LINES} lines or {MEMORY_MAX_BYTES // 1024} KB) "
                "with only lines that never move: please trim it by hand."
            )
        return " ".join(parts)

    def to_dict(self) -> dict:
        return {
            "entry": self.entry,
            "moved": self.moved,
            "moved_count": len(self.moved),
            "must_trim": self.must_trim,
            "redactions": self.redactions,
            "row_id": self.row_id,
            "journaled": self.journaled,
            "message": self.message(),
        }


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def newline_of(text: str) -> str:
    """The file's own line ending, so a CRLF file stays CRLF."""
    for line in split_lines(text):
        ending = line_ending(line)
        if ending:
            return "\r\n" if ending == "\r\n" else "\n"
    return "\n"


def build_entry(
    fact: str,
    day: date,
    chat: str | None,
    until: date | None,
    newline: str = "\n",
    *,
    noticed: bool = False,
    room: bool = False,
) -> str:
    """The entry text (with its final newline): one dated bullet, later lines indented under it."""
    if not isinstance(fact, str) or not fact.strip():
        raise MemoryInputError("There is nothing to remember: give the words of the note.")
    fact = fact.strip().replace("\r\n", "\n").replace("\r", "\n")
    if len(fact) > ENTRY_MAX_CHARS:
        raise MemoryInputError(
            f"That note is {len(fact)} characters; one entry is at most {ENTRY_MAX_CHARS}. Shorten it or split it."
        )
    fact_lines = fact.split("\n")
    if len(fact_lines) > ENTRY_MAX_LINES:
        raise MemoryInputError(
            f"That note is {len(fact_lines)} lines; one entry is at most {ENTRY_MAX_LINES}. Shorten it or split it."
        )
    if until is not None and until < day:
        raise MemoryInputError(f"The until date {until.isoformat()} has already passed.")
    if chat is not None and ('"' in chat or "\n" in chat):
        raise MemoryInputError("A chat name cannot hold quotes or line breaks.")
    source = f'{"room" if room else "chat"} "{chat}"' if chat else None
    try:
        first = format_dated_entry(day, fact_lines[0], source=source, until=until, noticed=noticed)
    except ValueError as exc:
        raise MemoryInputError(str(exc)) from None
    # Blank lines would end the entry early: the lines under a bullet are the indented non-blank ones.
    rest = [f"  {line.strip()}" for line in fact_lines[1:] if line.strip()]
    return newline.join([first, *rest]) + newline


def _append(text: str, addition: str) -> str:
    if text and not text.endswith("\n"):
        text += newline_of(text)
    return text + addition


def over_budget(lines: int, size: int) -> bool:
    return lines > MEMORY_MAX_LINES or size > MEMORY_MAX_BYTES


def archive_overflow(entries: list[Entry], protected: set[int], today: date) -> tuple[list[Entry], list[Entry]]:
    """Choose entries to move until the rest fits the budget: struck, then expired, then oldest live.

    Returns (kept entries in order, moved entries in file order). `protected` holds indices that never move.
    """
    lines = sum(e.line_count for e in entries)
    size = sum(len(encode(e.raw)) for e in entries)
    if not over_budget(lines, size):
        return entries, []

    def movable(i: int, e: Entry) -> bool:
        return i not in protected and e.kind == "dated" and not is_health_or_safety(e.fact)

    candidates = [(i, e) for i, e in enumerate(entries) if movable(i, e)]
    if over_budget(
        lines - sum(e.line_count for _, e in candidates), size - sum(len(encode(e.raw)) for _, e in candidates)
    ):
        # The lines that never move fill the budget by themselves: moving live notes would only take
        # loaded facts away without bringing the file back within it. Struck and expired ones still go.
        candidates = [(i, e) for i, e in candidates if e.struck or e.expired(today)]
    struck = sorted((c for c in candidates if c[1].struck), key=lambda c: (c[1].superseded, c[0]))
    expired = sorted(
        (c for c in candidates if not c[1].struck and c[1].expired(today)), key=lambda c: (c[1].until, c[0])
    )
    live = sorted(
        (c for c in candidates if not c[1].struck and not c[1].expired(today)),
        key=lambda c: (c[1].day or date.min, c[0]),
    )
    chosen: set[int] = set()
    for i, entry in [*struck, *expired, *live]:
        if not over_budget(lines, size):
            break
        chosen.add(i)
        lines -= entry.line_count
        size -= len(encode(entry.raw))
    kept = [e for i, e in enumerate(entries) if i not in chosen]
    moved = [e for i, e in enumerate(entries) if i in chosen]
    return kept, moved


class MemoryUpdate:
    """memory_update for one bot: the function behind `remember`, `forget` and `prefer`."""

    def __init__(
        self, home: Home, bot_id: str, actor: Actor | None = None, *, store: MemoryStore | None = None
    ) -> None:
        """`store`: the bot's store to write through (one with a clock, say); by default a new one."""
        self.home = home
        self.bot_id = bot_id  # a bot's, or a Team Cloud person's layer of it (its own About me: layers.py)
        self.store = store or MemoryStore(home, bot_id)
        self.settings_bot, self.person = split_layer(bot_id)
        self.actor = actor or Actor(WHO_PERSON, HOW_COMMAND_LINE)
        self._move_notes = MoveNotes(home.journal_dir / f"{bot_id}.moving.json")

    def add(
        self,
        fact: str,
        *,
        today: date | None = None,
        chat: str | None = None,
        until: date | None = None,
        noticed: bool = False,
        room: bool = False,
        note: str | None = None,
    ) -> AddResult:
        """`room`: `chat` names a room (`from room "Launch"`), as capture sources what it learned in a room.
        `note`: the MEMORY.md row's note (capture's quotes)."""
        today = today or clock.today()
        load_profile_learned(
            self.home, self.person
        )  # a broken profile-learned.json is refused before anything is written
        with self.store.locked():
            self.store.sync_outside_changes()
            self._try_to_finish_move()
            for attempt in range(ADD_ATTEMPTS):
                try:
                    with self.store.all_or_nothing(MEMORY_FILE):  # the note and the moves, or none of them
                        return self._add_once(fact, today, chat, until, noticed, room, note)
                except StaleHash as exc:
                    # A lock-free editor saved MEMORY.md or the archive meanwhile: adding is an append, not a
                    # person's edit, so it is done again on top of what they saved.
                    if attempt == ADD_ATTEMPTS - 1:
                        raise StaleHash(
                            exc.rel,
                            exc.current_text,
                            exc.current_hash,
                            message=(
                                f"{exc.rel} kept changing while the note was being added (another editor is saving "
                                f"it); the note was not saved, nothing was lost: try again."
                            ),
                        ) from None
                    self.store.sync_outside_changes(again=True)
        raise AssertionError("unreachable")  # pragma: no cover

    def _add_once(
        self,
        fact: str,
        today: date,
        chat: str | None,
        until: date | None,
        noticed: bool,
        room: bool = False,
        note: str | None = None,
    ) -> AddResult:
        current = self.store.read(MEMORY_FILE)
        newline = newline_of(current.text)
        entry_text = build_entry(fact, today, chat or self.actor.chat, until, newline, noticed=noticed, room=room)
        combined = _append(current.text, entry_text)
        entries = parse_entries(combined)
        just_written = {len(entries) - 1}  # the new entry is the last one
        kept, moved = archive_overflow(entries, just_written, today)
        result = self.move_out(current, kept, moved, today, newline, memory_note=note)
        final = self.store.read(MEMORY_FILE).text
        lines, size = len(split_lines(final)), len(encode(final))
        self._unforget(fact)
        from ..redaction.redact import redact

        return AddResult(
            entry=redact(entry_text).text,  # what was saved: a key in the note never reaches stdout either
            moved=[e.fact for e in moved],
            must_trim=over_budget(lines, size),
            redactions=result.redactions,
            row_id=result.row_id,
            journaled=result.journaled,
        )

    # ----- moving to the archive, idempotently -----
    def move_out(
        self,
        current: FileSnapshot,
        kept: list[Entry],
        moved: list[Entry],
        today: date,
        newline: str,
        *,
        note: str | None = None,
        memory_note: str | None = None,
    ) -> WriteResult:
        """Write MEMORY.md as `kept` (read as `current`), `moved` appended to the archive first (under the lock).

        A line is never out of MEMORY.md without already being in the archive; the move is noted before it
        starts, so an interrupted one is finished by the next write. `note`: the journal rows' note;
        `memory_note`: MEMORY.md's row's own, when it differs (a capture's quotes belong to the new fact)."""
        with self.store.all_or_nothing(MEMORY_FILE):  # a disk that refuses MEMORY.md takes the archive's write back
            if moved:
                noted_before = self._note_move(moved)
                try:
                    self.append_to_archive(moved, today, newline, note=note)
                except Exception:
                    with contextlib.suppress(OSError):
                        self._move_notes.restore(noted_before)  # the archive was not written: nothing is half way
                    raise
            try:
                result = self.store.write(
                    MEMORY_FILE, render_entries(kept), self.actor, expected_hash=current.hash, note=memory_note or note
                )
            except OSError:
                if moved:  # refused: the step puts the archive back, so nothing is moving
                    with contextlib.suppress(OSError):
                        self._move_notes.restore(noted_before)
                raise
        if moved or self._move_notes.path.exists():
            if self._move_notes.load() <= {_entry_key_hash(e) for e in moved}:
                self._move_notes.clear()  # this write took out everything that was moving
            else:
                self._try_to_finish_move()  # an earlier attempt moved other entries too: finished here
        return result

    def _note_move(self, moved: list[Entry]) -> set[str]:
        """Note the entries about to move; returns what was noted before."""
        notes = self._move_notes
        noted = notes.load()
        wanted = noted | {_entry_key_hash(e) for e in moved}
        if wanted != noted:  # a retry moving the same entries writes nothing here: its window stays short
            notes.save(wanted)
        return noted

    def append_to_archive(
        self, moved: list[Entry], today: date, newline: str, *, note: str | None = None
    ) -> WriteResult | None:
        """Append the moved entries, each marked moved; an entry the archive already holds is not added again.

        Public for the tidy-up, which moves expired entries the same way (`note`: the journal row's note).
        Returns the archive's write, or None when it already held them all."""
        archive = self.store.read(ARCHIVE_REL)
        held = {_entry_key(e) for e in parse_entries(archive.text) if e.is_bullet}
        marked = "".join(_ensure_newline(mark_moved(e, today).raw, newline) for e in moved if _entry_key(e) not in held)
        if not marked:
            return None
        return self.store.write(
            ARCHIVE_REL, _append(archive.text, marked), self.actor, expected_hash=archive.hash, note=note
        )

    def _try_to_finish_move(self) -> None:
        """Finish an interrupted move if the files hold still; if an editor is saving, the next write does it."""
        try:
            self.finish_interrupted_move()
        except StaleHash:
            pass

    def finish_interrupted_move(self) -> int:
        """Finish a move to the archive that a kill, a failure or a conflict stopped half way: take out of
        MEMORY.md the entries that were being moved and that the archive already holds. Returns how many."""
        notes = self._move_notes
        pending = notes.load()
        if not pending:
            return 0
        with self.store.locked():
            memory = self.store.read(MEMORY_FILE)
            archive = self.store.read(ARCHIVE_REL)
            held = {_entry_key(e) for e in parse_entries(archive.text) if e.is_bullet}
            entries = parse_entries(memory.text)
            kept = [e for e in entries if not (e.is_bullet and _entry_key_hash(e) in pending and _entry_key(e) in held)]
            finished = len(entries) - len(kept)
            if finished:
                self.store.write(
                    MEMORY_FILE,
                    render_entries(kept),
                    self.actor,
                    expected_hash=memory.hash,
                    note=f"finished moving {plural(finished, 'entry', 'entries')} "
                    f"to {ARCHIVE_REL} (the move was interrupted)",
                )
            notes.clear()
            return finished

    def forget(self, words: str, *, include_about_me: bool = True, today: date | None = None) -> ForgetResult:
        """Remove every note that mentions all of the words as whole words, from every memory file."""
        pattern = words_pattern(words)
        profile = load_profile_learned(self.home, self.person)  # refused before anything is written when broken
        from ..redaction.redact import redact

        result = ForgetResult(words=redact(" ".join(words.split())).text)  # a key among the words never shows
        with self.store.locked(), home_lock(self.home), self.store.all_or_nothing():  # About me, profile-learned:
            self.store.sync_outside_changes()  # shared by all bots. Every file forgets, or none (a full disk)
            rels = [mp.rel for mp in self.home.memory_files(self.bot_id) if mp.kind.value != "log"]
            if include_about_me:
                rels.append(ABOUT_ME_REL)
            for rel in rels:
                snapshot = self.store.read(rel)
                if not snapshot.exists:
                    continue
                kept, removed = remove_matching(parse_entries(snapshot.text), pattern)
                if removed:
                    write = self.store.write(rel, render_entries(kept), self.actor, expected_hash=snapshot.hash)
                    result.removed.setdefault(rel, []).extend(removed)
                    result.journaled = result.journaled and write.journaled
            profile = load_profile_learned(self.home, self.person)
            forgotten = forgotten_entry(words, today or clock.today())
            if not any(same_forgotten(f, forgotten) for f in profile.forgotten):
                profile.forgotten.append(forgotten)
                save_profile_learned(self.home, profile, self.person)
        return result

    def prefer(self, preference: str, *, today: date | None = None, again: bool = False) -> PreferResult:
        """A standing preference for all of the person's bots: one learned line in About me, once.

        A fact the person removed from About me is never added again by any writer (spec, "Memory upkeep": About
        me), unless `again`: the person asked for it once more in their own words (the command line's `--again`,
        or a turn whose person's message states it: `said_again`); it is then added and no longer counted as
        removed (docs/upkeep-about-me.md)."""
        today = today or clock.today()
        text = " ".join((preference or "").split())
        if not text:
            raise MemoryInputError("There is no preference to save: give it as one line.")
        if "\n" in preference.strip() or len(text) > PREFERENCE_MAX_CHARS:
            raise MemoryInputError(
                f"A preference is one line of at most {PREFERENCE_MAX_CHARS} characters; this one has {len(text)}."
            )
        bot_name = load_bot_settings(self.home, self.settings_bot).name
        load_profile_learned(self.home, self.person)  # refused before anything is written when broken
        # no other bot's About me write can slip in between; About me and the learned list, or neither
        with self.store.locked(), home_lock(self.home), self.store.all_or_nothing(ABOUT_ME_REL):
            about = self.store.read(ABOUT_ME_REL)
            if any(e.is_bullet and same_fact(e.fact, text) for e in parse_entries(about.text)):
                return PreferResult(text, added=False)
            profile = load_profile_learned(
                self.home, self.person
            )  # read once under the home's lock: no writer comes between
            removed = removed_records(profile.learned, text)
            if removed and not again:
                return PreferResult(text, added=False, refused=True)
            try:
                line = format_dated_entry(today, text, source=f"learned by {bot_name}")
            except ValueError as exc:  # a preference that reads as an entry's own markers
                raise MemoryInputError(str(exc)) from None
            base = about.text if about.exists else ABOUT_ME_HEADER
            write = self.store.write(
                ABOUT_ME_REL, _append(base, line + newline_of(base)), self.actor, expected_hash=about.hash
            )
            from ..redaction.redact import redact

            saved = redact(text).text  # as About me holds it: a key in the preference is never kept
            profile.learned = [r for r in profile.learned if r not in removed]  # asked again: not removed now
            profile.learned.append(
                {
                    "id": uuid.uuid4().hex[:12],
                    "text": saved,
                    "bot": self.settings_bot,
                    "at": today.isoformat(),
                    "removed": False,
                }
            )
            save_profile_learned(self.home, profile, self.person)
            self._unforget(text)
            return PreferResult(saved, added=True, redactions=write.redactions, journaled=write.journaled)

    def _unforget(self, fact: str) -> None:
        """Remembering a fact again lifts the forget that blocked it."""
        with home_lock(self.home):
            profile = load_profile_learned(self.home, self.person)
            keep = [f for f in profile.forgotten if not forgotten_matches(f, fact)]
            if len(keep) != len(profile.forgotten):
                profile.forgotten = keep
                save_profile_learned(self.home, profile, self.person)


def _entry_key(entry: Entry) -> str:
    """An entry as the archive holds it, whatever day it was moved and whatever its line endings."""
    text = mark_moved(entry, date.min).raw if entry.is_bullet else entry.raw
    return text.replace("\r\n", "\n").rstrip("\n")


def _entry_key_hash(entry: Entry) -> str:
    return hashlib.sha256(encode(_entry_key(entry))).hexdigest()


class MoveNotes:
    """The entries a move to the archive is taking out of MEMORY.md, kept until MEMORY.md is written.

    Only hashes are kept (memory-journal/<bot>.moving.json, outside the workspace): no note's text."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> set[str]:
        try:
            data = json.loads(read_text(self.path))
        except FileNotFoundError:
            return set()
        except (OSError, ValueError):
            return set()  # unreadable: nothing is taken out of MEMORY.md on its word
        hashes = data.get("entries") if isinstance(data, dict) else None
        return {h for h in hashes if isinstance(h, str)} if isinstance(hashes, list) else set()

    def save(self, hashes: set[str]) -> None:
        # Atomic, not fsynced: it only has to outlive a killed process; after a power cut, at worst a moved
        # note stays in both files (never lost) until a later overflow moves it again.
        write_private_json(self.path, {"entries": sorted(hashes)}, durable=False)

    def restore(self, hashes: set[str]) -> None:
        self.save(hashes) if hashes else self.clear()

    def clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


def _ensure_newline(text: str, newline: str) -> str:
    return text if text.endswith("\n") else text + newline


class WordsPattern:
    """All of the given words, each as a whole word, case-insensitively ("IST" is not in "dentist")."""

    def __init__(self, words: list[str]) -> None:
        self.words = words
        self._patterns = [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)", re.IGNORECASE) for w in words]

    def search_all(self, text: str) -> bool:
        return all(p.search(text) for p in self._patterns)


def words_pattern(words: str) -> WordsPattern:
    parts = (words or "").split()
    if not parts:
        raise MemoryInputError("Say which words name the note to forget.")
    return WordsPattern(parts)


def remove_matching(entries: list[Entry], pattern: WordsPattern) -> tuple[list[Entry], list[str]]:
    """Drop whole entries whose words match; headings and frontmatter always stay.

    A dated bullet is judged by its fact and the lines under it, never by the chat it came from, and it
    goes whole, so no date is ever left with no words.
    """
    kept, removed = [], []
    for entry in entries:
        if entry.kind in ("heading", "frontmatter", "blank"):
            kept.append(entry)
            continue
        judged = entry.fact if entry.is_bullet else entry.raw
        owned = "".join(entry.lines[1:]) if entry.is_bullet else ""
        if pattern.search_all(f"{judged}\n{owned}"):
            removed.append(_clip(entry.fact or entry.raw.strip(), 120))
        else:
            kept.append(entry)
    return kept, removed


@dataclass
class ForgetResult:
    words: str
    removed: dict[str, list[str]] = field(default_factory=dict)
    journaled: bool = True  # False: a removal was saved, but the journal could not be written

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.removed.values())

    def message(self) -> str:
        if not self.count:
            return f"No note mentions \u201c{self.words}\u201d; nothing was removed (the words are kept so no bot learns them again)."
        return f"Forgot {plural(self.count, 'note')} mentioning \u201c{self.words}\u201d."

    def to_dict(self) -> dict:
        return {"words": self.words, "removed": self.removed, "count": self.count, "message": self.message()}
