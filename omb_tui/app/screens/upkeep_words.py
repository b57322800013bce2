"""The Upkeep screen's words for what the core returns: the last capture and tidy-up (the run Review lists, when the
step's record does not know it), and this month's model calls."""

from __future__ import annotations

from datetime import datetime

from ...core.base.text import plural
from ...core.models.instances import after_lead


def _local(at: object) -> str:
    """An ISO time from a record, as local time to the minute; as it is written when it is no time."""
    try:
        return datetime.fromisoformat(str(at)).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return str(at)


def newer_in_journal(last: dict | None, in_journal: dict | None) -> str | None:
    """A run the journal holds and the step's record does not (a newer one, or the only one), in words: the screen
    then names the run Review lists, never "none has run" beside it."""
    if not in_journal or (last and str(in_journal.get("run")) <= str(last.get("run") or "")):
        return None
    changes = plural(int(in_journal.get("changes") or 0), "change")
    return f"{_local(in_journal.get('at'))} · run {in_journal.get('run')}: {changes} (see Review)."


def capture_text(last: dict | None, in_journal: dict | None = None) -> str:
    from_journal = newer_in_journal(last, in_journal)
    if from_journal:
        return from_journal
    if not last:
        return "No capture has run for this bot yet."
    saved = f"{plural(int(last.get('saved') or 0), 'fact', grouped=True)} saved"
    if last.get("about_me"):
        saved += f" ({last['about_me']} also to About me)"
    text = (
        f"{_local(last.get('at'))} · {plural(int(last.get('turns_read') or 0), 'turn', grouped=True)} read, {saved}, "
        f"{int(last.get('skipped') or 0):,} skipped."
    )
    if last.get("reason"):
        text += " " + after_lead("Stopped", str(last["reason"]))
    return text


def tidy_text(last: dict | None, in_journal: dict | None = None) -> str:
    """The last tidy-up in its report's words; one the journal holds and the record does not (a newer run, or the
    only one) by its run and changes, so Upkeep names the tidy-up Review shows."""
    from ...core.runs.run import Skipped
    from ...core.upkeep.tidy import TidyReport

    from_journal = newer_in_journal(last, in_journal)
    if from_journal:
        return from_journal
    if not last:
        return "No tidy-up has run for this bot yet."
    try:  # the report's own words, so the screen says what `omb-tui tidy` says
        report = TidyReport(
            bot=str(last["bot"]),
            run=str(last["run"]),
            at=str(last["at"]),
            expired=int(last["expired"]),
            duplicates=int(last["duplicates"]),
            superseded=int(last["superseded"]),
            still_true_added=int(last["still_true_added"]),
            skipped=[Skipped(str(s["text"]), str(s["reason"])) for s in last.get("skipped") or []],
            model=str(last["model"]),
        )
    except (KeyError, TypeError, ValueError):
        return f"{_local(last.get('at'))} · the record of it cannot be read."
    return f"{_local(report.at)} · {report.message()}"


def usage_text(usage: dict) -> str:
    if not usage.get("calls"):
        return f"No model calls for this bot this month ({usage.get('month')})."
    jobs = ", ".join(f"{job} {count}" for job, count in sorted(usage["jobs"].items()))
    failed = f", {usage['failed']:,} failed" if usage["failed"] else ""
    plan = ""
    if usage.get("plan_calls"):  # an engine's calls cost no money per call: the plan's quota, not the spend limit
        plan = f" · {plural(usage['plan_calls'], 'call', grouped=True)} on your plan"
        if usage.get("plan_cost_usd"):
            plan += f" (${usage['plan_cost_usd']:.4f} reported, not counted)"
    return (
        f"{usage['month']}: {plural(usage['calls'], 'call', grouped=True)}{failed} ({jobs}) · "
        f"{usage['prompt_tokens']:,} tokens in, {usage['completion_tokens']:,} out · ${usage['cost_usd']:.4f}{plan}"
    )
