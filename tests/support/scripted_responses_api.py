"""A scripted OpenAI Responses API on 127.0.0.1, for driving the real Codex CLI offline (the `agents` tier).

Codex sends every model request to `<base_url>/responses` of its model provider (streamed, server-sent events);
`config_overrides(api.url)` names this server as that provider. Each request is answered from a script: for a
request whose input holds the person's prompt `P` and `n` tool outputs after it (a `function_call_output`, a
`tool_search_output` ...), the (n+1)th step of the plan for `P`: a function call, a client-side tool search, or the
final text; any other request (a title, a summary Codex asks for itself) gets a short text. Every request body is
kept, so a test can look at exactly what Codex sent the model (its instructions, its tools, the memory block).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROVIDER = "scripted"  # the model_provider id the overrides define
USAGE = {"input_tokens": 120, "cached_input_tokens": 20, "output_tokens": 9, "reasoning_output_tokens": 3}


@dataclass(frozen=True)
class FunctionCall:
    """The model calls a tool: `name` (an MCP tool's own name, with `namespace` its server's, as tool search
    offers them) with `arguments`."""

    name: str
    arguments: dict
    namespace: str | None = None


@dataclass(frozen=True)
class ToolSearch:
    """The model asks Codex's client-side tool search for tools matching `query` (Codex offers MCP tools so)."""

    query: str
    limit: int = 8


Step = FunctionCall | ToolSearch | str


@dataclass
class Script:
    """What the model does for each prompt: tool calls in order, then the answer."""

    plans: dict[str, list[Step]] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # An answer made from the request itself (the body in, the text or None), before the plans: a night of upkeep
    # asks many steps whose answers depend on what each is shown (support/night_answers.py).
    answer_for: Callable[[dict], str | None] | None = None

    def step(self, body: dict) -> Step:
        made = self.answer_for(body) if self.answer_for else None
        if made is not None:
            return made
        items = _input_items(body)
        for index in range(len(items) - 1, -1, -1):
            prompt = _user_text(items[index])
            plan = next((steps for start, steps in self.plans.items() if prompt and start in prompt), None)
            if plan is not None:
                done = sum(1 for item in items[index + 1 :] if str(item.get("type", "")).endswith("_output"))
                return plan[min(done, len(plan) - 1)]
        return "A short title"


def config_overrides(url: str, model: str | None = None) -> list[str]:
    """`-c` arguments that make Codex send its requests to the server at `url` (no key, no retries); `model` when
    given, else Codex's own choice (an engine call's: the smallest model, as the catalog Codex ships describes it)."""
    base = f"model_providers.{PROVIDER}"
    words = [
        "-c",
        f'{base}.name="Scripted"',
        "-c",
        f'{base}.base_url="{url}/v1"',
        "-c",
        f'{base}.wire_api="responses"',
        "-c",
        f"{base}.request_max_retries=0",
        "-c",
        f"{base}.stream_max_retries=0",
        "-c",
        f"model_provider={PROVIDER}",
    ]
    return [*words, "-c", f'model="{model}"'] if model else words


def _input_items(body: dict) -> list[dict]:
    items = body.get("input")
    if isinstance(items, str):
        return [{"type": "message", "role": "user", "content": items}]
    return [item for item in items or [] if isinstance(item, dict)]


def _user_text(item: dict) -> str:
    if item.get("role") != "user":
        return ""
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, dict) and "text" in p)


def _output_item(step: Step, n: int) -> dict:
    if isinstance(step, FunctionCall):
        item = {
            "type": "function_call",
            "id": f"fc_{n:04d}",
            "call_id": f"call_{n:04d}",
            "name": step.name,
            "arguments": json.dumps(step.arguments),
            "status": "completed",
        }
        if step.namespace:
            item["namespace"] = step.namespace
        return item
    if isinstance(step, ToolSearch):
        return {
            "type": "tool_search_call",
            "id": f"ts_{n:04d}",
            "call_id": f"call_{n:04d}",
            "execution": "client",
            "status": "completed",
            "arguments": {"query": step.query, "limit": step.limit},
        }
    return {
        "type": "message",
        "id": f"msg_{n:04d}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": step, "annotations": []}],
    }


def events(step: Step, model: str, n: int) -> bytes:
    """One response's server-sent events: created, the output item added and done, completed with its usage."""
    item = _output_item(step, n)
    response = {"id": f"resp_{n:04d}", "object": "response", "model": model, "status": "in_progress", "output": []}
    usage = {
        "input_tokens": USAGE["input_tokens"],
        "input_tokens_details": {"cached_tokens": USAGE["cached_input_tokens"]},
        "output_tokens": USAGE["output_tokens"],
        "output_tokens_details": {"reasoning_tokens": USAGE["reasoning_output_tokens"]},
        "total_tokens": USAGE["input_tokens"] + USAGE["output_tokens"],
    }
    added = {**item, "status": "in_progress"}
    if item["type"] == "message":
        added["content"] = []
    sequence = [
        ("response.created", {"type": "response.created", "response": response}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": added}),
    ]
    if item["type"] == "message":
        text = item["content"][0]["text"]
        delta = {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "content_index": 0}
        sequence.append(("response.output_text.delta", {**delta, "delta": text}))
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    sequence += [
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": done}),
    ]
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in sequence)


class ScriptedResponsesApi:
    """The server, in a thread of the test process: `with ScriptedResponsesApi(script) as api: api.url`."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.other_requests: list[str] = []  # anything but POST /v1/responses: what Codex asked for besides
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                owner.other_requests.append(f"GET {self.path}")
                if self.path.split("?")[0].endswith("/models"):
                    self._send("application/json", json.dumps({"object": "list", "data": [], "models": []}).encode())
                    return
                self._send("application/json", b"{}", status=404)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                if not self.path.split("?")[0].endswith("/responses"):
                    owner.other_requests.append(f"POST {self.path}")
                    self._send("application/json", b"{}", status=404)
                    return
                body = json.loads(raw or b"{}")
                with owner.script.lock:
                    owner.script.requests.append(body)
                    n = len(owner.script.requests)
                    step = owner.script.step(body)
                self._send("text/event-stream", events(step, str(body.get("model", "gpt")), n))

            def _send(self, kind: str, data: bytes, status: int = 200) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedResponsesApi:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
