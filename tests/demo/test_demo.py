"""`omb-tui demo`: the sample home keeps every promise docs/app.md makes to the person trying the app."""

from __future__ import annotations

import re
import shutil
import stat
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home, MemoryInputError
from omb_tui.core.journal.changes import NotUndoable
from omb_tui.core.journal.journal import (
    HOW_OUTSIDE,
    HOW_UNDO,
    REASON_CREDENTIAL,
    WHO_BOT,
    WHO_IMPORT,
    WHO_PERSON,
    WHO_UPKEEP,
)
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.budget import read_topic_info
from omb_tui.core.memory.entries import parse_entries
from omb_tui.core.memory.settings import load_bot_settings, load_config, load_profile_learned
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.recall.turn_log import turn_log_heading, turn_log_line
from omb_tui.core.turn.bot import Bot
from omb_tui.demo.conversations import write_sample_conversations
from omb_tui.demo.home import DEMO_BOT_IDS, write_demo_home

pytestmark = pytest.mark.dates

TODAY = date(2026, 9, 28)  # a Monday; the demo's dates are all relative to it


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Home:
    """One demo home for the tests that only read it."""
    home = Home(tmp_path_factory.mktemp("demo") / "home")
    assert write_demo_home(home, TODAY) == list(DEMO_BOT_IDS)
    return home


@pytest.fixture
def demo_copy(demo, tmp_path) -> Home:
    """A private copy for a test that changes things (copy2 keeps mtimes, so nothing looks changed outside)."""
    shutil.copytree(demo.root, tmp_path / "home", copy_function=shutil.copy2)
    return Home(tmp_path / "home")


