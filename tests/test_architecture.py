"""The core never imports the UI, and nothing heavy (litellm) is imported at start-up."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import omb_tui.core


def core_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(omb_tui.core.__path__, "omb_tui.core."))


def imported_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_core_modules_exist():
    assert "omb_tui.core.memory.store" in core_modules() and "omb_tui.core.memory.budget" in core_modules()


def test_no_core_module_imports_textual_rich_or_litellm():
    statement = "; ".join(f"import {name}" for name in core_modules())
    loaded = imported_after(statement)
    assert not {"textual", "rich", "litellm"} & loaded


def test_command_line_start_does_not_import_litellm_or_the_app():
    loaded = imported_after("import omb_tui.cli as c; c.build_parser()")
    assert "litellm" not in loaded and "textual" not in loaded


def test_cli_recall_kinds_match_the_core():
    from omb_tui.cli import RECALL_KINDS_HELP
    from omb_tui.core.recall.recall import RECALL_KINDS

    assert tuple(RECALL_KINDS_HELP) == tuple(RECALL_KINDS)


FIRST_FRAME_PROBE = '''
import sys
from pathlib import Path
from omb_tui.app.app import OmbApp
from omb_tui.core.memory.paths import Home

class FirstFrame(OmbApp):
    def on_ready(self):  # Textual's Ready: the first frame is on the terminal
        from omb_tui.app.widgets.bot_list import BotList

        bot_list = self.screen.query_one(BotList)
        Path(sys.argv[2]).write_text("\\n".join(sys.modules))
        Path(sys.argv[3]).write_text("\\n".join(bot_list.render_line(y).text for y in range(3)))
        self.exit()

FirstFrame(Home(sys.argv[1]), watch=False).run(headless=True, size=(80, 24))
'''


def test_the_first_frame_is_drawn_before_the_engine_or_any_heavy_library_loads(tmp_path, home):
    probe, report, listed = tmp_path / "probe.py", tmp_path / "modules.txt", tmp_path / "listed.txt"
    probe.write_text(FIRST_FRAME_PROBE)
    subprocess.run([sys.executable, str(probe), str(home.root), str(report), str(listed)], check=True, timeout=60)
    loaded = set(report.read_text().split())
    assert "omb_tui.app.screens.bots" in loaded  # the probe did reach the first frame
    assert "Scout" in listed.read_text()  # the bot's name is in that frame
    late = {"litellm", "watchfiles", "frontmatter", "detect_secrets", "sqlite3", "omb_tui.core.bot",
            "omb_tui.core.memory.store", "omb_tui.core.memory.budget", "omb_tui.core.recall.recall"}
    assert not late & loaded


def test_every_notification_of_the_app_shows_its_text_as_written():
    """A notification carries core sentences that quote memory lines (`[/etc/hosts]`, `[x]`): read as Textual
    markup such text is dropped or crashes the toast, so every notify passes markup=False."""
    import ast
    from pathlib import Path

    import omb_tui.app

    parsing = []
    for path in Path(omb_tui.app.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "notify"
                    and not any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                                for k in node.keywords)):
                parsing.append(f"{path.name}:{node.lineno}")
    assert parsing == []
