"""What Claude Code sends a hook and writes to its transcript, in the shapes it uses: shared by the hook tests and
the Team Cloud privacy properties."""

from __future__ import annotations

import json
from pathlib import Path

SESSION = "5d1e7f0a-93b2-4c1e-8f55-2a6f0c9e4b17"
CWD = "/home/nadia/code/atlas-site"
PROMPT = "Check the Lisbon booking and note the shuttle time in my travel notes."
ANSWER = "Done: the shuttle meets the 09:40 arrival, and it is in your travel notes now."


# ----- what Claude Code sends -----
def payload(event: str, transcript: Path | None = None, **extra: object) -> bytes:
    data: dict[str, object] = {
        "session_id": SESSION,
        "transcript_path": str(transcript or "/nonexistent/transcript.jsonl"),
        "cwd": CWD,
        "permission_mode": "default",
        "hook_event_name": event,
    }
    data.update(extra)
    return json.dumps(data).encode("utf-8")


def _line(kind: str, uuid: str, parent: str | None, message: dict, at: str, **extra: object) -> dict:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": SESSION,
        "version": "2.1.30",
        "gitBranch": "main",
        "type": kind,
        "message": message,
        "uuid": uuid,
        "timestamp": at,
        **extra,
    }


def user(uuid: str, parent: str | None, content: object, at: str, **extra: object) -> dict:
    return _line("user", uuid, parent, {"role": "user", "content": content}, at, **extra)


def assistant(uuid: str, parent: str, blocks: list[dict], at: str, **extra: object) -> dict:
    message = {
        "id": f"msg_{uuid[:8]}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": blocks,
        "stop_reason": None,
        "usage": {"input_tokens": 12, "output_tokens": 40},
    }
    return _line("assistant", uuid, parent, message, at, requestId=f"req_{uuid[:8]}", **extra)


def tool_use(tool_id: str, name: str, tool_input: dict) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def tool_result(tool_id: str, text: str) -> list[dict]:
    return [{"tool_use_id": tool_id, "type": "tool_result", "content": text, "is_error": False}]


def a_turn(prompt: str = PROMPT, answer: str = ANSWER, first: int = 1) -> list[dict]:
    """One turn as Claude Code writes it: the prompt, a Read and an Edit with their results, the answer."""
    u = [f"{first + n:08d}-0000-4000-8000-000000000000" for n in range(6)]
    return [
        user(u[0], None, prompt, "2026-12-02T09:00:00.000Z"),
        assistant(
            u[1], u[0], [tool_use("toolu_01", "Read", {"file_path": "/w/memory/travel.md"})], "2026-12-02T09:00:02.000Z"
        ),
        user(
            u[2],
            u[1],
            tool_result("toolu_01", "# Travel\n"),
            "2026-12-02T09:00:03.000Z",
            toolUseResult={"type": "text"},
        ),
        assistant(
            u[3],
            u[2],
            [{"type": "text", "text": "Adding it now."}, tool_use("toolu_02", "Edit", {})],
            "2026-12-02T09:00:05.000Z",
        ),
        user(u[4], u[3], tool_result("toolu_02", "The file has been updated."), "2026-12-02T09:00:06.000Z"),
        assistant(u[5], u[4], [{"type": "text", "text": answer}], "2026-12-02T09:00:08.000Z"),
    ]


def write_transcript(path: Path, lines: list[dict], *, tail: bytes = b"") -> Path:
    other = [
        {"type": "summary", "summary": "Lisbon booking", "leafUuid": "x"},
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {"trackedFileBackups": {}}},
    ]
    body = "".join(json.dumps(line) + "\n" for line in [*other, *lines])
    path.write_bytes(body.encode("utf-8") + tail)
    return path
