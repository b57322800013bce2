"""Searching the recall index's notes (see :mod:`omb_tui.core.index.recall_index`): the notes of memory files
holding a message's words, best first, and the openings of topics whose name matched.

docs/recall.md, "What is searched" and "A passage before a topic's opening": a topic whose name matches gives its
notes the name's words at half weight; when none of its notes holds a word itself, its opening stands in for it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Set
from dataclasses import dataclass
from datetime import date
from itertools import starmap
from typing import NamedTuple

from .kept import KeptLookups, LookupKey
from .ranking import hit_score, lowest_kept, recency_factor, weight_of, word_weights, words_weight
from .schema import NOTE_COLUMNS, IndexConnection, NoteRow
from .search import (
    EXACT_POOL,
    HeldWords,
    WordLookup,
    candidates_scored,
    chunks,
    fts_query,
    in_query_order,
    postings_cap,
)

OPENING_MAX_CHARS = 600
NAME_TOPICS_MAX = 6  # topics whose name matches that are looked into
NAME_TOPIC_NOTES = 6  # the newest notes holding one of the words taken from each


@dataclass
class NoteHit:
    """A note found in a memory file; for an `opening`, the start of a topic whose name matched."""

    id: int
    file: str
    kind: str
    section: str | None
    day: date | None
    line: int
    text: str
    matched: list[str]
    score: float
    opening: bool = False


class Opening(NamedTuple):
    """A topic's opening as recalled (see topic_opening), dated by its newest entry shown, else undated."""

    topic_id: int
    text: str
    day: date | None


@dataclass(slots=True)
class ScoredNote:
    """A note, or a topic's opening, scored: a NoteHit is made of the best only. (Slotted, like index_schema's rows:
    one is made for every candidate.)"""

    score: float
    id: int  # an opening's is its topic's id, negated
    file: str
    kind: str
    section: str | None
    day: date | None
    line: int
    text: str  # an opening's; a note's is read for the hits kept
    matched: Set[str]

    def order(self) -> tuple:
        """Best first; an opening after the notes of its score; newer first; then by place."""
        return (-self.score, self.id < 0, -(self.day.toordinal() if self.day else 0), self.file, self.line)


def topic_opening(description: str, notes: Iterable[str]) -> str:
    """A topic's opening: its description, then its first notes, at most OPENING_MAX_CHARS.

    `notes` are the topic's notes in file order, already without superseded entries and (for recall)
    without expired ones: the opening is built when it is recalled, so it is as of that day.
    """
    parts = [description] if description else []
    size = len(description)
    for note in notes:
        if size >= OPENING_MAX_CHARS:
            break
        parts.append(note)
        size += len(note)
    opening = "\n".join(parts)
    if len(opening) > OPENING_MAX_CHARS:
        opening = opening[:OPENING_MAX_CHARS].rsplit(" ", 1)[0] + "…"
    return opening


