"""What a hook process prints, whichever process does the work: the command line in the hook's own process
(cli/hook.py), or the home's service for it (mcp/service.py, reached by cli/hook_front.py). Both answer through
`answer_hook`, so the agent gets the same bytes either way (docs/agents.md, "The hooks and the service").

A hook never breaks the agent's turn: whatever goes wrong is one line for stderr, and the hook exits 0.
"""

from __future__ import annotations

from typing import BinaryIO, NamedTuple

from ..core.files.paths import Home
from ..core.memory.agents import CLAUDE_CODE
from .run import problem_sentence, run_hook


class HookAnswer(NamedTuple):
    """What the hook's process writes: the exit code is always 0."""

    stdout: str  # what the hook prints, redacted: the agent adds it to the session's context ("" when nothing)
    stderr: str  # the line saying why it did nothing or left something out, with its newline ("" when none)


def answer_hook(
    name: str,
    home: Home | str | None,
    bot_id: str,
    stream: BinaryIO,
    *,
    person: str | None = None,
    agent: str = CLAUDE_CODE,
) -> HookAnswer:
    """Run the hook `name` on the payload in `stream` (hooks/run.py) in the home `home` names (a Home, --home's
    folder, or None: $OMB_HOME, else the default), and say what its process writes."""
    from ..core.redaction.data import error_line
    from ..core.redaction.redact import redact

    try:
        text = run_hook(name, Home.of(home), bot_id, stream, person=person, agent=agent)
    except Exception as exc:  # a hook never breaks the agent's turn: one line, exit 0
        return HookAnswer("", f"omb-tui: {error_line(problem_sentence(exc, name))}\n")
    return HookAnswer(redact(text).text if text else "", "")
