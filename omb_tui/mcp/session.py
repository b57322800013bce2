"""Who calls: an MCP client's session, as the journal and the notes it writes name it.

Spec: memory.md, "The journal" (each row says who, how and from which chat) and "Remember and forget, in chat"
(who began the work decides how far forget and prefer reach). An MCP client's work is in no conversation of the
home, so its session stands in for one: its rows are the bot's, during a task, in the chat `<client> (MCP session
<run>)`, and every row of the session carries the run id, so review lists the session as one run of the bot and
undo-run takes it back (docs/mcp.md).
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.memory.agents import CLAUDE_CODE
from ..core.runs.run import new_run_id
from ..core.turn.agent_session import AgentSession
from ..core.turn.tools import TurnStart, note_source

CLIENT_NAME_MAX_CHARS = 60
UNNAMED_CLIENT = "an MCP client"


def client_name(given: object) -> str:
    """The name the client gave (its clientInfo), as a chat's name can hold it: printable, one line, no double
    quotes (a note names it in quotes), at most 60 characters; "an MCP client" when it gave none."""
    printable = "".join(c for c in given if c.isprintable()) if isinstance(given, str) else ""
    name = note_source(printable) if printable.strip() else UNNAMED_CLIENT
    return name if len(name) <= CLIENT_NAME_MAX_CHARS else name[: CLIENT_NAME_MAX_CHARS - 1].rstrip() + "…"


class Session:
    """One client's session: its name and the run every row it writes carries.

    An agent's session (Claude Code's or Codex's, when it said which) is its chat of the bot, opened only when a
    write needs it (`agent`, called once then): a client that connects and lists the tools (`claude mcp list`
    connects every server) leaves no chat behind, and whichever of the prompt hook and the server comes first
    opens it with the same person and title."""

    def __init__(self, client: str, agent: Callable[[], AgentSession | None] | None = None) -> None:
        self.client = client
        self._agent = agent
        self._own_run: str | None = None
        self._opened: AgentSession | None = None

    def _agent_session(self) -> AgentSession | None:
        if self._agent is not None:
            self._opened, self._agent = self._agent(), None  # asked once: a chat that cannot be made stays unmade
        return self._opened

    @property
    def run(self) -> str:
        agent = self._agent_session()
        if agent is not None:
            return agent.run
        if self._own_run is None:
            self._own_run = new_run_id()
        return self._own_run

    @property
    def chat(self) -> str:
        """The chat its journal rows name: an agent session's chat, the one its hooks record its turns in;
        else the client and the session, as `omb-tui journal` shows them."""
        agent = self._agent_session()
        return agent.chat if agent is not None else f"{self.client} (MCP session {self.run})"

    @property
    def start(self) -> TurnStart:
        """Who began the work: the home's owner, through their client (started by them over stdio, holding their
        token over HTTP), so a preference it passes on is saved, as the library's `turn.prefer` saves it; but not
        in their own 1:1 chat of the home, so forget leaves About me alone, as the library's `turn.forget` does in a
        conversation the home does not hold. A note names its source: the agent session's chat by its title, else
        the client."""
        agent = self._agent_session()
        title = agent.title if agent is not None and agent.title else f"{self.client} (MCP)"
        return TurnStart("person", person_began_it=True, own_chat=False, title=title)


CODEX_TURN_META = "x-codex-turn-metadata"


def codex_session_id(meta: object) -> str | None:
    """The Codex session a tool call is made in, when the call says which: Codex (0.171.0) sends each tools/call
    with `_meta` holding `x-codex-turn-metadata.session_id` (and `sessionId`), the id its hooks are sent. Codex
    starts its servers with a cleared environment and names no session there, so the call is where it is told."""
    if not isinstance(meta, dict):
        return None
    turn = meta.get(CODEX_TURN_META)
    given = turn.get("session_id") if isinstance(turn, dict) else None
    if not isinstance(given, str) or not given.strip():
        return None
    return given.strip()


class Sessions:
    """The sessions of one server: one per client name and transport session (an HTTP session id), each made on its
    first call (over stdio there is one client, so one session for the whole process); and one per agent session
    that a call names, whatever client makes it.

    An agent says which of its sessions calls two ways: Claude Code (2.1.154 on) starts a stdio server with its
    session's id in CLAUDE_CODE_SESSION_ID (`started_by`), Codex (0.171.0) names it in each tools/call's `_meta`.
    Either way the session is the agent's: its chat and its run, the ones its hooks record its turns in, opened at
    its first write by `open_agent(agent, session_id)` (one function for both agents)."""

    def __init__(
        self, open_agent: Callable[[str, str], AgentSession | None] | None = None, started_by: str | None = None
    ) -> None:
        self._sessions: dict[tuple[str, str | None], Session] = {}
        self._agents: dict[tuple[str, str], Session] = {}
        self._open_agent = open_agent
        self._started_by = started_by

    def of(self, given_name: object, transport_session: str | None = None) -> Session:
        name = client_name(given_name)
        if transport_session is None and self._started_by:  # the stdio server a Claude Code session started
            return self.of_agent(name, CLAUDE_CODE, self._started_by)
        key = (name, transport_session)
        if key not in self._sessions:
            self._sessions[key] = Session(name)
        return self._sessions[key]

    def of_agent(self, client: str, agent: str, session_id: str) -> Session:
        """The session of `agent`'s session `session_id`, made at its first call; its chat opened at its first
        write, when `open_agent` can (else the client's own chat and run)."""
        key = (agent, session_id)
        if key not in self._agents:
            opener = self._open_agent
            self._agents[key] = Session(client, (lambda: opener(agent, session_id)) if opener is not None else None)
        return self._agents[key]
