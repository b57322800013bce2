"""Helpers shared by the app tests (imported as a plain module: tests/ is on sys.path under pytest)."""

from __future__ import annotations


async def settle(pilot) -> None:
    """Let every worker but the file watcher (which runs until the app ends) finish."""
    await pilot.pause()
    busy = [w for w in pilot.app.workers if w.group != "watch"]
    if busy:  # an empty list would mean "wait for every worker", the watcher included
        await pilot.app.workers.wait_for_complete(busy)
    await pilot.pause()
