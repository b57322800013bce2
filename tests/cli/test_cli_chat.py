"""`omb-tui chat BOT [--chat ID]`: a line-oriented conversation, as from a script or over SSH.

The model is scripted: the turn's default `complete` is replaced by one that answers from a list.
"""

from __future__ import annotations

import json
import re

from support.scripted_model import Answer, Unavailable, model  # noqa: F401 (model: the fixture)

from omb_tui.core.journal.journal import HOW_TASK, WHO_BOT
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.turn import turn as turn_module


def chat_messages(home, chat_id):
    path = conv.chats_dir(home, "scout") / f"{chat_id}.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def test_each_line_of_stdin_is_a_message_and_each_answer_is_printed(run_cli, home, model):
    model.answers += [Answer("Hello Milind."), Answer("Twice.")]
    result = run_cli("chat", "scout", "--chat", "plans", stdin=b"Hello there\n\n   \nSay it twice\n")
    assert result.code == 0, result.err
    assert result.out == "Hello Milind.\nTwice.\n"
    texts = [(m["author_kind"], m["text"]) for m in chat_messages(home, "plans")]
    assert texts == [("person", "Hello there"), ("bot", "Hello Milind."), ("person", "Say it twice"), ("bot", "Twice.")]
    assert len(model.requests) == 2  # blank lines are not messages


def test_without_chat_a_new_conversation_is_started_and_named_on_stderr(run_cli, home, model):
    model.answers.append(Answer("Hi."))
    result = run_cli("chat", "scout", stdin=b"Hello\n")
    assert result.code == 0 and result.out == "Hi.\n"
    chats = conv.list_conversations(home, "scout")
    assert len(chats) == 1 and chats[0].id.startswith("chat-") and chats[0].started_by.kind == "person"
    assert f"continue it later with --chat {chats[0].id}" in result.err


def test_remember_in_the_chat_lands_in_memory_as_the_bots_journaled_change(run_cli, home, model):
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "memory_update", "arguments": '{"action": "add", "text": "Short answers"}'},
    }
    model.answers += [Answer(tool_calls=[call]), Answer("Got it: short answers.")]
    result = run_cli("chat", "scout", "--chat", "plans", stdin=b"Remember: short answers\n")
    assert result.code == 0 and result.out == "Got it: short answers.\n"
    assert "  · memory_update: Saved to MEMORY.md." in result.err
    assert 'from chat "plans" · Short answers' in (home.workspace("scout") / "MEMORY.md").read_text()
    row = next(r for r in MemoryStore(home, "scout").journal.rows() if r.file == "MEMORY.md")
    assert (row.who, row.how, row.chat) == (WHO_BOT, HOW_TASK, "plans")


def test_each_tool_call_is_one_line_on_stderr(run_cli, home, model):
    search = {"id": "c1", "type": "function", "function": {"name": "session_search", "arguments": '{"since": "7d"}'}}
    model.answers += [Answer(tool_calls=[search]), Answer("Nothing much.")]
    conv.create_conversation(
        home,
        conv.Conversation(
            id="plans",
            title="Plans",
            kind=conv.KIND_CHAT,
            started_by=conv.Starter("person", "Milind"),
            members=[conv.Member("person", "Milind"), conv.Member("bot", "scout")],
            created=conv.parse_time("2026-11-01T09:00:00+00:00"),
        ),
        "scout",
    )
    result = run_cli("chat", "scout", "--chat", "plans", stdin=b"What happened this week?\n")
    tool_lines = [line for line in result.err.splitlines() if line.startswith("  · ")]
    assert len(tool_lines) == 1 and "\\n" not in tool_lines[0]  # the hits themselves are not on the terminal
    assert re.fullmatch(r"  · session_search: \d+ found, newest first: \(\+\d+ lines\)", tool_lines[0])


