"""A hook never builds the recall index in its own time (docs/agents.md): it refreshes within its budget, answers
from what the index holds, and starts the build in the background, one at a time per bot, going on from what was
committed before a kill. `omb-tui index BOT` builds it in the foreground."""

from __future__ import annotations

import json

import pytest
from support.home import BOT_ID
from support.transcripts import payload

from omb_tui.core.base import clock
from omb_tui.core.index import build as index_build
from omb_tui.core.index import refresh as index_refresh
from omb_tui.core.index.recall_index import close_all, open_index
from omb_tui.core.memory import conversations as conv
from omb_tui.hooks import run as hook_run

pytestmark = pytest.mark.dates  # a transcript's UTC times, read into local ones

DEADLINE = 120.0
CHATS = 450  # more than two batches


def many_chats(home, count: int = CHATS) -> None:
    """`count` small 1:1 chats written as the project writes them (no fsync: a fixture)."""
    folder = conv.chats_dir(home, BOT_ID)
    folder.mkdir(parents=True, exist_ok=True)
    at = clock.now()
    for n in range(count):
        chat = conv.Conversation(
            id=f"c{n:04d}",
            title=f"Chat {n}",
            kind=conv.KIND_CHAT,
            started_by=conv.Starter("person", "Nadia"),
            members=[conv.Member("person", "Nadia"), conv.Member("bot", BOT_ID)],
            created=at,
        )
        message = conv.Message("person", "Nadia", at, f"The ferry to island {n} leaves at nine", origin="person")
        lines = [json.dumps(chat.header_json()), json.dumps(message.to_dict())]
        (folder / f"c{n:04d}.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")


def indexed_files(home) -> int:
    close_all()
    index = open_index(home, BOT_ID)
    with index.reading():
        return index.connection.db.execute("SELECT count(*) FROM files").fetchone()[0]


def base_files(home) -> int:
    """The files of the fixture's bot (MEMORY.md, its topics), indexed: what every later count starts from."""
    open_index(home, BOT_ID).refresh()
    return indexed_files(home)


def test_a_refresh_past_its_budget_stops_at_a_commit_and_the_next_goes_on(home):
    base = base_files(home)
    many_chats(home)
    index = open_index(home, BOT_ID)
    with index_refresh.refresh_budget(0) as budget:
        first = index.refresh()
    committed = indexed_files(home)  # read by another connection: what the stopped refresh committed
    assert budget.unfinished and first.files_left > 0
    assert base < committed < base + CHATS
    close_all()  # as a new process would (a hook killed, the next one)
    second = open_index(home, BOT_ID).refresh()
    assert second.files_left == 0 and indexed_files(home) == base + CHATS
    assert second.files_read <= CHATS - (committed - base)  # what was committed is not read again


def test_a_hook_answers_within_its_budget_and_the_build_finishes_in_the_background(run_cli, home, monkeypatch):
    base = base_files(home)
    many_chats(home)
    monkeypatch.setattr(hook_run, "INDEX_SECONDS", 0)
    started = []
    real_start = index_build.start_background_build
    monkeypatch.setattr(
        index_build, "start_background_build", lambda h, b: started.append(real_start(h, b)) or started[-1]
    )
    result = run_cli(
        "hook", "prompt", "--bot", BOT_ID, stdin=payload("UserPromptSubmit", prompt="When does the ferry leave?")
    )
    assert result.code == 0 and result.err == ""
    assert len(started) == 1 and started[0] is not None
    assert started[0].wait(DEADLINE) == 0  # the build, a process of its own
    assert indexed_files(home) == base + CHATS + 1  # and the session's own chat, opened by its first prompt
    assert open_index(home, BOT_ID).refresh().files_read == 0


def test_while_another_process_builds_the_index_a_hook_reads_nothing_and_starts_nothing(run_cli, home, monkeypatch):
    base = base_files(home)
    many_chats(home, 30)
    started = []
    monkeypatch.setattr(index_build, "start_background_build", lambda h, b: started.append(b))
    with index_build.build_lock(home, BOT_ID) as held:
        assert held
        result = run_cli(
            "hook", "prompt", "--bot", BOT_ID, stdin=payload("UserPromptSubmit", prompt="ferry to island 3?")
        )
        assert result.code == 0 and result.err == ""
        assert indexed_files(home) == base and started == []
        said = run_cli("index", BOT_ID, "--json")
        assert json.loads(said.out)["built"] is False and said.code == 0
    assert json.loads(run_cli("index", BOT_ID, "--json").out)["files_read"] == 30 + 1  # the session's chat too


def test_index_builds_in_the_foreground_and_says_what_it_read(run_cli, home):
    base_files(home)
    many_chats(home, 12)
    result = run_cli("index", BOT_ID)
    assert result.code == 0 and "scout's index is up to date: 12 files read" in result.out
    assert "0 files read" in run_cli("index", BOT_ID).out
