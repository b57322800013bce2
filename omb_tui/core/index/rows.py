"""Writing the recall index's rows (see :mod:`omb_tui.core.index.recall_index`).

A memory file becomes notes (each bullet with its lines, each paragraph; superseded entries left
out), a topic also its name, title and aliases; a conversation becomes its header and messages,
read from where the index stopped when the file only grew. Every text is redacted before it is
stored: a file changed outside the app may hold a key, the index never does. Each file's row records
what it looked like when it was read, which is what `refresh` compares next time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import zlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..base import clock
from ..files.disk import decode
from ..files.paths import FileKind
from ..memory import conversations as conv
from ..memory.entries import Entry, parse_entries
from ..redaction.data import redact_data
from .kept import KeptLookups
from .schema import (
    FileState,
    IndexConnection,
    is_conversation_key,
    key_group,
    memory_kind,
    message_day,
    note_day,
    time_terms,
)
from .words import ENGLISH, indexed_terms, terms

RACY_NS = 2_000_000_000  # a folder changed this recently is looked at again (mtime ticks are coarse)
TAIL_BYTES = 64  # bytes before the read position compared to trust an append
NOTE_MAX_CHARS = 1200  # a longer paragraph is split into notes of about this size


@dataclass
class NoteChunk:
    """One note of a memory file, as the index stores it."""

    section: str | None
    day: str | None
    dated: bool
    until: str | None
    line: int
    text: str


def memory_chunks(entries: list[Entry], log_day: str | None = None) -> list[NoteChunk]:
    """A memory file (its entries, parsed) split into notes: each bullet with its lines, each paragraph;
    superseded entries left out. A note is dated by its entry's date, else its daily log's day, else not at all:
    a file's mtime moves with any edit of any line, so it is no note's day (docs/recall.md, "Undated notes").

    Spec: "Current topic search excludes superseded entries; their text remains in the file".
    """
    chunks: list[NoteChunk] = []
    section: str | None = None
    paragraph: list[str] = []
    paragraph_line = 0
    line_number = 1

    def flush() -> None:
        nonlocal paragraph
        if paragraph:
            body = "".join(paragraph).strip()
            if body:
                for piece in _split_long(body):
                    chunks.append(NoteChunk(section, log_day, log_day is not None, None, paragraph_line, piece))
        paragraph = []

    for entry in entries:
        start = line_number
        line_number += entry.line_count
        if entry.kind in ("frontmatter", "blank"):
            flush()
            continue
        if entry.kind == "heading":
            flush()
            section = entry.fact or None
            continue
        if entry.kind == "text":
            if not paragraph:
                paragraph_line = start
            paragraph.append(entry.raw)
            continue
        flush()
        if entry.struck:
            continue
        day = entry.day.isoformat() if entry.day else None
        body = entry.raw.strip()
        for piece in _split_long(body):
            chunks.append(
                NoteChunk(
                    section,
                    day or log_day,
                    bool(day or log_day),
                    entry.until.isoformat() if entry.until else None,
                    start,
                    piece,
                )
            )
    flush()
    return chunks


def _split_long(text: str) -> list[str]:
    if len(text) <= NOTE_MAX_CHARS:
        return [text]
    pieces: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > NOTE_MAX_CHARS:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:NOTE_MAX_CHARS])
            line = line[NOTE_MAX_CHARS:]
        if len(current) + len(line) > NOTE_MAX_CHARS and current:
            pieces.append(current)
            current = ""
        current += line
    if current.strip():
        pieces.append(current)
    return [piece.strip() for piece in pieces if piece.strip()]


def topic_name(name: str, entries: list[Entry]) -> tuple[str, str]:
    """(name terms, description) of a topic (its entries, parsed): its file name, title and aliases; its
    frontmatter's description."""
    from ..memory.budget import read_topic_info  # frontmatter's YAML loads only when a topic is indexed

    # the frontmatter alone: read_topic_info would parse the whole file again to find it
    frontmatter = "".join(entries[0].lines) if entries and entries[0].kind == "frontmatter" else ""
    info = read_topic_info(name, frontmatter)
    stem = re.sub(r"[-_.]+", " ", name[: -len(".md")])
    name_words = " ".join([stem, info.title or "", *info.aliases])
    return " ".join(indexed_terms(name_words)), info.description or ""


