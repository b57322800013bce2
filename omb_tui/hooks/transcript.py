"""The turn that just finished, read from Claude Code's transcript: the person's prompt and the last answer.

Claude Code writes a session as JSONL, one object a line (`~/.claude/projects/<project>/<session_id>.jsonl`):

    {"type":"user","uuid":"…","timestamp":"2026-12-02T09:00:00.000Z","message":{"role":"user","content":"Hi"}}
    {"type":"assistant","uuid":"…","message":{"role":"assistant","content":[{"type":"text","text":"…"},
        {"type":"tool_use","id":"toolu_…","name":"Bash","input":{…}}]}}
    {"type":"user","uuid":"…","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_…",
        "content":"…"}]}}

and lines of other types (`system`, `summary`, `file-history-snapshot`, …) between them. The person's prompt is the
newest `user` line holding text of theirs: not a tool result, not a line Claude Code adds itself (`isMeta`, a
compaction summary, a local command's output, "[Request interrupted by user]"), not a subagent's (`isSidechain`).
Everything after it is the turn: the tools used (`tool_use` names) and the answer, the text of the assistant's
lines after the last tool result. Stop can run before Claude Code has written the answer's last line, so the Stop
payload's `last_assistant_message`, when it has one, is the answer instead. The file is read from its end, so a
long session costs what its last turn holds.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..core.files.disk import open_regular
from ..core.memory.conversations import parse_time
from ..core.turn.outside import Exchange
from .payload import HookProblem

BLOCK_BYTES = 1 << 16
MAX_LINE_BYTES = 32 << 20  # a line longer than this (a pasted file, images) is passed over: never the prompt's
MAX_READ_BYTES = 256 << 20  # how far back from the end a prompt is looked for: a hook answers in its time
# Text Claude Code writes as a user line that no person typed.
NOT_TYPED = (
    "[Request interrupted by user",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
)
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def read_exchange(path: Path, last_assistant_message: str | None = None) -> Exchange:
    """The turn that ended last in the transcript at `path`; HookProblem when it cannot be read or has no prompt."""
    answer_texts: list[str] = []  # newest first
    copied_texts: list[str] = []  # newest first: the model's copies of Codex's answer, when no event says it
    tools: list[str] = []  # newest first
    in_answer = True  # until the first user line (a tool result) going back: the answer's lines
    failed: bool | None = None
    try:
        with open_regular(path) as handle:
            for raw in lines_newest_first(handle):
                entry = _entry(raw)
                if entry is None or entry.get("isSidechain") is True:
                    continue
                kind = entry.get("type")
                if kind == "assistant":
                    if failed is None:
                        failed = entry.get("isApiErrorMessage") is True
                    for block in reversed(_blocks(entry)):
                        if block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                            tools.append(block["name"])
                        elif block.get("type") == "text" and isinstance(block.get("text"), str) and in_answer:
                            (copied_texts if entry.get(CODEX_COPY) else answer_texts).append(block["text"])
                elif kind == "user":
                    prompt = prompt_text(entry)
                    if prompt is not None:
                        said = answer_texts or copied_texts
                        return _exchange(entry, raw, prompt, said, tools, bool(failed), last_assistant_message)
                    in_answer = False
    except FileNotFoundError:
        raise HookProblem(f"The transcript {path} does not exist; nothing was recorded.") from None
    except OSError as exc:
        raise HookProblem(
            f"The transcript {path} could not be read ({exc.strerror or exc}); nothing was recorded."
        ) from None
    except ReadTooFar:
        raise HookProblem(
            f"The last {MAX_READ_BYTES >> 20} MiB of the transcript {path} hold no prompt of the person's; "
            "nothing was recorded."
        ) from None
    raise HookProblem(f"The transcript {path} holds no prompt of the person's; nothing was recorded.")


def _exchange(
    entry: dict,
    raw: bytes,
    prompt: str,
    answer_texts: list[str],
    tools: list[str],
    failed: bool,
    last_assistant_message: str | None,
) -> Exchange:
    if last_assistant_message and last_assistant_message.strip():
        answer = last_assistant_message.strip()
    else:
        answer = "\n\n".join(text.strip() for text in reversed(answer_texts) if text.strip())
    uuid = entry.get("uuid")
    prompt_id = uuid if isinstance(uuid, str) and uuid else "line-" + hashlib.sha256(raw).hexdigest()[:24]
    # The answer's id follows from the prompt and what was said, so the same Stop run twice finds it recorded.
    answer_id = "answer-" + hashlib.sha256(f"{prompt_id}\n{answer}".encode()).hexdigest()[:24]
    return Exchange(
        prompt=prompt,
        answer=answer,
        prompt_at=parse_time(entry.get("timestamp")),
        prompt_id=prompt_id,
        answer_id=answer_id,
        tools=tuple(reversed(tools)),
        failed=failed,
    )


def prompt_text(entry: dict) -> str | None:
    """What the person typed, when this user line is a prompt of theirs; None for every other user line."""
    if entry.get("isMeta") is True or entry.get("isCompactSummary") is True:
        return None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict) or block.get("type") == "tool_result":
                return None
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block.get("type") == "image":
                parts.append("[image]")
        text = "\n\n".join(parts)
    else:
        return None
    text = text.strip()
    if not text or text.startswith(NOT_TYPED):
        return None
    command = _COMMAND.search(text)
    if command is not None:  # a slash command, as the person typed it
        args = _COMMAND_ARGS.search(text)
        return " ".join(part.strip() for part in (command.group(1), args.group(1) if args else "") if part.strip())
    return text


def _entry(raw: bytes) -> dict | None:
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return None  # a damaged line: Claude Code's own, skipped as a reader of conversations skips one
    if not isinstance(entry, dict):
        return None
    return codex_entry(entry) if entry.get("type") in CODEX_LINES else entry


# Codex writes a session as a rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`), one
# `{"timestamp", "type", "payload"}` a line: `session_meta`, `turn_context`, `response_item` (the model's input and
# output: messages, with the environment and AGENTS.md text Codex adds as user messages, function calls and their
# output) and `event_msg` (what the person and the agent said, as shown). Codex 0.171.0 writes what was said as
# `item_completed` events holding a `UserMessage` or an `AgentMessage`; earlier versions as `user_message` and
# `agent_message` events. Its hooks send the same fields as Claude Code's, `transcript_path` naming the rollout. A
# rollout line is read as the Claude Code line it stands for, so one reader serves both; the model's own copy of a
# message (a `response_item` message) is marked, and read only when the turn has no event saying it.
CODEX_LINES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
CODEX_TOOL_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call"}
CODEX_TOOL_OUTPUTS = {"function_call_output", "custom_tool_call_output", "tool_search_output"}
CODEX_COPY = "codexCopy"  # marks a line read from the model's copy of a message, not from what was shown
# Text Codex adds as a user message of its own (older rollouts carry no provenance to tell it apart).
CODEX_CONTEXT = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>")


def codex_entry(line: dict) -> dict | None:
    """The Claude Code line a Codex rollout line stands for: the person's message as a prompt, the agent's as
    answer text, a tool call as a `tool_use` and its output as a tool result; None for the rest (the environment
    text, reasoning, metadata)."""
    payload = line.get("payload")
    if not isinstance(payload, dict):
        return None
    at, kind = line.get("timestamp"), payload.get("type")
    if line.get("type") == "event_msg":
        return _codex_event(payload, at)
    if line.get("type") != "response_item":
        return None
    if kind in CODEX_TOOL_CALLS:
        name = payload.get("name") if isinstance(payload.get("name"), str) else kind.removesuffix("_call")
        namespace = payload.get("namespace")
        name = f"{namespace.removesuffix('__')}__{name}" if isinstance(namespace, str) and namespace else name
        return {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": name}]}}
    if kind in CODEX_TOOL_OUTPUTS:
        return {"type": "user", "message": {"content": [{"type": "tool_result"}]}}
    if kind == "message":
        return _codex_copy(payload, at)
    return None


def _codex_event(payload: dict, at: object) -> dict | None:
    kind = payload.get("type")
    if kind == "item_completed":  # Codex 0.171.0: the item as shown
        item = payload.get("item")
        kind = item.get("type") if isinstance(item, dict) else None
        text = _item_text(item) if isinstance(item, dict) else None
        if text is None:
            return None
        if kind == "UserMessage":
            return {"type": "user", "timestamp": at, "message": {"role": "user", "content": text}}
        if kind == "AgentMessage":
            return {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
        return None
    message = payload.get("message")
    if kind == "user_message" and isinstance(message, str):
        return {"type": "user", "timestamp": at, "message": {"role": "user", "content": message}}
    if kind == "agent_message" and isinstance(message, str):
        return {"type": "assistant", "message": {"content": [{"type": "text", "text": message}]}}
    return None


def _item_text(item: dict) -> str | None:
    content = item.get("content")
    if not isinstance(content, list):
        return None
    parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n\n".join(parts) if parts else None


def _codex_copy(payload: dict, at: object) -> dict | None:
    """The model's copy of a message: the person's (not the context Codex adds) or the agent's, marked a copy."""
    role, texts = payload.get("role"), _item_text(payload)
    if texts is None:
        return None
    if role == "assistant":
        return {"type": "assistant", CODEX_COPY: True, "message": {"content": [{"type": "text", "text": texts}]}}
    if role != "user" or not _typed_by_the_person(payload, texts):
        return None
    return {"type": "user", CODEX_COPY: True, "timestamp": at, "message": {"role": "user", "content": texts}}


