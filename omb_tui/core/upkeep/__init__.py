"""Memory upkeep: capture with checked quotes, organizing, About me and the nightly tidy-up (what runs them
when they are due, with nightly compaction, is core/schedule.py, the floor above upkeep and compact).

Spec: memory.md, "Memory upkeep", "Checks before a dream saves a fact", "Remember and forget, in chat".
The model proposes, code decides: every step asks for JSON of a documented shape through
`omb_tui.core.models.call.complete`, then checks each item against the files before anything is written.
Every change is a journal row by Memory upkeep carrying its run's id (`runs.run.UpkeepRun`), so a night's
changes can be reviewed and undone together.
"""
