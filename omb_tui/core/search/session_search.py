"""`session_search`: the bot looks through its conversations and memory files, by words and/or time.

Spec: memory.md, "What a bot knows about its other conversations" ("Recall by time": `since` of
`24h`, `3d`, `yesterday` or a date, and `until`, with or without words; the rooms the bot is a member
of and its 1:1 tasks; hits name the room or task they came from; a private chat found from a room is
marked, and the room is told), the opening (memory off excludes memory files) and "What loads, and the
budget" (the archive is searched, so a moved line is still found). Daily logs are searched too.
"""

from __future__ import annotations

import contextlib
import math
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from ..base import clock
from ..base.errors import disk_refused, refusal_reason
from ..files.paths import Home, MemoryInputError, quoted, validate_bot_id
from ..index.recall_index import MessageHit, NoteHit, Progress, RecallIndex, conversation_key, open_index
from ..index.words import words
from ..journal.when import parse_day
from ..memory import conversations as conv
from ..memory.settings import load_bot_settings
from ..recall.layer_notes import layer_notes, layer_recent_notes
from ..recall.meaning import ask, meaning_in, with_meaning
from .team_notes import search_team_notes

DEFAULT_LIMIT = 20
SCOPES = ("all", "team")  # "team": only the accepted notes of the bot's teams (docs/team.md)
TEXT_MAX = 500
_DURATION = re.compile(r"^\s*(\d+)\s*(m|min|mins|h|hr|hrs|d|day|days|w|wk|wks|week|weeks)\s*$", re.IGNORECASE)
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_when(value: str | date | datetime | None, *, now: datetime, end: bool) -> datetime | None:
    """A `since` (end=False) or `until` (end=True) bound as an aware datetime.

    `24h`, `90m`, `3d`, `2w`: that long before now. `today`, `yesterday`: the start of that day for
    `since`, its end for `until`. A date (`2026-09-10`): likewise its start or end. An ISO time: itself.
    One the calendar cannot hold (`99999999d`) is a MemoryInputError; one at its very edge is taken as the
    edge less two days, so a window can still be widened by a day without leaving the calendar.
    """
    if value is None or value == "":
        return None
    try:
        moment = _bound(value, now.astimezone(), end)
    except MemoryInputError:
        raise
    except (OverflowError, ValueError):  # before the year 1 or after 9999: what datetime cannot hold
        raise MemoryInputError(
            f"{quoted(value)} is too far from today to be a time: use 24h, 3d, yesterday, a date (2026-09-10) or "
            "an ISO time."
        ) from None
    return min(max(moment, EARLIEST_BOUND), LATEST_BOUND).astimezone()


# The widest window: two days inside the calendar's ends, so `since - a day` and a local time zone stay in it.
EARLIEST_BOUND = datetime.min.replace(tzinfo=UTC) + timedelta(days=2)
LATEST_BOUND = datetime.max.replace(tzinfo=UTC) - timedelta(days=2)


def _bound(value: str | date | datetime, now: datetime, end: bool) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone()
    if isinstance(value, date):
        return _day_bound(value, end)
    text = str(value).strip()
    duration = _DURATION.match(text)
    if duration:
        amount, unit = int(duration.group(1)), duration.group(2).lower()
        return now - timedelta(seconds=amount * _UNITS[unit[0]])
    if text.lower() == "now":
        return now
    try:
        day = parse_day(text, today=now.date())
    except ValueError:
        day = None
    if day is not None:
        return _day_bound(day, end)
    moment = conv.parse_time(text)
    if moment is None:
        raise MemoryInputError(
            f"{quoted(value)} is not a time: use 24h, 3d, yesterday, today, a date (2026-09-10) or an ISO time."
        )
    return moment


def _day_bound(day: date, end: bool) -> datetime:
    if end:
        return datetime.combine(day, time.max).astimezone()
    return datetime.combine(day, time.min).astimezone()