class NoteSearch:
    """Finds notes in the index, best first, and builds topics' openings."""

    def __init__(self, connection: IndexConnection, kept: KeptLookups, words: WordLookup) -> None:
        self.connection = connection
        self.kept = kept
        self.words = words

    def name_matches(self, query_terms: list[str]) -> dict[str, set[str]]:
        """Topics whose file name, title or aliases hold one of the words: {file: words}."""
        found: dict[str, set[str]] = defaultdict(set)
        with self.connection.lock:
            for term in query_terms:
                key = LookupKey(
                    "topic_names", term, NAME_TOPICS_MAX * 4
                )  # kept like a word's rows (WordLookup.postings)
                files = self.kept.postings(key)
                if files is None:
                    files = [
                        file
                        for (file,) in self.connection.db.execute(
                            "SELECT t.file FROM topic_names JOIN topics t ON t.id = topic_names.rowid "
                            "WHERE topic_names MATCH ? LIMIT ?",
                            (fts_query(term), NAME_TOPICS_MAX * 4),
                        )
                    ]
                    self.kept.keep_postings(key, files)
                for file in files:
                    found[file].add(term)
        return dict(found)

    def search_notes(
        self,
        query_terms: list[str],
        *,
        need: int,
        today: date,
        topics_only: bool,
        limit: int,
        since: date | None = None,
        until: date | None = None,
        skip_expired: bool = True,
        pool: int | None = EXACT_POOL,
    ) -> list[NoteHit]:
        """Notes holding at least `need` of the words, best first (docs/recall.md, "Ranking").

        With `topics_only`, only topic files (recall); otherwise every memory file, daily logs included.
        A topic whose name matches gives its matching notes the name's words at half weight; when
        none of its notes match by their own words, its opening stands in for it, ranked as such.
        """
        with self.connection.lock:
            self.connection.see_other_writers()  # rows another process wrote may have taken the ids of rows kept here
            counts = self.words.counts()
            sources = ["topic_fts"] if topics_only else ["topic_fts", "memo_fts"]
            total = counts["topic"] + (0 if topics_only else counts["memo"])
            windowed = since is not None or until is not None
            cap, most = postings_cap(pool, windowed=windowed), candidates_scored(pool, windowed=windowed)
            frequency: dict[str, int] = defaultdict(int)
            postings: dict[str, dict[str, list[int]]] = {}
            window = self.words.note_window(since, until) if windowed else None
            for fts in sources:
                in_table = counts["topic" if fts == "topic_fts" else "memo"]
                if in_table == 0:  # (a bot without notes: nothing to ask)
                    postings[fts] = {term: [] for term in query_terms}
                    continue
                if window is None:
                    postings[fts], found_in = self.words.lookup(fts, "notes", query_terms, cap)
                else:
                    window.fts, window.rows = fts, in_table
                    # (its boundaries and sizes count notes of every kind: the same for both tables)
                    postings[fts], found_in = self.words.lookup_in_window(window, query_terms, cap)
                    # a word's count is of all notes, as without a window: scaled from the window's notes
                    scale = total / max(1, self.words.window_size(window))
                    found_in = {term: int(n * scale) for term, n in found_in.items()}
                for term, n in found_in.items():
                    frequency[term] += n
            weights = word_weights(query_terms, total, frequency)
            names = self.name_matches(query_terms) if counts["topics"] else {}
            if len(names) > NAME_TOPICS_MAX:
                best = sorted(names, key=lambda f: weight_of(names[f], weights), reverse=True)
                names = {f: names[f] for f in best[:NAME_TOPICS_MAX]}
            candidate_ids: set[int] = set()
            held: dict[int, int] = {}  # each candidate's words, as bits in the words' order (both tables have it)
            for fts in sources:  # within a window, every row looked up is in it
                candidate_ids.update(
                    self.words.candidates(postings[fts], weights, most, None if window is None else window.times, held)
                )
            rows = self._note_rows(candidate_ids, names, query_terms)
            hits: list[ScoredNote] = []
            with_own_match: set[str] = set()
            # A note's words: those its rows were found by, and where a word was found in as many rows as its cap
            # (in either table), or the note came by its topic's name, the words its stored terms hold.
            words = HeldWords(query_terms, postings.values(), cap)
            own_of: dict[int, frozenset[str]] = {}  # the words of each set of bits
            days: dict[str, tuple[date, float]] = {}  # a date as written, and its recency factor
            no_name: frozenset[str] = frozenset()
            weight_of_own: dict[frozenset[str], float] = {}
            scored: list[tuple[float, NoteRow, date | None, Set[str]]] = []
            # hit_score's, with each day's recency factor worked out once
            for row in rows:
                file = row.file
                mask = held.get(row.id)  # (None: it came by its topic's name)
                if mask is None or words.checked:
                    mask = words.complete(mask, row.spaced_terms)
                own = own_of.get(mask)
                if own is None:
                    own = own_of[mask] = frozenset(words.matched(mask))
                if not own:
                    continue  # a note matched by its topic's name alone: the opening stands in
                by_name = names.get(file, no_name)
                if by_name:
                    by_name = by_name - own
                if len(own) + len(by_name) < need:
                    continue
                day, factor = None, 1.0
                if row.day:
                    if row.day not in days:
                        moment = date.fromisoformat(row.day)
                        days[row.day] = (moment, recency_factor(moment, today))
                    day, factor = days[row.day]
                if not _in_window(day, since, until):
                    continue
                if skip_expired and row.until and date.fromisoformat(row.until) < today:
                    continue
                if by_name:
                    weight = words_weight(own, by_name, weights)
                elif own in weight_of_own:  # (words_weight's, worked out once for each set of words)
                    weight = weight_of_own[own]
                else:
                    weight = weight_of_own[own] = words_weight(own, (), weights)
                with_own_match.add(file)
                # a ScoredNote is made for the ones that may be kept (see below); its text is read for those only
                scored.append((weight * factor, row, day, own | by_name if by_name else own))
            # Only the notes scoring at least the `limit`-th best can be among the best `limit` (ties and all).
            lowest = lowest_kept([entry[0] for entry in scored], limit)
            for score, row, day, matched_words in scored:
                if score >= lowest:
                    hits.append(
                        ScoredNote(score, row.id, row.file, row.kind, row.section, day, row.line, "", matched_words)
                    )
            for file, matched in names.items():
                if file in with_own_match or len(matched) < need:
                    continue
                opening = self.opening(file, today if skip_expired else None)
                if opening is None or not _in_window(opening.day, since, until):
                    continue
                score = hit_score((), matched, weights, opening.day, today)
                hits.append(
                    ScoredNote(score, -opening.topic_id, file, "topic", None, opening.day, 1, opening.text, matched)
                )
            hits.sort(key=ScoredNote.order)  # (a stable sort)
            kept = [
                NoteHit(
                    hit.id,
                    hit.file,
                    hit.kind,
                    hit.section,
                    hit.day,
                    hit.line,
                    hit.text,
                    in_query_order(query_terms, hit.matched),
                    hit.score,
                    opening=hit.id < 0,
                )
                for hit in (hits[:limit] if limit else hits)
            ]
            return self._with_texts(kept)

    def _with_texts(self, hits: list[NoteHit]) -> list[NoteHit]:
        """Hits with their text (openings have theirs), read for these only: most candidates are not kept."""
        wanted = [hit.id for hit in hits if hit.id > 0]
        texts: dict[int, str] = {}
        for chunk in chunks(wanted, 500):
            marks = ",".join("?" * len(chunk))
            texts.update(self.connection.db.execute(f"SELECT id, text FROM notes WHERE id IN ({marks})", chunk))
        for hit in hits:
            if hit.id > 0:
                hit.text = texts[hit.id]
        return hits

    def opening(self, file: str, today: date | None) -> Opening | None:
        """A topic's opening, or None when it has none (no description, no current note).

        Built from the stored notes, so superseded entries are never in it; with `today`, neither are
        entries whose until date is before it (recall), without it they are (session_search: history).
        It is dated by the topic's newest dated entry still shown, else it is undated.
        """
        with self.connection.lock:
            db = self.connection.db
            row = db.execute("SELECT id, description FROM topics WHERE file=?", (file,)).fetchone()
            if row is None:
                return None
            topic_id, description = row
            current = "" if today is None else " AND (until IS NULL OR until >= ?)"
            params = (file,) if today is None else (file, today.isoformat())
            rows = db.execute(f"SELECT text FROM notes WHERE file=?{current} ORDER BY id", params)
            try:
                opening = topic_opening(description, (text for (text,) in rows))
            finally:
                rows.close()  # read only as far as the opening needs
            if not opening.strip():
                return None
            newest = db.execute(f"SELECT max(day) FROM notes WHERE file=? AND dated=1{current}", params).fetchone()[0]
            return Opening(topic_id, opening, date.fromisoformat(newest) if newest else None)

    def _note_rows(self, ids: set[int], names: dict[str, set[str]], query_terms: list[str]) -> list[NoteRow]:
        """The candidates' rows, without their text (read for the hits kept, by _with_texts)."""
        rows = {row.id: row for row in self.words.rows_by_id("notes", NOTE_COLUMNS, NoteRow, ids)}
        if not names:
            return list(rows.values())
        # the newest notes of each topic whose name matched that hold one of the words themselves: each topic's,
        # in id order, then by day, newest first (Python's sort keeps ties in id order)
        padded = [f" {term} " for term in query_terms]  # a word, between spaces (compiling a pattern cost more)
        for notes in self._topic_notes(list(names)).values():
            holding = [row for row in notes if any(map(row.spaced_terms.__contains__, padded))]
            holding.sort(key=lambda row: row.day or "", reverse=True)
            for row in holding[:NAME_TOPIC_NOTES]:
                rows[row.id] = row
        return list(rows.values())

    def _topic_notes(self, files: list[str]) -> dict[str, list[NoteRow]]:
        """Every note of these topic files, in id order, by file.

        Kept between lookups like a word's rows (the same topics' names keep matching): any change to a
        memory file drops them, and so does another process's commit (see KeptLookups).
        """
        found: dict[str, list[NoteRow]] = {}
        missing = []
        for file in files:
            kept = self.kept.postings(LookupKey("topic_notes", file, 0))
            if kept is None:
                missing.append(file)
            else:
                found[file] = kept
        if missing:
            by_file: dict[str, list[NoteRow]] = {file: [] for file in missing}
            marks = ",".join("?" * len(missing))
            query = f"SELECT {NOTE_COLUMNS} FROM notes WHERE file IN ({marks}) ORDER BY id"
            for row in starmap(NoteRow, self.connection.db.execute(query, missing)):
                by_file[row.file].append(row)
            for file, notes in by_file.items():
                self.kept.keep_postings(LookupKey("topic_notes", file, 0), notes)
                self.kept.keep_rows("notes", notes)
                found[file] = notes
        return {file: found[file] for file in files}

    def recent_notes(self, *, since: date | None, until: date | None, topics_only: bool, limit: int) -> list[NoteHit]:
        """Notes dated in a window, newest first: `session_search` by time alone."""
        with self.connection.lock:
            where, params = ["day IS NOT NULL"], []
            if since:
                where.append("day >= ?")
                params.append(since.isoformat())
            if until:
                where.append("day <= ?")
                params.append(until.isoformat())
            if topics_only:
                where.append("kind = 'topic'")
            rows = self.connection.db.execute(
                f"SELECT id, file, kind, section, day, line, text FROM notes WHERE {' AND '.join(where)} "
                "ORDER BY day DESC, file, line LIMIT ?",
                (*params, limit),
            )
            return [
                NoteHit(note_id, file, kind, section, date.fromisoformat(day), line, text, [], 0.0)
                for note_id, file, kind, section, day, line, text in rows
            ]


def _in_window(day: date | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if day is None:
        return False
    return (since is None or day >= since) and (until is None or day <= until)
