"""Backups, restores and copies of bots: one file holding a home's bots (or a team's), put back through the store.

Spec: memory.md, "The helper model" ("Keeping one bot off the helper": a bot's `helperModel` is kept by
**Duplicate**, travels in a full workspace backup and a team backup, and never in a shared team package) and "Memory
upkeep" ("Upkeep pauses while a backup runs"). docs/backup.md is the person's guide and says every decision.

- contents.py   which files of a home a backup holds, read under the locks, with every credential and key left out
- archive.py    the file itself: a tar with a manifest (every file's sha256, the format version), age-encrypted
- restore.py    checking a backup whole before writing, then writing it through the store as an import
- duplicate.py  a copy of a bot under a new id: its settings and workspace, no conversations, a fresh journal
- team.py       a team's backup and its shared package, and importing either
- stage.py      a restore built whole beside the home, then moved into place; one a kill stopped, finished or removed
"""
