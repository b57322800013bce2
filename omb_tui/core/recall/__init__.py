"""Recall: notes and past conversations found before a turn, by words and by meaning, a person's layer beside the
bot's, and the turn log a finished turn leaves.

Spec: memory.md, "Recall before each turn" and "What a bot knows about its other conversations". Over `index`.
"""
