"""The Codex engine: one `codex exec` per call, on the person's sign-in and nothing else of theirs.

Spec: memory.md, "Memory upkeep" ("On Codex each call is one `codex exec` on the same sign-in ..."); docs/models.md,
"Engines" -> "Codex". Each call runs in an empty folder with a Codex home of its own that holds only a copy of the
person's auth.json (so none of their config.toml, MCP servers, plugins, hooks, skills, AGENTS.md or history is
read), a read-only sandbox, `--ephemeral` (no session file), every tool Codex 0.171.0 has switched off, and their
words passed on stdin. It is dropped the moment Codex reports a tool call: an `item` event of any kind but the
answer's, or the line its tool router writes on stderr when the model calls a tool that is off.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import tomllib
from collections.abc import Mapping
from pathlib import Path

from ...files.disk import atomic_write_bytes
from ...files.paths import quoted
from ...memory import environment
from ...memory.agents import codex_home
from . import EngineCall, EngineFailed, EngineReply
from .process import AgentProcess, empty_folder, resolve_program

DEFAULT_MODEL = "gpt-6-luna"  # the smallest model a ChatGPT plan lists (the spec's GPT-6 Luna)
DEFAULT_EFFORT = "low"  # background steps on the person's plan: the least of its quota
AUTH_FILE = "auth.json"
API_KEY_ENV = "CODEX_API_KEY"  # `codex exec` signs in with this key when it is set
NOT_SIGNED_IN = "Codex is not signed in on this machine: run `codex login`, then try again"
SIGN_IN_REFUSED = "Codex's sign-in was refused ({why}): run `codex login`, then try again"
DEFAULT_INSTRUCTIONS = "Answer the request below in text. You have no tools."
MESSAGE_CHARS = 300  # the most of Codex's own error message a sentence quotes

# Every tool and every source of the person's context Codex 0.171.0 has, off (the agents tier checks each request
# Codex sends offers no tool and none of the person's words).
FEATURES_OFF = (
    "shell_tool",
    "unified_exec",
    "view_image",
    "image_generation",
    "multi_agent",
    "goals",
    "plugins",
    "apps",
    "hooks",
    "memories",
    "tool_suggest",
    "skill_search",
    "browser_use",
    "computer_use",
    "sleep_tool",
)
SETTINGS_LOCKED = (
    'web_search="disabled"',
    "tools.experimental_request_user_input.enabled=false",
    "tools.update_plan.enabled=false",
    "mcp_servers={}",
    "project_doc_max_bytes=0",  # no AGENTS.md, not even one the folder came to hold
    "skills.include_instructions=false",
    "include_permissions_instructions=false",
    "include_environment_context=false",
    "include_apps_instructions=false",
    "include_collaboration_mode_instructions=false",
    'history.persistence="none"',
    "check_for_update_on_startup=false",
    'approval_policy="never"',  # nothing to approve: a request for approval would wait for no one
)
# What a person's `command` may add: the model and where it is served from, never a tool, a server or a sandbox.
PERSON_SETTINGS = frozenset(
    {
        "model",
        "model_provider",
        "model_providers",
        "model_reasoning_effort",
        "model_reasoning_summary",
        "model_verbosity",
        "model_context_window",
        "service_tier",
        "openai_base_url",
        "chatgpt_base_url",
        "forced_login_method",
        "forced_chatgpt_workspace_id",
    }
)
PERSON_FLAGS = {"--oss": False, "-m": True, "--model": True, "--local-provider": True, "-c": True, "--config": True}
ANSWER_ITEMS = frozenset({"agent_message", "reasoning", "error"})  # `error` items are Codex's warnings
TOOL_NAMES = {
    "command_execution": "shell",
    "file_change": "apply_patch",
    "web_search": "web search",
    "todo_list": "update_plan",
}
# Codex's tool router, when the model calls a tool that is off: "... ERROR codex_core::tools::router: error=
# unsupported call: exec_command". Nothing ran, but the model asked, so the call is dropped.
# A model's catalog entry turns tools on that no feature switch reaches (GPT-6's code mode, its sub-agents, tool
# search, apply_patch): the entry goes to Codex without them, in a catalog of its own.
CATALOG_TOOL_FIELDS = ("tool_mode", "multi_agent_version", "multi_agent_reasoning_effort", "apply_patch_tool_type")
CATALOG_OFF = {
    "experimental_supported_tools": [],
    "supports_search_tool": False,
    "include_skills_usage_instructions": False,
    "include_plugin_usage_instructions": False,
    "include_apps_usage_instructions": False,
}
CATALOG_SECONDS = 30.0  # `codex debug models` prints the catalog Codex ships; a slower one is left out
REFUSED_CALL = re.compile(rb"unsupported call: ([^\s\"']{1,200})")
_SIGN_IN_WORDS = re.compile(r"\b401\b|unauthori[sz]ed|log ?in again|not logged in|refresh token", re.IGNORECASE)


def run(call: EngineCall) -> EngineReply:
    """Codex's answer to one isolated call; EngineFailed with one sentence when there is none."""
    environ = environment.current()
    program = resolve_program(call, environ)
    person_args, person_model = person_overrides(call)
    auth = _person_auth(environ)
    with empty_folder() as folder, empty_folder() as codex_home:
        if auth is not None:
            (codex_home / AUTH_FILE).write_bytes(auth.data)
            (codex_home / AUTH_FILE).chmod(0o600)
        instructions = codex_home / "instructions.md"
        instructions.write_text(call.system or DEFAULT_INSTRUCTIONS, encoding="utf-8")
        schema_file = None
        if call.schema is not None:
            schema_file = codex_home / "schema.json"
            schema_file.write_text(json.dumps(strict_schema(call.schema)), encoding="utf-8")
        env = {**environ, "CODEX_HOME": str(codex_home), "RUST_LOG": "error"}  # the router's refusal is an error
        ends_at = time.monotonic() + call.seconds
        try:
            model = person_model or call.model or DEFAULT_MODEL
            catalog = model_catalog(program, model, folder, env, call.seconds)
            if catalog is not None:
                (codex_home / "models.json").write_text(json.dumps(catalog), encoding="utf-8")
            words = exec_arguments(model, instructions, schema_file, codex_home / "models.json" if catalog else None)
            argv = [program, *words, *person_args, "-"]
            with AgentProcess(
                argv, cwd=folder, env=env, seconds=call.seconds, stdin_text=call.prompt, stderr_alarm=REFUSED_CALL
            ) as process:
                process.ends_at = ends_at  # the call's time, the catalog's read included
                reply = _read(process, call, model)
        finally:
            if auth is not None:
                auth.keep_refreshed(codex_home / AUTH_FILE)
    return reply