def test_an_unavailable_model_is_one_sentence_and_a_non_zero_exit(run_cli, home, model):
    model.answers.append(Unavailable("No model is set up for scout: give it an instance or set the helper."))
    result = run_cli("chat", "scout", "--chat", "plans", stdin=b"Hello\nAnother\n")
    assert result.code == 1
    assert result.out == ""
    assert result.err.strip().splitlines()[-1] == (
        "omb-tui: No model is set up for scout: give it an instance or set the helper."
    )
    assert "Traceback" not in result.err
    assert len(model.requests) == 1  # the chat stops at the first turn no model could answer
    # kept as the app's Send keeps it: the words, then the app's notice; nothing in the bot's name
    assert [(m["author_kind"], m["failed"], m["text"]) for m in chat_messages(home, "plans")] == [
        ("person", False, "Hello"),
        ("harness", True, "Not answered: No model is set up for scout: give it an instance or set the helper."),
    ]


def test_a_failed_turn_is_marked_and_the_exit_is_non_zero(run_cli, home, model, monkeypatch):
    monkeypatch.setattr(turn_module, "MAX_TOOL_ROUNDS", 1)
    call = {"id": "c1", "type": "function", "function": {"name": "session_search", "arguments": '{"since": "1d"}'}}
    model.answers += [Answer(tool_calls=[call]), Answer(tool_calls=[call])]
    result = run_cli("chat", "scout", "--chat", "plans", stdin=b"What happened?\n")
    assert result.code == 1
    assert result.out.startswith("(the turn failed) The bot kept calling tools")
    asked, notice = chat_messages(home, "plans")
    assert (asked["author_kind"], asked["text"]) == ("person", "What happened?")
    assert (notice["author_kind"], notice["failed"]) == ("harness", True)
    assert notice["text"].startswith("Not answered: The bot kept calling tools")


def test_bad_inputs_are_one_sentence(run_cli, model):
    missing = run_cli("chat", "nobody", stdin=b"Hello\n")
    assert missing.code == 2 and missing.err.startswith("omb-tui: There is no bot 'nobody'")
    bad_id = run_cli("chat", "scout", "--chat", "../x", stdin=b"Hello\n")
    assert bad_id.code == 2 and "is not a valid conversation id" in bad_id.err
    assert model.requests == []


def test_the_reason_no_model_answers_is_said_once(run_exe):
    """The installed command with no instance and no helper: the one sentence, not also the model layer's log."""
    proc = run_exe("chat", "scout", "--chat", "plans", stdin=b"Hello\n", env={"OMB_HELPER_INSTANCE": ""})
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "Traceback" not in err
    reason_lines = [
        line
        for line in err.splitlines()
        if "fall back" in line or "No model" in line or "no model" in line or "helper" in line
    ]
    assert len(reason_lines) == 1, err


def test_a_chat_that_ends_normally_keeps_its_unread_turns_for_capture(run_cli, home, model):
    from omb_tui.core.upkeep.capture_state import read_pending

    model.answers += [Answer("Porto, noted."), Answer("Sure.")]
    result = run_cli("chat", "scout", "--chat", "plans", stdin=b"I moved to Porto\nThanks\n")
    assert result.code == 0
    assert {"bot": "scout", "conversation": "plans"} in [
        {"bot": item["bot"], "conversation": item["conversation"]} for item in read_pending(home)
    ]


def test_a_credential_in_the_answer_is_printed_redacted_as_it_is_stored(run_cli, home, model):
    key = "ghp_" + "Zq7Xv2Lm9Rt4Wp8Ks3Nd6Hf1Jc5Bg0YaQ2wE"
    model.answers.append(Answer(f"The deploy key is {key}, use it below."))
    result = run_cli("chat", "scout", "--chat", "plans", stdin=b"Which key?\n")
    assert result.code == 0, result.err
    assert key not in result.out and "«redacted" in result.out and "use it below" in result.out
    assert key not in json.dumps(chat_messages(home, "plans"))
