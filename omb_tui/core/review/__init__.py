"""Review: what the upkeep runs changed (overnight, mostly), what the person has looked at, and taking a change
back (one change alone, or a whole run). Decisions: docs/review.md.

- `runs`: the listing across every bot, grouped bot → run → change, and the per-bot counts of last night;
- `marks`: which runs (and rows) the person has reviewed, so the next morning starts at what is new;
- `revert`: revert one change alone, and undo a whole run.
"""
