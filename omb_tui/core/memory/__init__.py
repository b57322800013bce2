"""Memory: the files, their rules and the one writer; the bottom floor of the core.

Spec: memory.md, "Where it lives", "What loads, and the budget", "Editing", "The journal", "Remember and
forget, in chat", "What a bot knows about its other conversations" (the conversation files). Paths and names,
entries, the load cut and the gauge, redaction, the store (atomic, 0600, redacted, journaled), the journal and its
reader, memory_update, settings, recovery drafts, the conversation files, the locks other processes see (the turn
lock among them).
"""
