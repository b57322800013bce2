"""The claude-code engine: one `claude -p` per call, on the person's own Claude Code sign-in, isolated.

docs/models.md, "Engines" (Claude Code); spec: memory.md, "Memory upkeep" and "The helper model". The flags, read
from Claude Code 2.1.332's `--help` and tried against the program itself: every built-in tool off (`--tools ""`),
no MCP server but an empty list's (`--strict-mcp-config --mcp-config`), none of the user, project or local settings
(so none of their hooks, plugins or MCP servers), safe mode (CLAUDE.md files, auto-memory and every other
customization off, the sign-in untouched), no session saved, no slash command or skill, and our own system prompt
in place of the coding agent's. Not `--bare`: it refuses OAuth sign-ins, so it cannot run on a subscription.
The answer is read as stream-json, so the first tool the model asks for ends the call before anything runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from ...memory import environment
from . import EngineCall, EngineFailed, EngineReply
from .process import AgentProcess, empty_folder, resolve_program

SCHEMA_TOOL = "StructuredOutput"  # the tool `--json-schema` gives the model to hand its JSON back: it runs nothing
EMPTY_MCP_CONFIG = '{"mcpServers": {}}'
ISOLATION_FLAGS = (
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",  # stream-json in print mode needs it
    "--tools",
    "",
    "--strict-mcp-config",
    "--mcp-config",
    EMPTY_MCP_CONFIG,
    "--setting-sources",
    "",
    "--safe-mode",
    "--no-session-persistence",
    "--disable-slash-commands",
)
# Set for every call: what safe mode also keeps out, said twice in case a later Claude Code reads one and not the other.
ISOLATION_ENV = {
    "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
}
# Never passed on: an API key would bill the call instead of the sign-in; the rest belong to a Claude Code
# session omb-tui may itself run inside (bare mode refuses OAuth; an IDE's port would attach an editor).
DROPPED_ENV = frozenset(
    {"ANTHROPIC_API_KEY", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SSE_PORT"}
)
SIGNED_OUT_ERROR = "authentication_failed"  # an assistant message's `error` when Claude Code has no sign-in
SIGNED_OUT_WORDS = ("not logged in", "/login", "invalid api key", "oauth token has expired")
SHOWN_CHARS = 200  # of the CLI's own words, in a sentence


def argv(call: EngineCall, program: str) -> list[str]:
    """The whole command line for one call: the person's program and its arguments, then the isolation."""
    args = [program, *call.command[1:], *ISOLATION_FLAGS, "--system-prompt", call.system]
    if call.model:
        args += ["--model", call.model]
    if call.schema is not None:
        args += ["--json-schema", json.dumps(call.schema, ensure_ascii=False)]
    return args


def child_environment(base: Mapping[str, str], scratch: Path) -> dict[str, str]:
    """The person's environment (HOME stays theirs: the sign-in lives there) less what would change the sign-in,
    plus the isolation switches; temporary files go to a folder removed after the call."""
    env = {key: value for key, value in base.items() if key not in DROPPED_ENV}
    env.update(ISOLATION_ENV)
    env["TMPDIR"] = env["CLAUDE_CODE_TMPDIR"] = str(scratch)
    return env


def run(call: EngineCall) -> EngineReply:
    """Claude Code's answer to one isolated call; EngineFailed with one sentence when there is none."""
    base = environment.current()
    program = resolve_program(call, base)
    with empty_folder() as folder, empty_folder() as scratch:
        with AgentProcess(
            argv(call, program),
            cwd=folder,
            env=child_environment(base, scratch),
            seconds=call.seconds,
            stdin_text=call.prompt,
        ) as process:
            reading = _Reading(call, process.name)
            for line in process.lines():
                if reading.take(line):  # a tool asked for: end the group before Claude Code acts on it
                    process.end()
                    raise reading.dropped()
            status = process.wait()
            return reading.reply(status, process.stderr_tail())


