"""Searching the recall index and ranking what it finds (see :mod:`omb_tui.core.recall.recall_index`).

docs/recall.md, "Ranking": a word's weight is its BM25 idf, a note's score the weights of its words
summed (a topic's name counts at half weight), times a recency factor. A word is looked up in at
most a capped number of rows, the newest first; only the best candidates are scored exactly.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, NamedTuple, TypeVar

from ..memory import conversations as conv
from .index_rows import sql_text
from .index_schema import (
    MESSAGE_COLUMNS,
    MESSAGE_PLACE_COLUMNS,
    NOTE_COLUMNS,
    IndexDatabase,
    LookupKey,
    MessageRow,
    NoteRow,
    day_iso,
    days_terms,
    message_day,
    note_day,
    span_term,
)

OPENING_MAX_CHARS = 600

# Ranking (docs/recall.md): a word's weight is its BM25 idf; the sum is multiplied by a recency factor
# from 1 + RECENCY_BOOST (today) halving every RECENCY_HALF_LIFE_DAYS towards 1.
RECENCY_BOOST = 0.5
RECENCY_HALF_LIFE_DAYS = 60.0
NAME_ONLY_WEIGHT = 0.5  # a word matched only by the topic's name, title or aliases
# A word is looked up in at most this many notes (or messages), the newest indexed first. A word found
# in more places says little by itself; the rarer words of the same message are looked up whole.
POSTINGS_CAP_RECALL = 500
POSTINGS_CAP_SEARCH = 5000
POSTINGS_CAP_WINDOW = 500  # session_search within a time window: a word's newest messages by time
EXACT_POOL = 40  # candidates scored exactly (by their stored terms) for recall
SEARCH_POOL = 1000  # the same for session_search
WINDOW_POOL = 300  # the same for session_search within a time window (every candidate is in the window)
WINDOW_READ_WHOLE = 8  # a table of at most this many times a word's cap is looked up in a window in one go
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


@dataclass
class MessageHit:
    id: int
    conversation: conv.Conversation
    seq: int
    at: datetime
    author_kind: str
    author: str
    failed: bool
    text: str
    matched: list[str] = field(default_factory=list)
    score: float = 0.0


Row = TypeVar("Row", NoteRow, MessageRow)
ConversationFilter = Callable[[conv.Conversation], bool]  # which conversations' messages a search may give


class Opening(NamedTuple):
    """A topic's opening as recalled (see topic_opening), dated by its newest entry shown, else its file's change."""

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
    matched: set[str]

    def order(self) -> tuple:
        """Best first; an opening after the notes of its score; newer first; then by place."""
        return (-self.score, self.id < 0, -(self.day.toordinal() if self.day else 0), self.file, self.line)


@dataclass(slots=True)
class ScoredMessage:
    """A message scored: a MessageHit is made of the best only. (Slotted, like index_schema's rows: one is made for
    every candidate.)"""

    score: float
    row: MessageRow
    matched: set[str]

    def order(self) -> tuple:
        """Best first; newer first; then by id."""
        return (-self.score, -self.row.ts, self.row.id)


def recency_factor(day: date | None, today: date) -> float:
    """1 + RECENCY_BOOST for today's notes, halving towards 1 every RECENCY_HALF_LIFE_DAYS."""
    if day is None:
        return 1.0
    age = max(0, (today - day).days)
    return 1.0 + RECENCY_BOOST * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS)


def idf(total: int, found_in: int) -> float:
    """BM25's inverse document frequency, kept positive: a rarer word weighs more."""
    return math.log(1.0 + (total - found_in + 0.5) / (found_in + 0.5))


def word_weights(query_terms: list[str], total: int, found_in: dict[str, int]) -> dict[str, float]:
    """Each word's weight (its idf) among `total` notes or messages, `found_in[word]` of them holding it."""
    return {term: idf(total, min(total, found_in.get(term, 0))) for term in query_terms}


def weight_of(matched: Iterable[str], weights: dict[str, float]) -> float:
    """The weights of the words a hit holds, summed exactly: the same in every process, whatever order a set
    of words comes in (Python's hash seed orders it, and a plain sum's last bit follows the order)."""
    return math.fsum(map(weights.__getitem__, matched))


def hit_score(
    own: Iterable[str], by_name: Iterable[str], weights: dict[str, float], day: date | None, today: date
) -> float:
    """A hit's score (docs/recall.md, "Ranking"): the weights of the words it holds itself, and at half weight of
    those only its topic's name holds, times its recency factor. Notes, openings (no words of their own) and
    messages (no name) alike."""
    # (no name's words add 0.0: skipping them gives the same float, and most hits have none)
    by_name_weight = NAME_ONLY_WEIGHT * weight_of(by_name, weights) if by_name else 0.0
    return (weight_of(own, weights) + by_name_weight) * recency_factor(day, today)


