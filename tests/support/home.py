"""A home's first bot as the `home` fixture writes it (its texts, so a test can compare with them), and the
installed command a test runs in a subprocess."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from omb_tui.core.files.paths import Home

BOT_ID = "scout"
MEMORY_TEXT = '# Memory\n\n- 2026-01-05 · from chat "Plans" · The person lives in Pune\n- short replies, always\n'
TOPIC_TEXT = "---\ntitle: Travel\naliases: [trips, flights]\n---\n# Travel\n\n- 2026-01-06 · likes window seats\n"
LOG_NAME = "2026-01-05.md"
LOG_TEXT = "- 09:00 · answered a question about trains\n"


def make_bot(home: Home, bot_id: str = BOT_ID, name: str = "Scout") -> Path:
    """One bot: settings, MEMORY.md, a topic with frontmatter and a daily log; then a first look."""
    from omb_tui.core.turn.bot import Bot

    workspace = home.workspace(bot_id)
    (workspace / "memory" / "log").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text(MEMORY_TEXT, encoding="utf-8")
    (workspace / "memory" / "travel.md").write_text(TOPIC_TEXT, encoding="utf-8")
    (workspace / "memory" / "log" / LOG_NAME).write_text(LOG_TEXT, encoding="utf-8")
    home.bots_dir.mkdir(parents=True, exist_ok=True)
    home.settings_path(bot_id).write_text(f'{{"name": "{name}"}}\n', encoding="utf-8")
    Bot(home, bot_id).look()  # the first look only records what is there, so later edits count as outside
    return workspace


def omb_tui_command() -> list[str]:
    """The installed console script next to this interpreter, else the module."""
    script = Path(sys.executable).parent / ("omb-tui.exe" if os.name == "nt" else "omb-tui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "omb_tui.cli"]
