"""Review: what the upkeep runs changed (overnight, mostly), what the person has looked at, and taking a change
back (one change alone, or a whole run). Decisions: docs/review.md.

- `runs`: the listing across every bot, grouped bot → run → change;
- `changes`: every writer's groups beside the runs (the Review area's listing) and the per-bot counts of last night;
- `tally`: the one count and its words every screen says of a night;
- `writers`: who did what, in words (the one phrase builder);
- `marks`: which runs (and rows) the person has reviewed, so the next morning starts at what is new;
- `revert`: revert one change alone, and undo a whole run.
"""
