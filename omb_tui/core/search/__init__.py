"""Search: what a bot finds when it looks back, over every source at once.

Spec: memory.md, "What a bot knows about its other conversations" ("Recall by time", "The recent-work brief")
and "Shared team memory integrity" (accepted team notes are found by ordinary search). `session_search` merges
the recall index (conversations, memory files, daily logs) with the notes of the bot's teams; `team_notes` finds
those notes; `brief` is what the bot said last in each of its other conversations. Above recall and team, which
never import each other.
"""