@dataclass
class SearchHit:
    """One thing found, naming where it came from (`where`): a room, a 1:1 chat or task, a memory file, or a
    team's note."""

    source: str  # "conversation" | "memory" | "team"
    where: str
    text: str
    matched: list[str]
    score: float
    at: datetime | None = None  # a message's time
    day: date | None = None  # a note's date
    conversation: str | None = None
    conversation_kind: str | None = None
    author: str | None = None
    author_kind: str | None = None
    failed: bool = False
    private: bool = False  # a private 1:1 chat, found from a room
    file: str | None = None
    line: int | None = None
    team: str | None = None  # a team note's team key, and the note's key
    key: str | None = None

    def to_dict(self) -> dict:
        day = self.at.date() if self.at else self.day
        data = {
            "source": self.source,
            "where": self.where,
            "text": self.text,
            "matched": self.matched,
            "score": round(self.score, 4),
            "at": self.at.isoformat(timespec="seconds") if self.at else None,
            "date": day.isoformat() if day else None,
        }
        if self.source == "conversation":
            data.update(
                conversation=self.conversation,
                conversation_kind=self.conversation_kind,
                author=self.author,
                author_kind=self.author_kind,
                failed=self.failed,
                private=self.private,
            )
        elif self.source == "team":
            data.update(team=self.team, key=self.key)
        else:
            data.update(file=self.file, line=self.line)
        return data


@dataclass
class SearchResult:
    bot: str
    words: list[str]
    since: datetime | None
    until: datetime | None
    memory_searched: bool
    hits: list[SearchHit] = field(default_factory=list)
    # Private 1:1 chats that hits came from when searching from a room: the room is told.
    disclosed_private_chats: list[str] = field(default_factory=list)
    # The disk refused the index's update (full, read-only): the hits are from the index as it was, and this
    # sentence says so. None when the index was up to date.
    index_not_updated: str | None = None
    # With an embeddings instance set: whether meaning took part (True), or why the hits are by words alone.
    by_meaning: bool | None = None
    meaning_skipped: str | None = None

    def to_dict(self) -> dict:
        return {
            "bot": self.bot,
            "words": self.words,
            "since": self.since.isoformat(timespec="seconds") if self.since else None,
            "until": self.until.isoformat(timespec="seconds") if self.until else None,
            "memory_searched": self.memory_searched,
            "hits": [hit.to_dict() for hit in self.hits],
            "disclosed_private_chats": self.disclosed_private_chats,
            # only when it happened: every answer before it kept its exact shape (the recorded recall sample)
            **({"index_not_updated": self.index_not_updated} if self.index_not_updated else {}),
            **({"by_meaning": self.by_meaning} if self.by_meaning is not None else {}),
            **({"meaning_skipped": self.meaning_skipped} if self.meaning_skipped else {}),
        }