def tree(root: Path) -> dict[str, tuple[int, bytes | None]]:
    return {
        str(p.relative_to(root)): (stat.S_IMODE(p.stat().st_mode), p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def test_several_bots_each_showing_something(demo):
    assert len(demo.bot_ids()) >= 4
    assert set(DEMO_BOT_IDS) <= set(demo.bot_ids())
    names = {bot_id: load_bot_settings(demo, bot_id).name for bot_id in DEMO_BOT_IDS}
    assert names == {"scout": "Scout", "ledger": "Ledger", "harbor": "Harbor", "quill": "Quill", "atlas": "Atlas"}


def test_ledger_is_close_to_its_budget(demo):
    gauge = Bot(demo, "ledger").gauge()
    assert gauge.level in ("amber", "red")
    assert gauge.lines >= 0.9 * gauge.max_lines  # visibly close, not just over the amber line
    archive = MemoryStore(demo, "ledger").read("memory/archive.md")
    moved = [e for e in parse_entries(archive.text) if e.is_bullet]
    assert moved and all(e.moved is not None for e in moved)  # real overflow already moved the oldest


def test_harbor_is_red_with_lines_not_loaded(demo):
    bot = Bot(demo, "harbor")
    gauge = bot.gauge()
    assert gauge.level == "red" and gauge.lines_not_loaded > 0
    assert f"{gauge.lines_not_loaded} more lines did not load" in bot.prompt(TODAY)


def test_quill_has_memory_off_and_loads_nothing(demo):
    settings = load_bot_settings(demo, "quill")
    assert settings.memory is False
    assert Bot(demo, "quill").prompt() == ""
    assert (demo.workspace("quill") / "MEMORY.md").read_text(encoding="utf-8").strip()  # files kept for review
    assert demo.topic_paths("quill")


def test_atlas_is_off_the_helper_with_upkeep_off(demo):
    settings = load_bot_settings(demo, "atlas")
    assert (settings.engine, settings.helper_model, settings.upkeep, settings.memory) == ("pi", False, False, True)


def test_the_demo_config_names_no_instance_that_does_not_exist(demo):
    config = load_config(demo, environ={})
    named = [config.helper.instance_id] if config.helper else []
    named += [load_bot_settings(demo, bot_id).instance for bot_id in DEMO_BOT_IDS]
    assert [name for name in named if name and name not in config.instances] == []
    # the decision (docs/models.md, "Connect a model"): no model and no helper, so each model action says so
    assert config.instances == {} and config.helper is None


def test_config_about_me_and_profile(demo):
    config = load_config(demo, environ={})
    assert config.helper is None and config.instances == {}  # no model: every model action says how to connect one
    assert (config.auto_recall, config.room_memory_capture) == (True, False)
    assert (config.capture_quiet_ms, config.tidy_hour) == (120_000, 3)
    about = MemoryStore(demo, "scout").read("about-me.md").text
    entries = [e for e in parse_entries(about) if e.is_bullet]
    assert any(e.kind == "undated" for e in entries)  # written by hand
    assert any(e.source == "learned by Scout" for e in entries)
    profile = load_profile_learned(demo)
    assert {item["bot"] for item in profile.learned} >= {"scout"}
    assert profile.forgotten  # Scout was asked to forget something


def test_scout_has_topics_archive_and_logs(demo):
    topics = {p.name for p in demo.topic_paths("scout")}
    assert len(topics) >= 6 and {"travel.md", "clients.md", "books.md"} <= topics
    archive = MemoryStore(demo, "scout").read("memory/archive.md")
    moved = [e for e in parse_entries(archive.text) if e.is_bullet]
    assert len(moved) >= 3 and all(e.moved is not None for e in moved)
    logs = demo.log_paths("scout")
    assert len(logs) >= 10
    assert logs[-1].name == f"{TODAY.isoformat()}.md"  # the demo always looks current


def test_scout_memory_follows_the_conventions(demo):
    entries = parse_entries(Bot(demo, "scout").memory_text())
    bullets = [e for e in entries if e.is_bullet]
    assert 30 <= len(bullets) <= 40
    assert any(e.kind == "heading" for e in entries)
    assert any(e.kind == "undated" for e in bullets)
    assert any(e.noticed for e in bullets)
    assert any(e.struck for e in bullets)
    assert any(e.until and e.expired(TODAY) for e in bullets)
    assert any(e.until and not e.expired(TODAY) for e in bullets)
    assert len({e.source for e in bullets if e.source}) >= 5  # from several chats
    assert any("see memory/travel.md" in e.fact for e in bullets)
    assert max(e.day for e in bullets if e.day) == TODAY


def test_topic_headers_and_the_broken_one(demo):
    for path in demo.topic_paths("scout"):
        info = read_topic_info(path.name, path.read_text(encoding="utf-8"))
        assert info.frontmatter_ok is (path.name != "books.md"), path.name
    assert any("[[" in p.read_text(encoding="utf-8") for p in demo.topic_paths("scout"))
    prompt = Bot(demo, "scout").prompt(TODAY)
    assert "- memory/books.md\n" in prompt  # listed by name only
    assert "- memory/travel.md — Travel: " in prompt


def test_scout_prompt_leaves_out_the_expired_entry(demo):
    bot = Bot(demo, "scout")
    expired = [e for e in parse_entries(bot.memory_text()) if e.until and e.expired(TODAY)]
    assert expired
    prompt = bot.prompt(TODAY)
    for entry in expired:
        assert entry.fact not in prompt
    assert "see memory/travel.md" in prompt  # a live entry with a future until date still loads


def test_scout_has_a_long_varied_journal(demo):
    rows = MemoryStore(demo, "scout").journal.rows()
    assert len(rows) >= 200
    assert {WHO_BOT, WHO_PERSON, WHO_UPKEEP, WHO_IMPORT} <= {r.who for r in rows}
    assert any(r.how == HOW_UNDO and r.undo_of for r in rows)
    assert any(r.how == HOW_OUTSIDE for r in rows)
    assert any(r.step == "filed into topics" for r in rows)
    assert any(r.after_hash is None for r in rows)  # a deleted log
    assert len({r.chat for r in rows if r.chat}) >= 10
    not_undoable = [r for r in rows if not r.undoable]
    assert not_undoable and all(r.not_undoable_reason == REASON_CREDENTIAL for r in not_undoable)


def test_no_credential_reached_the_files(demo):
    for path in demo.workspace("scout").rglob("*.md"):
        assert "Tulpen-Haven" not in path.read_text(encoding="utf-8")


def test_an_undoable_row_really_undoes(demo_copy):
    store = MemoryStore(demo_copy, "scout")
    row = next(
        r
        for r in store.journal.rows()
        if r.file == "MEMORY.md" and r.undoable and r.before_text and not store.journal.later_rows_for_file(r)
    )
    assert store.read(row.file).text != row.before_text
    result = store.undo(row.id)
    assert store.read(row.file).text == row.before_text
    assert store.journal.rows(limit=1)[0].undo_of == row.id == result.row.id


def test_the_credential_row_cannot_be_undone(demo_copy):
    store = MemoryStore(demo_copy, "scout")
    row = next(r for r in store.journal.rows() if not r.undoable)
    before = store.read(row.file).text
    with pytest.raises(NotUndoable, match="credential"):
        store.undo(row.id, force=True)
    assert store.read(row.file).text == before


def test_nothing_looks_changed_outside_the_app_afterwards(demo_copy):
    for bot_id in DEMO_BOT_IDS:
        assert MemoryStore(demo_copy, bot_id).sync_outside_changes() == [], bot_id


def test_files_are_private(demo):
    for root in (demo.workspaces_dir, demo.journal_dir, demo.bots_dir):
        for path in [root, *root.rglob("*")]:
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode == (0o700 if path.is_dir() else 0o600), f"{path}: {oct(mode)}"
    for path in (demo.config_path, demo.about_me_path, demo.profile_learned_path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_second_run_refuses_and_changes_nothing(demo):
    before = tree(demo.root)
    with pytest.raises(MemoryInputError, match="already holds a bot named scout; choose an empty folder"):
        write_demo_home(demo, TODAY)
    assert tree(demo.root) == before


def test_refuses_a_home_with_its_own_config(tmp_path):
    home = Home(tmp_path / "home")
    home.root.mkdir()
    home.config_path.write_text('{"features": {"autoRecall": false}}\n', encoding="utf-8")
    with pytest.raises(MemoryInputError, match="already has its own config.json"):
        write_demo_home(home, TODAY)
    assert [p.name for p in home.root.iterdir()] == ["config.json"]


def test_the_command_writes_a_current_demo(tmp_path, capsys):
    from omb_tui.cli import main

    root = tmp_path / "fresh"
    assert main(["demo", "--home", str(root)]) == 0
    assert f"Wrote a demo home with {len(DEMO_BOT_IDS)} bots" in capsys.readouterr().out
    home = Home(root)
    newest = max(e.day for e in parse_entries(Bot(home, "scout").memory_text()) if e.day)
    assert newest == clock.today()
    assert main(["demo", "--home", str(root)]) == 2
    assert "already holds a bot named scout" in capsys.readouterr().err


# One turn-log line, as turn_log_line writes it: time, where, whether it failed, tools, what the bot said.
TURN_LINE = re.compile(
    r'- (?P<h>\d\d):(?P<m>\d\d) · from (?P<kind>chat|room) "(?P<title>[^"]+)"'
    r"(?P<failed> · the turn failed)? · (?:no tools|tools: (?P<tools>.+?)) · "
    r'(?:said nothing|said: "(?P<said>.*)")'
)


def test_every_demo_log_reads_as_the_turn_log_writes_it(demo):
    """Heading and lines of every demo log are what turn_log would write for the same turns, byte for byte."""
    seen = {"room": 0, "failed": 0, "lines": 0}
    for bot_id in DEMO_BOT_IDS:
        for path in demo.log_paths(bot_id):
            day = date.fromisoformat(path.stem)
            text = path.read_text(encoding="utf-8")
            assert text.startswith(turn_log_heading(day)), path
            for line in text[len(turn_log_heading(day)) :].splitlines():
                match = TURN_LINE.fullmatch(line)
                assert match, f"{path.name}: {line}"
                tools = match["tools"].split(", ") if match["tools"] else []
                at = datetime.combine(day, time(int(match["h"]), int(match["m"])))
                source = f'{match["kind"]} "{match["title"]}"'
                assert line == turn_log_line(source, match["said"] or "", tools, bool(match["failed"]), at)
                seen["room"] += match["kind"] == "room"
                seen["failed"] += bool(match["failed"])
                seen["lines"] += 1
    assert seen["lines"] >= 80 and seen["room"] and seen["failed"]


def test_a_demo_log_is_exactly_what_the_turn_log_writes(demo):
    yesterday = TODAY - timedelta(days=1)
    at = datetime.combine(yesterday, time(10, 12))
    expected = (
        turn_log_heading(yesterday)
        + turn_log_line(
            'chat "Invoice reconciliation"',
            "Matched 14 bank lines; one Delft invoice still open, not yet due.",
            ["moneybird.list", "bank.list"],
            at=at,
        )
        + "\n"
        + turn_log_line(
            'chat "Receipts inbox"',
            "Filed five receipts; the Coolblue dock receipt matched at last.",
            ["email.search", "moneybird.attach"],
            at=at.replace(hour=16, minute=30),
        )
        + "\n"
    )
    assert MemoryStore(demo, "ledger").read(f"memory/log/{yesterday.isoformat()}.md").text == expected
    rows = [r for r in MemoryStore(demo, "ledger").journal.rows() if r.file == f"memory/log/{yesterday.isoformat()}.md"]
    assert [(r.who, r.chat) for r in rows] == [(WHO_BOT, "Receipts inbox"), (WHO_BOT, "Invoice reconciliation")]


# ----- the journal's times: each step at its simulated moment -----
AMSTERDAM = "CET-1CEST,M3.5.0,M10.5.0/3"  # a POSIX TZ string: no tz database needed


class _LocalZone:
    """Run a block with the process's local time zone set to `tz` (rows are UTC; days and clocks are local)."""

    def __init__(self, tz: str) -> None:
        self.tz = tz

    def __enter__(self) -> None:
        import os
        import time

        self.old = os.environ.get("TZ")
        os.environ["TZ"] = self.tz
        time.tzset()

    def __exit__(self, *exc: object) -> None:
        import os
        import time

        if self.old is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = self.old
        time.tzset()


def _local(at: str) -> datetime:
    return datetime.fromisoformat(at).astimezone()


def _file_rows(home: Home, bot_id: str) -> list[dict]:
    """The journal's rows in file order (oldest first), as written."""
    import json

    return [json.loads(line) for line in home.journal_path(bot_id).read_text(encoding="utf-8").splitlines()]


def _log_rows(home: Home, bot_id: str) -> list[tuple[dict, date, str]]:
    """Rows that added a line to a daily log: (row, the log's day, the line's "HH:MM")."""
    out = []
    for row in _file_rows(home, bot_id):
        if row["file"].startswith("memory/log/") and row["after_hash"] is not None:
            added = [line for line in row["diff"].splitlines() if line.startswith("+- ")]
            assert len(added) == 1, row["diff"]
            out.append((row, date.fromisoformat(row["file"][len("memory/log/") : -3]), added[0][3:8]))
    return out


@pytest.fixture(scope="module")
def demo_now(tmp_path_factory, todays_demo) -> tuple[Home, datetime]:
    """A demo written for the real today (so today's steps meet the real clock), and when it finished: a copy of
    the one written this hour (conftest.todays_demo)."""
    written = todays_demo()
    return written.copy_to(tmp_path_factory.mktemp("demo-now") / "home"), written.finished


@pytest.fixture(scope="module")
def demo_at_nine(tmp_path_factory) -> tuple[Home, datetime]:
    """The demo of TODAY written at 09:00 Amsterdam time that day: later steps of the day are still ahead."""
    with _LocalZone(AMSTERDAM):
        now = datetime.combine(TODAY, time(9, 0)).astimezone()
        home = Home(tmp_path_factory.mktemp("demo-nine") / "home")
        write_demo_home(home, TODAY, now=now)
    return home, now


def test_the_journal_of_a_bot_spans_many_days(demo):
    days = {bot_id: {_local(r["at"]).date() for r in _file_rows(demo, bot_id)} for bot_id in DEMO_BOT_IDS}
    assert len(days["scout"]) >= 60 and len(days["ledger"]) >= 10
    assert min(days["scout"]) == TODAY - timedelta(days=95) and max(days["scout"]) == TODAY
    assert all(len(bot_days) >= 2 for bot_days in days.values())
    # The bots screen's "Last change" tells the bots apart: each bot's newest row is its own last step.
    last = {bot_id: Bot(demo, bot_id).summary().last_change for bot_id in DEMO_BOT_IDS}
    assert len(set(last.values())) == len(DEMO_BOT_IDS)
    assert _local(last["quill"]).date() == TODAY - timedelta(days=38)


@pytest.mark.parametrize("which", ["demo", "demo_now", "demo_at_nine"])
def test_journal_times_never_go_back_nor_past_the_demos_end(which, request):
    home, finished = (request.getfixturevalue("demo"), None) if which == "demo" else request.getfixturevalue(which)
    from datetime import timezone

    finished = finished or clock.now_utc()
    for bot_id in DEMO_BOT_IDS:
        times = [datetime.fromisoformat(r["at"]) for r in _file_rows(home, bot_id)]
        assert times, bot_id
        assert all(t.utcoffset() == timedelta(0) for t in times)  # written in UTC like every row
        assert all(a <= b for a, b in zip(times, times[1:])), bot_id
        assert max(times) <= finished, bot_id


def test_each_step_has_its_own_moment(demo):
    """Rows of one step share a moment; two steps never do, so "what changed when" reads in order."""
    rows = _file_rows(demo, "scout")
    moments = [r["at"] for r in rows]
    assert len(set(moments)) >= 0.9 * len(moments)
    for bot_id in DEMO_BOT_IDS:  # the nightly tidy-up at the tidy hour
        for row in _file_rows(demo, bot_id):
            if row["step"] == "tidy-up: moved expired notes":
                assert _local(row["at"]).time() == time(3, 0)


def test_a_log_steps_row_is_at_the_logs_day_and_clock(demo):
    count = 0
    for bot_id in DEMO_BOT_IDS:
        for row, day, hour_minute in _log_rows(demo, bot_id):
            assert _local(row["at"]).date() == day, row
            assert f"{_local(row['at']):%H:%M}" == hour_minute, row
            count += 1
    assert count >= 80


def test_times_are_local_days_written_in_utc(demo_at_nine):
    """In Amsterdam (UTC+2 in summer) a log line of 10:12 is a row at 08:12 UTC, on the log's own day."""
    home, now = demo_at_nine
    yesterday = TODAY - timedelta(days=1)
    rows = {clock: row for row, day, clock in _log_rows(home, "ledger") if day == yesterday}
    assert rows["10:12"]["at"] == f"{yesterday.isoformat()}T08:12:00.000+00:00"
    with _LocalZone(AMSTERDAM):
        for bot_id in DEMO_BOT_IDS:
            for row, day, clock in _log_rows(home, bot_id):
                moment = _local(row["at"])
                assert moment.date() == day, row
                assert f"{moment:%H:%M}" == clock, row  # today's too: a line moved before now says so


def test_steps_still_ahead_of_the_clock_are_moved_before_it_and_their_log_lines_say_when(demo, demo_at_nine):
    home, now = demo_at_nine
    with _LocalZone(AMSTERDAM):
        today_rows = [r for r in _file_rows(home, "scout") if _local(r["at"]).date() == TODAY]
        logged = [(clock, r["at"]) for r, day, clock in _log_rows(home, "scout") if day == TODAY]
        (brief, brief_at), (standup, standup_at) = logged
        assert (brief, f"{_local(brief_at):%H:%M:%S}") == ("08:45", "08:45:00")  # already past at 09:00: kept
        # the 09:30 standup was still ahead: moved between the brief and now, its line saying when its row is
        assert _local(brief_at) < _local(standup_at) < now and standup == f"{_local(standup_at):%H:%M}"
        assert len(today_rows) == 3 and max(datetime.fromisoformat(r["at"]) for r in today_rows) < now
        ((ledger_today, ledger_clock),) = [(r, clock) for r, day, clock in _log_rows(home, "ledger") if day == TODAY]
        ledger_at = _local(ledger_today["at"])
        assert now - timedelta(hours=1) <= ledger_at < now and ledger_clock == f"{ledger_at:%H:%M}"
    # Deterministic for a given today: every day before it is told at the same moments in any time zone's
    # local time (the same wall clock, so other UTC times: compare local wall clocks).
    plain = [(r["file"], _local(r["at"]).replace(tzinfo=None)) for r in _file_rows(demo, "scout")]
    with _LocalZone(AMSTERDAM):
        nine = [(r["file"], _local(r["at"]).replace(tzinfo=None)) for r in _file_rows(home, "scout")]
    assert [p for p in plain if p[1].date() < TODAY] == [p for p in nine if p[1].date() < TODAY]


def test_the_journal_command_shows_past_days(demo, capsys):
    import json

    from omb_tui.cli import main

    assert main(["--home", str(demo.root), "journal", "scout", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    days = {_local(row["at"]).date() for row in rows}
    assert len(days) >= 60 and TODAY - timedelta(days=30) in days
    assert [row["at"] for row in rows] == sorted((row["at"] for row in rows), reverse=True)  # newest first


def test_the_apps_day_filter_finds_a_past_day_of_the_demo(demo):
    import json

    from omb_tui.core.journal.filter import JournalFilter

    data = demo.journal_path("scout").read_bytes()
    lines, start = [], 0
    for end in [i for i, byte in enumerate(data) if byte == 0x0A]:
        lines.append((start, end))
        start = end + 1
    for ago in (1, 13, 30, 60):
        day = TODAY - timedelta(days=ago)
        wanted = JournalFilter.parse(f"day:{day.isoformat()}")
        found = [data[a:b] for a, b in lines if wanted.matches_line(data, a, b, chat=wanted.needs_chat)]
        expected = [
            data[a:b] for a, b in lines if _local(json.loads(data[a:b])["at"]).date() == day
        ]  # the day in local time
        assert found and found == expected, day


def test_profile_dates_are_the_days_things_happened(demo):
    profile = load_profile_learned(demo)
    assert {item["at"] for item in profile.forgotten} == {(TODAY - timedelta(days=12)).isoformat()}
    assert all(item["at"] < TODAY.isoformat() for item in profile.learned)


def test_opening_the_demo_journals_nothing_new(demo_copy):
    for bot_id in DEMO_BOT_IDS:
        before = demo_copy.journal_path(bot_id).read_bytes()
        Bot(demo_copy, bot_id).look()
        assert demo_copy.journal_path(bot_id).read_bytes() == before, bot_id


# ----- the sample conversations (omb_tui/demo/conversations.py) -----


def test_sample_conversations_for_the_demo(tmp_path):
    home = Home(tmp_path)
    today = date(2026, 9, 20)
    now = datetime(2026, 9, 20, 18, 0).astimezone()
    ids = {"scout": "scout-1", "ledger": "ledger-1", "atlas": "atlas-1", "quill": "quill-1"}
    written = write_sample_conversations(home, ids, today, now=now)
    assert all(path.is_file() for path in written)
    scout = conv.list_conversations(home, "scout-1", with_messages=True)
    chats = [c for c in scout if not c.is_room]
    rooms = [c for c in scout if c.is_room]
    assert len([c for c in chats if c.started_by.kind == "person"]) >= 3 and len(rooms) == 1
    assert rooms[0].has_bot("ledger-1")
    days = {m.at.date() for c in scout for m in c.messages}
    assert max(days) - min(days) >= timedelta(days=21)  # spread over weeks
    assert all(m.at <= now for c in scout for m in c.messages)  # never in the future
    assert sum(len(m.text) for c in scout for m in c.messages) > 3000  # enough text to recall from
    assert any(now - m.at < timedelta(days=2) for c in scout for m in c.messages if m.author_kind == "bot")
    for bot in ("ledger-1", "atlas-1", "quill-1"):
        assert conv.list_conversations(home, bot)
    # a missing role is left out; writing again replaces the same files
    other = Home(tmp_path / "other")
    write_sample_conversations(other, {"scout": "scout"}, today, now=now)
    assert not conv.chats_dir(other, "scout").parent.joinpath("ledger").exists()
    again = write_sample_conversations(home, ids, today, now=now)
    assert sorted(again) == sorted(written)
    assert len(conv.read_conversation(written[0]).messages) == len(conv.read_conversation(again[0]).messages)


def test_sample_messages_today_are_moved_before_now(tmp_path):
    home = Home(tmp_path)
    now = datetime(2026, 9, 20, 6, 30).astimezone()
    write_sample_conversations(home, {"scout": "scout", "ledger": "ledger"}, now.date(), now=now)
    for bot in ("scout", "ledger"):
        for conversation in conv.list_conversations(home, bot, with_messages=True):
            assert all(m.at <= now for m in conversation.messages)


# ----- last night: the upkeep pass a person reviews in the morning (omb_tui/demo/night.py) -----
def _cli_json(home: Home, capsys, *argv: str) -> tuple[int, object]:
    import json

    from omb_tui.cli import main

    capsys.readouterr()
    code = main(["--home", str(home.root), *argv])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip() and "--json" in argv else out)


def _last_night(home: Home) -> dict:
    """Every bot's runs and proposals since last night began, as `omb-tui review --since` finds them."""
    from omb_tui.core.review.runs import review

    since = datetime.combine(TODAY - timedelta(days=1), time(18)).astimezone()
    return {bot.bot: bot for bot in review(home, since=since).bots}


def test_review_of_a_fresh_demo_shows_last_night(demo_now, capsys):
    """`omb-tui review --json` on a demo written today: two bots' runs with their steps, categories, reasons and
    quotes, and a third bot's proposals waiting."""
    from omb_tui.core.facts.checks import norm
    from omb_tui.core.journal.journal import HOW_UPKEEP
    from omb_tui.demo.night import SCOUT_CAPTURE_CHAT, SCOUT_CAPTURE_QUOTES

    home, _ = demo_now
    code, listing = _cli_json(home, capsys, "review", "--json")
    assert code == 0
    bots = {bot["bot"]: bot for bot in listing["bots"]}
    assert set(bots) == {"scout", "ledger", "harbor"}
    session, scout = bots["scout"]["runs"]  # yesterday evening's Claude Code session, then the night's pass
    assert session["steps"] == ["during a task"] and len(session["changes"]) == 2
    assert scout["steps"] == ["capture", "tidy-up"] and scout["files"] == ["MEMORY.md", "memory/archive.md"]
    captured = scout["changes"][0]
    assert (captured["chat"], captured["quotes"]) == (SCOUT_CAPTURE_CHAT, SCOUT_CAPTURE_QUOTES)
    assert "+- " in captured["diff"] and "Dana in finance" in captured["diff"]
    # Nadia's own words in that chat, which went quiet yesterday: captured last night.
    (chat,) = [c for c in conv.list_conversations(home, "scout", with_messages=True) if c.title == captured["chat"]]
    said = [norm(m.text) for m in chat.messages if m.author_kind == "person"]
    assert all(any(norm(quote) in line for line in said) for quote in captured["quotes"])
    assert chat.messages[-1].at.date() == _local(captured["at"]).date()
    assert [c["reason"] for c in scout["changes"][1:]] == [
        "tidy-up: 1 expired entry from MEMORY.md",
        "tidy-up: 1 expired entry moved to the archive",
    ]
    (ledger,) = bots["ledger"]["runs"]
    assert ledger["steps"] == ["tidy-up", "compact"]
    compacted = [c for c in ledger["changes"] if c["step"] == "compact"]
    assert [c["category"] for c in compacted] == ["detail", "ephemeral"]
    assert compacted[0]["reason"].startswith("The chart of accounts lives in Moneybird")
    assert all(c["undoable"] and not c["undone"] and not c["reviewed"] for c in scout["changes"] + ledger["changes"])
    harbor = bots["harbor"]
    assert harbor["runs"] == [] and harbor["pending"] == 2
    assert [p["category"] for p in harbor["proposals"]] == ["superseded", "merge"]
    assert harbor["proposals"][0]["original"] in (home.workspace("harbor") / "MEMORY.md").read_text(encoding="utf-8")
    # Written as upkeep writes: Memory upkeep's rows, each run's id the UTC moment it began, so runs sort by time.
    for run in (scout, ledger):
        assert {(c["who"], c["how"]) for c in run["changes"]} == {(WHO_UPKEEP, HOW_UPKEEP)}
        began = datetime.fromisoformat(run["changes"][0]["at"])
        assert run["id"].startswith(f"{began:%Y%m%dT%H%M%S}-")
    assert scout["id"] > ledger["id"] > harbor["proposals"][0]["run"]  # one pass, through the bots by id
    proposed = datetime.fromisoformat(harbor["proposals"][0]["at"])  # at the night's time, not when the demo ran
    run_began = datetime.strptime(harbor["proposals"][0]["run"].split("-")[0], "%Y%m%dT%H%M%S")
    assert timedelta(0) <= proposed.replace(tzinfo=None) - run_began < timedelta(minutes=1)


@pytest.mark.parametrize("written_at", [time(0, 20), time(7, 30)], ids=["just-after-midnight", "morning"])
def test_the_bots_screen_counts_last_night_whenever_the_demo_is_written(tmp_path, written_at):
    """The Night column (`overnight`) counts the runs on a demo written early in the morning too: they stay
    after 18:00 yesterday and before the moment the demo was written."""
    from omb_tui.core.review.changes import overnight
    from omb_tui.core.review.runs import last_night_start

    now = datetime.combine(TODAY, written_at).astimezone()
    home = Home(tmp_path / "home")
    write_demo_home(home, TODAY, now=now)
    counts = overnight(home, now)
    # the night's pass and the evening's Claude Code session (a run too): both since 18:00 yesterday; the chats'
    # turns are other groups, counted beside them as Review counts them
    assert {bot: (c.runs, c.pending) for bot, c in counts.items()} == {
        "scout": (2, 0),
        "ledger": (1, 0),
        "harbor": (0, 2),
        "quill": (0, 0),
        "atlas": (0, 0),
    }
    assert counts["scout"].changes >= 5 and counts["ledger"].changes >= 5
    for bot_id in ("scout", "ledger"):
        run_times = [_local(r["at"]) for r in _file_rows(home, bot_id) if r.get("run")]
        assert run_times and all(last_night_start(now) <= at <= now for at in run_times)
    # Last night all of today; the next morning it is the night before and no longer counted.
    assert overnight(home, now.replace(hour=21))["ledger"].runs == 1
    assert overnight(home, now + timedelta(days=1))["ledger"].changes == 0


def test_one_compaction_change_reverts_then_the_whole_run_undoes(demo_copy, capsys):
    """Review's two ways back, from the command line, on ledger's night: revert the chart of accounts' removal
    alone (the other compaction stays), then undo the whole run (every file back as before the night)."""
    memory = demo_copy.workspace("ledger") / "MEMORY.md"
    archive = demo_copy.workspace("ledger") / "memory" / "archive.md"
    (run,) = _last_night(demo_copy)["ledger"].runs
    detail, ephemeral = [c for c in run.changes if c.step == "compact"]
    removed_paid = next(line[1:] for line in ephemeral.diff.splitlines() if line.startswith("-- "))
    assert "Ledger accounts:" not in memory.read_text(encoding="utf-8")

    code, out = _cli_json(demo_copy, capsys, "revert", "ledger", detail.id)
    assert code == 0 and "1 later change kept" in out
    text = memory.read_text(encoding="utf-8")
    assert "- Ledger accounts: 8000 revenue" in text and removed_paid not in text

    store = MemoryStore(demo_copy, "ledger")
    first = {
        rel: next(row for row in store.journal.rows()[::-1] if row.run == run.id and row.file == rel)
        for rel in ("MEMORY.md", "memory/archive.md")
    }
    code, out = _cli_json(demo_copy, capsys, "undo-run", "ledger", run.id)  # the revert is the run's own: no --yes
    assert code == 0, out
    assert memory.read_text(encoding="utf-8") == first["MEMORY.md"].before_text
    assert archive.read_text(encoding="utf-8") == first["memory/archive.md"].before_text
    assert "Kroonfiets deposit invoice on hold" in memory.read_text(encoding="utf-8")
    assert _last_night(demo_copy)["ledger"].runs[0].undone


def test_undoing_scouts_night_names_this_mornings_note_first(demo_copy, capsys):
    from omb_tui.demo.night import SCOUT_CAPTURE_FACT

    memory = demo_copy.workspace("scout") / "MEMORY.md"
    _session, run = _last_night(demo_copy)["scout"].runs
    before = memory.read_text(encoding="utf-8")
    code, _ = _cli_json(demo_copy, capsys, "undo-run", "scout", run.id)
    assert code == 4 and memory.read_text(encoding="utf-8") == before  # today's note came after: asked first
    code, _ = _cli_json(demo_copy, capsys, "undo-run", "scout", run.id, "--yes")
    assert code == 0
    text = memory.read_text(encoding="utf-8")
    assert SCOUT_CAPTURE_FACT not in text and "Tom is in Berlin" in text


def test_harbors_proposals_can_be_accepted(demo_copy, capsys):
    code, outcome = _cli_json(demo_copy, capsys, "proposals", "harbor", "accept", "--all", "--json")
    assert code == 0 and outcome["applied"] == ["1", "2"] and not outcome["refused"]
    text = (demo_copy.workspace("harbor") / "MEMORY.md").read_text(encoding="utf-8")
    assert "Extras, Details, Pay." not in text and "the whole card is the target, one link inside at most" in text


def test_the_nightly_compaction_left_its_traces(demo):
    """Ledger's applied run left what a nightly run leaves (attempt log, backup, memory-clean.log), all private;
    harbor's first-week run only proposed."""
    from omb_tui.core.compact.records import compact_files
    from omb_tui.core.memory.settings import load_bot_settings as settings_of

    ledger, harbor = compact_files(demo, "ledger"), compact_files(demo, "harbor")
    (run,) = _last_night(demo)["ledger"].runs
    (backup,) = ledger.backup_dir.iterdir()
    assert "- Ledger accounts: 8000 revenue" in backup.read_text(encoding="utf-8")
    clean = ledger.clean_log.read_text(encoding="utf-8").splitlines()
    assert [line.split(" · ")[1:3] for line in clean] == [[run.id, "detail"], [run.id, "ephemeral"]]
    assert "errors: none" in ledger.attempts_log.read_text(encoding="utf-8")
    assert not harbor.backup_dir.exists() and harbor.pending.exists()
    for path in [*ledger.folder.rglob("*"), *harbor.folder.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
    assert settings_of(demo, "ledger").compact_nightly and settings_of(demo, "harbor").compact_nightly
