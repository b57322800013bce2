"""session_search: words and/or time over the bot's chats, its rooms and (memory on) its memory files."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from omb_tui.core.files.paths import Home, MemoryInputError
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.search.session_search import parse_when, session_search

pytestmark = pytest.mark.dates

ACTOR = Actor(WHO_PERSON, HOW_SETTINGS)
NOW = datetime(2026, 9, 20, 15, 0).astimezone()


@pytest.fixture
def home(tmp_path) -> Home:
    return Home(tmp_path)


def write(home: Home, rel: str, text: str) -> None:
    MemoryStore(home, "scout").write(rel, text, ACTOR, allow_log=True)


def conversation(
    home: Home,
    chat_id: str,
    messages: list[tuple[str, str, datetime]],
    *,
    room: bool = False,
    bot_member: bool = True,
    starter: str = "person",
) -> conv.Conversation:
    members = [conv.Member("person", "Milind")] + ([conv.Member("bot", "scout")] if bot_member else [])
    c = conv.Conversation(
        id=chat_id,
        title=chat_id.title(),
        kind=conv.KIND_ROOM if room else conv.KIND_CHAT,
        started_by=conv.Starter(starter, "Milind"),
        members=members,
        created=NOW - timedelta(days=30),
    )
    for author_kind, text, at in messages:
        c.messages.append(conv.Message(author_kind, "Milind" if author_kind == "person" else "scout", at, text))
    folder = conv.rooms_dir(home) if room else conv.chats_dir(home, "scout")
    conv.write_conversation(folder / f"{chat_id}.ndjson", c)
    return c


def hours_ago(hours: float) -> datetime:
    return NOW - timedelta(hours=hours)


def search(home: Home, query: str | None = None, **kwargs):
    return session_search(home, "scout", query, now=NOW, **kwargs)


@pytest.fixture
def filled(home):
    write(
        home,
        "memory/clients.md",
        "- 2026-09-19 · Acme pays invoices late\n- ~~Acme is in Pune~~ · superseded 2026-09-01\n",
    )
    write(home, "memory/archive.md", "- 2026-01-03 · Acme moved offices · moved 2026-09-01\n")
    write(home, "memory/log/2026-09-18.md", '- 10:00 · from chat "Invoices" · said: "Sent the Acme reminders"\n')
    write(home, "MEMORY.md", "- 2026-09-10 · Acme is the biggest client\n")
    conversation(
        home,
        "invoices",
        [("person", "chase Acme about the invoices", hours_ago(30)), ("bot", "Sent Acme a reminder", hours_ago(29))],
    )
    conversation(home, "launch", [("person", "Acme joins the launch call", hours_ago(2))], room=True)
    conversation(
        home, "others-room", [("person", "Acme secret from another room", hours_ago(1))], room=True, bot_member=False
    )
    return home


def test_words_find_chats_rooms_and_every_memory_file(filled):
    result = search(filled, "Acme")
    where = sorted(hit.where for hit in result.hits)
    assert where == sorted(
        [
            '1:1 with Milind · "Invoices"',
            '1:1 with Milind · "Invoices"',
            'room "Launch"',
            "memory/clients.md:1",
            "memory/archive.md:1",
            "memory/log/2026-09-18.md:1",
            "MEMORY.md:1",
        ]
    )
    assert all(hit.matched == ["acme"] for hit in result.hits)
    assert "Pune" not in json.dumps(result.to_dict())  # superseded entries are not searched
    assert "another room" not in json.dumps(result.to_dict())  # nor rooms the bot is not in


def test_memory_off_leaves_memory_files_out(filled):
    save_bot_settings(filled, BotSettings(id="scout", name="Scout", memory=False))
    result = search(filled, "Acme")
    assert not result.memory_searched
    assert {hit.source for hit in result.hits} == {"conversation"}


def test_since_alone_lists_everything_newest_first(filled):
    result = search(filled, since="24h")
    assert [hit.text for hit in result.hits] == ["Acme joins the launch call", "- 2026-09-19 · Acme pays invoices late"]
    result = search(filled, since="3d")
    texts = [hit.text for hit in result.hits]
    # within a day, messages (which have a time) come before notes (which have only a date)
    assert texts[:4] == [
        "Acme joins the launch call",
        "Sent Acme a reminder",
        "chase Acme about the invoices",
        "- 2026-09-19 · Acme pays invoices late",
    ]
    assert "MEMORY.md:1" not in [h.where for h in result.hits]
    assert any(hit.where.startswith("memory/log/2026-09-18.md") for hit in result.hits)


def test_words_and_time_together(filled):
    result = search(filled, "Acme", since="yesterday", until="yesterday")
    assert sorted(hit.text for hit in result.hits) == [
        "- 2026-09-19 · Acme pays invoices late",
        "Sent Acme a reminder",
        "chase Acme about the invoices",
    ]
    result = search(filled, "Acme", until="2026-09-10")
    assert sorted(hit.where for hit in result.hits) == ["MEMORY.md:1", "memory/archive.md:1"]


def test_hits_from_a_private_chat_are_marked_when_searching_from_a_room(filled):
    from_room = search(filled, "Acme", chat_id="launch")
    private = [hit for hit in from_room.hits if hit.private]
    assert {hit.conversation for hit in private} == {"invoices"}
    assert all("(private chat)" in hit.where for hit in private)
    assert from_room.disclosed_private_chats == ["invoices"]
    from_chat = search(filled, "Acme", chat_id="invoices")
    assert not any(hit.private for hit in from_chat.hits) and from_chat.disclosed_private_chats == []


def test_any_word_counts_however_long_the_query_and_more_words_rank_first(filled):
    # unlike recall, no two-word rule: a long question still finds what holds one of its words
    result = search(filled, "Acme reminder dinner budget receipt")
    assert len(result.hits) == 7  # every hit of "Acme" alone
    best = [hit for hit in result.hits if len(hit.matched) == 2]
    assert sorted(hit.where for hit in best) == ['1:1 with Milind · "Invoices"', "memory/log/2026-09-18.md:1"]
    assert result.hits[: len(best)] == best
    assert all(hit.matched[0] == "Acme".lower() for hit in result.hits)


def test_limit_and_json(filled):
    result = search(filled, "Acme", limit=2)
    assert len(result.hits) == 2
    data = json.loads(json.dumps(result.to_dict()))
    assert set(data) >= {"hits", "words", "since", "until", "memory_searched", "disclosed_private_chats"}
    assert all("where" in hit and "text" in hit and "date" in hit for hit in data["hits"])


def test_other_languages(home):
    conversation(home, "moscow", [("person", "Встреча в Москве в пятницу", hours_ago(5))])
    write(home, "memory/ja.md", "- 明日の会議は東京で\n")
    assert [h.conversation for h in search(home, "встреча").hits] == ["moscow"]
    assert [h.file for h in search(home, "東京の会議").hits] == ["memory/ja.md"]


def test_nothing_to_search_for_is_refused(home):
    with pytest.raises(MemoryInputError):
        search(home)
    with pytest.raises(MemoryInputError):
        search(home, "the and of")
    with pytest.raises(MemoryInputError):
        search(home, "x", since="soon")
    with pytest.raises(MemoryInputError):
        search(home, "acme", since="2026-09-20", until="2026-09-01")


def test_parse_when():
    assert parse_when("24h", now=NOW, end=False) == NOW - timedelta(hours=24)
    assert parse_when("3d", now=NOW, end=False) == NOW - timedelta(days=3)
    assert parse_when("90m", now=NOW, end=False) == NOW - timedelta(minutes=90)
    assert parse_when("2w", now=NOW, end=False) == NOW - timedelta(weeks=2)
    yesterday_start = parse_when("yesterday", now=NOW, end=False)
    yesterday_end = parse_when("yesterday", now=NOW, end=True)
    assert yesterday_start.date() == yesterday_end.date() == date(2026, 9, 19)
    assert (yesterday_start.hour, yesterday_end.hour) == (0, 23)
    assert parse_when("2026-09-10", now=NOW, end=False).date() == date(2026, 9, 10)
    assert parse_when("2026-09-10", now=NOW, end=True).hour == 23
    assert parse_when("2026-09-10T08:30:00+00:00", now=NOW, end=False) == datetime(2026, 9, 10, 8, 30, tzinfo=UTC)
    assert parse_when(None, now=NOW, end=False) is None
    with pytest.raises(MemoryInputError):
        parse_when("last tuesday", now=NOW, end=False)


def test_within_a_window_a_word_is_looked_up_in_its_newest_messages_and_notes_by_time(home, monkeypatch):
    # A word is looked up in at most a capped number of messages (and notes): within a time window these
    # are the newest by time, whatever order the index read them in. Here the recent ones are read first.
    from omb_tui.core.index import search as index_search

    monkeypatch.setattr(index_search, "POSTINGS_CAP_WINDOW", 3, raising=False)
    monkeypatch.setattr(index_search, "POSTINGS_CAP_SEARCH", 3)
    conversation(home, "recent", [("person", f"the zeppelin hangar, note {n}", hours_ago(24 + n)) for n in range(3)])
    write(home, "memory/recent.md", "".join(f"- 2026-09-1{n} · the zeppelin hangar, entry {n}\n" for n in range(3)))
    assert search(home, "zeppelin", since="90d").hits  # both read into the index now
    conversation(
        home, "older", [("person", f"the zeppelin museum, visit {n}", hours_ago(24 * 40 + n)) for n in range(3)]
    )
    write(home, "memory/older.md", "".join(f"- 2026-08-0{n + 1} · the zeppelin museum, entry {n}\n" for n in range(3)))

    found = search(home, "zeppelin", since="90d", limit=6)
    assert sorted(hit.text for hit in found.hits) == sorted(
        [f"the zeppelin hangar, note {n}" for n in range(3)]
        + [f"- 2026-09-1{n} · the zeppelin hangar, entry {n}" for n in range(3)]
    )


def test_an_index_kept_between_searches_in_a_window_scores_as_a_fresh_one_after_a_write(home, monkeypatch):
    # A window's counts (the N and n of a word's weight within it) are kept for the next search in the same window:
    # a write must drop them, or a process that keeps its index open would score by counts no longer true.
    from omb_tui.core.index import search as index_search
    from omb_tui.core.index.recall_index import RecallIndex

    monkeypatch.setattr(index_search, "POSTINGS_CAP_WINDOW", 3, raising=False)
    conversation(home, "hangar", [("person", f"the zeppelin hangar, note {n}", hours_ago(24 + n)) for n in range(5)])
    conversation(home, "field", [("person", f"the airfield opens, day {n}", hours_ago(48 + n)) for n in range(4)])
    write(home, "memory/hangar.md", "".join(f"- 2026-09-1{n} · the zeppelin hangar, entry {n}\n" for n in range(5)))
    kept = RecallIndex(home, "scout")

    def scores(index: RecallIndex) -> list[tuple[str, float]]:
        found = search(home, "zeppelin hangar airfield", since="90d", limit=50, index=index)
        return [(hit.text, hit.score) for hit in found.hits]

    def fresh() -> list[tuple[str, float]]:
        index = RecallIndex(home, "scout")
        try:
            return scores(index)
        finally:
            index.close()

    before = scores(kept)
    assert before == fresh()
    # more of the same words inside the window's first and last times and days (the window itself is the same)
    conversation(home, "more", [("person", f"the airfield again, talk {n}", hours_ago(30 + n)) for n in range(6)])
    write(home, "memory/field.md", "".join(f"- 2026-09-1{n % 4} · the airfield log {n}\n" for n in range(6)))
    after = scores(kept)
    assert after == fresh()  # as a fresh index scores them
    assert after != before
    kept.close()


def test_a_turn_is_ranked_with_the_turns_beside_it(home):
    # both replies hold "budget" alone; the one after a message holding the other words ranks first, though older
    conversation(
        home, "trip", [("person", "Planning the Lisbon trip", hours_ago(90)), ("bot", "What budget?", hours_ago(89))]
    )
    conversation(home, "office", [("person", "The budget meeting moved", hours_ago(3)), ("bot", "Noted", hours_ago(2))])
    result = search(home, "Lisbon trip budget")
    assert [hit.text for hit in result.hits] == ["Planning the Lisbon trip", "What budget?", "The budget meeting moved"]


def test_words_match_their_inflections_and_who_wrote_them(home):
    conversation(
        home, "walks", [("person", "We hiked the ridge", hours_ago(5)), ("bot", "Two hikes this week", hours_ago(4))]
    )
    assert [hit.text for hit in search(home, "hiking").hits] == ["Two hikes this week", "We hiked the ridge"]
    # a message is found by its author's name too: Milind wrote the first
    assert [hit.text for hit in search(home, "Milind ridge").hits][0] == "We hiked the ridge"