def session_search(
    home: Home,
    bot_id: str,
    query: str | None = None,
    *,
    since: str | date | datetime | None = None,
    until: str | date | datetime | None = None,
    chat_id: str | None = None,
    limit: int = DEFAULT_LIMIT,
    now: datetime | None = None,
    index: RecallIndex | None = None,
    scope: str = "all",
    progress: Progress | None = None,
    for_person: str | None = None,
) -> SearchResult:
    """Search the bot's 1:1 chats, the rooms it is a member of and (memory on) its memory files.

    Spec: "What a bot knows about its other conversations", "Recall by time". With words, hits hold
    any of them and come best first (a turn scored with the turns beside it); with only `since`/`until`,
    everything in that window comes newest first. `chat_id` is the conversation searching: from a
    room, hits from private 1:1 chats are marked and listed in `disclosed_private_chats`. Accepted notes of
    the bot's teams are found too (memory on); scope "team" searches only those. `progress(files done, files
    to read)` is told how far a long update of the index (a build from nothing) has gone.
    """
    validate_bot_id(bot_id)
    now = (now or clock.now()).astimezone()
    start = parse_when(since, now=now, end=False)
    end = parse_when(until, now=now, end=True)
    if start and end and start > end:
        raise MemoryInputError("'since' is after 'until': nothing can be in between.")
    query_words = words(query or "")
    if not query_words and start is None and end is None:
        raise MemoryInputError("Give some words to search for (not only common ones), or a time with since/until.")
    memory_on = load_bot_settings(home, bot_id).memory
    searching_from = conv.find_conversation(home, bot_id, chat_id) if chat_id else None
    result = SearchResult(bot_id, [w.surface for w in query_words], start, end, memory_on)
    if scope not in SCOPES:
        raise MemoryInputError(f"'scope' must be one of {', '.join(SCOPES)}.")
    team_hits = _team_hits(home, bot_id, query, start, end, limit) if memory_on else []
    if scope == "team":
        result.hits = team_hits
        return result
    index = index or open_index(home, bot_id)
    refused = _refresh_or_refusal(index, progress)
    today = now.date()
    since_ts = start.timestamp() if start else None
    until_ts = end.timestamp() if end else None
    since_day = start.date() if start else None
    until_day = end.date() if end else None
    messages: list[MessageHit]
    notes: list[NoteHit] = []
    theirs = (lambda conversation: for_person in conversation.people()) if for_person else None
    if refused is not None:
        result.index_not_updated = index_not_updated_sentence(refused)
    elif index.connection.in_memory is not None:  # no index file could be made: one built in memory answered
        result.index_not_updated = index_not_updated_sentence(index.connection.in_memory, kept=False)
    # with words and embeddings on: the query's vector first (a call, outside the index's lock; recall/meaning.py)
    asked = ask(home, bot_id, query or "", "session_search") if query_words and refused is None else None
    if asked is not None:
        result.by_meaning, result.meaning_skipped = asked.vector is not None, asked.why_not
    layer = (  # (from the layer's own index)
        _layer_hits(home, bot_id, for_person, query_words, today, limit, since_day, until_day)
        if for_person and memory_on
        else []
    )
    with _read_or_refused(refused), index.reading():  # one state of the index for both
        if query_words:
            terms = [w.term for w in query_words]
            need = 1  # any word: unlike recall, no two-word rule (docs/recall.md, "session_search")
            messages = index.search_messages(
                terms,
                need=need,
                today=today,
                limit=limit,
                since_ts=since_ts,
                until_ts=until_ts,
                pool=None,
                accept=theirs,
                texts=not result.by_meaning,
            )
            if memory_on:
                notes = index.search_notes(
                    terms,
                    need=need,
                    today=today,
                    topics_only=False,
                    limit=limit,
                    since=since_day,
                    until=until_day,
                    skip_expired=False,
                    pool=None,
                )
            if asked is not None and asked.vector is not None:
                meaning = meaning_in(index, asked.vector, notes=memory_on)
                messages, notes = with_meaning(
                    index,
                    meaning,
                    messages,
                    notes,
                    [*layer, *team_hits],
                    limit,
                    accept=theirs,
                    since_ts=since_ts,
                    until_ts=until_ts,
                    since_day=since_day,
                    until_day=until_day,
                )
                messages = _with_texts(index, messages, notes + layer, team_hits, limit)
        else:
            messages = index.recent_messages(since_ts=since_ts, until_ts=until_ts, limit=None if theirs else limit)
            messages = [hit for hit in messages if theirs is None or theirs(hit.conversation)][:limit]
            if memory_on:
                notes = index.recent_notes(since=since_day, until=until_day, topics_only=False, limit=limit)
    notes += layer
    surface = {w.term: w.surface for w in query_words}
    from_room = searching_from is not None and searching_from.is_room
    labels: dict[str, str] = {}  # each conversation's, worked out once
    hits = [_message_hit(hit, surface, from_room, labels) for hit in messages]
    hits += [_note_hit(hit, surface) for hit in notes] + team_hits
    if query_words:
        hits.sort(key=lambda h: -h.score)
    else:
        hits.sort(key=_newest_first_key, reverse=True)
    result.hits = hits[:limit]
    disclosed: list[str] = []
    for hit in result.hits:
        # a private hit is always a conversation's (_message_hit)
        if hit.private and hit.conversation is not None and hit.conversation not in disclosed:
            disclosed.append(hit.conversation)
    result.disclosed_private_chats = disclosed
    return result


def _with_texts(
    index: RecallIndex, messages: list[MessageHit], notes: list[NoteHit], team: list[SearchHit], limit: int
) -> list[MessageHit]:
    """The messages that can be among the best `limit` of every hit, with their texts (read for those only)."""
    others = sorted([hit.score for hit in notes] + [hit.score for hit in team], reverse=True)
    floor = others[limit - 1] if len(others) >= limit else -math.inf
    messages.sort(key=lambda hit: (-hit.score, -hit.at.timestamp(), hit.id))
    return index.message_texts([hit for hit in messages[:limit] if hit.score >= floor])


