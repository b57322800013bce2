"""Engines: a person's own agent CLI (Claude Code, Codex, any ACP agent) answering one model call on their plan.

Spec: memory.md, "Memory upkeep" and "The helper model"; docs/models.md, "Engines". An engine instance in
config.json (`{"engine": "claude-code"}`, `"codex"`, `"acp"`) is called through the same `complete()` as an API
instance: call.py hands it an `EngineCall` and gets an `EngineReply` back, or an `EngineFailed` with one sentence.
Every call is isolated (process.py): a fresh session in an empty temporary folder, no MCP server, none of the
person's settings, hooks, plugins or memory files, every tool off, nothing saved, and dropped the moment the
agent asks for a tool, a file or a permission. May import: base, files, memory (settings), models' own modules.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from ...memory.settings import ENGINE_ACP, ENGINE_CLAUDE_CODE, ENGINE_CODEX, ENGINES, ModelInstance

__all__ = [
    "ENGINES",
    "ENGINE_ACP",
    "ENGINE_CLAUDE_CODE",
    "ENGINE_CODEX",
    "EngineCall",
    "EngineFailed",
    "EngineReply",
    "flatten",
    "run_engine",
]

DEFAULT_COMMANDS = {ENGINE_CLAUDE_CODE: ("claude",), ENGINE_CODEX: ("codex",)}
_MODULES = {ENGINE_CLAUDE_CODE: "claude_code", ENGINE_CODEX: "codex", ENGINE_ACP: "acp"}


@dataclass(frozen=True)
class EngineCall:
    """One call, as an engine takes it: its instructions, one prompt, and the JSON schema the answer must match."""

    instance: ModelInstance
    model: str  # the model to ask for ("" : the engine's own choice: for Codex its smallest, at low effort)
    system: str  # the system messages, joined ("" when none)
    prompt: str  # the rest of the conversation as one text (flatten)
    schema: dict | None  # the CLI's own schema support where it has one, else the schema is in `prompt` already
    seconds: float  # the whole call, process start to exit, by the wall clock

    @property
    def command(self) -> tuple[str, ...]:
        default: tuple[str, ...] = DEFAULT_COMMANDS.get(self.instance.engine or "", ())
        return self.instance.command or default


@dataclass
class EngineReply:
    """What the agent answered, with the usage it reported (None where it reported none)."""

    text: str
    data: object | None = None  # the structured answer, when the CLI checked it against the schema itself
    model: str | None = None  # the model the CLI says answered
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None  # what the CLI reports the call would cost; on the person's plan, not billed
    details: dict = field(default_factory=dict)  # anything else worth a usage row (cached tokens, turns)


class EngineFailed(Exception):
    """No usable answer: `sentence` says why in words a person can act on; `dropped` when the agent asked for a
    tool, a file or a permission and the call was ended for it; the usage reported before the end, if any."""

    def __init__(self, sentence: str, *, dropped: bool = False, reply: EngineReply | None = None) -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.dropped = dropped
        self.reply = reply


def flatten(messages: list[dict]) -> tuple[str, str]:
    """(system, prompt): an engine takes instructions and one prompt, not a list of turns. A single user message is
    the prompt as written; several are labelled by role, in order."""
    system = "\n\n".join(_text(m) for m in messages if m.get("role") == "system" and _text(m))
    rest = [m for m in messages if m.get("role") != "system"]
    if len(rest) == 1 and rest[0].get("role") == "user":
        return system, _text(rest[0])
    return system, "\n\n".join(f"{str(m.get('role', 'user')).capitalize()}: {_text(m)}" for m in rest)


def _text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI's parts: only the text ones carry words an engine can take
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def run_engine(call: EngineCall) -> EngineReply:
    """The engine's answer to one isolated call; EngineFailed with one sentence when there is none."""
    engine = call.instance.engine
    if engine not in _MODULES:
        raise EngineFailed(f"instance {call.instance.id!r} names an unknown engine; use one of {', '.join(ENGINES)}")
    module = importlib.import_module(f"{__name__}.{_MODULES[engine]}")
    return module.run(call)