class IndexRows:
    """Writes each file's rows into the index, and knows what each file looked like when it was read."""

    def __init__(self, bot_id: str, connection: IndexConnection, kept: KeptLookups) -> None:
        self.bot_id = bot_id
        self.connection = connection
        self.kept = kept  # told what each write changes
        self._known: dict[str, dict[str, FileState]] | None = None  # by group (key_group), then key

    def known(self) -> dict[str, dict[str, FileState]]:
        """What each indexed file looked like when it was read, by group (see key_group)."""
        self.connection.see_other_writers()  # another connection committed: our copy of the file states may be old
        if self._known is None:
            known: dict[str, dict[str, FileState]] = defaultdict(dict)
            for key, size, mtime, ino in self.connection.db.execute("SELECT key, size, mtime_ns, ino FROM files"):
                known[key_group(key)][key] = FileState(size, mtime, ino)
            self._known = known
        return self._known

    def forget_known(self) -> None:
        """Read the files' states again when next needed: another process may have written them, or a write that
        changed them was rolled back."""
        self._known = None

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction (index_file, forget inside it); what it changed is told to the kept lookups."""
        self.kept.begin_write()
        with self.connection.write() as db:
            yield db
        self.kept.written()

    def index_file(self, db: sqlite3.Connection, key: str, path: Path, st: os.stat_result) -> bool:
        """Read a file that changed (stat'ed as `st`) into its rows; False when its rows did not change."""
        try:
            if is_conversation_key(key):
                return self._index_conversation(db, key, path, st)
            return self._index_memory_file(db, key, path, st)
        except (FileNotFoundError, IsADirectoryError, PermissionError):
            self.forget(db, key)  # gone (or unreadable) since it was listed
            return False

    def forget(self, db: sqlite3.Connection, key: str) -> None:
        """Drop a file's rows: it is gone."""
        if is_conversation_key(key):
            self.kept.conversation_changed(key)
            self._drop_messages(db, key)
            db.execute("DELETE FROM convs WHERE key=?", (key,))
        else:
            self._drop_notes(db, key)
        db.execute("DELETE FROM files WHERE key=?", (key,))
        if self._known is not None:
            self._known[key_group(key)].pop(key, None)

    def _set_file(
        self, db: sqlite3.Connection, key: str, st: os.stat_result, *, racy: bool = False, **values: object
    ) -> None:
        # A file changed in the last moments could change again within the same mtime tick and size:
        # store no mtime for it, so the next refresh reads (and hashes) it again.
        mtime = -1 if racy and st.st_mtime_ns >= clock.real_time_ns() - RACY_NS else st.st_mtime_ns
        row = {"key": key, "size": st.st_size, "mtime_ns": mtime, "ino": st.st_ino}
        row.update(values)
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        updates = ", ".join(f"{c}=excluded.{c}" for c in row if c != "key")
        db.execute(
            f"INSERT INTO files({columns}) VALUES({marks}) ON CONFLICT(key) DO UPDATE SET {updates}",
            tuple(row.values()),
        )
        assert self._known is not None
        self._known[key_group(key)][key] = FileState(st.st_size, mtime, st.st_ino)

    # ----- memory files -----
    def _index_memory_file(self, db: sqlite3.Connection, key: str, path: Path, st: os.stat_result) -> bool:
        with open(path, "rb") as handle:
            data = handle.read()
        digest = hashlib.sha256(data).hexdigest()
        (indexed_hash,) = db.execute("SELECT hash FROM files WHERE key=?", (key,)).fetchone() or (None,)
        if indexed_hash == digest:
            self._set_file(db, key, st, racy=True)  # touched, not changed
            return False
        from ..redaction.redact import redact  # compiled when the index is first brought up to date, not at start-up

        text = redact(decode(data)).text  # a file changed outside the app may hold a key: the index never does
        self._drop_notes(db, key)
        file_kind = memory_kind(key)
        assert file_kind is not None  # only keys valid_key accepts are read
        kind = file_kind.value  # memory | topic | archive | log
        log_day = key.rsplit("/", 1)[-1][: -len(".md")] if file_kind is FileKind.LOG else None  # YYYY-MM-DD
        entries = parse_entries(text)
        chunks = memory_chunks(entries, log_day)
        fts = "topic_fts" if kind == "topic" else "memo_fts"
        _bump(db, "topic" if kind == "topic" else "memo", len(chunks))
        rows, fts_rows, days = [], [], []
        for note_id, chunk in enumerate(chunks, _next_id(db, "notes")):  # the ids SQLite would give, one call for all
            chunk_terms = " ".join(indexed_terms(f"{chunk.section or ''}\n{chunk.text}"))
            rows.append(
                (
                    note_id,
                    key,
                    kind,
                    sql_text(chunk.section),
                    chunk.day,
                    int(chunk.dated),
                    chunk.until,
                    chunk.line,
                    sql_text(chunk.text),
                    chunk_terms,
                )
            )
            fts_rows.append((note_id, chunk_terms + time_terms(note_day(chunk.day))))
            days.append((note_id, chunk.day))
        db.executemany(
            "INSERT INTO notes(id, file, kind, section, day, dated, until, line, text, terms) VALUES(?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        db.executemany(f"INSERT INTO {fts}(rowid, terms) VALUES(?, ?)", fts_rows)
        db.executemany("INSERT INTO note_days(id, day) VALUES(?, ?)", days)
        if kind == "topic":
            # the opening itself is built when recalled (NoteSearch.opening): which entries have
            # expired depends on the day of the recall, not the day the file was read
            name_terms, description = topic_name(key.split("/", 1)[1], entries)
            cursor = db.execute(
                "INSERT INTO topics(file, name_terms, description) VALUES(?,?,?)",
                (key, name_terms, sql_text(description)),
            )
            db.execute("INSERT INTO topic_names(rowid, name_terms) VALUES(?, ?)", (cursor.lastrowid, name_terms))
        self._set_file(db, key, st, racy=True, hash=digest)
        return True

    def _drop_notes(self, db: sqlite3.Connection, key: str) -> None:
        self.kept.postings_changed("topic_fts", "memo_fts", "topic_names", "topic_notes")
        for fts, kinds in (("topic_fts", "kind = 'topic'"), ("memo_fts", "kind != 'topic'")):
            db.executemany(
                f"INSERT INTO {fts}({fts}, rowid, terms) VALUES('delete', ?, ?)",
                [
                    (note_id, note_terms + time_terms(note_day(day)))
                    for note_id, note_terms, day in db.execute(
                        f"SELECT id, terms, day FROM notes WHERE file=? AND {kinds}", (key,)
                    ).fetchall()
                ],
            )
        for kind, n in db.execute("SELECT kind, count(*) FROM notes WHERE file=? GROUP BY kind", (key,)).fetchall():
            _bump(db, "topic" if kind == "topic" else "memo", -n)
        db.execute("DELETE FROM note_days WHERE id IN (SELECT id FROM notes WHERE file=?)", (key,))
        db.execute("DELETE FROM note_vectors WHERE id IN (SELECT id FROM notes WHERE file=?)", (key,))
        db.execute("DELETE FROM notes WHERE file=?", (key,))
        for topic_id, name_terms in db.execute("SELECT id, name_terms FROM topics WHERE file=?", (key,)).fetchall():
            db.execute(
                "INSERT INTO topic_names(topic_names, rowid, name_terms) VALUES('delete', ?, ?)", (topic_id, name_terms)
            )
        db.execute("DELETE FROM topics WHERE file=?", (key,))

    # ----- conversations -----
    def _index_conversation(
        self, db: sqlite3.Connection, key: str, path: Path, st: os.stat_result, *, whole: bool = False
    ) -> bool:
        self.kept.conversation_changed(key)
        # what the index read of it last time ("" and None: nothing)
        ino, read_to, tail, next_seq = db.execute(
            "SELECT ino, read_to, tail, next_seq FROM files WHERE key=?", (key,)
        ).fetchone() or (None, 0, b"", 0)
        (stored_header,) = db.execute("SELECT header FROM convs WHERE key=?", (key,)).fetchone() or ("",)
        start = 0
        reader = conv.ConversationReader()
        appendable = ino is not None and stored_header != "" and ino == st.st_ino and st.st_size >= (read_to or 0)
        if appendable and not whole:
            read_to, tail = read_to or 0, tail or b""
            if read_to and _tail_matches(path, read_to, tail):
                start = read_to
                reader = conv.ConversationReader(conv.header_from_json(json.loads(stored_header), path), next_seq or 0)
        if start == 0:
            self._drop_messages(db, key)
            db.execute("DELETE FROM convs WHERE key=?", (key,))
        was_member = bool(start and db.execute("SELECT member FROM convs WHERE key=?", (key,)).fetchone()[0])
        lines, read_to = conv.read_lines(path, start)
        messages = []  # (message, where its line starts, the line)
        position = start
        for raw in lines:
            message = reader.feed(raw, path)
            if message is not None:
                messages.append((message, position, raw))
            position += len(raw) + 1
        conversation = reader.conversation
        if conversation is None:  # no header (yet): look again when it changes
            self._set_file(db, key, st, read_to=0, tail=b"", next_seq=0)
            return True
        member = key.startswith("chat:") or conversation.has_bot(self.bot_id)
        if start and member and not was_member:
            # joined a room: everything said before counts too, so read it whole
            return self._index_conversation(db, key, path, st, whole=True)
        if not member and was_member:
            self._drop_messages(db, key)
        # Redacted (a file a harness wrote itself may hold a key in its title); ASCII: a lone surrogate cannot break it
        header = json.dumps(redact_data(conversation.header_json()))
        db.execute(
            "INSERT INTO convs(key, id, header, member) VALUES(?,?,?,?) "
            "ON CONFLICT(key) DO UPDATE SET header=excluded.header, member=excluded.member",
            (key, conversation.id, header, int(member)),
        )
        if member:
            from ..redaction.redact import redact

            _bump(db, "message", len(messages))
            rows, fts_rows, times, appended = [], [], [], []
            for message_id, (message, position, raw) in enumerate(messages, _next_id(db, "messages")):
                # only the words of the redacted text are kept; the text itself is read from the file when shown
                text = redact(message.text).text
                ts = int(message.at.timestamp())
                message_terms = terms_of_message(text, message.author)
                rows.append(
                    (
                        message_id,
                        key,
                        message.seq,
                        ts,
                        message.at.isoformat(timespec="seconds"),
                        message.author_kind,
                        sql_text(message.author),
                        int(message.failed),
                        message.origin,
                        position,
                        len(raw),
                        zlib.crc32(raw),
                        int(text != message.text),
                        message_terms,
                    )
                )
                fts_rows.append((message_id, message_terms + time_terms(message_day(ts))))
                times.append((message_id, ts, key))
                appended.append((message_id, message_terms))
            db.executemany(
                "INSERT INTO messages(id, conv, seq, ts, at, author_kind, author, failed, origin, pos, size, crc, redacted, "
                "terms) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
            db.executemany("INSERT INTO message_fts(rowid, terms) VALUES(?, ?)", fts_rows)
            db.executemany("INSERT INTO message_times(id, ts, conv) VALUES(?, ?, ?)", times)
            self.kept.messages_appended(appended)
        tail = _read_tail(path, read_to)
        self._set_file(db, key, st, read_to=read_to, tail=tail, next_seq=reader.next_seq)
        return True

    def _drop_messages(self, db: sqlite3.Connection, key: str) -> None:
        dropped = db.execute("SELECT id, terms, ts FROM messages WHERE conv=?", (key,)).fetchall()
        if dropped:
            self.kept.postings_changed("message_fts")
        db.executemany(
            "INSERT INTO message_fts(message_fts, rowid, terms) VALUES('delete', ?, ?)",
            [(message_id, message_terms + time_terms(message_day(ts))) for message_id, message_terms, ts in dropped],
        )
        db.executemany("DELETE FROM message_times WHERE id=?", [(message_id,) for message_id, _, _ in dropped])
        db.executemany("DELETE FROM message_vectors WHERE id=?", [(message_id,) for message_id, _, _ in dropped])
        gone = db.execute("DELETE FROM messages WHERE conv=?", (key,)).rowcount
        _bump(db, "message", -gone)


def sql_text(text: str | None) -> str | None:
    """Text SQLite can store: bytes that were not UTF-8 (kept as lone surrogates) become U+FFFD."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape" if _only_escapes(text) else "replace").decode("utf-8", "replace")


def _only_escapes(text: str) -> bool:
    return all(not 0xD800 <= ord(ch) < 0xDC80 for ch in text if 0xD800 <= ord(ch) <= 0xDFFF)


def _next_id(db: sqlite3.Connection, table: str) -> int:
    """The id SQLite gives the next row of a table (one more than the largest), so a file's rows go in with one call."""
    return db.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0]


def _bump(db: sqlite3.Connection, name: str, delta: int) -> None:
    if delta:
        db.execute(
            "INSERT INTO stats(name, n) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n", (name, delta)
        )


def _read_tail(path: Path, read_to: int) -> bytes:
    start = max(0, read_to - TAIL_BYTES)
    with open(path, "rb") as handle:
        handle.seek(start)
        return handle.read(read_to - start)


def _tail_matches(path: Path, read_to: int, tail: bytes) -> bool:
    try:
        return _read_tail(path, read_to) == tail
    except OSError:
        return False


def terms_of_message(text: str, author: str) -> str:
    """A message's stored terms: its words' (of its redacted text) and its author's name, so a question naming who
    said something finds what they said (docs/recall.md, "Words")."""
    return " ".join(dict.fromkeys([*indexed_terms(text), *terms(author, ENGLISH)]))
