"""The turn: a bot's chat turn and its boundary, the tools the bot is given, and the Bot façade; the top floor of
the core, under the surfaces (the command line, the app, the server and the library front door).

Spec: memory.md, "The journal" (the turn boundary), "Recall before each turn", "What loads, and the budget",
"Remember and forget, in chat" and "What a bot knows about its other conversations". `turn` is the boundary and
one chat turn through a model, `tools` the bot's tools, `bot` one bot seen whole (its files, gauge and what loads).
Everything a turn stands on is below: the memory files and the turn lock, recall, team, search and the models.
"""
