"""Recall: notes and past conversations found before a turn, and a bot's look back.

Spec: memory.md, "Recall before each turn" and "What a bot knows about its other conversations". Words,
the SQLite FTS5 index, recall, session_search, the brief and the turn log, over the conversation files
(memory/conversations.py).
"""