def _typed_by_the_person(payload: dict, text: str) -> bool:
    """Whether a user message is the person's: its provenance says so (Codex 0.171.0 marks each part), or, with
    none, it is not text Codex adds itself."""
    meta = payload.get("internal_chat_message_metadata_passthrough")
    parts = meta.get("content_item_metadata") if isinstance(meta, dict) else None
    if isinstance(parts, list) and parts:
        return all(isinstance(p, dict) and (p.get("provenance") or {}).get("type") == "user" for p in parts)
    return not text.lstrip().startswith(CODEX_CONTEXT)


def _blocks(entry: dict) -> list[dict]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


class ReadTooFar(Exception):
    """The reader went back MAX_READ_BYTES from the end of a file without finding what it looks for."""


def lines_newest_first(
    handle: BinaryIO, block: int = BLOCK_BYTES, *, max_line: int = MAX_LINE_BYTES, max_read: int = MAX_READ_BYTES
) -> Iterator[bytes]:
    """The file's complete lines, from the last back to the first, read a block at a time from the end. A last
    line without its newline is still being written, and is left out. Each byte is read and copied once (a long
    line's pieces are joined when its start is found); a line longer than `max_line` is passed over without being
    kept, and past `max_read` bytes from the end ReadTooFar ends the reading."""
    position = handle.seek(0, os.SEEK_END)
    pieces: list[bytes] = []  # the line being read back, its last piece first
    held = 0  # the bytes in `pieces`
    too_long = False
    tail_dropped = False
    read = 0
    while position > 0:
        if read >= max_read:
            raise ReadTooFar
        size = min(block, position)
        position -= size
        handle.seek(position)
        data = handle.read(size)
        read += len(data)
        end = len(data)
        while (newline := data.rfind(b"\n", 0, end)) != -1:
            if tail_dropped and not too_long and end - newline - 1 + held <= max_line:
                line = data[newline + 1 : end] + b"".join(reversed(pieces)) if pieces else data[newline + 1 : end]
                if line.strip():
                    yield line
            tail_dropped = True  # after the last newline: nothing, or a line still being written
            pieces, held, too_long = [], 0, False
            end = newline
        if not too_long and end:
            pieces.append(data[:end])
            held += end
            if held > max_line:
                pieces, held, too_long = [], 0, True
    if tail_dropped and not too_long:
        line = b"".join(reversed(pieces))
        if line.strip():
            yield line
