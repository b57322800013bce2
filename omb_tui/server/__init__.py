"""`omb-tui serve`: the spec's HTTP routes over the same core the command line and the app use.

Spec: memory.md, "Routes" (the table), with "Editing", "The journal" and "Memory upkeep". This package sits beside
the app and the command line, outside the core: the core never imports it, and it never imports textual or rich
(import-linter contracts in pyproject.toml). aiohttp is imported only here, so neither the app's start nor the
command line's loads it. docs/serve.md gives every decision.
"""
