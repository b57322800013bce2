"""The recall index: one SQLite file per bot and per person's layer, outside the workspace, built only from the
files: its schema, words (how a text becomes terms), rows, refresh, word and vector lookups, what lookups keep,
the one build at a time, vectors made in the background and a person's purge.

Spec: memory.md, "Recall before each turn" (recall stays fast as memory and history grow). Imports `people`,
`memory` and below; `vectors` reaches the model layer's embeddings alone (docs/recall.md, docs/architecture.md).
"""
