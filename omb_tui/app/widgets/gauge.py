"""The gauge: MEMORY.md's lines and size against the load budget (spec: "What loads, and the budget")."""

from __future__ import annotations

from textual.widgets import Static

from ...core.memory.budget import MEMORY_MAX_LINES, Gauge

BAR_WIDTH = 10


def gauge_text(g: Gauge) -> str:
    fraction = min(1.0, max(g.lines / g.max_lines, g.bytes / g.max_bytes))
    filled = round(fraction * BAR_WIDTH)
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    size = f"{g.bytes / 1024:.1f}/{g.max_bytes // 1024} KB"
    not_loaded = f"{g.lines_not_loaded} line{'' if g.lines_not_loaded == 1 else 's'} not loaded"
    return (
        f"{bar} {g.lines}/{g.max_lines} lines · {size} · {g.level} · {not_loaded}\n"
        f"MEMORY.md: only the first {MEMORY_MAX_LINES} lines load each turn."
    )


class GaugeBar(Static):
    """Shows one Gauge; its level (ok, amber, red) is a CSS class for the colour."""

    def show(self, g: Gauge, *, draft: bool = False) -> None:
        self.update(gauge_text(g) + ("  (following your draft)" if draft else ""))
        for level in ("ok", "amber", "red"):
            self.set_class(g.level == level, f"-level-{level}")
