"""Looking words up in the recall index (see :mod:`omb_tui.core.index.recall_index`): each word's newest rows, within a
time window or not, how many rows hold it (the N and n of its idf), and the candidates worth scoring exactly.

docs/recall.md, "The index" and "Limits that keep it fast": a word is looked up in at most a capped number of rows, the
newest first (within a window, the newest by time); only the best candidates by the words' weights are scored.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Set
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

from .kept import KeptLookups, LookupKey
from .schema import IndexConnection, MessageRow, NoteRow, day_iso, days_terms, message_day, note_day, span_term

# A word is looked up in at most this many notes (or messages), the newest indexed first. A word found
# in more places says little by itself; the rarer words of the same message are looked up whole.
POSTINGS_CAP_RECALL = 500
POSTINGS_CAP_SEARCH = 5000
POSTINGS_CAP_WINDOW = 500  # session_search within a time window: a word's newest messages by time
EXACT_POOL = 100  # candidates scored exactly (by their stored terms) for recall
NEIGHBOUR_SHARE = 0.5  # of the score of the turn next to a message that it gains (a quarter of the one two away)
SEARCH_POOL = 1000  # the same for session_search
WINDOW_POOL = 300  # the same for session_search within a time window (every candidate is in the window)
WINDOW_SIZES_KEPT = 1024  # counts kept to one last time, for the next searches (all dropped past it, and at any write)
WINDOW_READ_WHOLE = 8  # a table of at most this many times a word's cap is looked up in a window in one go

Row = TypeVar("Row", NoteRow, MessageRow)


def postings_cap(pool: int | None, *, windowed: bool) -> int:
    """How many of a word's rows are looked up: recall (which scores a `pool`) its newest POSTINGS_CAP_RECALL;
    session_search (no pool) its newest POSTINGS_CAP_SEARCH, or within a window its newest POSTINGS_CAP_WINDOW."""
    if pool is not None:
        return POSTINGS_CAP_RECALL
    return POSTINGS_CAP_WINDOW if windowed else POSTINGS_CAP_SEARCH


def candidates_scored(pool: int | None, *, windowed: bool) -> int:
    """How many candidates are scored exactly: recall's `pool`, else session_search's, within a window or not."""
    return pool or (WINDOW_POOL if windowed else SEARCH_POOL)


def fts_query(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def in_query_order(query_terms: list[str], matched: Set[str]) -> list[str]:
    """The words a hit matched, in the order of the message's."""
    return [term for term in query_terms if term in matched]


def chunks(items: list, size: int) -> Iterator[tuple]:
    for start in range(0, len(items), size):
        yield tuple(items[start : start + size])


@dataclass
class Window:
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


