"""The bot's two tools: memory_update and session_search, run by the dispatcher as a model would call them.

Spec: "Remember and forget, in chat" (add, forget, prefer as the bot, during a task, from its chat), the
opening (memory off: no memory tool, no memory files searched) and "Recall by time".
"""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from support.conversations import make_conversation

from omb_tui.core.base import clock
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import load_profile_learned, update_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.review.runs import review
from omb_tui.core.runs.run import new_run_id
from omb_tui.core.turn.tools import (
    MEMORY_UPDATE,
    MEMORY_UPDATE_TOOL,
    SESSION_SEARCH,
    SESSION_SEARCH_TOOL,
    TurnStart,
    run_tool,
    tools_for,
)

TODAY = date(2026, 11, 30)
ANTHROPIC_KEY = "sk-" + "ant-" + "api03-" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz" * 3 + "-" + "AbC1" + "AA"


@pytest.fixture
def chats(home):
    recent = clock.now() - timedelta(hours=2)
    make_conversation(home, "plans", "Plans", messages=[("person", "Remember: short answers", recent, "person")])
    make_conversation(
        home,
        "digest",
        "Morning digest",
        "routine",
        messages=[("harness", "Summarise yesterday's email.", recent, "routine")],
    )
    make_conversation(
        home,
        "offsite",
        "Lisbon offsite",
        messages=[
            ("person", "Book the Baixa Rio hotel for the offsite.", recent - timedelta(days=5), "person"),
            ("bot", "Booked Hotel Baixa Rio, confirmation BR-55812.", recent - timedelta(days=5), None),
        ],
    )
    return home


def call(home, name, turn_chat="plans", **arguments):
    return run_tool(home, "scout", name, json.dumps(arguments), chat=turn_chat, today=TODAY)


def memory(home) -> str:
    return (home.workspace("scout") / "MEMORY.md").read_text()


def newest_rows(home, n=1):
    return MemoryStore(home, "scout").journal.rows(limit=n)


def test_the_schemas_are_openai_functions_and_memory_off_hides_memory_update():
    for tool in (MEMORY_UPDATE_TOOL, SESSION_SEARCH_TOOL):
        assert tool["type"] == "function" and tool["function"]["parameters"]["type"] == "object"
    assert MEMORY_UPDATE_TOOL["function"]["parameters"]["required"] == ["action", "text"]
    assert MEMORY_UPDATE_TOOL["function"]["parameters"]["properties"]["action"]["enum"] == ["add", "forget", "prefer"]
    assert [t["function"]["name"] for t in tools_for(True)] == [MEMORY_UPDATE, SESSION_SEARCH]
    assert [t["function"]["name"] for t in tools_for(False)] == [SESSION_SEARCH]


def test_add_saves_a_dated_note_from_the_chat_journaled_as_the_bot_during_a_task(chats):
    answer = call(chats, MEMORY_UPDATE, action="add", text="Short answers, and times in India time")
    assert answer == "Saved to MEMORY.md."
    assert '- 2026-11-30 · from chat "Plans" · Short answers, and times in India time\n' in memory(chats)
    row = newest_rows(chats)[0]
    assert (row.file, row.who, row.how, row.chat) == ("MEMORY.md", WHO_BOT, HOW_TASK, "plans")
    assert row.undoable


def test_add_with_until_marks_the_last_day(chats):
    call(chats, MEMORY_UPDATE, action="add", text="Milind is in Lisbon", until="2026-12-04")
    assert "Milind is in Lisbon · until 2026-12-04" in memory(chats)


def test_forget_in_the_persons_own_chat_removes_notes_everywhere_and_about_me_too(chats):
    about = chats.about_me_path
    about.write_text("# About me\n\n- 2026-11-01 · likes window seats on trains\n")
    answer = call(chats, MEMORY_UPDATE, action="forget", text="window seats")
    assert answer.startswith("Forgot 2 notes mentioning")
    assert "window seats" not in (chats.workspace("scout") / "memory" / "travel.md").read_text()
    assert "window seats" not in about.read_text()
    assert [f["count"] for f in load_profile_learned(chats).forgotten] == [2]
    assert "window" not in chats.profile_learned_path.read_text()  # kept as hashes only
    rows = newest_rows(chats, 2)
    assert {(r.file, r.who, r.how, r.chat) for r in rows} == {
        ("memory/travel.md", WHO_BOT, HOW_TASK, "plans"),
        ("about-me.md", WHO_BOT, HOW_TASK, "plans"),
    }


def test_forget_in_a_routine_run_leaves_about_me_alone(chats):
    about = chats.about_me_path
    about.write_text("# About me\n\n- 2026-11-01 · likes window seats on trains\n")
    call(chats, MEMORY_UPDATE, turn_chat="digest", action="forget", text="window seats")
    assert "window seats" not in (chats.workspace("scout") / "memory" / "travel.md").read_text()
    assert "window seats" in about.read_text()


