"""`omb-tui hook …`: a bot's memory in Claude Code, through Claude Code's hooks.

Spec: memory.md, "What loads, and the budget" (the memory block at a session's start), "Recall before each turn"
(recall's block with each prompt), "What a bot knows about its other conversations" (the session kept as a
conversation of the bot, the brief, the turn log) and "The journal" (the turn boundary, its two ends in two hook
processes). This package sits beside the app, the server and the library front door, on the core alone; the
command line (`cli/hook.py`) runs it. Nothing here imports litellm, textual or the MCP SDK: a hook runs at every
prompt and must finish well inside a second. docs/agents.md gives every decision.

- payload.py     the one JSON object Claude Code sends a hook on stdin
- transcript.py  the finished turn read from Claude Code's JSONL transcript
- run.py         the three hooks: session-start, prompt, stop
- answer.py      what a hook's process prints, whichever process (the command line, the home's service) runs it
- names.py       the bot's MCP server and tools as each agent names them (install writes them, the block says them)
- agent_files.py   an agent's settings files: where they are, read and written back as read, our entries in them
- install.py     the hooks and the MCP server entry merged into Claude Code's settings, and taken out again
- codex_config.py  Codex's config.toml edited as text (the server table, the hooks flag) and its hook trust
- codex_check.py   `--check` for Codex: the folder's and the hooks' trust, the server started as Codex starts it
"""
