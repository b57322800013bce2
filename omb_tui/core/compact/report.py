"""The report of a compaction run, composed by code from what was applied (never written by the model).

Spec: compact-memory.en.md, "The nightly run, step by step" (5: counts and one line per change with its reason)
and "When the nightly run fails" (a first line `Memory compact: ERROR — …` means nothing was applied).
docs/compact-nightly.md, "Backups, logs, report, sinks", gives the decisions.

Public:
    compose_report(bot_id, run_id, changes, *, error=None, attempts=1, proposed=False, attempts_log=None) -> Report
    Report: .text (what stdout and the sinks get), .to_dict() (JSON-able: bot, run, applied, proposed, counts,
        changes, error, attempts)
    change_fields(change) -> dict     a change given as a dict or an object (validator.Change) as plain fields
    shorten(text, limit) -> str       one line, whitespace collapsed, cut with "…"
    ERROR_PREFIX = "Memory compact: ERROR — "

Inputs are plain data, so the report does not depend on the session's classes. Every text in it is redacted:
the report leaves the machine (a webhook, Telegram).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from os import PathLike

from ..base.text import plural
from ..redaction.redact import redact
from .validator import CATEGORIES

REPORT_PREFIX = "Memory compact: "
ERROR_PREFIX = REPORT_PREFIX + "ERROR — "
REPORT_ORIGINAL_MAX_CHARS = 60  # a change's line in the text shows this much of what it removed
ERROR_MAX_CHARS = 300  # the why of an ERROR line: one sentence


@dataclass(frozen=True)
class Report:
    """One run's report. `applied`: changes were written; `proposed`: they wait as pending (propose-only)."""

    bot: str
    run: str
    applied: bool
    proposed: bool
    counts: dict[str, int]
    changes: list[dict]  # category, original, merged (None unless merge), reason: whole, redacted
    error: str | None
    attempts: int
    text: str = field(repr=False)

    def to_dict(self) -> dict:
        return {
            "bot": self.bot,
            "run": self.run,
            "applied": self.applied,
            "proposed": self.proposed,
            "counts": dict(self.counts),
            "changes": [dict(change) for change in self.changes],
            "error": self.error,
            "attempts": self.attempts,
        }


def change_fields(change: object) -> dict:
    """category, original, merged, reason of a change given as a mapping or as an object with those attributes."""

    def get(name: str) -> object:
        return change.get(name) if isinstance(change, dict) else getattr(change, name, None)

    fields = {name: get(name) for name in ("category", "original", "merged", "reason")}
    for name in ("category", "original", "reason"):
        if not isinstance(fields[name], str):
            raise ValueError(f"A change's {name!r} must be text.")
    if fields["merged"] is not None and not isinstance(fields["merged"], str):
        raise ValueError("A change's 'merged' must be text or absent.")
    return fields


def shorten(text: str, limit: int) -> str:
    """One line: runs of whitespace (line breaks too) become one space; past `limit` characters, cut with "…"."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[: max(limit - 1, 0)].rstrip() + "…"


def _redacted(text: str) -> str:
    return redact(text).text


def _one_sentence(why: str) -> str:
    sentence = shorten(_redacted(why), ERROR_MAX_CHARS) or "the run failed without saying why"
    return sentence if sentence.endswith((".", "!", "?", "…")) else sentence + "."


def _counts(changes: list[dict]) -> dict[str, int]:
    """Counts by category, in the spec's order of categories (an unknown one last)."""
    counted = Counter(change["category"] for change in changes)
    order = list(CATEGORIES) + sorted(set(counted) - set(CATEGORIES))
    return {category: counted[category] for category in order if counted[category]}


def _count_words(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    if not total:
        return "no changes"
    return f"{plural(total, 'change')} ({', '.join(f'{n} {category}' for category, n in counts.items())})"


def compose_report(
    bot_id: str,
    run_id: str,
    changes: Iterable[object],
    *,
    error: str | None = None,
    attempts: int = 1,
    proposed: bool = False,
    attempts_log: str | PathLike[str] | None = None,
    not_applied: int = 0,
    not_kept: str | None = None,
) -> Report:
    """The report of one run.

    error set: nothing was applied; the first line is exactly `Memory compact: ERROR — <why>` (one sentence),
    the detail points at the attempts log. No error and no changes is a clean night, not an error: a report
    that cried ERROR whenever memory was already compact would teach people to ignore it.
    proposed: the changes were validated and kept as pending, none applied (propose-only).
    not_applied: changes left when MEMORY.md changed between two of the run's writes (kept as pending, or,
    with `not_kept`, why they could not be).
    """
    plain = [change_fields(change) for change in changes] if error is None else []
    kept = [
        {
            "category": change["category"],
            "original": _redacted(change["original"]),
            "merged": None if change["merged"] is None else _redacted(change["merged"]),
            "reason": _redacted(change["reason"]),
        }
        for change in plain
    ]
    counts = _counts(kept)
    if error is not None:
        why = _one_sentence(error)
        where = str(attempts_log) if attempts_log else f"compact/{bot_id}/attempts.log in the omb-tui home"
        tries = plural(attempts, "attempt")
        lines = [ERROR_PREFIX + why]
        if attempts:
            lines += [
                f"Bot {bot_id}, run {run_id}, {tries}: nothing was applied.",
                f"The model's answers and the validator's errors are in {where}.",
            ]
        else:  # stopped before any model was asked: there is no answer to point at
            lines.append(f"Bot {bot_id}, run {run_id}: nothing was applied; no model was asked.")
        return Report(bot_id, run_id, False, False, {}, [], why, attempts, "\n".join(lines) + "\n")
    if proposed and kept:
        first = f"{REPORT_PREFIX}{bot_id} — {_count_words(counts)} proposed, none applied"
    else:
        first = f"{REPORT_PREFIX}{bot_id} — {_count_words(counts)}"
    lines = [first]
    lines += [
        f"- {change['category']}: {shorten(change['original'], REPORT_ORIGINAL_MAX_CHARS)} — "
        f"{shorten(change['reason'], ERROR_MAX_CHARS)}"
        for change in kept
    ]
    if proposed and kept:
        lines.append(f"Run {run_id}: accept or reject each change in the Review area of the app.")
    elif kept:
        lines.append(f"Run {run_id}: undo it all with `omb-tui undo-run {bot_id} {run_id}`.")
    if not_applied:
        where = (
            "kept as proposals to accept or reject in the Review area."
            if not_kept is None
            else f"they could not be kept as proposals: {_one_sentence(not_kept)}"
        )
        lines.append(f"{plural(not_applied, 'change')} not applied: MEMORY.md changed meanwhile; {where}")
    applied = bool(kept) and not proposed
    return Report(
        bot_id, run_id, applied, proposed and bool(kept), counts, kept, None, attempts, "\n".join(lines) + "\n"
    )
