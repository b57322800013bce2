"""An OpenAI-compatible `/v1/chat/completions` on 127.0.0.1, scripted per test, for every model test.

Each request takes the next scripted reply (`FakeLLM.script(...)`), or a plain "ok" answer when the script is
empty. A reply is a dict:

    {"content": "text"}                             a plain answer
    {"tool_calls": [("memory_update", {...})]}      an answer that only calls tools
    {"raw_tool_calls": [("memory_update", "[[[")]}  the same, with the arguments text as given (not JSON-encoded)
    {"status": 429} / {"status": 500}               an error answer (OpenAI's error shape)
    {"delay": 2.0, "content": "late"}               an answer that takes its time
    {"drop": True}                                  the connection closes with no answer
    {"status": 401, "echo_key": True}               an error that repeats the key it got, as some providers do
    {"status": 400, "message": "text"}              an error whose message is that text (a provider echoing a request)
    {"model": "gpt-4o-mini", "usage": (10, 5)}      what the answer says it was (model, prompt/completion tokens)
    {"fenced": True, "content": "{...}"}            the text inside a ```json fence, as a small model writes it

`/v1/embeddings` answers with deterministic vectors (`embedding_of`: each word, or the concept `FakeLLM.concepts`
maps it to, adds to one of EMBED_DIMENSIONS places, so words of one concept come out alike), unless a reply is
queued with `FakeLLM.script_embeddings(...)`:

    {"status": 500} / {"delay": 2.0} / {"drop": True}   as above
    {"data": [...]}                                 this `data` as given (wrong counts, NaN, strings, anything)
    {"width": 8}                                    deterministic vectors of that many numbers

Hostile answers, for chat and embeddings alike (the server notes in `hostile` how each one ended):

    {"trickle": 0.2}                                the whole answer, status line first, a byte every 0.2 s,
                                                    padded to TRICKLE_BYTES (two minutes at that pace)
    {"huge": 2**30}                                 that many bytes of body, Content-Length saying so
    {"huge": 2**30, "chunked": True}                the same without a Content-Length, chunk after chunk
    {"redirect": "http://127.0.0.1:PORT/v1/…"}      a 307 to that address

A request with `"stream": true` is answered as server-sent events, its content a few characters a chunk:

    {"content": "...", "first_token_delay": 2.0}    the stream begins at once, its first token after that long
    {"content": "...", "chunk_delay": 0.1}          every chunk that long after the one before (slow but alive)
    {"content": "...", "pause": (3, 5.0)}           after 3 chunks the stream goes silent that long
    {"content": "...", "cut_after": 3}              after 3 chunks the stream ends, unfinished

The server can also behave like a kind of local server (`FakeLLM.behave_like(...)`, `SERVER_KINDS`): refuse a
response format with a status (llama-cpp-python answers 500 to `json_schema`; it takes the schema inside
`json_object`), before any scripted reply is taken, and wrap every answer in a fence when no response format asks
for JSON (a small model without a grammar does). `formats` records the response format kind of each request.

Every request is recorded (`requests`: path, headers, parsed body) so a test can check what was sent, and
that nothing was, and the most requests it held at once (`most_at_once`).

Fixtures: `fake_llm` (the server) and `llm_home` (the test home with instance "local" on that server as the
helper, retries without backoff, the once-only log lines forgotten).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

ERROR_TEXTS = {
    400: "bad request",
    401: "Incorrect API key provided.",
    404: "The model does not exist.",
    429: "Rate limit reached, try again later.",
    500: "The server had an error while processing your request.",
    503: "The engine is currently overloaded.",
}


@dataclass
class Recorded:
    path: str
    headers: dict
    body: dict


# What each kind of local server does with a response format: {kind: status}; a kind absent is taken.
SERVER_KINDS = {
    "openai": {},
    "llama-cpp-python": {"json_schema": 500},  # takes {"type": "json_object", "schema": {...}}
    "json-object-only": {"json_schema": 400, "json_object_schema": 400},
    "no-response-format": {"json_schema": 400, "json_object_schema": 400, "json_object": 400},
}
REFUSAL_TEXTS = {
    500: "Internal Server Error",
    400: "response_format is not supported by this server",
}


def format_kind(body: dict) -> str:
    """The kind of response format a request asks for: json_schema, json_object_schema, json_object or none."""
    asked = body.get("response_format")
    if not isinstance(asked, dict):
        return "none"
    if asked.get("type") == "json_object":
        return "json_object_schema" if "schema" in asked else "json_object"
    return str(asked.get("type"))


TRICKLE_BYTES = 600
EMBED_DIMENSIONS = 256  # few enough collisions of two words in one place that a concept decides


def embedding_of(text: str, concepts: dict[str, str] | None = None, width: int = EMBED_DIMENSIONS) -> list[float]:
    """A deterministic vector: each word (or its concept) adds 1 to the place its hash names, then unit length."""
    import hashlib
    import math
    import re

    vector = [0.0] * width
    for word in re.findall(r"\w+", text.lower()):
        meaning = (concepts or {}).get(word, word)
        vector[int(hashlib.sha256(meaning.encode()).hexdigest(), 16) % width] += 1.0
    if not any(vector):
        vector[0] = 1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


@dataclass
class FakeLLM:
    replies: deque = field(default_factory=deque)
    embed_replies: deque = field(default_factory=deque)
    concepts: dict = field(default_factory=dict)  # word -> the concept its vector stands for (embedding_of)
    # A reply chosen by what a chat request says (the body in, a reply or None out), before the script is taken:
    # a long run over many conversations answers each by its content, whatever order they come in.
    answer_for: Callable[[dict], dict | None] | None = None
    refuses: dict = field(default_factory=dict)  # response format kind -> the status it is refused with
    fences_plain_json: bool = False  # wrap answers in a fence when no response format is asked for
    formats: list[str] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    # How each hostile answer ended: "sent whole", or "cut by the client" once its connection was closed.
    hostile: list[str] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    port: int = 0
    in_flight: int = 0
    most_at_once: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: dict | str) -> None:
        """Queue replies; a string is a plain answer with that text."""
        for reply in replies:
            self.replies.append({"content": reply} if isinstance(reply, str) else reply)

    def script_embeddings(self, *replies: dict) -> None:
        """Queue answers for /v1/embeddings (the module's docstring); deterministic vectors when the queue is empty."""
        self.embed_replies.extend(replies)

    def behave_like(self, kind: str) -> None:
        """Refuse response formats as that kind of server does (SERVER_KINDS); fence answers when none is asked."""
        self.refuses = dict(SERVER_KINDS[kind])
        self.fences_plain_json = kind != "openai"

    def next_reply(self) -> dict:
        try:
            return self.replies.popleft()
        except IndexError:
            return {"content": "ok"}


def _answer(reply: dict, request: dict) -> dict:
    content = reply.get("content")
    if reply.get("fenced") and isinstance(content, str):
        content = f"```json\n{content}\n```"
    message: dict = {"role": "assistant", "content": content}
    calls = [(name, json.dumps(arguments)) for name, arguments in reply.get("tool_calls") or []]
    calls += list(reply.get("raw_tool_calls") or [])
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for n, (name, arguments) in enumerate(calls, 1)
        ]
    prompt_tokens, completion_tokens = reply.get("usage", (12, 3))
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": reply.get("model", request.get("model", "fake")),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _embeddings(reply: dict, body: dict, concepts: dict) -> dict:
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else list(texts or [])
    data = reply.get("data")
    if data is None:
        data = [
            {
                "object": "embedding",
                "index": n,
                "embedding": embedding_of(str(t), concepts, reply.get("width", EMBED_DIMENSIONS)),
            }
            for n, t in enumerate(texts)
        ]
    tokens = sum(len(str(t).split()) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "fake"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def _handler(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            if self.path.rstrip("/").endswith("/embeddings"):
                with fake.lock:
                    fake.requests.append(Recorded(self.path, dict(self.headers), body))
                    reply = fake.embed_replies.popleft() if fake.embed_replies else {}
                self._reply({"embeddings": True, **reply}, body)
                return
            kind = format_kind(body)
            with fake.lock:
                fake.requests.append(Recorded(self.path, dict(self.headers), body))
                fake.formats.append(kind)
                if kind in fake.refuses:  # refused before the model is asked: no scripted reply is taken
                    status = fake.refuses[kind]
                    reply = {"status": status, "message": REFUSAL_TEXTS.get(status, "error")}
                else:
                    chosen = fake.answer_for(body) if fake.answer_for else None
                    reply = chosen if chosen is not None else fake.next_reply()
                    if fake.fences_plain_json and kind == "none" and reply.get("content"):
                        reply = {**reply, "fenced": True}
                fake.in_flight += 1
                fake.most_at_once = max(fake.most_at_once, fake.in_flight)
            try:
                self._reply(reply, body)
            finally:
                with fake.lock:
                    fake.in_flight -= 1

        def _reply(self, reply: dict, body: dict) -> None:
            if reply.get("delay"):
                fake.stopping.wait(reply["delay"])
            if any(reply.get(kind) for kind in ("trickle", "huge", "redirect")):
                self.close_connection = True
                try:
                    ended = self._hostile(reply, body)
                except OSError:  # the client closed the connection
                    ended = "cut by the client"
                with fake.lock:
                    fake.hostile.append(ended)
                return
            if reply.get("drop"):
                self.close_connection = True
                self.connection.close()
                return
            status = reply.get("status", 200)
            if not self.path.rstrip("/").endswith("/embeddings" if reply.get("embeddings") else "/chat/completions"):
                status = 404
            if status == 200 and body.get("stream"):
                self._stream(reply, body)
                return
            if status == 200 and reply.get("embeddings"):
                payload = _embeddings(reply, body, fake.concepts)
            elif status == 200:
                payload = _answer(reply, body)
            else:
                text = reply.get("message") or ERROR_TEXTS.get(status, "error")
                if reply.get("echo_key"):
                    text += f" You sent: {self.headers.get('Authorization', '').removeprefix('Bearer ')}"
                payload = {"error": {"message": text, "type": "fake_error", "code": status}}
            data = json.dumps(payload).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (a timeout): nothing to answer
                self.close_connection = True

        def _hostile(self, reply: dict, body: dict) -> str:
            """A trickle, a huge body or a redirect (the module's docstring): "sent whole", or "stopped" with the
            server; OSError when the client hangs up."""
            out = self.wfile
            if reply.get("redirect"):
                out.write(f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {reply['redirect']}\r\n".encode())
                out.write(b"Content-Length: 0\r\nConnection: close\r\n\r\n")
                out.flush()
                return "sent whole"
            if reply.get("huge"):
                size, chunked = reply["huge"], reply.get("chunked")
                length = b"Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}".encode()
                out.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + length + b"\r\n\r\n")
                block = b" " * 65536
                for _ in range(0, size, len(block)):
                    if fake.stopping.is_set():
                        return "stopped"
                    out.write(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
                out.write(b"0\r\n\r\n" if chunked else b"")
                out.flush()
                return "sent whole"
            fields = {key: value for key, value in reply.items() if key != "trickle"}
            payload = _embeddings(fields, body, fake.concepts) if reply.get("embeddings") else _answer(fields, body)
            data = json.dumps(payload).encode("utf-8")
            data = data.ljust(max(TRICKLE_BYTES, len(data)))  # JSON may end in spaces
            whole = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            whole += f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data
            for at in range(len(whole)):
                if fake.stopping.wait(reply["trickle"]):
                    return "stopped"
                out.write(whole[at : at + 1])
                out.flush()
            return "sent whole"

        def _stream(self, reply: dict, body: dict) -> None:
            """The answer as server-sent events, paced as the reply says; the connection closes at the end."""
            whole = _answer(reply, body)
            content = whole["choices"][0]["message"]["content"] or ""
            pieces = [content[at : at + 4] for at in range(0, len(content), 4)]
            base = {key: whole[key] for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
            pause_after, pause_s = reply.get("pause") or (None, 0.0)
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.flush()
                self.close_connection = True
                if reply.get("first_token_delay"):
                    fake.stopping.wait(reply["first_token_delay"])
                for number, piece in enumerate(pieces):
                    if number == reply.get("cut_after"):
                        return  # the connection closes with the answer unfinished
                    if number == pause_after:
                        fake.stopping.wait(pause_s)
                    elif number and reply.get("chunk_delay"):
                        fake.stopping.wait(reply["chunk_delay"])
                    delta = {"role": "assistant", "content": piece} if number == 0 else {"content": piece}
                    self._event(base | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
                self._event(base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                self._event(base | {"choices": [], "usage": whole["usage"]})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except OSError:  # the client cut the stream (a timeout): nothing more to send
                pass

        def _event(self, data: dict) -> None:
            self.wfile.write(b"data: " + json.dumps(data).encode("utf-8") + b"\n\n")
            self.wfile.flush()

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64  # a run over many bots opens many connections at once


def start(fake: FakeLLM | None = None) -> tuple[FakeLLM, Callable[[], None]]:
    """Serve `fake` (a new FakeLLM by default) on 127.0.0.1 in a thread; returns it and the function that stops
    it (cutting any slow answer short). The fixture and `benchmarks/upkeep.py` use it."""
    fake = fake or FakeLLM()
    server = _Server(("127.0.0.1", 0), _handler(fake))
    fake.port = server.server_address[1]
    # Polled every 10 ms, not every 500 ms (serve_forever's default): stop() waits for the loop to look, and the 280
    # tests that start a server each waited a quarter of a second on average for it when they ended.
    threading.Thread(target=server.serve_forever, args=(0.01,), name="fake-llm", daemon=True).start()

    def stop() -> None:
        fake.stopping.set()
        server.shutdown()
        server.server_close()

    return fake, stop


@pytest.fixture
def fake_llm():
    """A running fake server; stopped (and any slow answer cut short) when the test ends."""
    fake, stop = start()
    try:
        yield fake
    finally:
        stop()


@pytest.fixture
def llm_home(home, fake_llm, monkeypatch):
    """The test home; config.json has instance "local" on the fake server (timeout 5 s) as the helper."""
    from omb_tui.core.models import call, instances

    write_llm_config(home, fake_llm)
    monkeypatch.setattr(call, "RETRY_POLICY", call.RetryPolicy(first_backoff_s=0))
    for name in ("OMB_HELPER_INSTANCE", "OMB_HELPER_MODEL"):
        monkeypatch.delenv(name, raising=False)
    instances.forget_said()
    yield home
    instances.forget_said()


def write_llm_config(home, fake: FakeLLM, *, instances: dict | None = None, **fields) -> None:
    """config.json with instance "local" (openai/qwen3-8b on the fake server) and the helper on it."""
    config = {
        "instances": {
            "local": {"model": "openai/qwen3-8b", "api_base": fake.api_base, "timeout": 5},
            **(instances or {}),
        },
        "helper": {"instanceId": "local"},
        **fields,
    }
    home.config_path.write_text(json.dumps(config), encoding="utf-8")