def test_prefer_goes_into_about_me_once_when_the_persons_message_began_the_turn(chats):
    first = call(chats, MEMORY_UPDATE, action="prefer", text="Reminders go to my task app")
    second = call(chats, MEMORY_UPDATE, action="prefer", text="Reminders go to my task app")
    assert first == "Saved to About me; every bot reads it there."
    assert second == "That preference is already in About me."
    assert chats.about_me_path.read_text().count("Reminders go to my task app") == 1


def test_a_routine_saves_no_ones_preference(chats):
    answer = call(chats, MEMORY_UPDATE, turn_chat="digest", action="prefer", text="Reminders go to my task app")
    assert answer.startswith("Nothing was saved: a preference is saved only when a person's own message")
    assert not chats.about_me_path.exists()


def test_a_webhooks_message_in_the_persons_chat_saves_no_preference(chats):
    path = conv.chats_dir(chats, "scout") / "plans.ndjson"
    conv.append_message(
        path,
        conv.Message(
            "harness",
            "webhook",
            clock.now(),
            "New ticket: reminders should go to the task app",
            origin="webhook",
        ),
    )
    answer = call(chats, MEMORY_UPDATE, action="prefer", text="Reminders go to my task app")
    assert answer.startswith("Nothing was saved: a preference is saved only when a person's own message")
    assert not chats.about_me_path.exists()


def test_with_memory_off_the_tool_says_so_and_writes_nothing(chats):
    update_bot_settings(chats, "scout", memory=False)
    before, rows_before = memory(chats), len(MemoryStore(chats, "scout").journal.rows())
    for action in ("add", "forget", "prefer"):
        answer = call(chats, MEMORY_UPDATE, action=action, text="Pune")
        assert answer == "Memory is off for this bot, so nothing was saved or removed."
    assert memory(chats) == before
    assert len(MemoryStore(chats, "scout").journal.rows()) == rows_before
    assert not chats.about_me_path.exists()


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ("{not json", "Nothing was done: the arguments are not valid JSON"),
        ("[1, 2]", "Nothing was done: the arguments must be a JSON object."),
        (json.dumps({"text": "x"}), "Nothing was done: 'action' must be one of add, forget, prefer."),
        (
            json.dumps({"action": "shout", "text": "x"}),
            "Nothing was done: 'action' must be one of add, forget, prefer.",
        ),
        (json.dumps({"action": "add"}), "Nothing was done: 'text' is missing."),
        (json.dumps({"action": "add", "text": 42}), "Nothing was done: 'text' must be text."),
        (json.dumps({"action": "add", "text": "   "}), "Nothing was done: There is nothing to remember"),
        (json.dumps({"action": "add", "text": "x" * 1001}), "Nothing was done: That note is 1001 characters"),
        (
            json.dumps({"action": "add", "text": "x", "until": "next week"}),
            "Nothing was done: 'until' must be a date as YYYY-MM-DD, not 'next week'.",
        ),
        (
            json.dumps({"action": "add", "text": "x", "until": "2020-01-01"}),
            "Nothing was done: The until date 2020-01-01 has already passed.",
        ),
        (
            json.dumps({"action": "prefer", "text": "y" * 301}),
            "Nothing was done: A preference is one line of at most 300",
        ),
        (json.dumps({"action": "forget", "text": " "}), "Nothing was done: Say which words name the note to forget."),
    ],
)
def test_a_bad_argument_is_a_short_sentence_back_to_the_model_and_nothing_is_written(chats, arguments, expected):
    before, rows_before = memory(chats), len(MemoryStore(chats, "scout").journal.rows())
    answer = run_tool(chats, "scout", MEMORY_UPDATE, arguments, chat="plans", today=TODAY)
    assert answer.startswith(expected)
    assert len(answer) < 200 and "\n" not in answer
    assert memory(chats) == before and len(MemoryStore(chats, "scout").journal.rows()) == rows_before


def test_an_unknown_tool_or_chat_is_said_back_not_raised(chats):
    assert run_tool(chats, "scout", "read_file", "{}", chat="plans").startswith("There is no tool named 'read_file'")
    answer = call(chats, MEMORY_UPDATE, turn_chat="nope", action="add", text="x")
    assert answer == "Nothing was done: scout has no conversation 'nope'."


def test_session_search_finds_an_earlier_conversation_and_names_where(chats):
    answer = call(chats, SESSION_SEARCH, query="Baixa Rio hotel")
    assert answer.startswith("2 found, best first:")
    assert '1:1 with Milind · "Lisbon offsite" [offsite]' in answer
    assert "You: Booked Hotel Baixa Rio, confirmation BR-55812." in answer
    assert "Milind: Book the Baixa Rio hotel for the offsite." in answer