def _layer_hits(
    home: Home, bot_id: str, person: str, query_words, today: date, limit: int, since: date | None, until: date | None
) -> list[NoteHit]:
    """The notes of the person's own layer, by words (a Team Cloud turn acting for them: layer_notes.py)."""
    window = {"topics_only": False, "limit": limit, "since": since, "until": until}
    if query_words:
        terms = [w.term for w in query_words]
        return layer_notes(home, bot_id, person, terms, need=1, today=today, skip_expired=False, pool=None, **window)
    return layer_recent_notes(home, bot_id, person, since=since, until=until, limit=limit)


def _refresh_or_refusal(index: RecallIndex, progress: Progress | None) -> OSError | None:
    """Bring the index up to date; the disk's refusal (full, read-only) when it cannot, so the search answers from
    the index as it was."""
    try:
        index.refresh(progress=progress)
    except OSError as exc:
        if not disk_refused(exc):
            raise
        return exc
    return None


@contextlib.contextmanager
def _read_or_refused(refused: OSError | None) -> Iterator[None]:
    """An index that cannot be read either (none was built yet): the disk's refusal, one sentence, is the answer."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        if refused is None:
            raise
        raise refused from exc


def index_not_updated_sentence(refused: OSError, *, kept: bool = True) -> str:
    """What a search answered from an index it could not update says, once; `kept` False: from one built in
    memory, as no index file could be made (docs/reliability.md, "Search")."""
    reason = refusal_reason(refused) or "The disk refused"
    if not kept:
        return f"{reason}: the search index could not be saved, so this search read every file."
    return f"{reason}: the search index could not be brought up to date, so the newest changes may be missing."


def _newest_first_key(hit: SearchHit) -> tuple:
    if hit.at is not None:
        return (hit.at.astimezone().date(), 1, hit.at.timestamp())
    return (hit.day or date.min, 0, 0.0)


def _message_hit(hit: MessageHit, surface: dict[str, str], from_room: bool, labels: dict[str, str]) -> SearchHit:
    conversation = hit.conversation
    private = from_room and not conversation.is_room and conversation.started_by.kind == "person"
    key = conversation_key(conversation)
    label = labels.get(key)
    if label is None:
        label = labels[key] = conversation.label()
    where = label + (" (private chat)" if private else "")
    text = " ".join(hit.text.split())
    return SearchHit(
        source="conversation",
        where=where,
        text=text if len(text) <= TEXT_MAX else text[: TEXT_MAX - 1] + "…",
        matched=[surface.get(t, t) for t in hit.matched],
        score=hit.score,
        at=hit.at,
        conversation=conversation.id,
        conversation_kind=conversation.kind,
        author=hit.author,
        author_kind=hit.author_kind,
        failed=hit.failed,
        private=private,
    )


def _note_hit(hit: NoteHit, surface: dict[str, str]) -> SearchHit:
    text = hit.text.strip()
    return SearchHit(
        source="memory",
        where=f"{hit.file}:{hit.line}" + (" (start of the topic)" if hit.opening else ""),
        text=text if len(text) <= TEXT_MAX else text[: TEXT_MAX - 1] + "…",
        matched=[surface.get(t, t) for t in hit.matched],
        score=hit.score,
        day=hit.day,
        file=hit.file,
        line=hit.line,
    )


def _team_hits(
    home: Home, bot_id: str, query: str | None, start: datetime | None, end: datetime | None, limit: int
) -> list[SearchHit]:
    found = search_team_notes(home, bot_id, query, since=start, until=end, limit=limit)
    return [
        SearchHit(
            source="team",
            where=f'team "{hit.team.name}" · note {hit.note.key}',
            text=f"{hit.note.title}: {' '.join(hit.note.text.split())}"[:TEXT_MAX],
            matched=hit.matched,
            score=hit.score,
            at=hit.at,
            team=hit.team.key,
            key=hit.note.key,
        )
        for hit in found
    ]
