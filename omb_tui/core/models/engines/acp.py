"""The `acp` engine: any agent that speaks the Agent Client Protocol over stdio answers one call, as a client that
offers it nothing to act with.

docs/models.md, "Engines" → "ACP agents". JSON-RPC 2.0, one message a line. The client offers no file system and no
terminal, opens a new session in an empty temporary folder with no MCP server, keeps the agent in the mode that asks
before acting (never a bypass mode) and sends the call's instructions and prompt as text. It gathers the agent's
message chunks until the prompt's response. The moment the agent asks for anything (a permission, a file, a
terminal) or starts a tool call, nothing is answered: the process group is ended and the call dropped. Every line
is bounded (process.py), only JSON-RPC objects are read, and a call takes a bounded number of messages.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from importlib import metadata

from ...memory import environment
from . import EngineCall, EngineFailed, EngineReply
from .process import AgentProcess, empty_folder, resolve_program

PROTOCOL_VERSION = 1  # the protocol's only version: `initialize` agrees on it
MAX_MESSAGES = 20_000  # all one call may take from the agent (each streamed chunk is one); past it, a flood
# Mode ids agents give the mode that asks before acting (Claude Code, Gemini CLI, Qwen Code: "default"; codex-acp
# "read-only"), best first.
ASK_FIRST_MODES = ("default", "read-only")
BYPASS_WORDS = ("bypass", "yolo", "full", "dangerous", "skip")  # a mode that acts without asking
AUTH_REQUIRED = -32000  # the protocol's "authentication required" error
METHOD_NOT_FOUND = -32601
TITLE_CHARS = 80  # a tool's title in the drop sentence (an agent may title a shell call with the whole command)
# The Claude Agent SDK's agents (claude-code-acp) read these from session/new's _meta; other agents ignore _meta.
# No settings file (so none of the person's hooks, plugins or CLAUDE.md), no MCP server but ours (none), no
# built-in tool, nothing saved, no slash command.
CLAUDE_AGENT_SDK_META = {
    "disableBuiltInTools": True,
    "claudeCode": {
        "options": {
            "settingSources": [],
            "strictMcpConfig": True,
            "persistSession": False,
            "extraArgs": {"disable-slash-commands": None},
        }
    },
}


def run(call: EngineCall) -> EngineReply:
    """One prompt turn in a fresh session of the agent `call.command` names; EngineFailed with one sentence, or
    dropped, when there is no answer it may give."""
    program = resolve_program(call)
    with (
        empty_folder() as folder,
        AgentProcess(
            [program, *call.command[1:]], cwd=folder, env=environment.current(), seconds=call.seconds, keep_stdin=True
        ) as agent,
    ):
        client = _Client(agent)
        started = client.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False},
                "clientInfo": {"name": "omb-tui", "version": _version()},
            },
        )
        if started.get("protocolVersion") != PROTOCOL_VERSION:
            raise EngineFailed(
                f"`{agent.name}` speaks version {started.get('protocolVersion')!r} of the Agent Client Protocol, "
                f"not version {PROTOCOL_VERSION}"
            )
        client.sign_in_hint = _sign_in_hint(started.get("authMethods"))
        session = client.request("session/new", {"cwd": str(folder), "mcpServers": [], "_meta": CLAUDE_AGENT_SDK_META})
        session_id = session.get("sessionId")
        if not isinstance(session_id, str) or not session_id:
            raise EngineFailed(f"`{agent.name}` opened no session (its answer to session/new has no sessionId)")
        client.session_id = session_id
        _keep_asking_first(client, session.get("modes"))
        model = _choose_model(client, call.model, session.get("models"))
        blocks = [{"type": "text", "text": text} for text in (call.system, call.prompt) if text]
        done = client.request("session/prompt", {"sessionId": session_id, "prompt": blocks})
        stop = done.get("stopReason")
        if stop != "end_turn":
            raise EngineFailed(f"`{agent.name}` stopped before its answer was complete ({_one_line(stop)})")
        return _reply(client, model, done.get("usage"))


class _Client:
    """The client's side of one connection: requests sent one at a time, the agent's messages read between them."""

    def __init__(self, agent: AgentProcess) -> None:
        self.agent = agent
        self.incoming: Iterator[bytes] = agent.lines()
        self.next_id = 0
        self.messages = 0
        self.session_id: str | None = None
        self.chunks: list[str] = []
        self.cost: dict | None = None
        self.sign_in_hint = ""

    def request(self, method: str, params: dict) -> dict:
        """The result of `method`, reading (and acting on) whatever the agent sends before it."""
        self.next_id += 1
        sent = self.next_id
        self.agent.write(_line({"jsonrpc": "2.0", "id": sent, "method": method, "params": params}))
        for message in self._messages():
            if "method" in message:
                self._take(message)
            elif message.get("id") == sent:
                if isinstance(message.get("error"), dict):
                    raise self._refused(method, message["error"])
                result = message.get("result")
                return result if isinstance(result, dict) else {}
        raise self._gone(method)

    def _messages(self) -> Iterator[dict]:
        for raw in self.incoming:
            if not raw.strip():
                continue
            self.messages += 1
            if self.messages > MAX_MESSAGES:
                raise EngineFailed(f"`{self.agent.name}` sent more than {MAX_MESSAGES} messages; the call was ended")
            try:
                message = json.loads(raw)
            except ValueError:
                message = None
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                raise EngineFailed(
                    f"`{self.agent.name}` printed something that is not the Agent Client Protocol "
                    f"({_one_line(raw.decode('utf-8', 'replace'))}); the call was ended"
                )
            yield message

    def _take(self, message: dict) -> None:
        """A request or notification from the agent: anything it asks for drops the call; its words are kept."""
        method, params = str(message["method"]), message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "session/request_permission":
            tool = params.get("toolCall")
            raise self._dropped(_tool_name(tool if isinstance(tool, dict) else {}) or "a permission")
        if method.startswith(("fs/", "terminal/")):
            raise self._dropped(method)
        if method == "session/update":  # a tool call drops the call whichever session it names; words must be ours
            self._update(params.get("update"), ours=params.get("sessionId") == self.session_id)
            return
        if "id" in message:  # a request this client does not know: say so, as the protocol asks
            error = {"code": METHOD_NOT_FOUND, "message": f"{method} is not offered by this client"}
            self.agent.write(_line({"jsonrpc": "2.0", "id": message["id"], "error": error}))

    def _update(self, update: object, *, ours: bool) -> None:
        if not isinstance(update, dict):
            return
        kind = update.get("sessionUpdate")
        if kind in ("tool_call", "tool_call_update"):
            raise self._dropped(_tool_name(update) or "a tool")
        content = update.get("content")
        if not ours:
            return
        if kind == "agent_message_chunk" and isinstance(content, dict) and content.get("type") == "text":
            self.chunks.append(str(content.get("text", "")))
        elif kind == "usage_update" and isinstance(update.get("cost"), dict):
            self.cost = update["cost"]

    def _dropped(self, what: str) -> EngineFailed:
        self.agent.end()  # before anything it asked for could run
        return EngineFailed(f"`{self.agent.name}` asked for a tool ({what}); the call was dropped", dropped=True)

    def _refused(self, method: str, error: dict) -> EngineFailed:
        name = self.agent.name
        if error.get("code") == AUTH_REQUIRED:
            hint = f" ({self.sign_in_hint})" if self.sign_in_hint else ""
            return EngineFailed(f"`{name}` needs a sign-in: sign in with the agent's own CLI first{hint}")
        return EngineFailed(f"`{name}` refused {method}: {_one_line(error.get('message'))}")

    def _gone(self, method: str) -> EngineFailed:
        status = self.agent.wait()
        said = self.agent.stderr_tail()[-300:]
        said = f": {said}" if said else ""
        if status == 0:
            return EngineFailed(f"`{self.agent.name}` closed its output before it answered {method}{said}")
        return EngineFailed(f"`{self.agent.name}` exited with status {status} before it answered {method}{said}")


def _keep_asking_first(client: _Client, modes: object) -> None:
    """The mode that asks before acting, when the agent offers modes; never one that acts without asking."""
    if not isinstance(modes, dict):
        return  # no modes: whatever the agent asks for drops the call anyway
    current = str(modes.get("currentModeId") or "")
    offered = [m for m in modes.get("availableModes") or [] if isinstance(m, dict)]
    ids = [str(m.get("id")) for m in offered]
    ask_first = next((mode for mode in ASK_FIRST_MODES if mode in ids), None)
    if current in ASK_FIRST_MODES or (ask_first is None and not _bypasses(current)):
        return
    if ask_first is None:
        raise EngineFailed(
            f"`{client.agent.name}` starts in its mode {current!r}, which acts without asking, and offers no mode "
            "that asks first; the call was not made"
        )
    client.request("session/set_mode", {"sessionId": client.session_id, "modeId": ask_first})


def _bypasses(mode: str) -> bool:
    lowered = mode.lower()
    return any(word in lowered for word in BYPASS_WORDS)


def _choose_model(client: _Client, wanted: str, models: object) -> str | None:
    """The model that answers: the instance's `model` when set (the agent must offer it), else the agent's own."""
    offered = models if isinstance(models, dict) else {}
    current = offered.get("currentModelId")
    if not wanted:
        return current if isinstance(current, str) else None
    ids = [str(m.get("modelId")) for m in offered.get("availableModels") or [] if isinstance(m, dict)]
    if wanted not in ids:
        which = f"it offers {', '.join(ids)}" if ids else "it lets no client choose one"
        raise EngineFailed(f"`{client.agent.name}` has no model {wanted!r}: {which}")
    if wanted != current:
        client.request("session/set_model", {"sessionId": client.session_id, "modelId": wanted})
    return wanted


def _reply(client: _Client, model: str | None, usage: object) -> EngineReply:
    """The answer, with the tokens the prompt's response reports and the cost a usage update gave, if any."""
    reply = EngineReply(text="".join(client.chunks).strip(), model=model)
    if isinstance(usage, dict):
        reply.prompt_tokens = _count(usage.get("inputTokens"))
        reply.completion_tokens = _count(usage.get("outputTokens"))
        details = {"cached_tokens": _count(usage.get("cachedReadTokens"))}
        reply.details = {key: value for key, value in details.items() if value is not None}
    cost = client.cost or {}
    if cost.get("currency") == "USD" and type(cost.get("amount")) in (int, float):
        reply.cost_usd = float(cost["amount"])
    return reply


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _tool_name(tool: dict) -> str:
    title = tool.get("title") or tool.get("kind") or ""
    return _one_line(title)[:TITLE_CHARS] if isinstance(title, str) else ""


def _sign_in_hint(methods: object) -> str:
    """What the agent says signing in takes ("Run `claude /login` in the terminal"), for the sentence."""
    for method in methods if isinstance(methods, list) else []:
        if isinstance(method, dict):
            said = method.get("description") or method.get("name")
            if isinstance(said, str) and said.strip():
                return _one_line(said)[:200]
    return ""


def _one_line(value: object) -> str:
    return " ".join(str(value).split())[:200]


def _line(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _version() -> str:
    with contextlib.suppress(metadata.PackageNotFoundError):
        return metadata.version("omb-tui")
    return "0"