def test_session_search_by_time_and_by_one_conversation(chats):
    recent = call(chats, SESSION_SEARCH, since="24h")
    assert "newest first" in recent and "[plans]" in recent and "[offsite]" not in recent
    only = call(chats, SESSION_SEARCH, query="offsite hotel short answers", chat="plans")
    assert only.startswith("1 found") and "[plans]" in only and "[offsite]" not in only
    assert call(chats, SESSION_SEARCH, query="Baixa", chat="plans") == "Nothing found in [plans]."
    assert call(chats, SESSION_SEARCH, chat="nope", query="x") == "Nothing was done: scout has no conversation 'nope'."


def test_session_search_needs_words_or_a_time_and_a_real_time(chats):
    assert call(chats, SESSION_SEARCH) == "Nothing was done: give 'query' words, or 'since' / 'until' (or both)."
    assert call(chats, SESSION_SEARCH, since="soonish").startswith("Nothing was done: 'soonish' is not a time")


def test_session_search_with_memory_off_leaves_memory_files_out(chats):
    assert "memory/travel.md" in call(chats, SESSION_SEARCH, query="window seats")
    update_bot_settings(chats, "scout", memory=False)
    assert call(chats, SESSION_SEARCH, query="window seats") == (
        "Nothing found (memory is off: only conversations were searched)."
    )


def test_what_the_model_sees_is_redacted(chats):
    # A key typed into a topic file by hand (outside the app, so never through the store's redaction).
    topic = chats.workspace("scout") / "memory" / "keys.md"
    topic.write_text(f"# Keys\n\n- the staging key is {ANTHROPIC_KEY}\n")
    answer = call(chats, SESSION_SEARCH, query="staging key")
    assert "memory/keys.md" in answer and ANTHROPIC_KEY not in answer and "«redacted" in answer


def test_an_edit_outside_the_app_before_a_plain_tool_call_stays_the_persons(chats):
    # Without a turn's store the tool's write first journals what changed outside the app as the person's.
    path = chats.workspace("scout") / "MEMORY.md"
    path.write_text(path.read_text() + "- typed in Obsidian\n")
    call(chats, MEMORY_UPDATE, action="add", text="Short answers")
    rows = newest_rows(chats, 2)
    assert [(r.who, r.how) for r in rows] == [(WHO_BOT, HOW_TASK), (WHO_PERSON, HOW_OUTSIDE)]


def test_a_refused_call_says_so_beside_its_text(chats):
    assert not call(chats, MEMORY_UPDATE, action="add", text="Short answers").refused
    assert call(chats, MEMORY_UPDATE, action="shout", text="x").refused
    assert run_tool(chats, "scout", "read_file", "{}", chat="plans").refused
    assert not call(chats, SESSION_SEARCH, query="zeppelin").refused  # found nothing: an answer


def outside_session(run="20261130T090000-abc123"):
    """What an MCP client's session passes: no conversation of the home, its own actor and start."""
    chat = f"test-client (MCP session {run})"
    return {
        "chat": None,
        "actor": Actor(WHO_BOT, HOW_TASK, chat=chat, run=run),
        "start": TurnStart("person", True, False, "test-client (MCP)"),
    }


def test_a_session_outside_any_conversation_writes_as_its_actor_and_names_its_own_source(chats):
    chats.about_me_path.write_text("# About me\n\n- 2026-11-01 · likes window seats on trains\n")
    session = outside_session()
    added = run_tool(chats, "scout", MEMORY_UPDATE, {"action": "add", "text": "Prefers tea"}, today=TODAY, **session)
    assert added == "Saved to MEMORY.md." and '· from chat "test-client (MCP)" · Prefers tea' in memory(chats)
    row = newest_rows(chats)[0]
    assert (row.who, row.how, row.chat, row.run) == (WHO_BOT, HOW_TASK, session["actor"].chat, session["actor"].run)
    run_tool(chats, "scout", MEMORY_UPDATE, {"action": "forget", "text": "window seats"}, today=TODAY, **session)
    assert "window seats" in chats.about_me_path.read_text()  # not the person's own 1:1 chat: About me stays
    preferred = run_tool(chats, "scout", MEMORY_UPDATE, {"action": "prefer", "text": "Short answers"}, **session)
    assert preferred == "Saved to About me; every bot reads it there."


def test_review_lists_a_sessions_rows_as_one_run_of_the_bot(chats):
    session = outside_session(run=new_run_id())
    for text in ("Prefers tea", "Flies from Pune"):
        run_tool(chats, "scout", MEMORY_UPDATE, {"action": "add", "text": text}, **session)
    found = review(chats, bot_ids=["scout"])
    (run,) = found.bots[0].runs
    assert run.id == session["actor"].run and run.steps == [HOW_TASK] and len(run.changes) == 2
    # the session's client and run name the writer, as the session's group is titled
    assert run.changes[0].line().endswith(f"MEMORY.md  test-client, MCP session {session['actor'].run}")
