"""Searching the recall index's messages (see :mod:`omb_tui.core.index.recall_index`): the messages of a bot's
conversations holding a message's words, best first, in a time window, or next to another; their text is read from
their conversation file when shown (docs/recall.md, "The index").
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from itertools import starmap

from ..base import clock
from ..files.file_stamp import FileStamp
from ..files.paths import Home
from ..memory import conversations as conv
from .kept import KeptLookups
from .ranking import lowest_kept, recency_factor, weight_of, word_weights
from .rows import sql_text
from .schema import MESSAGE_COLUMNS, MESSAGE_PLACE_COLUMNS, IndexConnection, MessageRow
from .search import EXACT_POOL, NEIGHBOUR_SHARE, HeldWords, WordLookup, candidates_scored, chunks, postings_cap

ConversationFilter = Callable[[conv.Conversation], bool]  # which conversations' messages a search may give


@dataclass
class MessageHit:
    """A message found in one of the bot's conversations (its text "" until message_texts reads it)."""

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


class MessageSearch:
    """Finds messages in the index, best first or newest first, and reads their text from their files."""

    def __init__(
        self, home: Home, bot_id: str, connection: IndexConnection, kept: KeptLookups, words: WordLookup
    ) -> None:
        self.home = home
        self.bot_id = bot_id
        self.connection = connection
        self.kept = kept
        self.words = words
        self._folders: tuple[str, str] | None = None  # the bot's chats and the rooms, for conversation_file

    def conversations(self, *, members_only: bool = True) -> dict[str, conv.Conversation]:
        """The conversations the index knows, by key (`chat:<id>`, `room:<id>`)."""
        with self.connection.lock:
            out = {}
            query = "SELECT key, header FROM convs" + (" WHERE member=1" if members_only else "")
            for key, header in self.connection.db.execute(query):
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
        with self.connection.lock:
            self.connection.see_other_writers()  # (as in search_notes)
            total = self.words.counts()["message"]
            chat_left_out = conversation_key(other_than) if other_than is not None else None
            windowed = since_ts is not None or until_ts is not None
            cap, most = postings_cap(pool, windowed=windowed), candidates_scored(pool, windowed=windowed)
            if windowed:
                # a word's newest messages by time in the window (docs/recall.md, "session_search")
                window = self.words.message_window(since_ts, until_ts, chat_left_out)
                postings, frequency = self.words.lookup_in_window(window, query_terms, cap)
            else:
                window, leave_out = None, None
                if chat_left_out is not None:  # usually cheaper than joining every word's rows
                    query = "SELECT id FROM messages WHERE conv = ?"
                    leave_out = {message_id for (message_id,) in self.connection.db.execute(query, (chat_left_out,))}
                postings, frequency = self.words.lookup(
                    "message_fts",
                    "messages",
                    query_terms,
                    cap,
                    "t.conv != ?" if chat_left_out else "",
                    (chat_left_out,) if chat_left_out else (),
                    leave_out,
                )
            weights = word_weights(query_terms, total, frequency)
            held: dict[int, int] = {}  # each candidate's words, as bits in the order of `postings`
            candidate_ids = self.words.candidates(postings, weights, most, window.times if window else None, held)
            rows = self._candidate_rows(candidate_ids)
            conversations = self._conversations_for({row.conv for row in rows})
            words = HeldWords(query_terms, [postings], cap)
            by_mask: dict[int, tuple[float, int]] = {}  # a set of words' weight (weight_of's sum) and count, once
            accepted: dict[str, bool] = {}
            # scored from the rows as they come (a message's time is its ts, to the second as `at` is written);
            # a MessageHit is made for the ones kept. The score is hit_score's, with each day's recency factor
            # worked out once.
            factors: dict[date, float] = {}  # each day's recency factor (hit_score's), worked out once
            scored: list[tuple[float, MessageRow, int, int]] = []  # (own score, row, its words' bits, its place)
            # every candidate's own score by its place (its conversation's number, then its seq), for the turns
            # beside it
            around: dict[int, float] = {}
            places: dict[str, int] = {}  # each conversation's number, shifted past any seq
            for row in rows:
                key, ts = row.conv, row.ts
                if key not in conversations:
                    continue
                if accept is not None:
                    if key not in accepted:
                        accepted[key] = accept(conversations[key])
                    if not accepted[key]:
                        continue
                mask = held[row.id]
                if words.checked:  # a word found in as many rows as its cap: is it in this one's stored terms?
                    mask = words.complete(mask, row.spaced_terms)
                day = row.day
                if day is None:
                    day = row.day = datetime.fromtimestamp(ts).date()
                factor = factors.get(day)
                if factor is None:
                    factor = factors[day] = recency_factor(day, today)
                known = by_mask.get(mask)
                if known is None:
                    own = words.matched(mask)
                    known = by_mask[mask] = (weight_of(own, weights), len(own))
                weight, count = known
                score = weight * factor  # (hit_score's: a message has no name's words)
                base = places.get(key)
                if base is None:
                    base = places[key] = (len(places) + 1) << 40
                place = base + row.seq
                around[place] = score
                if since_ts is not None and ts < since_ts:
                    continue
                if until_ts is not None and ts > until_ts:
                    continue
                if replies_only and (row.author_kind not in ("person", "bot") or row.failed):
                    continue
                if count < need:
                    continue
                scored.append((score, row, mask, place))
            get = around.get
            near_share, far_share = NEIGHBOUR_SHARE, NEIGHBOUR_SHARE / 2
            # What the turns beside a message add to its score: NEIGHBOUR_SHARE of the one next to it on each side,
            # half that of the ones two away (docs/recall.md, "Ranking"). An answer often shares no word with the
            # question it answers, and the question none with the answer: each lifts the other. (Added in one fixed
            # order: the same sum in every process.)
            totals = [
                score
                + (
                    near_share * (get(place - 1, 0.0) + get(place + 1, 0.0))
                    + far_share * (get(place - 2, 0.0) + get(place + 2, 0.0))
                )
                for score, _, _, place in scored
            ]
            # Only the messages scoring at least the `limit`-th best can be among the best `limit` (ties and all).
            lowest = lowest_kept(totals, limit)
            ranked = [  # best first; newer first; then by id (ids differ: the row is never compared)
                (-total, -row.ts, row.id, row, mask)
                for total, (_, row, mask, _) in zip(totals, scored, strict=True)
                if total >= lowest
            ]
            ranked.sort()
            hits = []
            for negative, _, _, row, mask in ranked[:limit] if limit else ranked:
                hit = _message_hit(row, conversations)
                assert hit is not None  # its conversation is known
                hit.matched = words.matched(mask)
                hit.score = -negative
                hits.append(hit)
            return self.message_texts(hits) if texts else hits

    def _candidate_rows(self, ids: Iterable[int]) -> list[MessageRow]:
        """The candidates' rows, without their text."""
        return self.words.rows_by_id("messages", MESSAGE_COLUMNS, MessageRow, ids)

    def _hits(self, rows: list[MessageRow]) -> list[MessageHit]:
        conversations = self._conversations_for({row.conv for row in rows})
        return [hit for hit in (_message_hit(row, conversations) for row in rows) if hit is not None]

    def _conversations_for(self, keys: set[str]) -> dict[str, conv.Conversation]:
        """The conversations (the bot's chats and the rooms it is in) with these keys, parsed once per change."""
        headers = self.kept.headers
        missing = [key for key in keys if key not in headers]
        for chunk in chunks(missing, 500):
            marks = ",".join("?" * len(chunk))
            found = dict(
                self.connection.db.execute(f"SELECT key, header FROM convs WHERE member=1 AND key IN ({marks})", chunk)
            )
            for key in chunk:
                header = found.get(key)
                headers[key] = conv.header_from_json(json.loads(header)) if header else None
        return {key: conversation for key in keys if (conversation := headers.get(key)) is not None}

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
        with self.connection.lock:
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
            rows = self.connection.db.execute(
                f"SELECT {MESSAGE_PLACE_COLUMNS} FROM messages "
                f"WHERE {' AND '.join(where)} ORDER BY ts DESC, id DESC" + (" LIMIT ?" if limit else ""),
                (*params, limit) if limit else tuple(params),
            )
            hits = self._hits(list(starmap(MessageRow, rows)))
            return self.message_texts(hits) if texts else hits

    def neighbour(self, hit: MessageHit, offset: int, *, texts: bool = True) -> MessageHit | None:
        """The message `offset` places before or after a hit in its conversation (its text "" without `texts`)."""
        with self.connection.lock:
            key = conversation_key(hit.conversation)
            row = self.connection.db.execute(
                f"SELECT {MESSAGE_PLACE_COLUMNS} FROM messages WHERE conv=? AND seq=?", (key, hit.seq + offset)
            ).fetchone()
            found = _message_hit(MessageRow(*row), {key: hit.conversation}) if row else None
            if found is None or not texts:
                return found
            return next(iter(self.message_texts([found])), None)

    def message_texts(self, hits: list[MessageHit]) -> list[MessageHit]:
        """The hits with their text, read from their conversation files and redacted as when they were indexed.

        The index keeps where each message's line is and the line's crc32, not the text: a hit whose line
        is no longer there (the file changed since the last refresh) is left out. The texts read are kept for the
        next search while the file's stat says it has not changed since (KeptLookups.texts, FileStamp).
        """
        from ..redaction.redact import redact  # compiled when a message is first shown, not at start-up

        kept = self.kept
        texts: dict[int, str] = {hit.id: hit.text for hit in hits if hit.text}
        by_conversation: dict[str, list[int]] = defaultdict(list)
        for hit in hits:
            if not hit.text:
                by_conversation[conversation_key(hit.conversation)].append(hit.id)
        unread: list[int] = []
        for key, ids in by_conversation.items():
            try:
                held = kept.texts(key, FileStamp.of(os.stat(self.conversation_file(key))))
            except OSError:
                continue  # gone: its hits are left out
            for message_id in ids:
                text = held.get(message_id)
                if text is None:
                    unread.append(message_id)
                else:
                    texts[message_id] = text
        places: dict[str, list[tuple[int, int, int, int, int]]] = defaultdict(list)  # conversation -> lines
        for chunk in chunks(sorted(unread), 500):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT id, conv, pos, size, crc, redacted FROM messages WHERE id IN ({marks})"
            for message_id, key, position, size, crc, redacted in self.connection.db.execute(query, chunk):
                places[key].append((position, size, crc, redacted, message_id))
        for key, lines in places.items():
            with contextlib.suppress(OSError), open(self.conversation_file(key), "rb") as handle:
                stamp = FileStamp.of(os.fstat(handle.fileno()))
                read: dict[int, str] = {}
                for position, size, crc, redacted, message_id in sorted(lines):
                    handle.seek(position)
                    raw = handle.read(size)
                    text = conv.line_text(raw) if zlib.crc32(raw) == crc else None
                    if text is not None:
                        # the same line as when indexed: redaction gives what it gave then (nothing to do if nothing)
                        read[message_id] = sql_text(redact(text).text if redacted else text) or ""
                texts.update(read)
                if stamp.settled(clock.real_time_ns()):
                    kept.keep_texts(key, stamp, read)
        found = []
        for hit in hits:
            if hit.id in texts:
                hit.text = texts[hit.id]
                found.append(hit)
        return found

    def conversation_file(self, key: str) -> str:
        """The file of a conversation the index knows by key (`chat:<id>`, `room:<id>`)."""
        if self._folders is None:  # a Path built per message shown cost more than reading the message
            self._folders = (str(conv.chats_dir(self.home, self.bot_id)), str(conv.rooms_dir(self.home)))
        chats, rooms = self._folders
        if key.startswith("chat:"):
            return f"{chats}{os.sep}{key[len('chat:') :]}.ndjson"
        return f"{rooms}{os.sep}{key[len('room:') :]}.ndjson"


def conversation_key(conversation: conv.Conversation) -> str:
    """The index's key for a conversation: `chat:<id>` or `room:<id>`."""
    return ("room:" if conversation.is_room else "chat:") + conversation.id


def _message_hit(row: MessageRow, conversations: dict[str, conv.Conversation]) -> MessageHit | None:
    """A message's hit, without its text (message_texts reads it); None when its conversation is not given."""
    conversation = conversations.get(row.conv)
    if conversation is None:
        return None
    moment = conv.parse_time(row.at) or datetime.fromtimestamp(0, UTC)
    return MessageHit(row.id, conversation, row.seq, moment, row.author_kind, row.author, bool(row.failed), "")
