"""A scripted Anthropic Messages API on 127.0.0.1, for driving the real Claude Code CLI offline (the `agents` tier).

Claude Code sends every model request to `$ANTHROPIC_BASE_URL/v1/messages` (streamed, server-sent events). This
server answers each from a script: for a request whose conversation holds the person's prompt `P` and `n` tool
results after it, the (n+1)th step of the plan for `P` (a tool call, or the final text); any other request (a
title, a summary Claude Code asks for itself) gets a short text. Every request body is kept, so a test can look at
exactly what Claude Code sent the model (the memory block in its context, once or twice), with its headers (how it
signed in).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: dict


@dataclass
class Script:
    """What the model does for each prompt: tool calls in order, then the answer."""

    plans: dict[str, list[ToolCall | str]] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # each request's headers, names in lower case
    lock: threading.Lock = field(default_factory=threading.Lock)
    # An answer made from the request itself (the body in, the text or None), before the plans: a night of upkeep
    # asks many steps whose answers depend on what each is shown (support/night_answers.py).
    answer_for: Callable[[dict], str | None] | None = None

    def step(self, body: dict) -> ToolCall | str:
        made = self.answer_for(body) if self.answer_for else None
        if made is not None:
            return made
        messages = body.get("messages") or []
        for index in range(len(messages) - 1, -1, -1):
            prompt = _user_text(messages[index])
            plan = next((steps for start, steps in self.plans.items() if prompt and start in prompt), None)
            if plan is not None:
                done = sum(_tool_results(message) for message in messages[index + 1 :])
                return plan[min(done, len(plan) - 1)]
        return "A short title"


def _user_text(message: dict) -> str:
    if message.get("role") != "user":
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def _tool_results(message: dict) -> int:
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list):
        return 0
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")


def _events(step: ToolCall | str, model: str, n: int) -> bytes:
    if isinstance(step, ToolCall):
        block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step.input)}
        stop = "tool_use"
    else:
        block, delta, stop = {"type": "text", "text": ""}, {"type": "text_delta", "text": step}, "end_turn"
    usage = {"input_tokens": 100, "output_tokens": 1}
    message = {"id": f"msg_{n:04d}", "type": "message", "role": "assistant", "model": model, "content": []}
    events = [
        ("message_start", {"type": "message_start", "message": {**message, "stop_reason": None, "usage": usage}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


class ScriptedMessagesApi:
    """The server, in a thread of the test process: `with ScriptedMessagesApi(script) as api: api.url`."""

    def __init__(self, script: Script) -> None:
        self.script = script
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if "count_tokens" in self.path:
                    self._send("application/json", json.dumps({"input_tokens": 100}).encode())
                    return
                with owner.script.lock:
                    owner.script.requests.append(body)
                    owner.script.headers.append({name.lower(): value for name, value in self.headers.items()})
                    n = len(owner.script.requests)
                    step = owner.script.step(body)
                self._send("text/event-stream", _events(step, str(body.get("model", "claude")), n))

            def _send(self, kind: str, data: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedMessagesApi:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