def exec_arguments(model: str, instructions: Path, schema_file: Path | None, catalog: Path | None = None) -> list[str]:
    """`codex exec`'s words for an isolated call, before the person's own and the prompt."""
    words = ["exec", "--json", "--ephemeral", "--skip-git-repo-check", "--ignore-user-config", "--ignore-rules"]
    words += ["--sandbox", "read-only"]
    for feature in FEATURES_OFF:
        words += ["--disable", feature]
    for setting in SETTINGS_LOCKED:
        words += ["-c", setting]
    words += ["-c", f"model_instructions_file={json.dumps(str(instructions))}"]
    if catalog is not None:
        words += ["-c", f"model_catalog_json={json.dumps(str(catalog))}"]
    words += ["-c", f"model={json.dumps(model)}", "-c", f"model_reasoning_effort={json.dumps(DEFAULT_EFFORT)}"]
    if schema_file is not None:
        words += ["--output-schema", str(schema_file)]
    return words


def person_overrides(call: EngineCall) -> tuple[list[str], str | None]:
    """The words after the program in the instance's `command`, less the model they name, and that model (`-m`
    before `-c model=`, the last of each, as Codex reads them). Only the model and its provider may be set there:
    a word that could turn a tool, a server or a sandbox back on is refused with one sentence, never passed on."""
    words, kept = list(call.command[1:]), []
    flag_model = setting_model = None
    index = 0
    while index < len(words):
        word = words[index]
        flag, _, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        if flag not in PERSON_FLAGS:
            raise EngineFailed(_refused(call, word))
        value, taken = inline, [word]
        if PERSON_FLAGS[flag] and not inline:
            if index + 1 >= len(words):
                raise EngineFailed(
                    f"the command of instance {quoted(call.instance.id)} ends with `{word}`, which needs a value"
                )
            index += 1
            value = words[index]
            taken.append(value)
        index += 1
        if flag in ("-m", "--model"):
            flag_model = value
            continue
        if flag in ("-c", "--config"):
            key, _, setting = value.partition("=")
            if key.strip().split(".")[0].strip("\"'") not in PERSON_SETTINGS:
                raise EngineFailed(_refused(call, " ".join(taken)))
            if key.strip() == "model":
                setting_model = _toml_text(setting)
                continue
        kept += taken
    return kept, flag_model or setting_model


