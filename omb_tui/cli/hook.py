"""`omb-tui hook session-start|prompt|stop|install`: a bot's memory in Claude Code, through its hooks
(docs/agents.md). The hooks package, and the core under it, load only when a hook runs.

A hook never breaks the agent's turn: whatever goes wrong (a payload that is not JSON, a transcript it cannot read,
no such bot, a usage mistake in the command Claude Code runs) is one line on stderr and exit 0. Claude Code reads
exit 2 as "block": it would erase the person's prompt, or keep the agent from stopping.
"""

from __future__ import annotations

import argparse

from .common import HOME_OPTION, OneSentenceParser, add_command, given
from .output import error_line, one_line

AGENT_NAMES = ("claude-code", "codex")  # core/turn/agent_session.AGENTS, named here so --help loads no core
HOOK_HELP = {
    "session-start": "SessionStart: print the memory block as it loads, the teams' blocks and the recent-work brief.",
    "prompt": "UserPromptSubmit: start the turn and print recall's block for the prompt (nothing when none).",
    "stop": "Stop: record the finished turn (the prompt and the last answer), the boundary and the turn log line.",
}


class HookParser(OneSentenceParser):
    """A parser whose usage mistakes exit 0 when it is a hook's (`never_fails`), 2 otherwise."""

    never_fails = False

    def error(self, message: str) -> None:  # type: ignore[override]
        if not self.never_fails:
            super().error(message)
        sentence = error_line(message[:1].upper() + message[1:])
        self.exit(0, f"omb-tui: {sentence}. See: {self.prog} --help\n")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers,
        "hook",
        None,
        "Claude Code's or Codex's hooks for a bot: its memory at a session's start, recall per prompt, each turn "
        "recorded.",
        bot=False,
    )
    hooks: argparse._SubParsersAction = p.add_subparsers(metavar="HOOK", parser_class=HookParser, required=True)
    for name, help_text in HOOK_HELP.items():
        h = hooks.add_parser(name, parents=[HOME_OPTION], help=help_text, description=help_text)
        h.never_fails = True  # type: ignore[attr-defined]
        h.add_argument("--bot", type=given, metavar="ID", required=True, help="the bot's id")
        h.add_argument(
            "--person",
            metavar="NAME",
            help="who is talking (default: as `omb-tui chat`); a person of a Team Cloud home: their layer too",
        )
        h.add_argument(
            "--agent", choices=AGENT_NAMES, default=AGENT_NAMES[0], help="whose hook this is (default: claude-code)"
        )
        # The hook says a missing home itself, and exits 0 like every other hook error (main would exit 2).
        h.set_defaults(handler=cmd_hook, hook=name, creates_home=True)
    help_text = (
        "Write the three hooks and the MCP server into Claude Code's (or Codex's) settings (or print them, or remove "
        "them)."
    )
    h = hooks.add_parser("install", parents=[HOME_OPTION], help=help_text, description=help_text)
    h.add_argument("--bot", type=given, metavar="ID", required=True, help="the bot's id")
    h.add_argument(
        "--project",
        metavar="DIR",
        help="this project only: DIR/.claude/settings.json and DIR/.mcp.json "
        "(default: ~/.claude/settings.json and ~/.claude.json)",
    )
    h.add_argument(
        "--person", type=given, metavar="NAME", help="who is talking, written into the hooks (default: as `chat`)"
    )
    h.add_argument(
        "--agent",
        choices=AGENT_NAMES,
        default=AGENT_NAMES[0],
        help="claude-code (default) or codex: hooks.json and config.toml in $CODEX_HOME or ~/.codex (DIR/.codex/ with --project)",
    )
    what = h.add_mutually_exclusive_group()
    what.add_argument("--print", action="store_true", help="print what would be merged, write nothing")
    what.add_argument("--remove", action="store_true", help="take this bot's hooks and MCP server out again")
    what.add_argument(
        "--check",
        action="store_true",
        help="say whether Claude Code (or Codex) will load and run them (exit 1 when it will not)",
    )
    h.add_argument("--json", action="store_true", help="with --check: the checks as JSON")
    h.set_defaults(handler=cmd_hook_install)


def cmd_hook(args: argparse.Namespace) -> int:
    from .hook_front import answer_here

    return answer_here(args.hook, args.home, args.bot, getattr(args, "person", None), args.agent)


