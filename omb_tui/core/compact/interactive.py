"""Interactive compaction (`omb-tui compact BOT`): the numbered proposal and the person's one answer line.

Spec: compact-memory.en.md, "Two modes" (interactive: a numbered proposal waiting for `apply` | `keep <numbers>` |
`delete <numbers>` | `cancel`); docs/compact.md. The person's answer chooses which of the validated changes
are written; each chosen change is one journal row by the person (who `you`, how `command line`, step `compact`)
with a run id of its own, so the whole answer can be reviewed and undone as one. docs/compact.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..files.paths import Home, MemoryInputError, quoted
from ..journal.changes import Actor
from ..journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from ..memory.store import MemoryStore
from ..runs.run import new_run_id
from .apply import ApplyOutcome, apply_change_set
from .records import append_clean_log, clean_log_lines
from .session import Proposal
from .validator import Change

STEP = "compact"
ANSWER_HELP = "apply (all), keep <numbers> (apply all but those), delete <numbers> (apply only those) or cancel"
_NUMBERS = re.compile(r"\d+")


class BadAnswer(MemoryInputError):
    """The answer line is not one of apply, keep N…, delete N…, cancel: nothing is applied (exit 2)."""


@dataclass(frozen=True)
class Choice:
    changes: list[Change]  # the changes to write, in the proposal's order; empty for cancel
    cancelled: bool = False


def you(run_id: str | None = None, how: str = HOW_COMMAND_LINE) -> Actor:
    """The person compacting (at the command line unless `how` says where): every row of one answer shares the
    run id."""
    return Actor(WHO_PERSON, how, step=STEP, run=run_id or new_run_id())


def choose(changes: list[Change], line: str | None) -> Choice:
    """The changes an answer line picks; BadAnswer, one sentence, for anything else."""
    words = (line or "").strip().split(maxsplit=1)
    if not words:
        raise BadAnswer(f"No answer was given; nothing was applied (answer {ANSWER_HELP}).")
    verb, rest = words[0].casefold(), words[1] if len(words) > 1 else ""
    if verb in ("apply", "cancel"):
        if rest.strip():
            raise BadAnswer(f"{quoted(verb)} takes no numbers; nothing was applied.")
        return Choice(list(changes)) if verb == "apply" else Choice([], cancelled=True)
    if verb not in ("keep", "delete"):
        raise BadAnswer(f"{words[0]!r} is not an answer; nothing was applied (answer {ANSWER_HELP}).")
    numbers = _numbers(rest, len(changes), verb)
    if verb == "keep":
        return Choice([change for n, change in enumerate(changes, 1) if n not in numbers])
    return Choice([change for n, change in enumerate(changes, 1) if n in numbers])


def _numbers(text: str, count: int, verb: str) -> set[int]:
    leftover = _NUMBERS.sub("", text).replace(",", "").strip()
    numbers = {int(found) for found in _NUMBERS.findall(text)}
    if leftover or not numbers:
        raise BadAnswer(f"{quoted(verb)} takes the numbers of changes, such as {verb} 2 3; nothing was applied.")
    outside = sorted(n for n in numbers if not 1 <= n <= count)
    if outside:
        raise BadAnswer(f"There is no change {outside[0]} (the proposal has {count}); nothing was applied.")
    return numbers


def apply_choice(
    home: Home, bot_id: str, proposal: Proposal, choice: Choice, actor: Actor | None = None
) -> ApplyOutcome:
    """Write the chosen changes (each its own row), hash-checked against the text the model read."""
    if not choice.changes:
        return ApplyOutcome()
    actor = actor or you()
    outcome = apply_change_set(MemoryStore(home, bot_id), proposal.read_hash, choice.changes, actor)
    # The spec's interactive mode keeps no backup: memory-clean.log (and the journal) trace what went.
    append_clean_log(home, bot_id, clean_log_lines(actor.run or "", [item.change for item in outcome.applied]))
    return outcome


def proposal_lines(proposal: Proposal) -> list[str]:
    """The numbered proposal as a person reads it: category and reason, then what goes and what replaces it."""
    lines = []
    for number, change in enumerate(proposal.changes, 1):
        lines.append(f"{number}. {change.category}: {change.reason}")
        label = "replace:" if change.category == "merge" else "remove: "
        lines.extend(_quoted(label, change.original))
        if change.merged is not None:
            lines.extend(_quoted("with:   ", change.merged))
    return lines


def _quoted(label: str, text: str) -> list[str]:
    body = text.rstrip("\n").split("\n") or [""]
    return [f"   {label if index == 0 else ' ' * len(label)} {line}" for index, line in enumerate(body)]
