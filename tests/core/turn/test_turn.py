"""A bot's turn: the turn boundary in the journal, the per-bot turn lock, and one chat turn with a scripted model.

Spec: "The journal" (bot writes are caught at the turn boundary; a file changed between turns is the
person's, changed outside the app; journaling never fails a turn), "Recall before each turn", "What loads,
and the budget", "What a bot knows about its other conversations" (the daily turn log) and "Remember and
forget, in chat".
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import date, datetime

import pytest

from omb_tui.core.base import clock
from omb_tui.core.files.locks import no_turn_running, turn_in_progress
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.recall.recall import OPENING_LINE
from omb_tui.core.turn import turn as turn_module
from omb_tui.core.turn.tools import MEMORY_UPDATE, run_tool
from omb_tui.core.turn.turn import MAX_TOOL_ROUNDS, NO_ANSWER, bot_turn, chat_turn


def rows(home, n=None):
    return MemoryStore(home, "scout").journal.rows(limit=n)


def who_how(row):
    return (row.file, row.who, row.how, row.chat)


# ----- the turn boundary -----
def test_a_file_the_bot_changed_during_the_turn_is_journaled_as_its_work_in_that_chat(home):
    memory = home.workspace("scout") / "MEMORY.md"
    with bot_turn(home, "scout", chat="plans") as turn:
        # the bot's own file tools: a plain write, and a new topic file, not through the store
        memory.write_text(memory.read_text() + "- 2026-11-30 · the person prefers trains\n")
        (home.workspace("scout") / "memory" / "trains.md").write_text("# Trains\n\n- night trains are fine\n")
        (home.workspace("scout") / "memory" / "log" / "2026-01-05.md").unlink()
    found = {who_how(row) for row in turn.rows}
    assert found == {
        ("MEMORY.md", WHO_BOT, HOW_TASK, "plans"),
        ("memory/trains.md", WHO_BOT, HOW_TASK, "plans"),
        ("memory/log/2026-01-05.md", WHO_BOT, HOW_TASK, "plans"),
    }
    assert {who_how(row) for row in rows(home, 3)} == found
    assert all(row.undoable for row in turn.rows)


def test_a_file_changed_between_turns_is_the_persons_changed_outside_the_app(home):
    topic = home.workspace("scout") / "memory" / "travel.md"
    topic.write_text(topic.read_text() + "- edited in Obsidian\n")  # before the turn
    with bot_turn(home, "scout", chat="plans") as turn:
        pass
    assert turn.rows == []
    assert who_how(rows(home, 1)[0]) == ("memory/travel.md", WHO_PERSON, HOW_OUTSIDE, None)


def test_a_file_tool_edit_before_memory_update_in_the_same_turn_is_the_bots(home):
    memory = home.workspace("scout") / "MEMORY.md"
    with bot_turn(home, "scout", chat="plans") as turn:
        memory.write_text(memory.read_text() + "- 2026-11-30 · written with a file tool\n")
        answer = run_tool(
            home, "scout", MEMORY_UPDATE, '{"action": "add", "text": "Short answers"}', chat=None, store=turn.store
        )
    assert answer == "Saved to MEMORY.md."
    newest = rows(home, 2)
    assert [(r.who, r.how) for r in newest] == [(WHO_BOT, HOW_TASK), (WHO_BOT, HOW_TASK)]
    assert not any(r.how == HOW_OUTSIDE for r in rows(home))


def test_the_persons_save_during_a_turn_stays_the_persons(home):
    with bot_turn(home, "scout", chat="plans") as turn:
        store = MemoryStore(home, "scout")
        current = store.read("MEMORY.md")
        store.write(
            "MEMORY.md",
            current.text + "- saved in the app\n",
            Actor(WHO_PERSON, HOW_COMMAND_LINE),
            expected_hash=current.hash,
        )
    assert turn.rows == []
    assert (rows(home, 1)[0].who, rows(home, 1)[0].how) == (WHO_PERSON, HOW_COMMAND_LINE)


def test_journaling_never_fails_the_turn(home, monkeypatch, caplog):
    def broken(self, **_):
        raise OSError("disk full")

    monkeypatch.setattr(MemoryStore, "sync_outside_changes", broken)
    with bot_turn(home, "scout", chat="plans") as turn:
        (home.workspace("scout") / "MEMORY.md").write_text("- changed\n")
        finished = True
    assert finished and turn.rows == []
    assert "could not journal the turn's changes to memory: disk full" in caplog.text


def test_the_first_turn_makes_the_bots_workspace(tmp_path):
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "fresh")
    with bot_turn(home, "quill", chat="notes"):
        assert home.workspace("quill").is_dir()
    assert oct(home.workspace("quill").stat().st_mode & 0o777) == "0o700"


def test_the_bots_changes_are_journaled_even_when_the_turn_raises(home):
    memory = home.workspace("scout") / "MEMORY.md"
    with pytest.raises(RuntimeError):
        with bot_turn(home, "scout", chat="plans"):
            memory.write_text("- half way\n")
            raise RuntimeError("the harness broke")
    assert who_how(rows(home, 1)[0]) == ("MEMORY.md", WHO_BOT, HOW_TASK, "plans")


# ----- the per-bot turn lock, across processes -----
TURN_IN_ANOTHER_PROCESS = """
import sys
from omb_tui.core.files.paths import Home
from omb_tui.core.turn.turn import bot_turn
with bot_turn(Home(sys.argv[1]), "scout", chat="plans"):
    print("in the turn", flush=True)
    sys.stdin.readline()
