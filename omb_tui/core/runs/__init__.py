"""Runs: what upkeep and compaction both start and finish, below both.

Spec: memory.md, "Memory upkeep" (every change a run makes is a journal row carrying its id, so a night's
changes can be reviewed and undone together) and "The journal". `run` is a run's id and the actor its steps
write as; `record` is each step's last run in `memory-journal/<bot>.upkeep.json`.
"""
