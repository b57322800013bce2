"""`omb-tui demo`: the sample home keeps every promise the issue makes to the person trying the app."""

from __future__ import annotations

import re
import shutil
import stat
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest

from omb_tui.core.bot import Bot
from omb_tui.core.budget import read_topic_info
from omb_tui.core.demo import DEMO_BOT_IDS, write_demo_home
from omb_tui.core.entries import parse_entries
from omb_tui.core.journal import (
    HOW_OUTSIDE,
    HOW_UNDO,
    REASON_CREDENTIAL,
    WHO_BOT,
    WHO_IMPORT,
    WHO_PERSON,
    WHO_UPKEEP,
)
from omb_tui.core.paths import Home, MemoryInputError
from omb_tui.core.settings import load_bot_settings, load_config, load_profile_learned
from omb_tui.core.store import MemoryStore, NotUndoable
from omb_tui.core.turn_log import turn_log_heading, turn_log_line

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


def test_config_about_me_and_profile(demo):
    config = load_config(demo, environ={})
    assert config.helper is not None and config.helper.instance_id
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
        r for r in store.journal.rows()
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
    assert newest == date.today()
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
            for line in text[len(turn_log_heading(day)):].splitlines():
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
    expected = turn_log_heading(yesterday) + turn_log_line(
        'chat "Invoice reconciliation"', "Matched 14 bank lines; one Delft invoice still open, not yet due.",
        ["moneybird.list", "bank.list"], at=at,
    ) + "\n" + turn_log_line(
        'chat "Receipts inbox"', "Filed five receipts; the Coolblue dock receipt matched at last.",
        ["email.search", "moneybird.attach"], at=at.replace(hour=16, minute=30),
    ) + "\n"
    assert MemoryStore(demo, "ledger").read(f"memory/log/{yesterday.isoformat()}.md").text == expected
    rows = [r for r in MemoryStore(demo, "ledger").journal.rows() if r.file == f"memory/log/{yesterday.isoformat()}.md"]
    assert [(r.who, r.chat) for r in rows] == [(WHO_BOT, "Receipts inbox"), (WHO_BOT, "Invoice reconciliation")]