class WordLookup:
    """Finds each word's newest rows and the best candidates among them; keeps what it read for the next lookups."""

    def __init__(self, connection: IndexConnection, kept: KeptLookups) -> None:
        self.connection = connection
        self.kept = kept

    def counts(self) -> dict[str, Any]:
        """How many topic notes, other memory notes and messages the index holds (the N of idf), the span of their
        ids, dates and times, and whether any topic is named (`topics`: 1 or 0)."""
        with self.connection.lock:
            if self.kept.counts is None:
                db = self.connection.db
                counts: dict[str, Any] = {"topic": 0, "memo": 0, "message": 0}
                counts.update(dict(db.execute("SELECT name, n FROM stats")))
                for table in ("notes", "messages"):
                    # apart: SQLite finds a min() or a max() alone at the end of the b-tree, both together by a scan
                    low = db.execute(f"SELECT min(id) FROM {table}").fetchone()[0]
                    high = db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
                    counts[f"{table}_span"] = (high - low + 1) if high is not None else 0
                    counts[f"{table}_max"] = high or 0
                # the notes' first and last dates, the messages' first and last times: a window is looked up within them
                counts["day_min"] = db.execute("SELECT min(day) FROM notes").fetchone()[0] or ""
                counts["day_max"] = db.execute("SELECT max(day) FROM notes").fetchone()[0] or ""
                counts["ts_min"] = db.execute("SELECT min(ts) FROM messages").fetchone()[0] or 0
                counts["ts_max"] = db.execute("SELECT max(ts) FROM messages").fetchone()[0] or 0
                counts["topics"] = db.execute("SELECT EXISTS(SELECT 1 FROM topics)").fetchone()[0]  # any topic named
                self.kept.counts = counts
            return dict(self.kept.counts)

    def postings(
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
            return [rowid for (rowid,) in self.connection.db.execute(query, (fts_query(term), *params, cap))]
        key = LookupKey(fts, term, cap)
        rows = self.kept.postings(key)
        if rows is None:
            # one string from SQLite rather than a row per id (most of the lookup's time was making those rows)
            query = f"SELECT group_concat(rowid) FROM (SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY rowid DESC LIMIT ?)"
            found = self.connection.db.execute(query, (fts_query(term), cap)).fetchone()[0]
            rows = (
                sorted(map(int, found.split(",")), reverse=True) if found else []
            )  # (group_concat's order is not promised)
            self.kept.keep_postings(key, rows)
        return rows

    def lookup(
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
                rows = self.postings(fts, term, cap, table, where, params)
            else:
                rows = self.postings(fts, term, cap)
                kept = [rowid for rowid in rows if rowid not in leave_out]
                if len(rows) == cap and len(kept) < cap:
                    if len(leave_out) <= cap:
                        more = cap + -(-len(leave_out) // 64) * 64
                        rows = [rowid for rowid in self.postings(fts, term, more) if rowid not in leave_out][:cap]
                    else:
                        rows = self.postings(fts, term, cap, table, where, params)
                else:
                    rows = kept
            postings[term] = rows
            if len(rows) < cap:
                frequency[term] = len(rows)
            else:
                frequency[term] = int(cap * span / max(1, high - rows[-1] + 1))
        return postings, frequency

    def message_window(self, since_ts: float | None, until_ts: float | None, chat_left_out: str | None) -> Window:
        counts = self.counts()
        first = max(int(math.floor(since_ts)), counts["ts_min"]) if since_ts is not None else counts["ts_min"]
        last = min(int(math.ceil(until_ts)), counts["ts_max"]) if until_ts is not None else counts["ts_max"]
        window = Window(
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

    def note_window(self, since: date | None, until: date | None) -> Window:
        counts = self.counts()
        first = max(since.isoformat(), counts["day_min"]) if since is not None else counts["day_min"]
        last = min(until.isoformat(), counts["day_max"]) if until is not None else counts["day_max"]
        return Window(
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

    def window_size(self, window: Window, since: Any = None) -> int:
        """How many rows (holding any word) the window holds; with `since`, only those that new."""
        first = window.first if since is None else since
        if first not in window.sizes:
            window.sizes[first] = self._rows_from(window, first)
        return window.sizes[first]

    def _rows_from(self, window: Window, first: Any) -> int:
        """How many rows are from `first` to the window's last time.

        Counted once, and kept until a write: the next count to the same last time starts from the nearest one kept
        and counts only the rows between, where that is a shorter span than counting them all (a window such as "90d"
        moves on by seconds from one search to the next)."""
        if first > window.last:
            return 0
        known, firsts = self.kept.window_sizes.setdefault((window.timed, window.last), ({}, []))
        if first in known:
            return known[first]
        if len(known) >= WINDOW_SIZES_KEPT:
            known.clear()
            firsts.clear()
        count = f"SELECT count(*) FROM {window.timed} WHERE {window.column}"
        db = self.connection.db
        day = window.day_of(first)
        place = bisect.bisect(firsts, first)
        # the nearest first time kept: the one before or the one after (day_of follows the times' order)
        nearest = min(
            firsts[max(0, place - 1) : place + 1], key=lambda other: abs(window.day_of(other) - day), default=None
        )
        if nearest is not None and abs(window.day_of(nearest) - day) < window.day_of(window.last) - day:
            low, high = sorted((first, nearest))
            between = db.execute(f"{count} >= ? AND {window.column} < ?", (low, high)).fetchone()[0]
            size = known[nearest] + (between if first < nearest else -between)
        else:
            size = db.execute(f"{count} BETWEEN ? AND ?", (first, window.last)).fetchone()[0]
        firsts.insert(place, first)
        known[first] = size
        return size

    def lookup_in_window(
        self, window: Window, query_terms: list[str], cap: int
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
                reached = self.window_size(window, since=oldest)
                frequency[term] = int(cap * self.window_size(window) / max(1, reached))
        return postings, frequency

    def _postings_in_window(self, window: Window, term: str, cap: int) -> list[tuple[Any, int]]:
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
                assert window.after is not None  # a window by day (note_window) always has one
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
        return self.connection.db.execute(query, (fts_query(term), most)).fetchone()[0] < most

    def _rows_between(self, window: Window, term: str, low: Any, high: Any) -> list[tuple[Any, int]]:
        """(time, id) of the rows holding a word from `low` to `high`, in no order."""
        days = " OR ".join(fts_query(day) for day in days_terms(window.day_of(low), window.day_of(high)))
        return self.connection.db.execute(
            f"SELECT t.{window.column}, t.id FROM {window.fts} f JOIN {window.table} t ON t.id = f.rowid "
            f"WHERE {window.fts} MATCH ? AND t.{window.column} BETWEEN ? AND ?{window.condition}",
            (f"{fts_query(term)} AND ({days})", low, high, *window.params),
        ).fetchall()

    def _rows_of_day(self, window: Window, term: str, day: Any, most: int) -> list[tuple[Any, int]]:
        """(day, id) of the newest `most` rows holding a word on one day (a window by day), newest first by id."""
        found = self.connection.db.execute(
            f"SELECT group_concat(rowid) FROM (SELECT rowid FROM {window.fts} WHERE {window.fts} MATCH ? "
            "ORDER BY rowid DESC LIMIT ?)",
            (f"{fts_query(term)} AND {fts_query(span_term(1, window.day_of(day)))}", most),
        ).fetchone()[0]
        return [(day, rowid) for rowid in sorted(map(int, found.split(",")), reverse=True)] if found else []

    def _window_boundary(self, window: Window, high: Any, step: int) -> Any:
        """The time of the `step`-th newest row (of every word) no newer than `high`, or the window's first."""
        key = (high, step)
        if key not in window.boundaries:  # the same for every word's first part
            (window.boundaries[key],) = self.connection.db.execute(
                f"SELECT {window.column} FROM {window.timed} WHERE {window.column} BETWEEN ? AND ? "
                f"ORDER BY {window.column} DESC LIMIT 1 OFFSET ?",
                (window.first, high, step - 1),
            ).fetchone() or (window.first,)
        return window.boundaries[key]

    @staticmethod
    def candidates(
        postings: dict[str, list[int]],
        weights: dict[str, float],
        most: int,
        times: dict[int, Any] | None = None,
        held: dict[int, int] | None = None,
    ) -> list[int]:
        """Up to `most` row ids that hold any of the words, best first by the words' weight summed, newest first on
        ties: by their `times` when given (a window), else by id; in no order when they are `most` or fewer.

        `held`, when given, is given each row's words found: bit i for the i-th word of `postings` whose rows hold it
        (which is every row holding it when fewer than the cap were found)."""
        found: dict[int, int] = {}  # row id -> the words' bits
        several: set[int] = set()  # rows holding more than one of the words
        for bit, rows in zip(_bits(len(postings)), postings.values(), strict=True):
            # only the rows already holding an earlier word are added to in Python, the rest are set in C
            earlier = {rowid: found[rowid] for rowid in found.keys() & rows}
            found.update(dict.fromkeys(rows, bit))
            for rowid, mask in earlier.items():
                found[rowid] = mask | bit
            several.update(earlier)
        if held is not None:
            held.update(found)
        if len(found) <= most:
            return list(found)  # every row is a candidate: no need to rank them
        # A row's weight is its words' summed in the words' order: the same sum as adding each row's weights one by
        # one (0.0 + w is w), worked out once for each set of words.
        in_order = list(zip(_bits(len(postings)), map(weights.__getitem__, postings), strict=True))
        sums: dict[int, float] = {}
        for rowid in several:
            mask = found[rowid]
            if mask not in sums:
                sums[mask] = sum(weight for bit, weight in in_order if mask & bit)
        # The best `most` are among the rows holding several words and, of each word's other rows, the first
        # `most` in its list: those come best first already (one weight; newest first, by time in a window,
        # else by id). So only those are compared, not every row; (score, [time,] rowid) tuples compare as
        # the key would, without a call per row.
        pool: list[tuple] = []
        for term, rows in postings.items():
            weight = weights[term]
            alone = (rowid for rowid in rows if rowid not in several)
            pool += ((weight, rowid) for rowid in itertools.islice(alone, most))
        pool += ((sums[found[rowid]], rowid) for rowid in several)
        if times is not None:
            pool = [(score, times[rowid], rowid) for score, rowid in pool]
        pool.sort(reverse=True)  # (what heapq.nlargest gives, in C)
        return [entry[-1] for entry in pool[:most]]  # (each entry ends with its row id)

    def rows_by_id(self, table: str, columns: str, make: Callable[..., Row], ids: Iterable[int]) -> list[Row]:
        """Rows of a table by id, in id order: those kept from earlier lookups, the rest read (and kept), each made
        with `make(*columns)` (a NoteRow, a MessageRow)."""
        kept = self.kept.rows(table)
        wanted = sorted(set(ids))
        try:
            return [kept[row_id] for row_id in wanted]  # all kept (often, for the next turn's message)
        except KeyError:
            pass
        found = {row_id: kept[row_id] for row_id in wanted if row_id in kept}  # (before keeping more drops some)
        read: dict[int, Row] = {}
        for chunk in chunks([row_id for row_id in wanted if row_id not in found], 500):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT {columns} FROM {table} WHERE id IN ({marks})"
            read.update((row.id, row) for row in itertools.starmap(make, self.connection.db.execute(query, chunk)))
        if read:
            self.kept.keep_rows(table, read.values())
            found.update(read)
        return [found[row_id] for row_id in wanted if row_id in found]


class HeldWords:
    """A search's words as the bits WordLookup.candidates gives its rows (`held`): bit i for the i-th word of the query
    (each once), which every row found by that word's rows has. A word found in as many rows as its cap may be in other
    rows too: for those, a row's stored terms are tested (`checked`)."""

    def __init__(self, query_terms: list[str], postings: Iterable[dict[str, list[int]]], cap: int) -> None:
        self.query_terms = query_terms
        self.bit_of = dict(zip(dict.fromkeys(query_terms), _bits(len(set(query_terms))), strict=True))
        capped = {term for rows_of in postings for term, rows in rows_of.items() if len(rows) >= cap}
        self.checked = [(bit, f" {term} ") for term, bit in self.bit_of.items() if term in capped]
        self._every = [(bit, f" {term} ") for term, bit in self.bit_of.items()]

    def complete(self, mask: int | None, spaced_terms: str) -> int:
        """A row's words: `mask` (what its words' rows say) and the `checked` words its stored terms hold; with no mask
        (a row found another way), every word its stored terms hold."""
        tests = self.checked
        if mask is None:
            tests, mask = self._every, 0
        for bit, spaced in tests:
            if not mask & bit and spaced in spaced_terms:
                mask |= bit
        return mask

    def matched(self, mask: int) -> list[str]:
        """The words held, in the query's order (a word the query repeats, each time)."""
        bit_of = self.bit_of
        return [term for term in self.query_terms if mask & bit_of[term]]


def _bits(count: int) -> list[int]:
    """1, 2, 4, ...: a bit for each of `count` words."""
    return [1 << place for place in range(count)]


def _note_day_number(day: str) -> int:
    """A note's day (index_schema.note_day), 0 for one that is not a date."""
    return note_day(day) or 0