print("turn over", flush=True)
"""

CHECK_IN_ANOTHER_PROCESS = """
import sys
from omb_tui.core.files.paths import Home
from omb_tui.core.files.locks import no_turn_running, turn_in_progress
home = Home(sys.argv[1])
with no_turn_running(home, "scout") as free:
    print(turn_in_progress(home, "ledger"), free)
"""


def test_another_process_sees_the_bot_in_a_turn_and_the_persons_saves_go_on(home):
    assert turn_in_progress(home, "scout") is False
    turn = subprocess.Popen(
        [sys.executable, "-c", TURN_IN_ANOTHER_PROCESS, str(home.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert turn.stdout.readline() == "in the turn\n"
        assert turn_in_progress(home, "scout") is True
        with no_turn_running(home, "scout") as free:
            assert free is False  # upkeep would leave the bot alone now
        # the store's write lock is not held for the turn: a person's save goes through at once
        result = MemoryStore(home, "scout").write("memory/notes.md", "# Notes\n", Actor(WHO_PERSON, HOW_COMMAND_LINE))
        assert result.changed
        turn.stdin.write("\n")
        turn.stdin.flush()
        assert turn.stdout.readline() == "turn over\n"
    finally:
        turn.stdin.close()
        turn.wait()
    assert turn_in_progress(home, "scout") is False
    with no_turn_running(home, "scout") as free:
        assert free is True


def test_a_turn_in_this_process_is_seen_by_another_one(home):
    def check() -> str:
        return subprocess.run(
            [sys.executable, "-c", CHECK_IN_ANOTHER_PROCESS, str(home.root)], capture_output=True, text=True, check=True
        ).stdout

    with bot_turn(home, "scout", chat="plans"):
        assert check() == "False False\n"  # ledger is not in a turn; scout is, so upkeep may not hold it
    assert check() == "False True\n"


# ----- one chat turn with a scripted model -----
@dataclass
class Answer:
    """The shape of call.ModelAnswer."""

    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)
    data: object = None
    message: dict = field(default_factory=dict)
    usage_row: dict = field(default_factory=dict)


def tool_call(name, arguments, call_id="call_1"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


class ScriptedModel:
    """A `complete` that answers from a script and keeps every request it was sent."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def __call__(self, home, bot_id, job, messages, *, schema=None, tools=None, timeout=None):
        self.requests.append(
            {
                "bot": bot_id,
                "job": job,
                "messages": json.loads(json.dumps(messages)),
                "tools": [t["function"]["name"] for t in tools or []],
                "schemas": {t["function"]["name"]: t["function"] for t in tools or []},
            }
        )
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if answer.tool_calls and not answer.message:
            answer.message = {"role": "assistant", "content": answer.text or None, "tool_calls": answer.tool_calls}
        return answer