def _refused(call: EngineCall, word: str) -> str:
    return (
        f"the command of instance {quoted(call.instance.id)} has `{word}`, which a Codex call does not take: only the "
        "model and its provider may be set there (`-m`, `--oss`, `--local-provider`, `-c model…`, "
        "`-c model_provider…`, `-c model_providers.…`)"
    )


def _toml_text(value: str) -> str:
    with contextlib.suppress(tomllib.TOMLDecodeError):
        parsed = tomllib.loads(f"v = {value}")["v"]
        if isinstance(parsed, str):
            return parsed
    return value.strip()


# ----- the model's catalog entry -----
_CATALOGS: dict[tuple[str, float], list] = {}  # Codex's shipped catalog, per program and its modification time
_CATALOG_LOCK = threading.Lock()


def model_catalog(program: str, model: str, folder: Path, env: Mapping[str, str], seconds: float) -> dict | None:
    """A catalog holding only `model`'s entry, without the tools it would turn on; None when Codex's catalog does
    not list the model (Codex then uses its plain metadata, whose tools the features switch off). EngineFailed
    when the catalog cannot be read: a call that might offer a tool is not made."""
    try:
        stamp = (program, Path(program).stat().st_mtime)
    except OSError:
        stamp = (program, 0.0)
    with _CATALOG_LOCK:
        models = _CATALOGS.get(stamp)
    if models is None:
        models = _shipped_catalog(program, folder, env, min(seconds, CATALOG_SECONDS))
        with _CATALOG_LOCK:
            _CATALOGS[stamp] = models
    entry = next((m for m in models if isinstance(m, dict) and m.get("slug") == model), None)
    if entry is None:
        return None
    entry = {key: value for key, value in entry.items() if key not in CATALOG_TOOL_FIELDS}
    return {"models": [{**entry, **CATALOG_OFF}]}


def _shipped_catalog(program: str, folder: Path, env: Mapping[str, str], seconds: float) -> list:
    unreadable = EngineFailed(
        f"`{Path(program).name} debug models` did not print Codex's model catalog, so no call could be made with "
        "its tools off; update Codex or set `command`"
    )
    with AgentProcess([program, "debug", "models"], cwd=folder, env=env, seconds=seconds) as process:
        text = b"".join(process.lines())
        if process.wait() != 0:
            raise unreadable
    try:
        models = json.loads(text).get("models")
    except (ValueError, AttributeError):
        raise unreadable from None
    if not isinstance(models, list):
        raise unreadable
    return models


# ----- the sign-in -----
class _Auth:
    """The person's auth.json as copied for one call; a token Codex refreshed during it is written back."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.path, self.data = path, data

    def keep_refreshed(self, copy: Path) -> None:
        """Codex refreshes a ChatGPT sign-in in its home and the old refresh token stops working: the new file goes
        back to the person's home, unless their own file changed meanwhile (a `codex login` of theirs wins)."""
        try:
            refreshed = copy.read_bytes()
            if refreshed == self.data or not isinstance(json.loads(refreshed), dict):
                return
            if self.path.read_bytes() != self.data:
                return
            atomic_write_bytes(self.path, refreshed)
        except (OSError, ValueError):  # a file gone, unreadable, or behind a link: theirs stays as it was
            return


def _person_auth(environ: Mapping[str, str]) -> _Auth | None:
    """The sign-in to copy; None when a key in the environment signs in instead; EngineFailed when neither."""
    path = codex_home(environ) / AUTH_FILE
    try:
        data = path.read_bytes()
        if isinstance(json.loads(data), dict):
            return _Auth(path, data)
    except (OSError, ValueError):
        pass
    if environ.get(API_KEY_ENV):
        return None
    raise EngineFailed(NOT_SIGNED_IN)


