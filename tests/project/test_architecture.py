"""The core never imports the UI, nothing heavy (litellm) is imported at start-up, no two modules import
each other, the core stands on its floors (pyproject.toml's import-linter contracts, docs/architecture.md), and
no module is over 600 lines but those named here; no comment cites an issue by its number."""

from __future__ import annotations

import ast
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.imports import FIRST_FRAME_PROBE, imported_after

import omb_tui
import omb_tui.core


def core_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(omb_tui.core.__path__, "omb_tui.core."))


def test_the_import_contracts_hold_the_floors_among_them():
    """import-linter's contracts in pyproject.toml: a floor of the core imports only the floors below it (at the
    top of a module or inside a function alike), peers never import each other, every module stands on one."""
    lint = Path(sys.executable).parent / "lint-imports"
    if not lint.exists():
        pytest.skip("import-linter is not installed (the dev extra)")
    root = Path(omb_tui.__file__).resolve().parents[1]
    result = subprocess.run(
        [str(lint), "--no-cache", "--no-logo"], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_modules_exist():
    assert "omb_tui.core.memory.store" in core_modules() and "omb_tui.core.memory.budget" in core_modules()


def test_no_core_module_imports_textual_rich_or_litellm():
    statement = "; ".join(f"import {name}" for name in core_modules())
    loaded = imported_after(statement)
    assert not {"textual", "rich", "litellm"} & loaded


# What `omb-tui --help` and a command's parser may load of the core: a home's paths, and the redaction main puts on
# every log line. Each handler imports the rest when it runs.
CLI_START_CORE = {
    "omb_tui.core",
    "omb_tui.core.memory",
    "omb_tui.core.base",  # the packages of the modules below: a docstring each, nothing imported
    "omb_tui.core.files",
    "omb_tui.core.redaction",
    "omb_tui.core.base.clock",  # the one clock (docs/clock.md): the standard library alone, a few lines
    "omb_tui.core.base.errors",
    "omb_tui.core.files.paths",
    "omb_tui.core.redaction.data",
    "omb_tui.core.base.text",
}
CLI_START_NEVER = (
    "litellm",
    "aiohttp",
    "mcp",
    "mcp_types",
    "starlette",
    "uvicorn",
    "textual",
    "rich",
    "sqlite3",
    "omb_tui.app",
    "omb_tui.server",
    "omb_tui.mcp",
    "omb_tui.demo",
)


def cli_modules() -> list[str]:
    import omb_tui.cli

    found = pkgutil.walk_packages(omb_tui.cli.__path__, "omb_tui.cli.")
    return sorted(m.name for m in found if m.name != "omb_tui.cli.__main__")  # __main__ runs the command


def loaded_by_the_command_line(argv: list[str]) -> set[str]:
    """The modules loaded once `omb-tui ARGV` has run (its output dropped), in a fresh interpreter."""
    code = (
        "import contextlib, io, sys\nfrom omb_tui.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    main({argv!r})\n"
        "print('\\n'.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


# Where the home's service listens: the standard library alone, which the hooks' front (cli/hook_front.py) reads.
CLI_START_MAY = {"omb_tui.mcp", "omb_tui.mcp.address"}


def heavy_or_engine(loaded: set[str]) -> set[str]:
    never = {m for m in loaded if any(m == name or m.startswith(name + ".") for name in CLI_START_NEVER)}
    never -= CLI_START_MAY
    return never | ({m for m in loaded if m.startswith("omb_tui.core")} - CLI_START_CORE)


def test_the_command_line_is_a_package_of_command_groups():
    assert {"omb_tui.cli.common", "omb_tui.cli.output", "omb_tui.cli.memory", "omb_tui.cli.team"} <= set(cli_modules())


def test_command_line_start_does_not_import_the_engine_or_a_heavy_library():
    """Every module of omb_tui/cli imported and the whole parser built: nothing of the core past a home's paths and
    the log redaction, no litellm, aiohttp, MCP SDK, app or server."""
    loaded = imported_after("; ".join(f"import {name}" for name in cli_modules()) + "; omb_tui.cli.build_parser()")
    assert set(cli_modules()) <= loaded
    assert heavy_or_engine(loaded) == set()


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["models", "test", "--help"],
        ["team", "accept", "--help"],
        ["proposals", "scout", "accept", "--help"],
        ["about-me", "remove", "--help"],
        ["mcp", "--help"],
    ],
)
def test_help_does_not_import_the_engine_or_a_heavy_library(argv):
    loaded = loaded_by_the_command_line(argv)
    assert "omb_tui.cli.team" in loaded  # the whole parser was built
    assert heavy_or_engine(loaded) == set()


def test_the_apps_start_builds_no_command_parser():
    """`omb-tui` and `omb-tui --home DIR` go straight to the app: no command group is imported on the way."""
    loaded = imported_after("import omb_tui.cli as c; assert c._app_only(['--home', 'h']).handler is c.cmd_app")
    assert {m for m in loaded if m.startswith("omb_tui.cli.")} <= {"omb_tui.cli.common", "omb_tui.cli.output"}
    assert heavy_or_engine(loaded) == set()


def test_cli_recall_kinds_match_the_core():
    from omb_tui.cli.recall import RECALL_KINDS_HELP
    from omb_tui.core.recall.recall import RECALL_KINDS

    assert tuple(RECALL_KINDS_HELP) == tuple(RECALL_KINDS)