def cmd_hook_install(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..core.files.paths import Home
    from ..core.turn.bot import Bot
    from ..hooks import install
    from ..hooks.names import server_name

    home = Home(args.home)
    Bot(home, args.bot)  # NotFound: one sentence, exit 2
    project = Path(args.project).expanduser() if args.project else None
    where = install.Where.of(project, args.agent)
    if args.check:
        checks = install.check(where, args.bot, project)
        ok = all(each.ok for each in checks)
        if args.json:
            from .output import print_json

            print_json({"ok": ok, "checks": [each.to_dict() for each in checks]})
        else:
            for each in checks:
                print(("ok    " if each.ok else "NOT   ") + one_line(each.said))
        return 0 if ok else 1
    start = install.program(args.home, project=project is not None)
    if args.print:
        from .output import print_json

        hooks, servers = install.snippets(start, args.bot, args.person, args.agent)
        print(f"# The hooks: merge into {where.settings}")
        print_json(hooks)
        print(f"# The MCP server: merge into {where.mcp}")
        if where.toml:
            entry = servers["mcpServers"][server_name(args.bot)]
            print(install.codex_config.server_table(server_name(args.bot), entry["command"], entry["args"]))
            print("[features]\nhooks = true")
        else:
            print_json(servers)
        return 0
    plan = (
        install.plan_remove(where, args.bot)
        if args.remove
        else install.plan_install(where, start, args.bot, args.person)
    )
    written = install.apply(plan)
    if args.remove:
        print(
            f"Took {args.bot}'s hooks and MCP server out of {_and(written)}."
            if written
            else f"Nothing of {args.bot}'s was in {where.settings} or {where.mcp}."
        )
        return 0
    for command in plan.replaced:
        print(f"Replaced: {one_line(command)}")
    agent = "Codex" if where.toml else "Claude Code"
    if written:
        print(f"Wrote {args.bot}'s hooks and MCP server into {_and(written)}: restart {agent} to load them.")
    else:
        print(f"{args.bot}'s hooks and MCP server were there already, as they are: nothing written.")
    if where.toml:
        _say_codex_steps(args, project)
    if project is not None:
        _say_project_steps(args, home, start, project, agent)
    return 0


def _say_codex_steps(args: argparse.Namespace, project) -> None:
    """What Codex leaves to the person: trusting the hooks (it skips untrusted ones without a word), and why its
    tools run without a question."""
    where = f" in {project.resolve()}" if project is not None else ""
    check = f"omb-tui hook install --bot {args.bot} --agent codex --check" + (
        f" --project {project}" if project else ""
    )
    print(
        f"Codex runs a hook only once you trust it, and skips it without a word until then: start codex{where} once "
        f'and answer "Trust all and continue" (or trust them in /hooks); {check} says whether it will run them.'
    )
    print(
        f"The server's table approves omb-tui's own tools (default_tools_approval_mode = \"approve\"): codex exec "
        f"cannot ask, and refuses a tool that waits for a yes; only the {args.bot} bot's memory tools are approved."
    )


def _say_project_steps(args: argparse.Namespace, home, start: list[str], project, agent: str) -> None:
    """What a project install leaves to the person: the one approval, and what to know before committing."""
    from ..core.files.paths import default_home_root
    from ..hooks.install import committable
    from ..hooks.names import server_name

    name = server_name(args.bot)
    if agent == "Codex":
        print(
            f"Codex loads the project's .codex/ (the hooks and the server {name}) once you trust the folder: start "
            f"codex in {project.resolve()} and answer yes, or run codex exec --trust there once."
        )
    else:
        print(
            f"Claude Code starts the project's server {name} once you trust the folder and approve the server: "
            f"start claude in {project.resolve()} and answer yes to both (omb-tui hook install --check --project "
            f"{project} says whether it will load)."
        )
    if not committable(start):
        print(
            f"The files name omb-tui as {start[0]}, a path on this machine: install omb-tui on PATH (pipx) and "
            "install again to write files a team can commit."
        )
    if home.root.resolve() != default_home_root().resolve():
        print(
            f"The files name no home: omb-tui reads $OMB_HOME, else {default_home_root()}; set "
            f"OMB_HOME={home.root} where {agent} starts, as this home is elsewhere"
            + (" (the server's table passes it on: env_vars)." if agent == "Codex" else ".")
        )


def _and(paths: list) -> str:
    return " and ".join(str(path) for path in paths)
