"""The nightly guard: budgets and a stop for a bot's upkeep run, loops and no-ops refused, checks after the run
with an undo of the whole run when one fails, recall checks (probes) on what the person confirmed, and the
"still true?" queue. Spec: memory.md, "Memory upkeep" and "The journal"; decisions in docs/guard.md.
"""
