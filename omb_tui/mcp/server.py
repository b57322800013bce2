"""The MCP server of one bot's memory: the SDK's low-level server over tools.py and resources.py, one session per
client, and the notifications a client subscribes to.

Spec: memory.md, as tools.py and resources.py say. The low-level `Server` of the official SDK (2.x), not its
decorator layer: the tools keep the core's own JSON schemas, which a function signature could not give. Every call
runs the core in a worker thread, so a slow write or a recall index being brought up to date never holds up the
event loop. What changed is found by one look at every resource (`resources.look`), after each tool call and when
watchfiles sees a file change (as the app's watcher does; `watch=False` in tests), and told both ways the SDK
speaks: `notifications/resources/updated` to a client that subscribed (the handshake era), and events on the
`subscriptions/listen` streams (2026-07-28).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError

from .. import __version__
from ..core.files.paths import MemoryInputError
from ..core.memory.agents import AGENTS, CODEX
from ..core.redaction.redact import redact
from ..core.team.storage import teams_dir
from ..core.turn.agent_session import AgentSession, chat_id_for, open_session, session_title
from ..core.turn.tools import MEMORY_UPDATE, SESSION_SEARCH
from ..library import BotMemory
from . import resources
from .session import Session, Sessions, codex_session_id
from .tools import MEMORY_STATUS, RECALL, call, offered, tool_name

log = logging.getLogger("omb_tui.mcp")
T = TypeVar("T")

SERVER_NAME = "omb-tui"
SESSION_HEADER = "mcp-session-id"  # Streamable HTTP's session, when the client keeps one
WATCH_DEBOUNCE_MS = 200  # as the app's watcher: a burst of writes is one look
WATCH_WAKE_MS = 250  # as the app's: the watcher's thread wakes this often, so a stop waits no longer (watchfiles: 5 s)
REMEMBER_PROMPT = types.Prompt(
    name="remember_about",
    title="What do you remember about …",
    description="Ask what the bot's memory holds about something: the question, with what recall finds for it.",
    arguments=[types.PromptArgument(name="about", description="a person, a place, a project…", required=True)],
)
READ_ONLY_TOOLS = {SESSION_SEARCH, RECALL, MEMORY_STATUS}  # no look after these: they change nothing


def instructions(bot: BotMemory) -> str:
    """What the client is told once, at the start, of this server."""
    return (
        f"The long-term memory of the bot {bot.core.name} ({bot.id}), kept by omb-tui as markdown files: every "
        "change is journaled as yours and a person can undo it. Call recall with each new message; save what "
        "should stay with memory_update; look back with session_search. The resource MEMORY.md is the memory "
        "block as it loads into your prompt."
    )


class MemoryServer:
    """The handlers of one server: the bot, the sessions of the clients that call it, what they subscribed to."""

    def __init__(
        self, bot: BotMemory, *, watch: bool = True, agent_session_id: str | None = None, cwd: str | None = None
    ) -> None:
        """`agent_session_id`: the Claude Code session that started this server over stdio, when it said which
        (CLAUDE_CODE_SESSION_ID in the client's environment); else a session is the client's own, but for the calls
        that name an agent session (Codex's). `cwd`: the folder the client started the server in (the project's),
        which names the session's chat."""
        self.bot = bot
        self.watch = watch
        self.agent_session_id = (agent_session_id or "").strip()
        self.cwd = cwd
        self.sessions = Sessions(self._agent_session, started_by=self.agent_session_id or None)
        self.bus = InMemorySubscriptionBus()  # the 2026-07-28 listen streams
        self.connected: dict[Session, ServerSession] = {}  # the handshake era: each session's newest channel
        self.subscribed: dict[Session, set[str]] = {}
        self.seen: resources.Seen | None = None
        self._looking = anyio.Lock()
        self.calls_running = 0  # tool calls whose work (a write, in a worker thread) has not returned yet

    def _agent_session(self, agent: str, session_id: str) -> AgentSession | None:
        """An agent's session that calls (Claude Code's that started this server, Codex's that a call names): its
        chat, opened at the session's first write when its prompt hook has not opened it yet, with the hooks'
        title and person, so its writes, its file edits and its turns are one chat and one run."""
        try:
            title = session_title(self.cwd, agent)
            return open_session(
                self.bot.home, self.bot.id, session_id, person=self.bot.person, title=title, agent=agent
            )
        except (MemoryInputError, OSError) as exc:  # the session's chat cannot be made: the client's own session
            name = AGENTS[agent].name
            log.warning(
                "%s: could not open %s's session %s: %s", self.bot.id, name, chat_id_for(session_id, agent), exc
            )
            return None

    # ----- who calls -----
    def session_of(self, ctx: ServerRequestContext[Any, Any]) -> Session:
        """The calling client's session: by the name it gave and, over HTTP, the session it keeps."""
        params = ctx.session.client_params
        headers = getattr(ctx.request, "headers", None)
        transport = headers.get(SESSION_HEADER) if headers is not None else None
        session = self.sessions.of(params.client_info.name if params is not None else None, transport)
        self.connected[session] = ctx.session
        return session

    # ----- tools -----
    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        self.session_of(ctx)
        tools = await _in_one_sentence(types.INTERNAL_ERROR, offered, self.bot)
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in tools])

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = self.session_of(ctx)
        codex = codex_session_id(params.meta)
        if codex is not None:  # one Codex session is one chat and one run, its hooks' and its calls'
            session = self.sessions.of_agent(session.client, CODEX, codex)
        self.calls_running += 1
        try:
            answer = await anyio.to_thread.run_sync(call, self.bot, session, params.name, params.arguments)
        finally:
            self.calls_running -= 1
        if params.name not in READ_ONLY_TOOLS and not answer.refused:
            await self.look()  # a subscriber hears of the write now, not only when the watcher wakes
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)], structured_content=answer.data, is_error=answer.refused
        )

    # ----- resources -----
    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        self.session_of(ctx)
        found = await _in_one_sentence(types.INTERNAL_ERROR, resources.listed, self.bot)
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type)
                for r in found
            ]
        )

    async def read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        self.session_of(ctx)
        text = await _in_one_sentence(types.INVALID_PARAMS, resources.read, self.bot, params.uri)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, text=text, mime_type=resources.MARKDOWN)]
        )

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        await _in_one_sentence(types.INVALID_PARAMS, resources.read, self.bot, params.uri)  # not one: refused
        self.subscribed.setdefault(self.session_of(ctx), set()).add(params.uri)
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.subscribed.get(self.session_of(ctx), set()).discard(params.uri)
        return types.EmptyResult()

    # ----- what changed -----
    async def look(self) -> None:
        """Look at every resource and the tools; tell the clients what changed since the last look."""
        async with self._looking:
            try:
                now = await anyio.to_thread.run_sync(self._look_now)
            except Exception as exc:  # a file that cannot be listed: nothing is told, and the call still answers
                log.warning("%s: could not look at the memory files for changes: %s", self.bot.id, exc)
                return
            before, self.seen = self.seen, now
        if before is None:
            return
        updated = [uri for uri, digest in now.resources.items() if before.resources.get(uri, digest) != digest]
        for uri in updated:
            await self._tell_updated(uri)
        if now.resources.keys() != before.resources.keys():
            await self.bus.publish(ResourcesListChanged())
            await self._tell(lambda s: s.send_resource_list_changed())
        if now.tools != before.tools:
            await self.bus.publish(ToolsListChanged())
            await self._tell(lambda s: s.send_tool_list_changed())

    async def _tell_updated(self, uri: str) -> None:
        await self.bus.publish(ResourceUpdated(uri))
        await self._tell(
            lambda channel: channel.send_resource_updated(uri), lambda s: uri in self.subscribed.get(s, ())
        )

    def _look_now(self) -> resources.Seen:
        return resources.look(self.bot, tuple(tool_name(tool) for tool in offered(self.bot)))

    async def _tell(
        self, send: Callable[[ServerSession], Any], wanted: Callable[[Session], bool] = lambda _: True
    ) -> None:
        """A notification to each handshake-era client that wants it; one gone is forgotten."""
        for session, channel in list(self.connected.items()):
            if not wanted(session):
                continue
            try:
                await send(channel)
            except Exception as exc:  # the client left (or never opened a stream for these): it hears nothing
                log.debug("%s: could not be told of a change: %s", session.client, exc)
                self.connected.pop(session, None)
                self.subscribed.pop(session, None)

    async def watch_files(self) -> None:
        """Look again whenever a file a resource or the tool list rests on changes, as the app's watcher does."""
        from watchfiles import awatch

        try:
            async for _ in awatch(
                self.bot.home.root,
                watch_filter=self._resource_file,
                debounce=WATCH_DEBOUNCE_MS,
                rust_timeout=WATCH_WAKE_MS,
            ):
                await self.look()
        except (OSError, RuntimeError) as exc:  # no watcher (inotify full: watchfiles' RuntimeError); session goes on
            log.warning(
                "%s: cannot watch the memory files (%s); only changes made through the tools are told.",
                self.bot.id,
                exc,
            )

    def _resource_file(self, change: object, path: str) -> bool:
        """The bot's memory files, its settings (the memory switch) and the teams' files; not temp files or locks."""
        home = self.bot.home
        where = Path(path)
        if where.name.startswith(".") or where.name.endswith((".tmp", ".lock")):
            return False
        return (
            where.is_relative_to(home.workspace(self.bot.id))
            or where == home.settings_path(self.bot.id)
            or where.parent == teams_dir(home)
        )

    async def run_beside(self, serve: Callable[[], Any]) -> None:
        """Take the first look, then `serve` the clients with the watcher beside it (when watching) until done."""
        await self.look()
        async with anyio.create_task_group() as group:
            if self.watch:
                group.start_soon(self.watch_files)
            await serve()
            group.cancel_scope.cancel()

    # ----- resource templates and prompts -----
    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        """A topic by name, for a client that reads one it was told of without listing them all first."""
        self.session_of(ctx)
        if not self.bot.memory_on:
            return types.ListResourceTemplatesResult(resource_templates=[])
        template = types.ResourceTemplate(
            name="topic",
            title=f"A topic file of {self.bot.core.name}'s memory",
            uri_template=resources.topic_uri(self.bot.id, "") + "{topic}",
            description="One topic file by its name (`travel.md`), as the topic index lists them.",
            mime_type=resources.MARKDOWN,
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        self.session_of(ctx)
        return types.ListPromptsResult(prompts=[] if not self.bot.memory_on else [REMEMBER_PROMPT])

    async def get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        """What do you remember about X: the question, with what recall finds for it in the bot's memory."""
        self.session_of(ctx)
        if params.name != REMEMBER_PROMPT.name or not self.bot.memory_on:
            raise MCPError(types.INVALID_PARAMS, f"There is no prompt named {params.name[:60]!r}.")
        about = " ".join(str((params.arguments or {}).get("about", "")).split())[:500]
        if not about:
            raise MCPError(types.INVALID_PARAMS, "Say what to remember about: the argument 'about'.")
        question = f"What do you remember about {about}?"
        result = await _in_one_sentence(types.INTERNAL_ERROR, self.bot.recall, question)
        found = (
            f"omb-tui recalled this from your memory for it:\n\n{result.block.rstrip()}"
            if result.block
            else "omb-tui recalled nothing for it; look further with session_search."
        )
        text = redact(f"{question}\n\n{found}").text
        return types.GetPromptResult(
            description=f"What {self.bot.core.name} remembers about {about}",
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )

    # ----- the SDK's server -----
    def build(self) -> Server[Any]:
        return _Server(
            SERVER_NAME,
            version=__version__,
            title=f"{self.bot.core.name}'s memory (omb-tui)",
            instructions=instructions(self.bot),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
            on_subscribe_resource=self.subscribe,
            on_unsubscribe_resource=self.unsubscribe,
            on_subscriptions_listen=ListenHandler(self.bus),
            on_list_resource_templates=self.list_resource_templates,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
        )


class _Server(Server[Any]):
    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """The handshake era's capabilities, over stdio and HTTP alike: both lists may change (the memory switch,
        a topic made or removed), besides resources/subscribe."""
        changes = notification_options or NotificationOptions(resources_changed=True, tools_changed=True)
        return super().create_initialization_options(changes, experimental_capabilities, extensions)


async def _in_one_sentence(code: int, work: Callable[..., T], *args: Any) -> T:
    """Run the core in a worker thread; what it refuses (a bad uri, one leading out, a topic not there, memory off,
    a broken settings file) is a JSON-RPC error with that code, its message the core's one sentence."""
    try:
        return await anyio.to_thread.run_sync(work, *args)
    except MemoryInputError as exc:
        raise MCPError(code, str(exc)) from None


def mcp_tool(tool: dict) -> types.Tool:
    """A tool in OpenAI's function format, as the core writes the bot's own, as MCP lists it: a tool that changes
    nothing says so (`readOnlyHint`, so a client need not ask before each call), a write says it only adds to or
    changes the bot's own memory (never the world outside it), and a tool whose answer carries data says its shape
    (`outputSchema`)."""
    function = tool["function"]
    name = tool_name(tool)
    read_only = name in READ_ONLY_TOOLS
    annotations = types.ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=None if read_only else name == MEMORY_UPDATE,  # forget removes notes (undoable)
        idempotent_hint=True if read_only else None,
        open_world_hint=False,
    )
    return types.Tool(
        name=name,
        description=function["description"],
        input_schema=function["parameters"],
        output_schema=OUTPUT_SCHEMAS.get(name),
        annotations=annotations,
    )


_TEXT = {"type": "string"}
_TEXTS = {"type": "array", "items": _TEXT}
OUTPUT_SCHEMAS: dict[str, dict] = {
    RECALL: {
        "type": "object",
        "properties": {
            "bot": _TEXT,
            "kind": _TEXT,
            "chat": {"type": ["string", "null"]},
            "passages_allowed": {"type": "boolean"},
            "skipped": {"type": ["string", "null"]},
            "words": _TEXTS,
            "matches_needed": {"type": "integer"},
            "notes": {"type": "array", "items": {"type": "object"}},
            "passages": {"type": "array", "items": {"type": "object"}},
            "block": _TEXT,
        },
        "required": ["bot", "notes", "passages", "block"],
    },
    MEMORY_STATUS: {
        "type": "object",
        "properties": {
            "bot": _TEXT,
            "name": _TEXT,
            "memory": {"type": "boolean"},
            "gauge": {"type": "object"},
            "not_loaded": {"type": "object"},
        },
        "required": ["bot", "name", "memory"],
    },
}
