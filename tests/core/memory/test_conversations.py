"""Conversations on disk: the append-only format, membership and damage."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timezone

import pytest
from support.conversations import make_chat

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home, InvalidName, MemoryInputError, NotFound
from omb_tui.core.memory import conversations as conv

UTC = UTC


def test_round_trip_of_header_and_messages(tmp_path):
    home = Home(tmp_path)
    conversation = make_chat(home)
    at = datetime(2026, 9, 1, 9, 5, tzinfo=UTC)
    conv.append_message(
        conversation.path, conv.Message("person", "Milind", at, "Book the Lisbon hotel", origin="person")
    )
    conv.append_message(conversation.path, conv.Message("bot", "scout", at, "Booked: Baixa Rio.\nConfirmation BR-1"))
    conv.append_message(conversation.path, conv.Message("bot", "scout", at, "The API timed out", failed=True))
    back = conv.read_conversation(conversation.path)
    assert back.id == "plans" and back.kind == "1:1" and back.title == "Plans"
    assert back.started_by == conv.Starter("person", "Milind")
    assert back.members == [conv.Member("person", "Milind"), conv.Member("bot", "scout")]
    assert [m.text for m in back.messages] == [
        "Book the Lisbon hotel",
        "Booked: Baixa Rio.\nConfirmation BR-1",
        "The API timed out",
    ]
    assert [m.seq for m in back.messages] == [0, 1, 2]
    assert back.messages[0].origin == "person" and back.messages[2].failed
    assert back.messages[1].at == at
    # one JSON object per line, the header first
    lines = conversation.path.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "conversation" and len(lines) == 4


def test_files_are_private_and_outside_the_workspace(tmp_path):
    home = Home(tmp_path)
    conversation = make_chat(home)
    assert stat.S_IMODE(os.stat(conversation.path).st_mode) == 0o600
    assert home.workspace("scout") not in conversation.path.parents
    assert conversation.path == tmp_path / "conversations" / "chats" / "scout" / "plans.ndjson"


def test_a_damaged_line_is_skipped_never_an_error(tmp_path):
    home = Home(tmp_path)
    conversation = make_chat(home)
    at = datetime(2026, 9, 1, 9, 5, tzinfo=UTC)
    conv.append_message(conversation.path, conv.Message("person", "Milind", at, "first"))
    with open(conversation.path, "ab") as handle:
        handle.write(b'{"type":"message","text":\n')  # cut off
        handle.write(b"\xff\xfe not json\n")
        handle.write(b'{"type":"message","at":"not a time","author_kind":"person","text":"x"}\n')
        handle.write(b'{"type":"poll","question":"lunch?"}\n')  # a line type from a newer version
        handle.write(b"[1, 2]\n")
    conv.append_message(conversation.path, conv.Message("bot", "scout", at, "second"))
    back = conv.read_conversation(conversation.path)
    assert [m.text for m in back.messages] == ["first", "second"]
    assert [m.seq for m in back.messages] == [0, 1]


def test_a_line_still_being_written_waits(tmp_path):
    home = Home(tmp_path)
    conversation = make_chat(home)
    with open(conversation.path, "ab") as handle:
        handle.write(b'{"type":"message","at":"2026-09-01T09:00:00+00:00","author_kind":"person","text":"half')
    assert conv.read_conversation(conversation.path).messages == []
    with open(conversation.path, "ab") as handle:
        handle.write(b' done"}\n')
    assert [m.text for m in conv.read_conversation(conversation.path).messages] == ["half done"]


def test_a_file_without_a_header_is_not_a_conversation(tmp_path):
    path = tmp_path / "x.ndjson"
    path.write_text('{"type":"message","at":"2026-09-01T09:00:00+00:00","author_kind":"person","text":"hi"}\n')
    assert conv.read_conversation(path) is None
    assert conv.read_conversation(tmp_path / "missing.ndjson") is None


def test_rooms_are_seen_by_their_member_bots_only(tmp_path):
    home = Home(tmp_path)
    room = conv.Conversation(
        id="launch",
        title="Launch",
        kind=conv.KIND_ROOM,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", "scout")],
        created=datetime(2026, 9, 1, tzinfo=UTC),
    )
    path = conv.create_conversation(home, room)
    assert path.parent == tmp_path / "conversations" / "rooms"
    assert [c.id for c in conv.list_conversations(home, "scout")] == ["launch"]
    assert conv.list_conversations(home, "ledger") == []
    with pytest.raises(NotFound):
        conv.find_conversation(home, "ledger", "launch")
    conv.set_members(path, [conv.Member("person", "Milind"), conv.Member("bot", "ledger")])
    assert conv.list_conversations(home, "scout") == []
    assert conv.find_conversation(home, "ledger", "launch").has_bot("ledger")


def test_labels_and_who_started(tmp_path):
    home = Home(tmp_path)
    chat = make_chat(home)
    assert chat.label() == '1:1 with Milind · "Plans"'
    assert chat.recall_kind() == "person"
    routine = make_chat(home, chat_id="digest", starter="routine", person="Morning digest")
    assert routine.recall_kind() == "routine"
    assert routine.label() == 'routine run · "Plans"'
    task = make_chat(home, chat_id="from-bot", starter="bot", person="ledger")
    assert task.recall_kind() == "bot" and task.label() == 'task from ledger · "Plans"'


def test_bad_ids_and_inputs_are_refused(tmp_path):
    home = Home(tmp_path)
    for bad in ["", "../x", ".hidden", "a/b", "a" * 200]:
        with pytest.raises(InvalidName):
            conv.validate_conversation_id(bad)
    make_chat(home)
    with pytest.raises(MemoryInputError):
        make_chat(home)  # exists already
    path = conv.chats_dir(home, "scout") / "plans.ndjson"
    with pytest.raises(MemoryInputError):
        conv.append_message(path, conv.Message("robot", "x", clock.now_utc(), "hi"))
    with pytest.raises(MemoryInputError):
        conv.append_message(path, conv.Message("person", "x", clock.now_utc(), "hi", origin="email"))


def test_naive_times_are_written_with_an_offset(tmp_path):
    home = Home(tmp_path)
    chat = make_chat(home)
    conv.append_message(chat.path, conv.Message("person", "Milind", datetime(2026, 9, 1, 9, 0), "hello there"))
    last = json.loads(chat.path.read_text().splitlines()[-1])
    assert datetime.fromisoformat(last["at"]).tzinfo is not None


def test_reading_without_messages_still_sees_members_and_titles(tmp_path):
    home = Home(tmp_path)
    room = conv.Conversation(
        id="launch",
        title="Launch",
        kind=conv.KIND_ROOM,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("bot", "scout")],
        created=datetime(2026, 9, 1, tzinfo=UTC),
    )
    path = conv.create_conversation(home, room)
    conv.append_message(path, conv.Message("person", "Milind", datetime(2026, 9, 2, tzinfo=UTC), "hi"))
    conv.set_members(path, [conv.Member("bot", "ledger")])
    with open(path, "ab") as handle:
        handle.write(b'{"type":"title","title":"Launch 2.0"}\n')
    light = conv.read_conversation(path, messages=False)
    assert light.messages == [] and light.title == "Launch 2.0" and light.has_bot("ledger")
    assert len(conv.find_conversation(home, "ledger", "launch", with_messages=True).messages) == 1
