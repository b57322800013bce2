"""recall, search and brief through the command line, on the demo home."""

from __future__ import annotations

import json

import pytest
from support.home import omb_tui_command

from omb_tui.cli import main
from omb_tui.core.base import clock


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory, todays_demo):
    return todays_demo().copy_to(tmp_path_factory.mktemp("demo") / "home")


def run(capsys, home, *argv):
    code = main(["--home", str(home.root), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_recall_prints_the_block_and_logs_the_line(demo_home, capsys, caplog):
    caplog.set_level("INFO", logger="omb_tui.recall")
    code, out, _ = run(capsys, demo_home, "recall", "scout", "what did we decide about the launch date", "-v")
    assert code == 0
    assert out.startswith("Recalled from your own notes")
    assert "[1]" in out
    assert any(
        r.message.startswith("auto-recall: scout") and "(s)" not in r.message and " conversation passage" in r.message
        for r in caplog.records
    )


def test_recall_json_has_notes_passages_and_block(demo_home, capsys):
    # the demo's Launch room holds the standup where the launch date moved; clients.md and projects.md
    # hold a note with "moved" and one with "launch"; the dentist chat holds "moved" too
    code, out, _ = run(capsys, demo_home, "recall", "scout", "launch date moved", "--json")
    data = json.loads(out)
    assert code == 0 and data["skipped"] is None
    assert (data["kind"], data["passages_allowed"], data["words"]) == ("person", True, ["launch", "date", "moved"])
    assert [(n["number"], n["file"], n["matched"], n["opening"]) for n in data["notes"]] == [
        (1, "memory/clients.md", ["moved"], False),
        (2, "memory/projects.md", ["launch"], False),
    ]
    assert "the co-design workshop moved to the Stadskantoor" in data["notes"][0]["text"]
    assert [(p["number"], p["conversation"], p["matched"]) for p in data["passages"]] == [
        (3, "launch-room", ["launch", "date", "moved"]),
        (4, "dentist-reminder", ["moved"]),
        (5, "launch-room", ["launch"]),
    ]
    standup = data["passages"][0]
    assert standup["label"] == 'room "Launch"' and standup["conversation_kind"] == "room"
    assert "the launch date moved from Tuesday to Thursday" in standup["text"]
    assert "You: Understood, launch is Thursday." in standup["text"]
    for item in data["notes"] + data["passages"]:
        assert item["date"] and item["text"] in data["block"]
    assert data["block"].startswith("Recalled from your own notes")


def test_recall_in_a_room_gets_notes_only(demo_home, capsys):
    _, out, _ = run(capsys, demo_home, "recall", "scout", "launch date moved", "--kind", "room", "--json")
    assert json.loads(out)["passages"] == []


def test_recall_skips_short_messages(demo_home, capsys):
    code2, out2, err2 = run(capsys, demo_home, "recall", "scout", "hi you")
    assert code2 == 0 and out2 == "" and "shorter than 8" in err2


def test_recall_is_off_when_memory_is_off(demo_home, capsys):
    _, out, _ = run(capsys, demo_home, "recall", "quill", "anything about the launch", "--json")
    data = json.loads(out)
    assert data["block"] == "" and data["skipped"]


def test_search_by_time_alone_and_requires_something(demo_home, capsys):
    code, out, _ = run(capsys, demo_home, "search", "scout", "--since", "3d", "--json")
    assert code == 0 and json.loads(out)["hits"]
    code, _, err = run(capsys, demo_home, "search", "scout")
    assert code == 2 and "--since" in err


def test_brief_never_lists_the_current_chat(demo_home, capsys):
    code, out, _ = run(capsys, demo_home, "brief", "scout", "--json")
    data = json.loads(out)
    assert code == 0 and data["lines"] and len(data["lines"]) <= 10
    current = data["lines"][0]["conversation"]
    _, out, _ = run(capsys, demo_home, "brief", "scout", "--chat", current, "--json")
    assert all(line["conversation"] != current for line in json.loads(out)["lines"])


def test_search_limit_must_be_positive(demo_home, capsys):
    code, _, err = run(capsys, demo_home, "search", "scout", "launch", "--limit", "0")
    assert code == 2 and "--limit" in err


@pytest.mark.parametrize(
    "command", [["recall", "scout", "what did we decide about the launch date"], ["search", "scout", "launch"]]
)
def test_a_build_from_nothing_shows_its_progress_on_a_terminal_only(
    tmp_path, capsys, monkeypatch, todays_demo, command
):
    import sys

    from omb_tui.cli import recall as recall_commands
    from omb_tui.core.index.recall_index import close_all

    monkeypatch.setattr(recall_commands, "INDEX_PROGRESS_FROM_FILES", 5)  # the demo home holds a few dozen files
    for terminal in (False, True):
        home = todays_demo().copy_to(tmp_path / f"home-{terminal}")  # as written, no index yet
        close_all()
        monkeypatch.setattr(sys.stderr, "isatty", lambda terminal=terminal: terminal)
        code, out, err = run(capsys, home, *command)
        assert code == 0 and "launch" in out.lower()
        if terminal:
            line = err.split("\r")[-1]
            assert line.startswith("Indexing scout: ") and line.endswith(" files…\n")
            done, _, total = line[len("Indexing scout: ") : -len(" files…\n")].partition(" of ")
            assert done == total and int(total) >= 5
        else:
            assert "Indexing" not in err
    close_all()


# ----- search across bots: each bot by its own rules, each hit naming its bot -----
def test_search_all_bots_runs_each_bots_search_and_names_the_bot_of_each_hit(run_cli, home):
    from support.home import make_bot

    from omb_tui.core.base import clock
    from omb_tui.core.memory import conversations as conv

    make_bot(home, "atlas", "Atlas")
    for bot_id, text in (("scout", "The Lisbon ferry leaves at 09:10"), ("atlas", "The Porto ferry leaves at noon")):
        chat = conv.Conversation(
            id=f"{bot_id}-plans",
            title="Plans",
            kind=conv.KIND_CHAT,
            started_by=conv.Starter("person", "Nadia"),
            members=[conv.Member("person", "Nadia"), conv.Member("bot", bot_id)],
            created=clock.now(),
        )
        path = conv.create_conversation(home, chat, bot_id)
        conv.append_message(path, conv.Message("person", "Nadia", clock.now(), text, origin="person"))
    result = run_cli("search", "--all-bots", "ferry")
    assert result.code == 0, result.err
    lines = [line for line in result.out.splitlines() if not line.startswith(" ")]
    assert any(line.startswith("scout  ") and "Plans" in line for line in lines)
    assert any(line.startswith("atlas  ") and "Plans" in line for line in lines)
    data = json.loads(run_cli("search", "--all-bots", "ferry", "--json").out)
    by_bot = {entry["bot"]: entry for entry in data["bots"]}
    assert set(by_bot) == {"scout", "atlas"} and data["query"] == "ferry"
    # each bot by its own rules: a bot's search never holds another bot's chat
    assert all("Porto" not in json.dumps(hit) for hit in by_bot["scout"]["hits"])
    assert any("Lisbon" in json.dumps(hit) for hit in by_bot["scout"]["hits"])
    assert all("Lisbon" not in json.dumps(hit) for hit in by_bot["atlas"]["hits"])
    assert run_cli("search", "--all-bots", "ferry", "--chat", "x").code == 2


def test_recall_prints_its_log_line_only_when_asked_or_to_a_terminal(home, run_exe):
    """A script reading `omb-tui recall --json` took the INFO line on stderr for an error: it is said with -v, or
    to a person at a terminal, and otherwise stderr stays empty."""
    import os
    import subprocess

    line = b"auto-recall: scout (person) got 1 note"
    for argv in (["recall", "scout", "window seats"], ["recall", "scout", "window seats", "--json"]):
        quiet = run_exe(*argv)
        assert quiet.returncode == 0 and quiet.stderr == b"", quiet.stderr
        if "--json" in argv:
            assert json.loads(quiet.stdout)["notes"][0]["file"] == "memory/travel.md"
        told = run_exe(*argv, "-v")
        assert told.returncode == 0 and told.stderr.startswith(b"omb-tui: " + line), told.stderr

    # stderr a terminal (a pty), stdout a pipe: a person is watching, so the line is shown
    main_fd, tty_fd = os.openpty()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OMB_")}
        env.update({"OMB_HOME": str(home.root), **clock.carried_env()})
        done = subprocess.run(
            [*omb_tui_command(), "recall", "scout", "window seats", "--json"],
            stdout=subprocess.PIPE,
            stderr=tty_fd,
            env=env,
            timeout=120,
        )
        os.close(tty_fd)
        said = b""
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # the pty's other end closed: all read
                break
            if not chunk:
                break
            said += chunk
    finally:
        os.close(main_fd)
    assert done.returncode == 0 and json.loads(done.stdout)["notes"]
    assert line in said, said