def _fts_query(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


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


@dataclass
class _Window:
    """A time window over an FTS table's rows: their time `column` from `first` to `last`."""

    fts: str
    table: str  # joined to the FTS table by id for the time
    timed: str  # the table with an index on `column`: where the window's rows are counted
    column: str
    first: Any
    last: Any
    day_of: Callable[[Any], int]  # the day (index_schema.time_terms) of a time in `column`
    before: Callable[[Any], Any]  # the time just before one, in `column`'s terms
    after: Callable[[Any], Any] | None = None  # the time just after one
    by_day: bool = False  # times are days (notes): rows of one day come newest first by id
    condition: str = ""  # more conditions on the row `t`, and their parameters
    params: tuple = ()
    sizes: dict[Any, int] = field(default_factory=dict)  # how many rows it holds from a time on, once counted
    rows: int = 0  # how many rows the FTS table holds (in or out of the window)
    times: dict[int, Any] = field(default_factory=dict)  # the time of each row looked up, by id
    boundaries: dict[tuple, Any] = field(default_factory=dict)  # (time, rows) -> the time that many rows before


class IndexSearch(IndexDatabase):
    """Finds notes and messages in the index, best first."""

    # ----- reading -----
    def counts(self) -> dict[str, Any]:
        """How many topic notes, other memory notes and messages the index holds (the N of idf), and the
        span of their ids, dates and times."""
        with self._lock:
            if self._counts is None:
                counts: dict[str, Any] = {"topic": 0, "memo": 0, "message": 0}
                counts.update(dict(self.db.execute("SELECT name, n FROM stats")))
                for table in ("notes", "messages"):
                    # apart: SQLite finds a min() or a max() alone at the end of the b-tree, both together by a scan
                    low = self.db.execute(f"SELECT min(id) FROM {table}").fetchone()[0]
                    high = self.db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
                    counts[f"{table}_span"] = (high - low + 1) if high is not None else 0
                    counts[f"{table}_max"] = high or 0
                # the notes' first and last dates, the messages' first and last times: a window is looked up within them
                counts["day_min"] = self.db.execute("SELECT min(day) FROM notes").fetchone()[0] or ""
                counts["day_max"] = self.db.execute("SELECT max(day) FROM notes").fetchone()[0] or ""
                counts["ts_min"] = self.db.execute("SELECT min(ts) FROM messages").fetchone()[0] or 0
                counts["ts_max"] = self.db.execute("SELECT max(ts) FROM messages").fetchone()[0] or 0
                self._counts = counts
            return dict(self._counts)

    def _postings(
        self, fts: str, term: str, cap: int, table: str = "", where: str = "", params: tuple = ()
    ) -> list[int]:
        """The newest `cap` row ids holding a word (passing `where`, a condition on `table`'s row as `t`)."""
        if where:  # only rows that pass: a busy chat left out cannot use up the cap
            # a message's time and chat are read from the narrow message_times, not the row with its text
            joined = "message_times" if table == "messages" else table
            query = (
                f"SELECT f.rowid FROM {fts} f JOIN {joined} t ON t.id = f.rowid "
                f"WHERE {fts} MATCH ? AND {where} ORDER BY f.rowid DESC LIMIT ?"
            )
            return [rowid for (rowid,) in self.db.execute(query, (_fts_query(term), *params, cap))]
        key = LookupKey(fts, term, cap)
        rows = self._kept_postings.get(key)
        if rows is None:
            # one string from SQLite rather than a row per id (most of the lookup's time was making those rows)
            query = f"SELECT group_concat(rowid) FROM (SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY rowid DESC LIMIT ?)"
            found = self.db.execute(query, (_fts_query(term), cap)).fetchone()[0]
            rows = (
                sorted(map(int, found.split(",")), reverse=True) if found else []
            )  # (group_concat's order is not promised)
            self._keep_postings(key, rows)
        return rows

    def _keep_postings(self, key: LookupKey, rows: list) -> None:
        if len(self._kept_postings) >= self.POSTINGS_KEPT:
            del self._kept_postings[next(iter(self._kept_postings))]  # the one kept longest
        self._kept_postings[key] = rows

    def _lookup(
        self,
        fts: str,
        table: str,
        query_terms: list[str],
        cap: int,
        where: str = "",
        params: tuple = (),
        leave_out: set[int] | None = None,
    ) -> tuple[dict[str, list[int]], dict[str, int]]:
        """Each word's row ids (newest first, at most `cap`, passing `where`) and how many rows hold it.

        Up to `cap` the count is exact; past it, it is estimated from how far back the newest `cap`
        reach in the table's row ids (a word in every tenth row reaches back ten times `cap` rows).
        With `where`, the count is of the rows that pass, which is what the ranking needs to compare.
        `leave_out` rows (the current chat's) are dropped; when they filled the cap, the word is looked
        up again past them: its newest `cap` and as many more as there are rows to leave out (rounded up, so
        that the next turns find it kept), which hold its newest `cap` of the others; for a chat of more rows
        than `cap`, with `where`, which must leave them out too.
        """
        counts = self.counts()
        span, high = counts[f"{table}_span"], counts[f"{table}_max"]
        postings, frequency = {}, {}
        for term in query_terms:
            if leave_out is None:
                rows = self._postings(fts, term, cap, table, where, params)
            else:
                rows = self._postings(fts, term, cap)
                kept = [rowid for rowid in rows if rowid not in leave_out]
                if len(rows) == cap and len(kept) < cap:
                    if len(leave_out) <= cap:
                        more = cap + -(-len(leave_out) // 64) * 64
                        rows = [rowid for rowid in self._postings(fts, term, more) if rowid not in leave_out][:cap]
                    else:
                        rows = self._postings(fts, term, cap, table, where, params)
                else:
                    rows = kept
            postings[term] = rows
            if len(rows) < cap:
                frequency[term] = len(rows)
            else:
                frequency[term] = int(cap * span / max(1, high - rows[-1] + 1))
        return postings, frequency

    def _message_window(self, since_ts: float | None, until_ts: float | None, chat_left_out: str | None) -> _Window:
        counts = self.counts()
        first = max(int(math.floor(since_ts)), counts["ts_min"]) if since_ts is not None else counts["ts_min"]
        last = min(int(math.ceil(until_ts)), counts["ts_max"]) if until_ts is not None else counts["ts_max"]
        window = _Window(
            "message_fts",
            "message_times",
            "messages",
            "ts",
            first,
            last,
            message_day,
            lambda ts: ts - 1,
            rows=counts["message"],
        )
        if chat_left_out is not None:
            window.condition, window.params = " AND t.conv != ?", (chat_left_out,)
        return window

    def _note_window(self, since: date | None, until: date | None) -> _Window:
        counts = self.counts()
        first = max(since.isoformat(), counts["day_min"]) if since is not None else counts["day_min"]
        last = min(until.isoformat(), counts["day_max"]) if until is not None else counts["day_max"]
        return _Window(
            "",
            "note_days",
            "notes",
            "day",
            first,
            last,
            _note_day_number,
            lambda day: day_iso(_note_day_number(day) - 1),
            lambda day: day_iso(_note_day_number(day) + 1),
            by_day=True,
        )

    def _window_size(self, window: _Window, since: Any = None) -> int:
        """How many rows (holding any word) the window holds; with `since`, only those that new."""
        first = window.first if since is None else since
        if first not in window.sizes:
            window.sizes[first] = (
                0
                if first > window.last
                else self.db.execute(
                    f"SELECT count(*) FROM {window.timed} WHERE {window.column} BETWEEN ? AND ?", (first, window.last)
                ).fetchone()[0]
            )
        return window.sizes[first]

    def _lookup_in_window(
        self, window: _Window, query_terms: list[str], cap: int
    ) -> tuple[dict[str, list[int]], dict[str, int]]:
        """Each word's newest `cap` rows by time within the window (newest first), and how many hold it there.

        Up to `cap` the count is exact; past it, it is estimated from how much of the window's rows the
        newest `cap` reach back over (a word in every tenth row reaches back ten times `cap`).
        """
        postings, frequency = {}, {}
        for term in query_terms:
            rows = self._postings_in_window(window, term, cap) if window.first <= window.last else []
            postings[term] = [rowid for _, rowid in rows]
            window.times.update((rowid, time) for time, rowid in rows)
            if len(rows) < cap:
                frequency[term] = len(rows)
            else:
                oldest, _ = rows[-1]
                reached = self._window_size(window, since=oldest)
                frequency[term] = int(cap * self._window_size(window) / max(1, reached))
        return postings, frequency

    def _postings_in_window(self, window: _Window, term: str, cap: int) -> list[tuple[Any, int]]:
        """The newest `cap` (time, id) holding a word within a window, newest first by time (then by id).

        Read some rows at a time from the newest, by the index on time: FTS5 finds the word's rows of those
        days by their time terms, and only the last part read, when it gives more than is missing, is
        sorted by time. First `cap` rows, then as many as the word's rate so far says will give what
        is missing (and a quarter more), at most three times as many as were read; a table of few rows,
        or a word held by fewer than `cap` rows in all, is read whole. Notes have a date, not a time: the oldest day of a part (often a pile, the undated
        notes of every file changed that day) is read from FTS5 alone, its rows newest first by id, as far
        as is missing.
        """
        found: list[tuple[Any, int]] = []
        high, read, step = window.last, 0, cap
        whole = window.rows <= WINDOW_READ_WHOLE * cap or self._fewer_than(window.fts, term, cap)
        while high >= window.first and len(found) < cap:
            low = window.first if whole else self._window_boundary(window, high, step)
            missing = cap - len(found)
            if window.by_day and not whole:
                assert window.after is not None  # a window by day (_note_window) always has one
                rows = self._rows_between(window, term, window.after(low), high) if low < high else []
                rows.sort(reverse=True)
                if len(rows) < missing:
                    rows += self._rows_of_day(window, term, low, missing - len(rows))
            else:
                rows = self._rows_between(window, term, low, high)
                rows.sort(reverse=True)
            if len(rows) >= missing:
                return found + rows[:missing]
            found += rows
            read += step
            if low == window.first:
                break
            high = window.before(low)
            rate = len(found) / read
            step = read * 3 if not found else min(read * 3, math.ceil((cap - len(found)) * 1.25 / rate))
        return found

    def _fewer_than(self, fts: str, term: str, most: int) -> bool:
        """Whether fewer than `most` rows hold a word (in the whole table): then its window is read in one go."""
        query = f"SELECT count(*) FROM (SELECT rowid FROM {fts} WHERE {fts} MATCH ? LIMIT ?)"
        return self.db.execute(query, (_fts_query(term), most)).fetchone()[0] < most

    def _rows_between(self, window: _Window, term: str, low: Any, high: Any) -> list[tuple[Any, int]]:
        """(time, id) of the rows holding a word from `low` to `high`, in no order."""
        days = " OR ".join(_fts_query(day) for day in days_terms(window.day_of(low), window.day_of(high)))
        return self.db.execute(
            f"SELECT t.{window.column}, t.id FROM {window.fts} f JOIN {window.table} t ON t.id = f.rowid "
            f"WHERE {window.fts} MATCH ? AND t.{window.column} BETWEEN ? AND ?{window.condition}",
            (f"{_fts_query(term)} AND ({days})", low, high, *window.params),
        ).fetchall()

    def _rows_of_day(self, window: _Window, term: str, day: Any, most: int) -> list[tuple[Any, int]]:
        """(day, id) of the newest `most` rows holding a word on one day (a window by day), newest first by id."""
        found = self.db.execute(
            f"SELECT group_concat(rowid) FROM (SELECT rowid FROM {window.fts} WHERE {window.fts} MATCH ? "
            "ORDER BY rowid DESC LIMIT ?)",
            (f"{_fts_query(term)} AND {_fts_query(span_term(1, window.day_of(day)))}", most),
        ).fetchone()[0]
        return [(day, rowid) for rowid in sorted(map(int, found.split(",")), reverse=True)] if found else []

    def _window_boundary(self, window: _Window, high: Any, step: int) -> Any:
        """The time of the `step`-th newest row (of every word) no newer than `high`, or the window's first."""
        key = (high, step)
        if key not in window.boundaries:  # the same for every word's first part
            (window.boundaries[key],) = self.db.execute(
                f"SELECT {window.column} FROM {window.timed} WHERE {window.column} BETWEEN ? AND ? "
                f"ORDER BY {window.column} DESC LIMIT 1 OFFSET ?",
                (window.first, high, step - 1),
            ).fetchone() or (window.first,)
        return window.boundaries[key]

    @staticmethod
    def _candidates(
        postings: dict[str, list[int]], weights: dict[str, float], most: int, times: dict[int, Any] | None = None
    ) -> list[int]:
        """Up to `most` row ids that hold any of the words, best first by the words' weight summed, newest first on
        ties: by their `times` when given (a window), else by id."""
        partial: dict[int, float] = {}
        several: set[int] = set()  # rows holding more than one of the words
        for term, rows in postings.items():
            weight = weights[term]
            # the same sums, in the same order, as adding each row's weights one by one (0.0 + w is w): only the
            # rows already holding an earlier word are added to in Python, the rest are set in C
            earlier = {rowid: partial[rowid] for rowid in partial.keys() & rows}
            partial.update(dict.fromkeys(rows, weight))
            for rowid, score in earlier.items():
                partial[rowid] = score + weight
            several.update(earlier)
        # The best `most` are among the rows holding several words and, of each word's other rows, the first
        # `most` in its list: those come best first already (one weight; newest first, by time in a window,
        # else by id). So only those are compared, not every row; (score, [time,] rowid) tuples compare as
        # the key would, without a call per row.
        pool: list[tuple] = []
        for term, rows in postings.items():
            weight = weights[term]
            alone = (rowid for rowid in rows if rowid not in several)
            pool += ((weight, rowid) for rowid in itertools.islice(alone, most))
        pool += ((partial[rowid], rowid) for rowid in several)
        if times is not None:
            pool = [(score, times[rowid], rowid) for score, rowid in pool]
        pool.sort(reverse=True)  # (what heapq.nlargest gives, in C)
        return [entry[-1] for entry in pool[:most]]  # (each entry ends with its row id)

    def name_matches(self, query_terms: list[str]) -> dict[str, set[str]]:
        """Topics whose file name, title or aliases hold one of the words: {file: words}."""
        found: dict[str, set[str]] = defaultdict(set)
        with self._lock:
            for term in query_terms:
                key = LookupKey("topic_names", term, NAME_TOPICS_MAX * 4)  # kept like a word's rows (see _postings)
                files = self._kept_postings.get(key)
                if files is None:
                    files = [
                        file
                        for (file,) in self.db.execute(
                            "SELECT t.file FROM topic_names JOIN topics t ON t.id = topic_names.rowid "
                            "WHERE topic_names MATCH ? LIMIT ?",
                            (_fts_query(term), NAME_TOPICS_MAX * 4),
                        )
                    ]
                    self._keep_postings(key, files)
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
        with self._lock:
            self._see_other_writers()  # rows another process wrote may have taken the ids of rows kept here
            counts = self.counts()
            sources = ["topic_fts"] if topics_only else ["topic_fts", "memo_fts"]
            total = counts["topic"] + (0 if topics_only else counts["memo"])
            cap = POSTINGS_CAP_SEARCH if pool is None else POSTINGS_CAP_RECALL
            frequency: dict[str, int] = defaultdict(int)
            postings = {}
            window = self._note_window(since, until) if since is not None or until is not None else None
            for fts in sources:
                if window is None:
                    postings[fts], found_in = self._lookup(fts, "notes", query_terms, cap)
                else:
                    window.fts, window.rows = fts, counts["topic" if fts == "topic_fts" else "memo"]
                    # (its boundaries and sizes count notes of every kind: the same for both tables)
                    postings[fts], found_in = self._lookup_in_window(window, query_terms, POSTINGS_CAP_WINDOW)
                    # a word's count is of all notes, as without a window: scaled from the window's notes
                    scale = total / max(1, self._window_size(window))
                    found_in = {term: int(n * scale) for term, n in found_in.items()}
                for term, n in found_in.items():
                    frequency[term] += n
            weights = word_weights(query_terms, total, frequency)
            names = self.name_matches(query_terms)
            if len(names) > NAME_TOPICS_MAX:
                best = sorted(names, key=lambda f: weight_of(names[f], weights), reverse=True)
                names = {f: names[f] for f in best[:NAME_TOPICS_MAX]}
            most = pool or (SEARCH_POOL if window is None else WINDOW_POOL)
            candidate_ids: set[int] = set()
            for fts in sources:  # within a window, every row looked up is in it
                candidate_ids.update(
                    self._candidates(postings[fts], weights, most, None if window is None else window.times)
                )
            rows = self._note_rows(candidate_ids, names, query_terms)
            hits: list[ScoredNote] = []
            with_own_match: set[str] = set()
            padded = [(term, f" {term} ") for term in query_terms]
            for row in rows:
                own = {term for term, spaced in padded if spaced in row.spaced_terms}
                by_name = names.get(row.file, set()) - own
                if not own:
                    continue  # a note matched by its topic's name alone: the opening stands in
                if len(own) + len(by_name) < need:
                    continue
                day = date.fromisoformat(row.day) if row.day else None
                if not _in_window(day, since, until):
                    continue
                if skip_expired and row.until and date.fromisoformat(row.until) < today:
                    continue
                score = hit_score(own, by_name, weights, day, today)
                with_own_match.add(row.file)
                # the NoteHit itself is made for the ones kept (see below); its text is read for those only
                hits.append(
                    ScoredNote(score, row.id, row.file, row.kind, row.section, day, row.line, "", own | by_name)
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
                    _ordered(query_terms, hit.matched),
                    hit.score,
                    opening=hit.id < 0,
                )
                for hit in (hits[:limit] if limit else hits)
            ]
            return self._with_texts("notes", kept)

    def _with_texts(self, table: str, hits: list) -> list:
        """Hits (notes, not openings; messages) with their text, read for these only: most candidates are not kept."""
        if table == "messages":
            return self.message_texts(hits)
        wanted = [hit.id for hit in hits if hit.id > 0]
        texts: dict[int, str] = {}
        for chunk in _chunks(wanted, 500):
            marks = ",".join("?" * len(chunk))
            texts.update(self.db.execute(f"SELECT id, text FROM {table} WHERE id IN ({marks})", chunk))
        for hit in hits:
            if hit.id > 0:
                hit.text = texts[hit.id]
        return hits

    def message_texts(self, hits: list[MessageHit]) -> list[MessageHit]:
        """The hits with their text, read from their conversation files and redacted as when they were indexed.

        The index keeps where each message's line is and the line's crc32, not the text: a hit whose line
        is no longer there (the file changed since the last refresh) is left out.
        """
        from ..memory.redact import redact  # compiled when a message is first shown, not at start-up

        places: dict[str, list[tuple[int, int, int, int, int]]] = defaultdict(list)  # conversation -> lines
        for chunk in _chunks(sorted({hit.id for hit in hits if not hit.text}), 500):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT id, conv, pos, size, crc, redacted FROM messages WHERE id IN ({marks})"
            for message_id, key, position, size, crc, redacted in self.db.execute(query, chunk):
                places[key].append((position, size, crc, redacted, message_id))
        texts: dict[int, str] = {hit.id: hit.text for hit in hits if hit.text}
        for key, lines in places.items():
            with contextlib.suppress(OSError), open(self.conversation_file(key), "rb") as handle:
                for position, size, crc, redacted, message_id in sorted(lines):
                    handle.seek(position)
                    raw = handle.read(size)
                    text = conv.line_text(raw) if zlib.crc32(raw) == crc else None
                    if text is not None:
                        # the same line as when indexed: redaction gives what it gave then (nothing to do if nothing)
                        texts[message_id] = sql_text(redact(text).text if redacted else text) or ""
        kept = []
        for hit in hits:
            if hit.id in texts:
                hit.text = texts[hit.id]
                kept.append(hit)
        return kept

    def opening(self, file: str, today: date | None) -> Opening | None:
        """A topic's opening, or None when it has none (no description, no current note).

        Built from the stored notes, so superseded entries are never in it; with `today`, neither are
        entries whose until date is before it (recall), without it they are (session_search: history).
        It is dated by the topic's newest dated entry still shown, else by the file's last change.
        """
        with self._lock:
            row = self.db.execute("SELECT id, description, file_day FROM topics WHERE file=?", (file,)).fetchone()
            if row is None:
                return None
            topic_id, description, file_day = row
            current = "" if today is None else " AND (until IS NULL OR until >= ?)"
            params = (file,) if today is None else (file, today.isoformat())
            rows = self.db.execute(f"SELECT text FROM notes WHERE file=?{current} ORDER BY id", params)
            try:
                opening = topic_opening(description, (text for (text,) in rows))
            finally:
                rows.close()  # read only as far as the opening needs
            if not opening.strip():
                return None
            newest = self.db.execute(
                f"SELECT max(day) FROM notes WHERE file=? AND dated=1{current}", params
            ).fetchone()[0]
            day = newest or file_day
            return Opening(topic_id, opening, date.fromisoformat(day) if day else None)

    def _note_rows(self, ids: set[int], names: dict[str, set[str]], query_terms: list[str]) -> list[NoteRow]:
        """The candidates' rows, without their text (read for the hits kept, by _with_texts)."""
        rows = {row.id: row for row in self._rows_by_id("notes", NOTE_COLUMNS, NoteRow, ids)}
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
        memory file drops them, and so does another process's commit (see RecallIndex._kept_postings).
        """
        found: dict[str, list[NoteRow]] = {}
        missing = []
        for file in files:
            kept = self._kept_postings.get(LookupKey("topic_notes", file, 0))
            if kept is None:
                missing.append(file)
            else:
                found[file] = kept
        if missing:
            by_file: dict[str, list[NoteRow]] = {file: [] for file in missing}
            marks = ",".join("?" * len(missing))
            for row in itertools.starmap(
                NoteRow,
                self.db.execute(f"SELECT {NOTE_COLUMNS} FROM notes WHERE file IN ({marks}) ORDER BY id", missing),
            ):
                by_file[row.file].append(row)
            for file, notes in by_file.items():
                self._keep_postings(LookupKey("topic_notes", file, 0), notes)
                self._keep_rows("notes", notes)
                found[file] = notes
        return {file: found[file] for file in files}

    def recent_notes(self, *, since: date | None, until: date | None, topics_only: bool, limit: int) -> list[NoteHit]:
        """Notes dated in a window, newest first: `session_search` by time alone."""
        with self._lock:
            where, params = ["day IS NOT NULL"], []
            if since:
                where.append("day >= ?")
                params.append(since.isoformat())
            if until:
                where.append("day <= ?")
                params.append(until.isoformat())
            if topics_only:
                where.append("kind = 'topic'")
            rows = self.db.execute(
                f"SELECT id, file, kind, section, day, line, text FROM notes WHERE {' AND '.join(where)} "
                "ORDER BY day DESC, file, line LIMIT ?",
                (*params, limit),
            )
            return [
                NoteHit(note_id, file, kind, section, date.fromisoformat(day), line, text, [], 0.0)
                for note_id, file, kind, section, day, line, text in rows
            ]

    # ----- messages -----
    def conversations(self, *, members_only: bool = True) -> dict[str, conv.Conversation]:
        """The conversations the index knows, by key (`chat:<id>`, `room:<id>`)."""
        with self._lock:
            out = {}
            query = "SELECT key, header FROM convs" + (" WHERE member=1" if members_only else "")
            for key, header in self.db.execute(query):
                conversation = conv.header_from_json(json.loads(header))
                if conversation is not None:
                    out[key] = conversation
            return out

    def search_messages(
        self,
        query_terms: list[str],
        *,
        need: int,
        today: date,
        limit: int,
        accept: ConversationFilter | None = None,
        since_ts: float | None = None,
        until_ts: float | None = None,
        other_than: conv.Conversation | None = None,
        replies_only: bool = False,
        pool: int | None = EXACT_POOL,
        texts: bool = True,
    ) -> list[MessageHit]:
        """Messages of the bot's conversations holding at least `need` of the words, best first.

        Without `texts` their text is "" (`message_texts` reads it, for the ones a caller keeps). `accept`
        says which conversations may give them (asked once per conversation).

        `other_than` leaves a conversation out and `replies_only` keeps only what a person or a bot
        said in a turn that did not fail; both, and the time window, are applied before the best are
        chosen, so a busy current chat cannot crowd the others out.
        """
        with self._lock:
            self._see_other_writers()  # (as in search_notes)
            total = self.counts()["message"]
            chat_left_out = conversation_key(other_than) if other_than is not None else None
            if since_ts is not None or until_ts is not None:
                # a word's newest messages by time in the window (docs/recall.md, "session_search")
                window = self._message_window(since_ts, until_ts, chat_left_out)
                postings, frequency = self._lookup_in_window(
                    window, query_terms, POSTINGS_CAP_WINDOW if pool is None else POSTINGS_CAP_RECALL
                )
                most = pool or WINDOW_POOL
            else:
                window, leave_out = None, None
                if chat_left_out is not None:  # usually cheaper than joining every word's rows
                    leave_out = {
                        message_id
                        for (message_id,) in self.db.execute("SELECT id FROM messages WHERE conv = ?", (chat_left_out,))
                    }
                postings, frequency = self._lookup(
                    "message_fts",
                    "messages",
                    query_terms,
                    POSTINGS_CAP_SEARCH if pool is None else POSTINGS_CAP_RECALL,
                    "t.conv != ?" if chat_left_out else "",
                    (chat_left_out,) if chat_left_out else (),
                    leave_out,
                )
                most = pool or SEARCH_POOL
            weights = word_weights(query_terms, total, frequency)
            candidate_ids = self._candidates(postings, weights, most, window.times if window else None)
            padded = [(term, f" {term} ") for term in query_terms]
            rows = self._candidate_rows(candidate_ids)
            conversations = self._conversations_for({row.conv for row in rows})
            accepted: dict[str, bool] = {}
            # scored from the rows as they come (a message's time is its ts, to the second as `at` is written);
            # a MessageHit is made for the ones kept
            scored = []
            for row in rows:
                key, ts = row.conv, row.ts
                if key not in conversations:
                    continue
                if since_ts is not None and ts < since_ts:
                    continue
                if until_ts is not None and ts > until_ts:
                    continue
                if replies_only and (row.author_kind not in ("person", "bot") or row.failed):
                    continue
                if accept is not None:
                    if key not in accepted:
                        accepted[key] = accept(conversations[key])
                    if not accepted[key]:
                        continue
                own = {term for term, spaced in padded if spaced in row.spaced_terms}
                if len(own) < need:
                    continue
                scored.append(
                    ScoredMessage(hit_score(own, (), weights, datetime.fromtimestamp(ts).date(), today), row, own)
                )
            scored.sort(key=ScoredMessage.order)
            hits = []
            for found in scored[:limit] if limit else scored:
                hit = _message_hit(found.row, conversations)
                assert hit is not None  # its conversation is known
                hit.matched = _ordered(query_terms, found.matched)
                hit.score = found.score
                hits.append(hit)
            return self.message_texts(hits) if texts else hits

    def _candidate_rows(self, ids: Iterable[int]) -> list[MessageRow]:
        """The candidates' rows, without their text."""
        return self._rows_by_id("messages", MESSAGE_COLUMNS, MessageRow, ids)

    def _rows_by_id(self, table: str, columns: str, make: Callable[..., Row], ids: Iterable[int]) -> list[Row]:
        """Rows of a table by id, in id order: those kept from earlier lookups, the rest read (and kept), each made
        with `make(*columns)` (a NoteRow, a MessageRow)."""
        kept = self._kept_rows[table]
        wanted = sorted(set(ids))
        found = {row_id: kept[row_id] for row_id in wanted if row_id in kept}  # (before keeping more drops some)
        read: dict[int, Row] = {}
        for chunk in _chunks([row_id for row_id in wanted if row_id not in found], 500):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT {columns} FROM {table} WHERE id IN ({marks})"
            read.update((row.id, row) for row in itertools.starmap(make, self.db.execute(query, chunk)))
        if read:
            self._keep_rows(table, read.values())
            found.update(read)
        return [found[row_id] for row_id in wanted if row_id in found]

    def _hits(self, rows: list[MessageRow]) -> list[MessageHit]:
        conversations = self._conversations_for({row.conv for row in rows})
        return [hit for hit in (_message_hit(row, conversations) for row in rows) if hit is not None]

    def _conversations_for(self, keys: set[str]) -> dict[str, conv.Conversation]:
        """The conversations (the bot's chats and the rooms it is in) with these keys, parsed once per change."""
        missing = [key for key in keys if key not in self._headers]
        for chunk in _chunks(missing, 500):
            marks = ",".join("?" * len(chunk))
            found = dict(self.db.execute(f"SELECT key, header FROM convs WHERE member=1 AND key IN ({marks})", chunk))
            for key in chunk:
                header = found.get(key)
                self._headers[key] = conv.header_from_json(json.loads(header)) if header else None
        return {key: conversation for key in keys if (conversation := self._headers.get(key)) is not None}

    def recent_messages(
        self,
        *,
        since_ts: float | None,
        until_ts: float | None,
        limit: int | None,
        author: str | None = None,
        texts: bool = True,
    ) -> list[MessageHit]:
        """Messages in a time window, newest first (optionally only one bot's own).

        Without `texts` their text is "" (`message_texts` reads it, for the ones a caller keeps)."""
        with self._lock:
            where: list[str] = ["1=1"]
            params: list[int | str] = []
            if since_ts is not None:
                where.append("ts >= ?")
                params.append(int(math.floor(since_ts)))
            if until_ts is not None:
                where.append("ts <= ?")
                params.append(int(math.ceil(until_ts)))
            if author is not None:
                where.append("author_kind='bot' AND author=?")
                params.append(author)
            rows = self.db.execute(
                f"SELECT {MESSAGE_PLACE_COLUMNS} FROM messages "
                f"WHERE {' AND '.join(where)} ORDER BY ts DESC, id DESC" + (" LIMIT ?" if limit else ""),
                (*params, limit) if limit else tuple(params),
            )
            hits = self._hits(list(itertools.starmap(MessageRow, rows)))
            return self.message_texts(hits) if texts else hits

    def neighbour(self, hit: MessageHit, offset: int, *, texts: bool = True) -> MessageHit | None:
        """The message `offset` places before or after a hit in its conversation (its text "" without `texts`)."""
        with self._lock:
            key = _conversation_key(hit.conversation)
            row = self.db.execute(
                f"SELECT {MESSAGE_PLACE_COLUMNS} FROM messages WHERE conv=? AND seq=?", (key, hit.seq + offset)
            ).fetchone()
            found = _message_hit(MessageRow(*row), {key: hit.conversation}) if row else None
            if found is None or not texts:
                return found
            return next(iter(self.message_texts([found])), None)


def _conversation_key(conversation: conv.Conversation) -> str:
    return ("room:" if conversation.is_room else "chat:") + conversation.id


def conversation_key(conversation: conv.Conversation) -> str:
    """The index's key for a conversation: `chat:<id>` or `room:<id>`."""
    return _conversation_key(conversation)


def _message_hit(row: MessageRow, conversations: dict[str, conv.Conversation]) -> MessageHit | None:
    """A message's hit, without its text (message_texts reads it); None when its conversation is not given."""
    conversation = conversations.get(row.conv)
    if conversation is None:
        return None
    moment = conv.parse_time(row.at) or datetime.fromtimestamp(0, UTC)
    return MessageHit(row.id, conversation, row.seq, moment, row.author_kind, row.author, bool(row.failed), "")


def _note_day_number(day: str) -> int:
    """A note's day (index_schema.note_day), 0 for one that is not a date."""
    return note_day(day) or 0


def _in_window(day: date | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if day is None:
        return False
    return (since is None or day >= since) and (until is None or day <= until)


def _ordered(query_terms: list[str], matched: set[str]) -> list[str]:
    return [term for term in query_terms if term in matched]


def _chunks(items: list, size: int) -> Iterator[tuple]:
    for start in range(0, len(items), size):
        yield tuple(items[start : start + size])
