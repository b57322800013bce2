"""What a hook is sent, or finds, that no well-behaved Claude Code would: it still answers, in its time, in one line.

Each once hung or broke a hook: a transcript path naming a FIFO, a file of gigabytes without a newline, a line of
100 MiB; a conversation file left empty by a full disk; a session id shaped like a credential.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.home import BOT_ID
from support.transcripts import ANSWER, PROMPT, a_turn, payload, write_transcript
from test_hooks import CHAT, chat_file, rows

from omb_tui.core.memory import conversations as conv
from omb_tui.core.redaction.redact import redact
from omb_tui.core.turn.agent_session import chat_id_for
from omb_tui.hooks.transcript import lines_newest_first, read_exchange

pytestmark = pytest.mark.dates  # a transcript's UTC times, read into local ones


def err_line(result) -> str:
    assert result.returncode == 0, result
    text = result.stderr.decode("utf-8")
    assert "Traceback" not in text
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def sparse(path: Path, before: bytes, hole: int, after: bytes) -> Path:
    """`before`, then `hole` zero bytes that take no disk, then `after`."""
    with open(path, "wb") as handle:
        handle.write(before)
        handle.seek(len(before) + hole)
        handle.write(after)
    return path


# ----- point 3: a transcript that would hang the turn -----
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_transcript_path_naming_a_fifo_is_one_line_not_a_hang(run_exe, home, tmp_path):
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)  # nobody writes to it: opening it to read waits for a writer, forever
    before = len(rows(home))
    result = run_exe("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", fifo))
    assert "it is not a regular file" in err_line(result)
    assert not chat_file(home).exists() and len(rows(home)) == before


def test_gigabytes_without_a_newline_are_read_only_so_far_back(run_exe, home, tmp_path):
    path = sparse(tmp_path / "t.jsonl", b"", 2 << 30, b"x")  # 2 GiB, no newline at all
    result = run_exe("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path))
    assert "MiB of the transcript" in err_line(result) and "hold no prompt" in err_line(result)
    assert not chat_file(home).exists()


def test_a_line_of_100_mib_inside_the_turn_is_passed_over_and_the_turn_recorded(run_exe, home, tmp_path):
    prompt, *rest = a_turn()
    before = (json.dumps(prompt) + "\n").encode()
    after = b"\n" + "".join(json.dumps(line) + "\n" for line in rest).encode()
    path = sparse(tmp_path / "t.jsonl", before, 100 << 20, after)  # a 100 MiB line between the prompt and the end
    result = run_exe("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path))
    assert result.returncode == 0 and result.stderr == b"", result
    said = [json.loads(line)["text"] for line in chat_file(home).read_text(encoding="utf-8").splitlines()[1:]]
    assert said == [PROMPT, ANSWER]


@pytest.mark.parametrize("block", [3, 7, 64, 1 << 16])
def test_a_long_line_is_passed_over_and_every_other_line_read_back(tmp_path, block):
    lines = [b"first", b"L" * 100, b"", b"second", b"M" * 41, b"third"]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\nunfinished")
    with open(path, "rb") as handle:
        got = list(lines_newest_first(handle, block=block, max_line=40))
    assert got == [b"third", b"second", b"first"]


def test_a_transcript_that_is_a_link_to_a_device_is_refused(tmp_path):
    link = tmp_path / "t.jsonl"
    link.symlink_to("/dev/zero")
    with pytest.raises(Exception, match="not a regular file"):
        read_exchange(link)


# ----- point 5: a conversation file a full disk left empty -----
@pytest.mark.parametrize("left", [b"", b'{"type":"conv', b"not a header\n"])
def test_a_damaged_conversation_file_is_set_aside_and_the_turn_recorded(run_cli, home, tmp_path, left):
    chat_file(home).parent.mkdir(parents=True, exist_ok=True)
    chat_file(home).write_bytes(left)  # what a Stop on a full disk left behind
    path = write_transcript(tmp_path / "t.jsonl", a_turn())
    prompt_hook = run_cli(
        "hook", "prompt", "--bot", BOT_ID, stdin=payload("UserPromptSubmit", path, prompt="Which shuttle?")
    )
    assert prompt_hook.code == 0 and prompt_hook.err == ""
    stop = run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path))
    assert stop.code == 0 and stop.err == "", stop
    said = [json.loads(line)["text"] for line in chat_file(home).read_text(encoding="utf-8").splitlines()[1:]]
    assert said == [PROMPT, ANSWER]
    kept = [p for p in chat_file(home).parent.iterdir() if p.name.startswith(CHAT + ".ndjson.")]
    assert len(kept) == 1 and kept[0].read_bytes() == left  # set aside as it was, not thrown away
    assert not kept[0].name.endswith(".ndjson")  # and never read as a chat


def test_creating_a_conversation_never_leaves_a_partial_file(home, monkeypatch):
    from omb_tui.core.turn.chats import open_chat

    real_write = os.write

    def full(fd: int, data: bytes) -> int:  # the disk fills after a few bytes of the header
        real_write(fd, data[:5])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError):
        open_chat(home, BOT_ID, CHAT, person="nadia", title="t")
    monkeypatch.undo()
    folder = conv.chats_dir(home, BOT_ID)
    assert not chat_file(home).exists()
    assert [p.name for p in folder.iterdir() if p.name != conv.CHANGES_FILE] == []


# ----- point 12: a session id shaped like a credential -----
@pytest.mark.parametrize(
    "session_id",
    [
        "ghp_" + "R4nd0mT0k3nV4lu3" * 2 + "abcd",
        "sk-ant-api03-" + "Zq7Xv2Lm9Rt4Wp8Ks3Nd6Hf1Jc5Bg0Ya",
        "AKIAIOSFODNN7EXAMPLQ",
        "x" * 60,
    ],
)
def test_a_session_id_shaped_like_a_token_never_names_a_file(run_cli, home, tmp_path, session_id):
    chat = chat_id_for(session_id)
    assert session_id not in chat and redact(chat).text == chat
    path = write_transcript(tmp_path / "t.jsonl", a_turn())
    stop = run_cli("hook", "stop", "--bot", BOT_ID, stdin=payload("Stop", path, session_id=session_id))
    assert stop.code == 0 and stop.err == ""
    names = [p.name for p in conv.chats_dir(home, BOT_ID).iterdir()]
    assert f"{chat}.ndjson" in names
    assert not any(session_id in name for name in names)
    assert session_id not in (conv.chats_dir(home, BOT_ID) / f"{chat}.ndjson").read_text(encoding="utf-8")


def test_a_uuid_session_id_still_names_its_chat():
    assert chat_id_for("5d1e7f0a-93b2-4c1e-8f55-2a6f0c9e4b17") == CHAT