class _Reading:
    """What the stream said so far: the model, the usage of each assistant message, the result event."""

    def __init__(self, call: EngineCall, name: str) -> None:
        self.call, self.name = call, name
        self.model: str | None = None
        self.usage: dict[str, dict] = {}  # message id -> its usage, as last reported
        self.texts: dict[str, str] = {}
        self.result: dict | None = None
        self.signed_out = False
        self.tool = ""
        self.unreadable = ""  # the first line that was not an event, for the sentence

    def take(self, line: bytes) -> bool:
        """Read one line; True when the model asked for a tool, a file or a permission."""
        try:
            event = json.loads(line)
        except ValueError:
            if not self.unreadable and line.strip():
                self.unreadable = line.decode("utf-8", "replace").strip()
            return False
        if not isinstance(event, dict):
            return False
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            self.model = _text(event.get("model")) or self.model
        elif kind == "assistant":
            return self._assistant(event)
        elif kind == "result":
            self.result = event
        return False

    def _assistant(self, event: dict) -> bool:
        message = event.get("message")
        if not isinstance(message, dict):
            return False
        if event.get("error") == SIGNED_OUT_ERROR:
            self.signed_out = True
        key = _text(message.get("id")) or str(len(self.usage))
        if isinstance(message.get("usage"), dict):
            self.usage[key] = message["usage"]
        if message.get("model") and message.get("model") != "<synthetic>":
            self.model = _text(message.get("model"))
        blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
        self.texts[key] = "".join(_text(b.get("text")) for b in blocks if b.get("type") == "text")
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            name = _text(block.get("name")) or "a tool with no name"
            if name == SCHEMA_TOOL and self.call.schema is not None:
                continue  # the JSON answer itself, handed back through the schema's own tool
            self.tool = name
            return True
        return False

    def dropped(self) -> EngineFailed:
        usage = _sum(self.usage.values())
        reply = EngineReply(
            text="".join(self.texts.values()),
            model=self.model,
            prompt_tokens=_input_tokens(usage),
            completion_tokens=_int(usage.get("output_tokens")),
        )
        return EngineFailed(
            f"`{self.name}` asked for a tool ({self.tool}); the call was dropped", dropped=True, reply=reply
        )

    def reply(self, status: int, stderr: str) -> EngineReply:
        result = self.result
        said = _text(result.get("result")) if result else ""
        if self.signed_out or (result and result.get("is_error") and _signed_out(said)):
            raise EngineFailed(
                f"`{self.name}` is not signed in: run `{self.name}` and sign in with /login", reply=self._usage()
            )
        if result is None:
            if status != 0:
                raise EngineFailed(f"`{self.name}` exited with status {status}: {_words(stderr or self.unreadable)}")
            if self.unreadable:
                raise EngineFailed(
                    f"`{self.name}` printed something that is not Claude Code's stream-json: {_words(self.unreadable)}"
                )
            raise EngineFailed(f"`{self.name}` ended without an answer")
        if result.get("is_error") or result.get("subtype") != "success":
            why = said or _text(result.get("subtype")) or "no reason given"
            raise EngineFailed(f"`{self.name}` answered with an error: {_words(why)}", reply=self._usage())
        if status != 0:
            raise EngineFailed(f"`{self.name}` exited with status {status}: {_words(stderr)}", reply=self._usage())
        return self._usage()

    def _usage(self) -> EngineReply:
        """The reply as the result event reports it, or as the assistant messages did when there is none."""
        result = self.result or {}
        reported = result.get("usage")
        usage: dict = reported if isinstance(reported, dict) else _sum(self.usage.values())
        model = _main_model(result.get("modelUsage")) or self.model
        cost = result.get("total_cost_usd")
        details: dict = {}
        if _int(usage.get("cache_read_input_tokens")):
            details["cached_tokens"] = _int(usage.get("cache_read_input_tokens"))
        if type(result.get("num_turns")) is int:
            details["turns"] = result["num_turns"]
        return EngineReply(
            text=_text(result.get("result")) if result else "".join(self.texts.values()),
            data=result.get("structured_output") if self.call.schema is not None else None,
            model=model,
            prompt_tokens=_input_tokens(usage),
            completion_tokens=_int(usage.get("output_tokens")),
            cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
            details=details,
        )


def _main_model(model_usage: object) -> str | None:
    """The model that answered: of those the result lists, the one that wrote the most (a title model writes less)."""
    if not isinstance(model_usage, dict) or not model_usage:
        return None
    ranked = sorted(
        (-(_int(u.get("outputTokens")) or 0), name) for name, u in model_usage.items() if isinstance(u, dict)
    )
    return ranked[0][1] if ranked else None


def _input_tokens(usage: Mapping) -> int | None:
    """Every token the model read: fresh, written to the cache and read from it (Anthropic counts them apart)."""
    parts = [_int(usage.get(k)) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
    return None if parts[0] is None else sum(p or 0 for p in parts)


def _sum(usages: Iterable[dict]) -> dict:
    total: dict = {}
    for usage in usages:
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"):
            if _int(usage.get(key)) is not None:
                total[key] = total.get(key, 0) + usage[key]
    return total


def _signed_out(said: str) -> bool:
    lowered = said.lower()
    return any(words in lowered for words in SIGNED_OUT_WORDS)


def _words(text: str) -> str:
    flat = " ".join(text.split())
    return (flat[:SHOWN_CHARS] + "…") if len(flat) > SHOWN_CHARS else (flat or "no message")


def _int(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