def test_the_first_frame_is_drawn_before_the_engine_or_any_heavy_library_loads(tmp_path, home):
    probe, report, listed = tmp_path / "probe.py", tmp_path / "modules.txt", tmp_path / "listed.txt"
    probe.write_text(FIRST_FRAME_PROBE)
    subprocess.run([sys.executable, str(probe), str(home.root), str(report), str(listed)], check=True, timeout=60)
    loaded = set(report.read_text().split())
    assert "omb_tui.app.screens.bots" in loaded  # the probe did reach the first frame
    assert "Scout" in listed.read_text()  # the bot's name is in that frame
    late = {
        "litellm",
        "mcp",
        "omb_tui.mcp",
        "watchfiles",
        "frontmatter",
        "detect_secrets",
        "sqlite3",
        "omb_tui.core.turn.bot",
        "omb_tui.core.memory.store",
        "omb_tui.core.memory.budget",
        "omb_tui.core.recall.recall",
    }
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
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "notify"
                and not any(
                    k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                    for k in node.keywords
                )
            ):
                parsing.append(f"{path.name}:{node.lineno}")
    assert parsing == []


# ----- no module past 600 lines -----
MODULE_MAX_LINES = 600
# Past it a module is split where it has two jobs (docs/architecture.md, "Where modules went"); these, not yet.
LONG_MODULES: set[str] = set()  # none: docs/architecture.md would name one here with why


def module_lengths(root: Path) -> dict[str, int]:
    """Every module of the package in `root`, by its path from the project's root, and its number of lines."""
    return {
        path.relative_to(root.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(root.rglob("*.py"))
    }


def test_no_module_is_over_600_lines_but_those_named():
    lengths = module_lengths(Path(omb_tui.__file__).resolve().parent)
    assert "omb_tui/core/memory/store.py" in lengths  # the walk did find the modules
    too_long = {path: lines for path, lines in lengths.items() if lines > MODULE_MAX_LINES and path not in LONG_MODULES}
    assert too_long == {}


# ----- no import circles -----
def module_imports(root: Path) -> dict[str, set[str]]:
    """Every module of the package in `root` and the modules of that package it imports: at the top, under
    TYPE_CHECKING or inside a function alike. `from package import name` counts as importing the submodule when
    `name` is one, else the package; relative imports are resolved."""
    modules: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    imports: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                source = ".".join(base + ([node.module] if node.module else []))
                found.update(f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names)
        imports[name] = (found & modules.keys()) - {name}
    return imports


def import_circles(root: Path) -> set[frozenset[str]]:
    """The groups of modules that import one another round a circle, of any length: the strongly connected
    components of more than one module (Tarjan's walk, kept iterative)."""
    imports = module_imports(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: set[frozenset[str]] = set()
    for start in sorted(imports):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        walk = [(start, iter(sorted(imports[start])))]
        while walk:
            node, targets = walk[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    walk.append((target, iter(sorted(imports[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                walk.pop()
                if walk:
                    low[walk[-1][0]] = min(low[walk[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        circles.add(frozenset(group))
    return circles


def test_no_modules_import_each_other_round_a_circle():
    circles = import_circles(Path(omb_tui.__file__).parent)
    assert sorted(map(sorted, circles)) == []


def test_a_circle_counts_imports_under_type_checking_and_inside_functions(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..b import B\n"
    )
    (package / "b.py").write_text("def make():\n    from .sub import a\n")
    (package / "c.py").write_text("import pkg.b\n")
    (package / "d.py").write_text("from . import e\n")
    (package / "e.py").write_text("from . import f\n")
    (package / "f.py").write_text("import pkg.d\n")
    assert import_circles(package) == {frozenset({"pkg.sub.a", "pkg.b"}), frozenset({"pkg.d", "pkg.e", "pkg.f"})}


# ----- comments say why, not which ticket -----
# A reader of the code has no issue tracker: a comment gives the reason in one line or names the docs page. An
# upstream bug is cited by its address (github.com/Textualize/textual/issues/6686), which this does not match.
TICKET_NUMBER = re.compile(r"\b[Ii]ssues? ?#?\d{1,3}\b")
TEXT_SUFFIXES = {".py", ".pyi", ".toml", ".tcss", ".md", ".sh", ".txt", ".cfg", ".ini", ".yml", ".yaml"}


def ticket_numbers(root: Path, names: tuple[str, ...]) -> list[str]:
    """Each line under `names` (files or folders of `root`) that cites an issue by its number, as `path:line: text`."""
    found = []
    for name in names:
        top = root / name
        paths = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in paths:
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            if path.suffix not in TEXT_SUFFIXES and path.parent.name != ".ci":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if TICKET_NUMBER.search(line):
                    found.append(f"{path.relative_to(root).as_posix()}:{number}: {line.strip()}")
    return found


def test_no_comment_or_docstring_cites_an_issue_number():
    root = Path(omb_tui.__file__).resolve().parents[1]
    names = ("omb_tui", "tests", "benchmarks", "scripts", "styles", "docs", ".ci", "pyproject.toml", "README.md")
    assert (root / "pyproject.toml").is_file()  # run from the checkout, where the walk has something to read
    assert ticket_numbers(root, names) == []


def test_the_ticket_lint_names_the_file_and_line(tmp_path):
    (tmp_path / "pkg").mkdir()
    cited = " ".join(("issue", str(30 + 7)))  # built, so this file cites none itself
    (tmp_path / "pkg" / "a.py").write_text(f'"""Fine."""\n# the banner was cut ({cited})\n')
    year = " ".join(("issue", str(2026)))  # a year after the word is no ticket; built as `cited` is
    (tmp_path / "pkg" / "b.py").write_text(f"# textual/issues/6686 upstream, and an {year} number\n")
    assert ticket_numbers(tmp_path, ("pkg",)) == [f"pkg/a.py:2: # the banner was cut ({cited})"]