# ----- the answer -----
def _read(process: AgentProcess, call: EngineCall, model: str) -> EngineReply:
    """The answer from Codex's `--json` events: the last agent message, the turn's token counts."""
    text: str | None = None
    usage: dict = {}
    failure = ""
    for raw in process.lines():
        event = _event(raw)
        if event is None:
            process.end()
            raise EngineFailed(f"`{process.name}` printed something that is not a JSON event; the call was ended")
        kind = event.get("type")
        given = event.get("item")
        item: dict = given if isinstance(given, dict) else {}
        if kind in ("item.started", "item.updated", "item.completed") and item.get("type") not in ANSWER_ITEMS:
            process.end()
            raise _dropped(_tool_name(item), _reply(text or "", None, model, usage))
        if kind == "item.completed" and item.get("type") == "agent_message" and isinstance(item.get("text"), str):
            text = item["text"]
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            usage = event["usage"]
        elif kind == "turn.failed" and isinstance(event.get("error"), dict):
            failure = str(event["error"].get("message") or failure)
        elif kind == "error":
            failure = str(event.get("message") or failure)
    if process.alarm is not None:
        raise _dropped(process.alarm.group(1).decode("utf-8", "replace"), _reply(text or "", None, model, usage))
    status = process.wait()
    if process.alarm is not None:
        raise _dropped(process.alarm.group(1).decode("utf-8", "replace"), _reply(text or "", None, model, usage))
    if status != 0 or text is None:
        why = _short(failure or process.stderr_tail())
        if _SIGN_IN_WORDS.search(why):
            raise EngineFailed(SIGN_IN_REFUSED.format(why=why), reply=_reply("", None, model, usage) if usage else None)
        if status != 0:
            raise EngineFailed(f"`{process.name}` exited with status {status}: {why or 'it said nothing'}")
        raise EngineFailed(f"`{process.name}` finished without an answer{f': {why}' if why else ''}")
    return _reply(text, _structured(text, call.schema), model, usage)


def _event(raw: bytes) -> dict | None:
    try:
        event = json.loads(raw)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def _tool_name(item: dict) -> str:
    kind = str(item.get("type") or "unknown")
    if kind == "mcp_tool_call":
        return f"{item.get('server')}/{item.get('tool')}"
    return TOOL_NAMES.get(kind, kind)


def _dropped(tool: str, reply: EngineReply) -> EngineFailed:
    return EngineFailed(f"Codex asked for a tool ({tool}); the call was dropped", dropped=True, reply=reply)


def _short(message: str) -> str:
    text = " ".join(message.split())
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"


def _reply(text: str, data: object | None, model: str, usage: dict) -> EngineReply:
    def count(key: str) -> int | None:
        value = usage.get(key)
        return value if type(value) is int else None

    details = {
        name: count(key)
        for name, key in (("cached_tokens", "cached_input_tokens"), ("reasoning_tokens", "reasoning_output_tokens"))
        if count(key) is not None
    }
    return EngineReply(
        text=text,
        data=data,
        model=model,
        prompt_tokens=count("input_tokens"),
        completion_tokens=count("output_tokens"),
        details=details,
    )


# ----- structured answers -----
def strict_schema(schema: object) -> object:
    """The schema as OpenAI's strict structured outputs take it (Codex always asks strictly): every object closed
    and every property required, an optional one made nullable. `_structured` drops those nulls again."""
    if not isinstance(schema, dict):
        return schema
    strict = dict(schema)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = set(schema.get("required") or ())
        strict["properties"] = {
            key: strict_schema(sub) if key in required else _nullable(strict_schema(sub))
            for key, sub in properties.items()
        }
        strict["required"] = list(properties)
        strict["additionalProperties"] = False
    if "items" in schema:
        strict["items"] = strict_schema(schema["items"])
    return strict


def _nullable(schema: object) -> object:
    if not isinstance(schema, dict) or _admits_null(schema):
        return schema
    nullable = dict(schema)
    kind = schema.get("type")
    if isinstance(kind, str):
        nullable["type"] = [kind, "null"]
    elif isinstance(kind, list):
        nullable["type"] = [*kind, "null"]
    if isinstance(schema.get("enum"), list):
        nullable["enum"] = [*schema["enum"], None]
    return nullable


def _admits_null(schema: dict) -> bool:
    kind = schema.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind) or None in (schema.get("enum") or ())


def _structured(text: str, schema: dict | None) -> object | None:
    """The JSON Codex answered, as the caller's schema reads it (an optional property's null taken out); None when
    it is not JSON, and the caller's own reading then says why."""
    if schema is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return _without_optional_nulls(data, schema)


def _without_optional_nulls(data: object, schema: object) -> object:
    if not isinstance(schema, dict):
        return data
    properties = schema.get("properties")
    if isinstance(data, dict) and isinstance(properties, dict):
        required = set(schema.get("required") or ())
        kept = {}
        for key, value in data.items():
            sub = properties.get(key)
            optional_null = value is None and key not in required and isinstance(sub, dict) and not _admits_null(sub)
            if not optional_null:
                kept[key] = _without_optional_nulls(value, sub)
        return kept
    if isinstance(data, list) and isinstance(schema.get("items"), dict):
        return [_without_optional_nulls(value, schema["items"]) for value in data]
    return data
