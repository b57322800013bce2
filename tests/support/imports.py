"""What a fresh Python process has imported after a statement, or after the app's first frame: how the
architecture and serve tests check that start-up never loads what it does not need."""

from __future__ import annotations

import subprocess
import sys


def imported_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


FIRST_FRAME_PROBE = """
import sys
from pathlib import Path
from omb_tui.app.app import OmbApp
from omb_tui.core.files.paths import Home

class FirstFrame(OmbApp):
    def on_ready(self):  # Textual's Ready: the first frame is on the terminal
        from omb_tui.app.widgets.bot_list import BotList

        bot_list = self.screen.query_one(BotList)
        Path(sys.argv[2]).write_text("\\n".join(sys.modules))
        Path(sys.argv[3]).write_text("\\n".join(bot_list.render_line(y).text for y in range(3)))
        self.exit()

FirstFrame(Home(sys.argv[1]), watch=False).run(headless=True, size=(80, 24))
"""
