"""`omb-tui mcp`: one bot's memory over the Model Context Protocol, for an agent that speaks it.

Spec: memory.md, "Remember and forget, in chat", "Recall before each turn", "What a bot knows about its other
conversations", "The journal" and "Shared team memory integrity", reached through MCP instead of a chat turn. This
package sits beside the server and the app, on the library's front door and the core: the core never imports it,
and the official MCP SDK (`mcp`) is imported here alone, so neither the app's start nor any other command loads it
(import-linter contracts in pyproject.toml; tests/project/test_architecture.py). docs/mcp.md gives every decision.

- session.py    who calls: an MCP client's session, as its journal rows and notes name it
- tools.py      the tools: the bot's own (memory_update, session_search, team_note) and recall, memory_status
- resources.py  the resources: MEMORY.md as it loads, the topic index, each topic; what changed since a look
- server.py     the SDK's low-level server over those, and the notifications a client subscribes to
- run.py        the transports: stdio, or Streamable HTTP (http.py)
- front.py      `omb-tui mcp` over stdio as a client starts it: its lines carried to the home's service (stdlib only)
- service.py    the home's MCP service: one long-lived process serving every stdio session, the SDK loaded once
- http.py       Streamable HTTP on 127.0.0.1, behind the Host, Origin and owner's-token checks
"""
