"""Memory: a bot's files and their rules, and the one writer.

Spec: memory.md, "What loads, and the budget", "Editing", "Remember and forget, in chat", "What a bot knows about
its other conversations" (the conversation files). Entries, the load cut and the gauge, the store (atomic, 0600,
redacted, journaled), memory_update, settings, recovery drafts, the conversation files. Imports `journal`, `files`,
`redaction` and `base`.
"""
