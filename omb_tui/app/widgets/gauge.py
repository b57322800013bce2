"""The gauge: MEMORY.md's lines and size against the load budget (spec: "What loads, and the budget")."""

from __future__ import annotations

from textual.widgets import Static

from ...core.base.text import plural
from ...core.memory.budget import MEMORY_MAX_LINES, Gauge

BAR_WIDTH = 10


def gauge_text(g: Gauge, *, switched_off_for: str | None = None) -> str:
    """The gauge's two lines; for a bot whose memory is switched off (its name given), that nothing loads."""
    fraction = min(1.0, max(g.lines / g.max_lines, g.bytes / g.max_bytes))
    filled = round(fraction * BAR_WIDTH)
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    size = f"{g.bytes / 1024:.1f}/{g.max_bytes // 1024} KB"
    if switched_off_for is not None:  # the same words as `omb-tui prompt`
        return (
            f"{bar} {g.lines}/{g.max_lines} lines · {size} · memory off\n"
            f"Memory is switched off for {switched_off_for}: nothing loads (Settings turns it on)."
        )
    not_loaded = f"{plural(g.lines_not_loaded, 'line')} not loaded"
    return (
        f"{bar} {g.lines}/{g.max_lines} lines · {size} · {g.level} · {not_loaded}\n"
        f"MEMORY.md: only the first {MEMORY_MAX_LINES} lines load each turn"
        + (" (m in the list: make room)." if g.lines_not_loaded else ".")
    )


class GaugeBar(Static):
    """Shows one Gauge; its level (ok, amber, red, or off when memory is switched off) is a CSS class for the colour."""

    def show(self, g: Gauge, *, draft: bool = False, switched_off_for: str | None = None) -> None:
        self.update(gauge_text(g, switched_off_for=switched_off_for) + ("  (following your draft)" if draft else ""))
        level = "off" if switched_off_for is not None else g.level
        for each in ("ok", "amber", "red", "off"):
            self.set_class(level == each, f"-level-{each}")