class ModelUnavailable(Exception):
    """Like call.ModelUnavailable: the reason is one sentence."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def chat_lines(home, chat="plans"):
    path = conv.chats_dir(home, "scout") / f"{chat}.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines()]


def turn_log(home):
    path = home.workspace("scout") / "memory" / "log" / f"{clock.today().isoformat()}.md"
    return path.read_text() if path.exists() else ""


def test_a_plain_turn_creates_the_chat_and_records_both_messages_and_the_log_line(home):
    model = ScriptedModel(Answer("Window seats, as always."))
    result = chat_turn(
        home, "scout", "Book me window seats on the train to Lisbon", chat="plans", person="Milind", complete=model
    )
    assert (result.answer, result.failed, result.tool_calls) == ("Window seats, as always.", False, [])
    header, asked, answered = chat_lines(home)
    assert (header["kind"], header["started_by"], header["id"]) == (
        "1:1",
        {"kind": "person", "name": "Milind"},
        "plans",
    )
    assert (asked["author_kind"], asked["author"], asked["origin"]) == ("person", "Milind", "person")
    assert asked["text"] == "Book me window seats on the train to Lisbon"
    assert (answered["author_kind"], answered["author"], answered["text"], answered["failed"]) == (
        "bot",
        "scout",
        "Window seats, as always.",
        False,
    )
    assert 'from chat "plans" · no tools · said: "Window seats, as always."' in turn_log(home)
    log_row = rows(home, 1)[0]
    assert (log_row.file.startswith("memory/log/"), log_row.who, log_row.how, log_row.chat) == (
        True,
        WHO_BOT,
        HOW_TASK,
        "plans",
    )


def test_the_model_gets_the_memory_block_in_the_system_prompt_and_recall_in_front_of_the_message(home):
    model = ScriptedModel(Answer("Noted."))
    chat_turn(home, "scout", "Book me window seats on the train to Lisbon", chat="plans", complete=model)
    request = model.requests[0]
    assert (request["bot"], request["job"], request["tools"]) == ("scout", "chat", ["memory_update", "session_search"])
    system, user = request["messages"][0], request["messages"][-1]
    assert system["role"] == "system"
    assert "## Memory (MEMORY.md)" in system["content"] and "The person lives in Pune" in system["content"]
    assert user["role"] == "user" and user["content"].startswith(OPENING_LINE)
    assert "likes window seats" in user["content"]  # the travel topic's note, recalled
    assert user["content"].endswith("\n\nBook me window seats on the train to Lisbon")
    assert OPENING_LINE not in system["content"]


def test_remember_in_chat_lands_in_memory_as_a_journaled_bot_change(home):
    model = ScriptedModel(
        Answer(tool_calls=[tool_call("memory_update", {"action": "add", "text": "Short answers, times in IST"})]),
        Answer("Got it: short answers, and times in India time."),
    )
    result = chat_turn(home, "scout", "Remember: short answers, and I'm in India", chat="plans", complete=model)
    assert result.answer == "Got it: short answers, and times in India time."
    assert [(c.name, c.result) for c in result.tool_calls] == [("memory_update", "Saved to MEMORY.md.")]
    memory = (home.workspace("scout") / "MEMORY.md").read_text()
    assert 'from chat "plans" · Short answers, times in IST' in memory
    memory_row = next(r for r in rows(home) if r.file == "MEMORY.md")
    assert (memory_row.who, memory_row.how, memory_row.chat) == (WHO_BOT, HOW_TASK, "plans")
    # the second request carries the tool call and what the tool said
    second = model.requests[1]["messages"]
    assert second[-2]["role"] == "assistant" and second[-2]["tool_calls"][0]["function"]["name"] == "memory_update"
    assert second[-1] == {"role": "tool", "tool_call_id": "call_1", "content": "Saved to MEMORY.md."}
    assert 'tools: memory_update · said: "Got it: short answers, and times in India time."' in turn_log(home)


def test_the_tool_loop_is_bounded(home):
    endless = ScriptedModel(Answer(tool_calls=[tool_call("session_search", {"since": "24h"})]))
    result = chat_turn(home, "scout", "What happened today?", chat="plans", complete=endless)
    assert len(result.tool_calls) == MAX_TOOL_ROUNDS
    assert result.model_calls == MAX_TOOL_ROUNDS + 1
    assert (result.failed, result.answer) == (True, NO_ANSWER)
    notice = chat_lines(home)[-1]  # the app's notice, never a line in the bot's name
    assert (notice["author_kind"], notice["failed"], notice["text"]) == ("harness", True, f"Not answered: {NO_ANSWER}")
    # the model took part (its tools ran), so the turn is in the daily log, marked failed
    assert "the turn failed · tools: session_search" in turn_log(home)


def test_a_turn_no_model_answered_keeps_the_words_marked_not_answered_and_nothing_as_the_bots(home):
    model = ScriptedModel(ModelUnavailable("No model is set up for scout: give it an instance or set the helper."))
    result = chat_turn(home, "scout", "Hello there, anyone?", chat="plans", complete=model)
    assert result.model_unavailable and result.failed
    assert result.answer == "No model is set up for scout: give it an instance or set the helper."
    header, asked, notice = chat_lines(home)
    assert (asked["author_kind"], asked["text"], asked["origin"]) == ("person", "Hello there, anyone?", "person")
    assert (notice["author_kind"], notice["author"], notice["failed"]) == ("harness", "omb-tui", True)
    assert notice["text"] == "Not answered: No model is set up for scout: give it an instance or set the helper."
    assert not any(line.get("author_kind") == "bot" for line in chat_lines(home))
    assert turn_log(home) == ""  # no model was reached: the bot did nothing to log


def test_the_unanswered_words_are_not_sent_again_as_a_reply_and_the_next_turn_goes_on(home):
    chat_turn(home, "scout", "Hello there, anyone?", chat="plans", complete=ScriptedModel(ModelUnavailable("down")))
    model = ScriptedModel(Answer("Here now."))
    chat_turn(home, "scout", "Are you back?", chat="plans", complete=model)
    sent = [m["content"] for m in model.requests[0]["messages"][1:]]
    assert sent[0] == "Hello there, anyone?" and sent[-1].endswith("Are you back?")
    assert not any("Not answered" in text for text in sent)  # the notice is the app's, never the bot's history


def test_with_memory_off_no_memory_loads_no_memory_tool_and_no_turn_log(home):
    update_bot_settings(home, "scout", memory=False)
    model = ScriptedModel(Answer("Hello."))
    chat_turn(home, "scout", "Book me window seats on the train to Lisbon", chat="plans", complete=model)
    request = model.requests[0]
    assert request["tools"] == ["session_search"]
    assert "The person lives in Pune" not in request["messages"][0]["content"]
    assert request["messages"][-1]["content"] == "Book me window seats on the train to Lisbon"
    assert turn_log(home) == ""


def test_the_next_turn_sees_the_conversation_so_far(home):
    chat_turn(home, "scout", "My name is Milind.", chat="plans", complete=ScriptedModel(Answer("Hello Milind.")))
    model = ScriptedModel(Answer("Milind."))
    chat_turn(home, "scout", "What is my name?", chat="plans", complete=model)
    history = [(m["role"], m["content"]) for m in model.requests[0]["messages"][1:]]
    assert history == [("user", "My name is Milind."), ("assistant", "Hello Milind."), ("user", "What is my name?")]


def test_a_turn_in_an_existing_chat_uses_its_person(home):
    chat = conv.Conversation(
        id="plans",
        title="Plans",
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", "Dana"),
        members=[conv.Member("person", "Dana"), conv.Member("bot", "scout")],
        created=datetime(2026, 11, 1).astimezone(),
    )
    conv.create_conversation(home, chat, "scout")
    chat_turn(home, "scout", "Hello again", chat="plans", complete=ScriptedModel(Answer("Hi Dana.")))
    assert chat_lines(home)[1]["author"] == "Dana"
    assert "1:1 with Dana" in turn_module.system_prompt(home, "scout", chat)
