"""The command line through its real entry point: every command, --help, --json, the home, write and undo.

Spec: memory.md, "What loads, and the budget", "Remember and forget, in chat", "Editing" and "The journal".
Most tests call omb_tui.cli.main in-process; a few run the installed `omb-tui` command in a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from support.home import BOT_ID, LOG_NAME, MEMORY_TEXT, TOPIC_TEXT, make_bot

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import Journal, JournalRow
from omb_tui.core.turn.bot import Bot, LoadedPrompt

TODAY = clock.today()
FAKE_KEY = "sk-ant-api03-" + "Zq7Xv2Lm9Rt4Wp8Ks3Nd6Hf1Jc5Bg0Ya" * 2  # shaped like a key, not a real one
ROW_KEYS = {"id", "who", "how", "file", "at", "undoable"}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def memory_path(home: Home):
    return home.workspace(BOT_ID) / "MEMORY.md"


def one_line_error(result) -> str:
    assert result.code != 0, result
    assert "Traceback" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    return lines[0]


def journal_rows(run_cli, *extra: str) -> list[dict]:
    result = run_cli("journal", BOT_ID, "--json", *extra)
    assert result.code == 0, result.err
    return json.loads(result.out)


def dated_lines(count: int, start: date = date(2025, 1, 1)) -> str:
    return "".join(f"- {(start + timedelta(days=i)).isoformat()} · old fact {i:03d}\n" for i in range(count))


# ----- --help -----
HELP_MENTIONS = {
    "bots": ["--json", "--home"],
    "prompt": ["BOT", "--as-of"],
    "gauge": ["BOT", "--json"],
    "remember": ["BOT", "TEXT", "--until", "--chat", "--json"],
    "forget": ["BOT", "WORDS", "--json"],
    "prefer": ["BOT", "TEXT", "--json"],
    "show": ["BOT", "PATH", "--json"],
    "write": ["BOT", "PATH", "--expect-hash"],
    "rm": ["BOT", "PATH"],
    "mv": ["BOT", "OLD", "NEW", "--update-links"],
    "journal": ["BOT", "--limit", "--filter", "--since", "--json"],
    "undo": ["BOT", "ROW_ID", "--yes"],
    "make-room": ["BOT", "--yes", "--json"],
    "mcp": ["--bot", "--http", "--port", "--home"],
    "demo": ["--home"],
}


@pytest.mark.parametrize("command", sorted(HELP_MENTIONS))
def test_every_command_answers_help(run_cli, command):
    result = run_cli(command, "--help")
    assert result.code == 0
    assert result.out.startswith("usage: omb-tui")
    for word in HELP_MENTIONS[command]:
        assert word in result.out, f"{command} --help does not mention {word}"


def test_top_level_help_lists_every_command(run_cli):
    result = run_cli("--help")
    assert result.code == 0
    for command in HELP_MENTIONS:
        assert command in result.out


def test_help_through_the_installed_command(run_exe):
    for argv in (["--help"], ["remember", "--help"], ["undo", "--help"]):
        proc = run_exe(*argv)
        assert proc.returncode == 0, proc.stderr
        assert b"usage: omb-tui" in proc.stdout
        assert proc.stderr == b""


# ----- bots and the home -----
def test_bots_json_shape(run_cli):
    result = run_cli("bots", "--json")
    assert result.code == 0
    (bot,) = json.loads(result.out)
    assert set(bot) >= {"id", "name", "memory", "level", "lines", "bytes", "last_change"}
    assert bot["id"] == BOT_ID and bot["name"] == "Scout" and bot["memory"] is True
    assert bot["lines"] == MEMORY_TEXT.count("\n")
    assert bot["bytes"] == len(MEMORY_TEXT.encode())
    assert bot["level"] == "ok"


def test_bots_text_and_empty_home(run_cli, tmp_path):
    result = run_cli("bots")
    assert result.code == 0 and BOT_ID in result.out and "Scout" in result.out
    (tmp_path / "nothing").mkdir()
    empty = run_cli("--home", str(tmp_path / "nothing"), "bots", "--json", with_home=False)
    assert empty.code == 0 and json.loads(empty.out) == []


@pytest.mark.parametrize("command", [[], ["bots"], ["prefer", "scout", "short replies"], ["upkeep", "--due"]])
def test_a_home_that_does_not_exist_is_named_and_never_created(run_cli, tmp_path, command):
    missing = tmp_path / "typo"
    result = run_cli("--home", str(missing), *command, with_home=False)
    assert result.code == 2
    assert one_line_error(result) == (
        f"omb-tui: The home folder {missing} (from --home) does not exist; "
        f"`omb-tui demo --home {missing}` writes a sample home there."
    )
    assert not missing.exists()


def test_an_omb_home_that_does_not_exist_is_named_too_and_demo_creates_its_home(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("OMB_HOME", str(tmp_path / "gone"))
    assert "(from $OMB_HOME) does not exist" in one_line_error(run_cli("bots", with_home=False))
    assert run_cli("--home", str(tmp_path / "new"), "demo", with_home=False).code == 0
    assert (tmp_path / "new" / "workspaces").is_dir()


def make_other_home(tmp_path, bot_id: str) -> Home:
    other = Home(tmp_path / f"home-{bot_id}")
    make_bot(other, bot_id, name=bot_id.title())
    return other


def bot_ids(result) -> list[str]:
    assert result.code == 0, result.err
    return [b["id"] for b in json.loads(result.out)]


def test_home_flag_wins_over_omb_home(run_cli, tmp_path, monkeypatch):
    flag_home = make_other_home(tmp_path, "alpha")
    env_home = make_other_home(tmp_path, "beta")
    monkeypatch.setenv("OMB_HOME", str(env_home.root))
    assert bot_ids(run_cli("bots", "--json", with_home=False)) == ["beta"]
    assert bot_ids(run_cli("--home", str(flag_home.root), "bots", "--json", with_home=False)) == ["alpha"]
    assert bot_ids(run_cli("bots", "--json", "--home", str(flag_home.root), with_home=False)) == ["alpha"]


def test_without_flag_or_env_the_home_is_dot_openmausbot(run_cli, tmp_path):
    user_home = Home(tmp_path / "user" / ".openmausbot")  # HOME points at tmp_path/user in every test
    make_bot(user_home, "gamma")
    assert bot_ids(run_cli("bots", "--json", with_home=False)) == ["gamma"]


def test_installed_command_reads_omb_home_and_the_flag_wins(run_exe, tmp_path):
    proc = run_exe("bots", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [b["id"] for b in json.loads(proc.stdout)] == [BOT_ID]
    other = make_other_home(tmp_path, "alpha")
    proc = run_exe("--home", str(other.root), "bots", "--json")
    assert [b["id"] for b in json.loads(proc.stdout)] == ["alpha"]
    proc = run_exe("bots", "--json", module=True)
    assert [b["id"] for b in json.loads(proc.stdout)] == [BOT_ID]


# ----- prompt and gauge -----
def test_prompt_prints_the_memory_block(run_cli, home):
    result = run_cli("prompt", BOT_ID)
    assert result.code == 0
    assert result.out.startswith("## Memory (MEMORY.md)\n")
    assert "The person lives in Pune" in result.out
    assert "memory/travel.md" in result.out  # the topic index
    assert "likes window seats" not in result.out  # topic files never load by themselves
    assert result.out == Bot(home, BOT_ID).prompt(TODAY)  # exactly the core's block, nothing added


def test_prompt_through_the_installed_command_is_byte_exact(run_exe, home):
    proc = run_exe("prompt", BOT_ID, "--as-of", TODAY.isoformat())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == Bot(home, BOT_ID).prompt(TODAY).encode()


def test_prompt_as_of_leaves_expired_notes_out(run_cli):
    last_day = TODAY + timedelta(days=10)
    assert run_cli("remember", BOT_ID, "the office is closed for painting", "--until", last_day.isoformat()).code == 0
    on_the_day = run_cli("prompt", BOT_ID, "--as-of", last_day.isoformat())
    day_after = run_cli("prompt", BOT_ID, "--as-of", (last_day + timedelta(days=1)).isoformat())
    assert on_the_day.code == day_after.code == 0
    assert "closed for painting" in on_the_day.out
    assert "closed for painting" not in day_after.out
    assert "The person lives in Pune" in day_after.out


def test_prompt_with_a_bad_date_is_refused(run_cli):
    result = run_cli("prompt", BOT_ID, "--as-of", "2026-13-45")
    assert result.code == 2 and "Traceback" not in result.err
    assert "not a date" in result.err


def test_prompt_of_a_bot_with_memory_off_loads_nothing(run_cli, home):
    home.settings_path(BOT_ID).write_text('{"name": "Scout", "memory": false}\n')
    result = run_cli("prompt", BOT_ID)
    assert result.code == 0 and result.out == ""
    assert "switched off" in result.err
    assert Bot(home, BOT_ID).loaded_prompt(TODAY) == LoadedPrompt(memory_on=False, block="")  # core decides


def test_gauge_json_keys_and_values(run_cli):
    result = run_cli("gauge", BOT_ID, "--json")
    assert result.code == 0
    gauge = json.loads(result.out)
    assert set(gauge) == {"lines", "bytes", "max_lines", "max_bytes", "level", "lines_not_loaded"}
    assert gauge == {
        "lines": 4,
        "bytes": len(MEMORY_TEXT.encode()),
        "max_lines": 200,
        "max_bytes": 24 * 1024,
        "level": "ok",
        "lines_not_loaded": 0,
    }


def test_gauge_goes_red_when_lines_stop_loading(run_cli, home):
    memory_path(home).write_text(dated_lines(210))
    result = run_cli("gauge", BOT_ID, "--json")
    gauge = json.loads(result.out)
    assert (gauge["lines"], gauge["level"], gauge["lines_not_loaded"]) == (210, "red", 10)
    text = run_cli("gauge", BOT_ID)
    assert text.code == 0
    assert "only the first 200 lines load each turn" in text.out.lower()
    assert ", 10 lines not loaded. " in text.out
    memory_path(home).write_text(dated_lines(201))
    assert ", 1 line not loaded. " in run_cli("gauge", BOT_ID).out


def test_gauge_of_a_bot_with_memory_off_says_nothing_loads(run_cli, home):
    home.settings_path(BOT_ID).write_text('{"name": "Scout", "memory": false}\n')
    result = run_cli("gauge", BOT_ID)
    assert result.code == 0
    assert f"Memory is switched off for {BOT_ID}: nothing loads." in result.out
    assert "only the first 200 lines" not in result.out.lower()


# ----- remember, forget, prefer -----
def test_remember_adds_a_dated_note(run_cli, home):
    result = run_cli("remember", BOT_ID, "prefers tea to coffee", "--chat", "Morning")
    assert result.code == 0 and "Saved" in result.out
    text = memory_path(home).read_text()
    assert text == MEMORY_TEXT + f'- {TODAY.isoformat()} · from chat "Morning" · prefers tea to coffee\n'


def test_remember_json_says_what_moved(run_cli, home):
    memory_path(home).write_text(dated_lines(200))
    result = run_cli("remember", BOT_ID, "the newest fact", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert {"entry", "moved", "message"} <= set(data)
    assert data["entry"] == f"- {TODAY.isoformat()} · the newest fact\n"
    assert data["moved"] == ["old fact 000"]
    archive = (home.workspace(BOT_ID) / "memory" / "archive.md").read_text()
    assert f"- 2025-01-01 · old fact 000 · moved {TODAY.isoformat()}\n" in archive
    memory = memory_path(home).read_text()
    assert "old fact 000" not in memory and memory.count("\n") == 200


def test_remember_with_until(run_cli, home):
    until = TODAY + timedelta(days=3)
    assert run_cli("remember", BOT_ID, "in Goa this week", "--until", until.isoformat()).code == 0
    assert f"in Goa this week · until {until.isoformat()}\n" in memory_path(home).read_text()


def test_remember_redacts_a_key(run_cli, home):
    result = run_cli("remember", BOT_ID, f"the deploy key is {FAKE_KEY}")
    assert result.code == 0
    assert "redacted" in result.out
    text = memory_path(home).read_text()
    assert "«redacted" in text and FAKE_KEY not in text
    for path in home.root.rglob("*"):  # not in the journal, the seen copies or anywhere else either
        if path.is_file():
            assert FAKE_KEY.encode() not in path.read_bytes(), path


def test_remember_until_in_the_past_is_refused(run_cli, home):
    yesterday = (TODAY - timedelta(days=1)).isoformat()
    result = run_cli("remember", BOT_ID, "a stale fact", "--until", yesterday)
    assert "already passed" in one_line_error(result)
    assert memory_path(home).read_text() == MEMORY_TEXT


def test_remember_length_limits(run_cli, home):
    too_long = run_cli("remember", BOT_ID, "x" * 1001)
    assert "1,000" in one_line_error(too_long) or "1000" in too_long.err
    too_many_lines = run_cli("remember", BOT_ID, "\n".join(f"line {i}" for i in range(21)))
    assert "20" in one_line_error(too_many_lines)
    assert memory_path(home).read_text() == MEMORY_TEXT
    assert run_cli("remember", BOT_ID, "y" * 1000).code == 0
    assert run_cli("remember", BOT_ID, "\n".join(f"line {i}" for i in range(20))).code == 0


def test_forget_json_names_what_went(run_cli, home):
    result = run_cli("forget", BOT_ID, "window", "seats", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["removed"] == {"memory/travel.md": ["likes window seats"]}
    assert data["count"] == 1
    topic = (home.workspace(BOT_ID) / "memory" / "travel.md").read_text()
    assert "window seats" not in topic and topic.startswith("---\ntitle: Travel\n")  # header kept
    again = run_cli("forget", BOT_ID, "window", "seats")
    assert again.code == 0 and "nothing was removed" in again.out


def test_forget_uses_whole_words(run_cli, home):
    result = run_cli("forget", BOT_ID, "Pun", "--json")
    assert json.loads(result.out)["count"] == 0
    assert memory_path(home).read_text() == MEMORY_TEXT


def test_prefer_goes_once_into_about_me(run_cli, home):
    result = run_cli("prefer", BOT_ID, "reminders go to my task app", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["added"] is True and data["text"] == "reminders go to my task app"
    about = home.about_me_path.read_text()
    assert about.count("reminders go to my task app") == 1
    again = json.loads(run_cli("prefer", BOT_ID, "reminders go to my task app", "--json").out)
    assert again["added"] is False
    assert home.about_me_path.read_text() == about


def test_prefer_longer_than_300_characters_is_refused(run_cli, home):
    result = run_cli("prefer", BOT_ID, "p" * 301)
    assert "300" in one_line_error(result)
    assert not home.about_me_path.exists()


# ----- show, write, rm, mv -----
def test_show_text_and_json(run_cli, home):
    result = run_cli("show", BOT_ID, "MEMORY.md")
    assert result.code == 0 and result.out == MEMORY_TEXT
    data = json.loads(run_cli("show", BOT_ID, "memory/travel.md", "--json").out)
    assert data["text"] == TOPIC_TEXT
    assert data["hash"] == sha(TOPIC_TEXT.encode())
    assert data["path"] == "memory/travel.md"
    log = run_cli("show", BOT_ID, f"memory/log/{LOG_NAME}")
    assert log.code == 0 and "trains" in log.out


def test_show_a_missing_topic_is_an_error(run_cli):
    assert "does not exist" in one_line_error(run_cli("show", BOT_ID, "memory/nothing-here.md"))


def test_write_with_the_right_hash_saves(run_cli, home):
    current = json.loads(run_cli("show", BOT_ID, "MEMORY.md", "--json").out)["hash"]
    new_text = MEMORY_TEXT + "- a line typed by hand\n"
    result = run_cli("write", BOT_ID, "MEMORY.md", "--expect-hash", current, "--json", stdin=new_text.encode())
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert list(data) == ["path", "hash", "changed", "redactions", "row_id"]  # WriteResult.to_dict(), snake_case
    assert data["changed"] is True and data["hash"] == sha(new_text.encode())
    assert memory_path(home).read_bytes() == new_text.encode()
    assert stat.S_IMODE(memory_path(home).stat().st_mode) == 0o600
    row = journal_rows(run_cli, "--limit", "1")[0]
    assert (row["file"], row["how"], row["id"]) == ("MEMORY.md", "command line", data["row_id"])


def test_write_says_in_words_how_many_credentials_it_redacted(run_cli, home):
    one = run_cli("write", BOT_ID, "MEMORY.md", stdin=f"- the deploy key is {FAKE_KEY}\n".encode())
    assert one.code == 0 and one.out == "Saved MEMORY.md (1 credential redacted).\n"
    two = f"- the deploy key is {FAKE_KEY}\n- wifi password: Tr0ub4dor&3x\n"
    assert (
        run_cli("write", BOT_ID, "MEMORY.md", stdin=two.encode()).out == "Saved MEMORY.md (2 credentials redacted).\n"
    )


def test_write_with_a_stale_hash_writes_nothing(run_cli, home):
    old_hash = sha(MEMORY_TEXT.encode())
    assert run_cli("remember", BOT_ID, "written by the bot meanwhile").code == 0
    current = memory_path(home).read_bytes()
    result = run_cli("write", BOT_ID, "MEMORY.md", "--expect-hash", old_hash, stdin=b"my draft\n")
    assert result.code == 3
    assert result.out.strip() == sha(current)  # the current hash, so the caller can reload
    assert "nothing was written" in one_line_error(result)
    assert memory_path(home).read_bytes() == current
    as_json = run_cli("write", BOT_ID, "MEMORY.md", "--expect-hash", old_hash, "--json", stdin=b"my draft\n")
    assert as_json.code == 3
    assert json.loads(as_json.out)["current_hash"] == sha(current)
    assert memory_path(home).read_bytes() == current


def test_write_creates_a_private_topic_and_refuses_logs(run_cli, home):
    result = run_cli("write", BOT_ID, "memory/clients 2026.md", stdin=b"# Clients\n")
    assert result.code == 0, result.err
    topic = home.workspace(BOT_ID) / "memory" / "clients 2026.md"
    assert topic.read_bytes() == b"# Clients\n"
    assert stat.S_IMODE(topic.stat().st_mode) == 0o600
    log = home.workspace(BOT_ID) / "memory" / "log" / LOG_NAME
    refused = run_cli("write", BOT_ID, f"memory/log/{LOG_NAME}", stdin=b"rewritten\n")
    assert "read-only" in one_line_error(refused)
    assert log.read_text() == "- 09:00 · answered a question about trains\n"


def test_rm_refuses_memory_md(run_cli, home):
    assert "never deleted" in one_line_error(run_cli("rm", BOT_ID, "MEMORY.md"))
    assert memory_path(home).read_text() == MEMORY_TEXT


def test_rm_deletes_a_topic_and_undo_brings_it_back(run_cli, home):
    topic = home.workspace(BOT_ID) / "memory" / "travel.md"
    result = run_cli("rm", BOT_ID, "memory/travel.md")
    assert result.code == 0 and not topic.exists()
    row = journal_rows(run_cli, "--limit", "1")[0]
    assert row["id"] in result.out and row["file"] == "memory/travel.md" and row["undoable"] is True
    assert run_cli("undo", BOT_ID, row["id"]).code == 0
    assert topic.read_text() == TOPIC_TEXT


def test_rm_deletes_a_log(run_cli, home):
    log = home.workspace(BOT_ID) / "memory" / "log" / LOG_NAME
    assert run_cli("rm", BOT_ID, f"memory/log/{LOG_NAME}").code == 0
    assert not log.exists()


def test_mv_renames_a_topic(run_cli, home):
    result = run_cli("mv", BOT_ID, "travel.md", "trips.md")
    assert result.code == 0, result.err
    folder = home.workspace(BOT_ID) / "memory"
    assert not (folder / "travel.md").exists() and (folder / "trips.md").read_text() == TOPIC_TEXT


# ----- journal -----
def test_journal_is_newest_first_with_the_row_keys(run_cli):
    for fact in ("first fact", "second fact", "third fact"):
        assert run_cli("remember", BOT_ID, fact).code == 0
    rows = journal_rows(run_cli)
    assert len(rows) == 3
    for row in rows:
        assert ROW_KEYS <= set(row)
        assert (row["who"], row["how"], row["file"], row["undoable"]) == ("person", "command line", "MEMORY.md", True)
    assert "third fact" in rows[0]["diff"] and "first fact" in rows[2]["diff"]
    assert [r["at"] for r in rows] == sorted((r["at"] for r in rows), reverse=True)
    limited = journal_rows(run_cli, "--limit", "2")
    assert [r["id"] for r in limited] == [r["id"] for r in rows[:2]]
    text = run_cli("journal", BOT_ID, "--limit", "1")
    assert text.code == 0 and rows[0]["id"] in text.out and rows[1]["id"] not in text.out


def test_journal_of_a_quiet_bot_is_empty(run_cli):
    assert journal_rows(run_cli) == []
    assert "empty" in run_cli("journal", BOT_ID).out


def test_journal_limit_must_be_positive(run_cli):
    assert "--limit" in one_line_error(run_cli("journal", BOT_ID, "--limit", "0"))


@pytest.fixture
def local_zone(time_zone):
    """A local zone an hour east of UTC in winter, so local and UTC times differ."""
    time_zone("Europe/Amsterdam")


def fixed_journal_row(number: int, at: str, **fields) -> JournalRow:
    values = dict(
        id=f"{number:08x}-0001",
        at=at,
        bot=BOT_ID,
        who="bot",
        how="during a task",
        file="MEMORY.md",
        before_hash="a" * 64,
        after_hash="b" * 64,
        diff="-- likes tea\n+- likes coffee\n",
        before_text="# Memory\n- likes tea\n",
        undoable=True,
        chat="Plans",
    )
    values.update(fields)
    return JournalRow(**values)


def test_journal_shows_local_time_like_the_app_and_json_keeps_utc(run_cli, home, local_zone):
    row = fixed_journal_row(1, "2026-11-30T08:12:41.000+00:00")
    Journal(home.journal_path(BOT_ID)).append(row)
    text = run_cli("journal", BOT_ID)
    assert text.code == 0
    assert f"{row.id}  2026-11-30 09:12  MEMORY.md" in text.out  # written at 08:12 UTC, shown as the app does
    assert journal_rows(run_cli)[0]["at"] == "2026-11-30T08:12:41.000+00:00"


def write_fixed_journal(home, rows: list[JournalRow]) -> None:
    journal = Journal(home.journal_path(BOT_ID))
    for row in rows:
        journal.append(row)


def test_journal_filter_takes_the_apps_syntax_with_limit_and_json(run_cli, home, local_zone):
    write_fixed_journal(
        home,
        [
            fixed_journal_row(1, "2026-11-29T09:00:00.000+00:00"),
            fixed_journal_row(2, "2026-11-29T23:30:00.000+00:00", file="memory/travel.md"),  # 00:30 on the 30th, local
            fixed_journal_row(3, "2026-11-30T08:15:00.000+00:00", who="person", how="in Settings", chat=None),
            fixed_journal_row(4, "2026-11-30T09:15:00.000+00:00", chat="Follow up"),
        ],
    )
    ids = lambda rows: [row["id"] for row in rows]  # noqa: E731
    assert ids(journal_rows(run_cli, "--filter", "who:bot day:2026-11-30")) == ["00000004-0001", "00000002-0001"]
    assert ids(journal_rows(run_cli, "--filter", 'chat:"follow up"')) == ["00000004-0001"]
    assert ids(journal_rows(run_cli, "--filter", "plans day:2026-11")) == ["00000002-0001", "00000001-0001"]
    assert ids(journal_rows(run_cli, "--filter", "who:bot", "--limit", "1")) == ["00000004-0001"]
    text = run_cli("journal", BOT_ID, "--filter", "file:travel")
    assert text.code == 0 and text.out.splitlines() == [
        f'00000002-0001  2026-11-30 00:30  memory/travel.md         {BOT_ID} in chat "Plans"'  # who did it, in words
    ]
    nothing = run_cli("journal", BOT_ID, "--filter", "who:import")
    assert nothing.code == 0 and nothing.out.strip() == f"No row of the journal of {BOT_ID} matches."


def test_journal_since_takes_what_search_since_takes(run_cli, home):
    now = clock.now_utc()
    stamp = lambda moment: moment.isoformat(timespec="milliseconds")  # noqa: E731
    write_fixed_journal(
        home,
        [
            fixed_journal_row(1, stamp(now - timedelta(days=10))),
            fixed_journal_row(2, stamp(now - timedelta(days=2)), who="person", how="in Settings"),
            fixed_journal_row(3, stamp(now - timedelta(hours=2))),
        ],
    )
    ids = lambda *extra: [row["id"][:8] for row in journal_rows(run_cli, *extra)]  # noqa: E731
    assert ids("--since", "24h") == ["00000003"]
    assert ids("--since", "3d") == ["00000003", "00000002"]
    assert ids("--since", (now - timedelta(days=5)).date().isoformat()) == ["00000003", "00000002"]
    assert ids("--since", "3d", "--filter", "who:person") == ["00000002"]
    assert ids("--since", "30d", "--limit", "2") == ["00000003", "00000002"]


@pytest.mark.parametrize(
    "argv, says",
    [
        (
            ("--filter", "day:2026-13-45"),
            "day:2026-13-45 is not a date: use YYYY-MM-DD, YYYY-MM, YYYY, today or yesterday.",
        ),
        (("--filter", "who:bot day:2026-1"), "day:2026-1 is not a date"),  # half a date: fine while typing, not here
        (("--since", "last tuesday"), "'last tuesday' is not a time: use 24h, 3d, yesterday, today"),
    ],
)
def test_a_bad_journal_filter_or_since_is_one_sentence(run_cli, argv, says):
    result = run_cli("journal", BOT_ID, *argv)
    assert result.code == 2
    assert says in one_line_error(result)


def test_a_damaged_line_never_stops_a_filtered_journal(run_cli, home, caplog):
    write_fixed_journal(home, [fixed_journal_row(1, "2026-11-29T09:00:00.000+00:00")])
    with open(home.journal_path(BOT_ID), "ab") as journal:
        journal.write(b'{"id": "broken", "who": "bot"\n')
    write_fixed_journal(home, [fixed_journal_row(2, "2026-11-30T09:00:00.000+00:00")])
    result = run_cli("journal", BOT_ID, "--json", "--filter", "who:bot")
    assert result.code == 0
    assert [row["id"] for row in json.loads(result.out)] == ["00000002-0001", "00000001-0001"]
    assert "Traceback" not in result.err
    assert sum("skipped a damaged line" in record.message for record in caplog.records) == 1  # named, once


# ----- undo -----
def test_undo_puts_the_file_back_and_is_journaled(run_cli, home):
    assert run_cli("remember", BOT_ID, "to be undone").code == 0
    row = journal_rows(run_cli)[0]
    result = run_cli("undo", BOT_ID, row["id"])
    assert result.code == 0, result.err
    assert memory_path(home).read_text() == MEMORY_TEXT
    newest = journal_rows(run_cli)[0]
    assert newest["how"] == "undo" and newest["undo_of"] == row["id"] and newest["undoable"] is True
    assert run_cli("undo", BOT_ID, newest["id"]).code == 0  # undo can itself be undone
    assert "to be undone" in memory_path(home).read_text()


def test_undo_with_later_changes_asks_for_yes(run_cli, home):
    assert run_cli("remember", BOT_ID, "earlier change").code == 0
    assert run_cli("remember", BOT_ID, "later change").code == 0
    assert run_cli("remember", BOT_ID, "latest change").code == 0
    rows = journal_rows(run_cli)
    target, later = rows[2], rows[:2]
    before = memory_path(home).read_bytes()
    refused = run_cli("undo", BOT_ID, target["id"])
    assert refused.code == 4
    message = one_line_error(refused)
    for row in later:
        assert row["id"] in message
    assert "--yes" in message
    assert memory_path(home).read_bytes() == before
    assert len(journal_rows(run_cli)) == 3
    forced = run_cli("undo", BOT_ID, target["id"], "--yes")
    assert forced.code == 0, forced.err
    assert "(after 2 later changes, which are journaled too)" in forced.out
    assert memory_path(home).read_text() == MEMORY_TEXT


def test_undo_of_a_row_whose_earlier_text_held_a_credential_says_why(run_cli, home):
    memory_path(home).write_text(MEMORY_TEXT + "- password: hunter2-hunter2\n")  # typed in an editor
    result = run_cli("write", BOT_ID, "MEMORY.md", stdin=MEMORY_TEXT.encode())
    assert result.code == 0, result.err
    rows = journal_rows(run_cli)
    assert rows[1]["how"] == "changed outside the app"
    row = rows[0]
    assert row["how"] == "command line" and row["undoable"] is False
    assert "credential" in row["not_undoable_reason"]
    refused = run_cli("undo", BOT_ID, row["id"])
    assert "credential" in one_line_error(refused)
    assert memory_path(home).read_text() == MEMORY_TEXT
    listed = run_cli("journal", BOT_ID)
    assert "cannot undo" in listed.out and "credential" in listed.out


def test_undo_of_an_unknown_row(run_cli):
    assert "no journal row" in one_line_error(run_cli("undo", BOT_ID, "0-0000"))


def test_an_outside_edit_is_journaled_and_undoable(run_cli, home):
    edited = MEMORY_TEXT + "- added in Obsidian\n"
    memory_path(home).write_text(edited)
    assert run_cli("gauge", BOT_ID).code == 0  # any look at the bot notices it
    rows = journal_rows(run_cli)
    assert len(rows) == 1
    row = rows[0]
    assert (row["who"], row["how"], row["file"], row["undoable"]) == (
        "person",
        "changed outside the app",
        "MEMORY.md",
        True,
    )
    assert "+- added in Obsidian" in row["diff"]
    assert len(journal_rows(run_cli)) == 1  # journaled once, not on every look
    assert run_cli("undo", BOT_ID, row["id"]).code == 0
    assert memory_path(home).read_text() == MEMORY_TEXT


def test_an_outside_new_topic_and_deletion_are_journaled(run_cli, home):
    folder = home.workspace(BOT_ID) / "memory"
    (folder / "pets.md").write_text("# Pets\n")
    (folder / "travel.md").unlink()
    rows = journal_rows(run_cli)
    assert {(r["file"], r["how"]) for r in rows} == {
        ("memory/pets.md", "changed outside the app"),
        ("memory/travel.md", "changed outside the app"),
    }
    deleted = next(r for r in rows if r["file"] == "memory/travel.md")
    assert run_cli("undo", BOT_ID, deleted["id"]).code == 0
    assert (folder / "travel.md").read_text() == TOPIC_TEXT


# ----- the installed command, end to end -----
def test_installed_command_write_and_stale_write(run_exe, home):
    shown = run_exe("show", BOT_ID, "MEMORY.md", "--json")
    assert shown.returncode == 0, shown.stderr
    current = json.loads(shown.stdout)["hash"]
    new = (MEMORY_TEXT + "- from a script\n").encode()
    saved = run_exe("write", BOT_ID, "MEMORY.md", "--expect-hash", current, stdin=new)
    assert saved.returncode == 0, saved.stderr
    assert memory_path(home).read_bytes() == new
    stale = run_exe("write", BOT_ID, "MEMORY.md", "--expect-hash", current, stdin=b"overwrite\n")
    assert stale.returncode == 3
    assert stale.stdout.decode().strip() == sha(new)
    assert len(stale.stderr.decode().strip().splitlines()) == 1 and b"Traceback" not in stale.stderr
    assert memory_path(home).read_bytes() == new


def test_installed_command_errors_are_one_sentence(run_exe):
    for argv in (["show", BOT_ID, "../x"], ["gauge", "nobody"], ["rm", BOT_ID, "MEMORY.md"]):
        proc = run_exe(*argv)
        assert proc.returncode != 0
        assert b"Traceback" not in proc.stderr
        assert len(proc.stderr.decode().strip().splitlines()) == 1, proc.stderr


def test_installed_command_remember_journal_undo(run_exe, home):
    assert run_exe("remember", BOT_ID, "said through the script").returncode == 0
    rows = json.loads(run_exe("journal", BOT_ID, "--json").stdout)
    assert ROW_KEYS <= set(rows[0])
    undo = run_exe("undo", BOT_ID, rows[0]["id"])
    assert undo.returncode == 0, undo.stderr
    assert memory_path(home).read_text() == MEMORY_TEXT
    assert os.stat(memory_path(home)).st_mode & 0o077 == 0


def test_usage_mistakes_are_one_sentence(capsys):
    from omb_tui.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["search", "scout", "--limit", "abc"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and err.startswith("omb-tui: ") and "usage:" not in err


def test_mv_takes_workspace_paths_too(run_cli, home):
    result = run_cli("mv", BOT_ID, "memory/travel.md", "memory/trips.md")
    assert result.code == 0
    assert (home.workspace(BOT_ID) / "memory" / "trips.md").exists()


@pytest.mark.parametrize("argv, home", [([], None), (["--home", "h"], "h"), (["--home=h"], "h"), (["--ho", "h"], "h")])
def test_no_command_opens_the_app_on_the_home_given(monkeypatch, tmp_path, argv, home):
    import omb_tui.cli as cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "h").mkdir()  # a home that does not exist is refused before the app opens

    opened = []
    monkeypatch.setattr(cli, "cmd_app", lambda args: opened.append(args.home) or 0)
    assert cli.main(argv) == 0
    assert opened == [home]
    assert cli.build_parser().parse_args(argv).home == home  # the quick path agrees with the full parser


@pytest.mark.parametrize("argv", [["--home"], ["--home", "h", "--bogus"], ["--bogus"]])
def test_a_mistake_without_a_command_is_one_sentence_not_the_app(monkeypatch, capsys, argv):
    import omb_tui.cli as cli

    monkeypatch.setattr(cli, "cmd_app", lambda args: pytest.fail("the app must not open"))
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    assert "See: omb-tui --help" in capsys.readouterr().err


# ----- write --expect-hash none: create only -----
def test_write_expect_none_creates_a_missing_file_journaled(run_cli, home):
    topic = home.workspace(BOT_ID) / "memory" / "clients.md"
    result = run_cli("write", BOT_ID, "memory/clients.md", "--expect-hash", "none", "--json", stdin=b"# Clients\n")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["changed"] is True and data["hash"] == sha(b"# Clients\n")
    assert topic.read_bytes() == b"# Clients\n"
    assert stat.S_IMODE(topic.stat().st_mode) == 0o600
    row = journal_rows(run_cli, "--limit", "1")[0]
    assert (row["file"], row["who"], row["how"], row["id"]) == (
        "memory/clients.md",
        "person",
        "command line",
        data["row_id"],
    )


@pytest.mark.parametrize("path", ["MEMORY.md", "memory/travel.md"])
def test_write_expect_none_refuses_an_existing_file_like_a_stale_hash(run_cli, home, path):
    target = home.workspace(BOT_ID) / path
    before = target.read_bytes()
    rows_before = journal_rows(run_cli)
    result = run_cli("write", BOT_ID, path, "--expect-hash", "none", stdin=b"# Mine\n")
    assert result.code == 3
    assert result.out.strip() == sha(before)  # the current hash, as for a stale hash
    error = one_line_error(result)
    assert "already exists" in error and "nothing was written" in error
    assert target.read_bytes() == before
    as_json = run_cli("write", BOT_ID, path, "--expect-hash", "none", "--json", stdin=b"# Mine\n")
    assert as_json.code == 3
    assert json.loads(as_json.out) == {"error": "stale", "path": path, "current_hash": sha(before)}
    assert target.read_bytes() == before
    assert journal_rows(run_cli) == rows_before


def test_write_expect_none_twice_creates_once(run_cli, home):
    first = run_cli("write", BOT_ID, "memory/new.md", "--expect-hash", "none", stdin=b"first\n")
    second = run_cli("write", BOT_ID, "memory/new.md", "--expect-hash", "none", stdin=b"second\n")
    assert (first.code, second.code) == (0, 3)
    assert (home.workspace(BOT_ID) / "memory" / "new.md").read_bytes() == b"first\n"
    assert "--expect-hash none: create only" in " ".join(run_cli("write", "--help").out.split())


def test_bots_shows_the_last_change_in_local_time_like_the_app(run_cli, home, local_zone):
    Journal(home.journal_path(BOT_ID)).append(fixed_journal_row(2, "2026-11-30T08:12:41.000+00:00"))
    text = run_cli("bots")
    assert text.code == 0 and "2026-11-30 09:12" in text.out  # 08:12 UTC, shown as the app's bots list does
    assert run_cli("bots", "--json").out.count("2026-11-30T08:12:41.000+00:00") == 1


def test_an_error_sentence_never_prints_a_credential(run_cli):
    key = "AK" + "IA" + "FAKEEXAMPLE01234"
    out = run_cli("show", f"x/{key}", "MEMORY.md")
    assert out.code == 2 and out.err.startswith("omb-tui: ") and "is not a valid bot id" in out.err
    assert key not in out.err and "«redacted 20 chars»" in out.err
