"""The model steps on a real model: capture, organize, the tidy-up and compaction of one demo bot, with figures.

By hand, never in CI (it needs a running model). A fresh demo home (`omb-tui demo`) is written to a temporary
folder, the instance ID is copied into its config.json from yours (`--config`, default $OMB_HOME's or
~/.openmausbot's) and made the helper, one contradiction is planted in the bot's MEMORY.md (the demo's own are
already struck through), then each step runs once as upkeep runs it. For each step it prints: the calls, seconds
per call, the output mode, the calls lost to a timeout, the items proposed, accepted and skipped (by reason), and
whether what was accepted is what the demo's ground truth below expects. Every figure comes with the machine's
load, as the machine may be shared.

    python benchmarks/real_model.py --instance local-qwen [--config ~/.openmausbot/config.json] [--bot scout]
        [--steps capture,organize,tidy,compact] [--keep DIR] [--json]

scripts/local_model.py serves a small local model and prints the instance to use (docs/local-models.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from omb_tui.core.base import clock  # noqa: E402
from omb_tui.core.base.text import plural  # noqa: E402
from omb_tui.core.files.paths import MEMORY_FILE, Home  # noqa: E402
from omb_tui.core.journal.changes import Actor  # noqa: E402
from omb_tui.core.memory.memory_update import MemoryUpdate  # noqa: E402
from omb_tui.core.models.usage import read_usage  # noqa: E402

# ----- the demo's ground truth, for Scout (demo/conversations.py, demo/scout.py) -----
# The facts the person's own words state in Scout's chats that capture reads: each a set of words a saved fact
# holds (any one set of a chat's list is that fact).
CAPTURE_TRUTH = {
    "lisbon-offsite": [{"lisbon"}, {"baixa rio"}, {"vegan"}, {"vegetarian"}],
    "competitor-pricing": [{"12 euro"}, {"price"}, {"single sign-on"}],
    "dentist-reminder": [{"dentist"}],
    "invoice-reconciliation": [{"acme"}, {"dana"}],
}
# Lines of Scout's MEMORY.md that are detail about one subject (a topic exists or would): organize may move them.
DETAIL_TRUTH = (
    "The Design of Everyday Things",
    "day rate",
    "Kroonfiets",
    "Lisbon trip",
    "Parent-teacher",
    "swimming lesson",
    "Kitchen renovation",
    "BTW return",
    "receipts inbox",
    "Dentist: Tandartspraktijk",
    "Eva, Noor and Daan",
    "Slides for Forms that forgive",
    "mother arrives",
    "Acme",
)
# Lines that must stay (core, health, rules): a move of one is a wrong answer that code should have refused.
CORE_TRUTH = ("Nadia Rahman", "pescatarian", "cashews", "Always ask", "From now on")
# The contradiction planted for the tidy-up: the older entry it should strike, and the newer one it plants.
PLANTED_OLDER = "Oat flat white in the morning; no coffee after 15:00"
PLANTED_NEWER = "Nadia has given up coffee: green tea in the morning now"
TIMEOUT_WORDS = ("did not answer within", "did not start answering", "stopped answering", "still answering")


@dataclass
class StepFigures:
    step: str
    seconds: float = 0.0
    calls: int = 0
    seconds_per_call: list[float] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    lost_to_timeout: int = 0
    failed_calls: list[str] = field(default_factory=list)
    proposed: int = 0
    accepted: list[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    skipped_items: list[str] = field(default_factory=list)  # what the model proposed that code refused, and why
    as_expected: list[str] = field(default_factory=list)  # accepted items the ground truth expects
    not_expected: list[str] = field(default_factory=list)  # accepted items it does not
    missed: list[str] = field(default_factory=list)  # what the ground truth expects and was not accepted
    note: str | None = None

    def to_dict(self) -> dict:
        return {**self.__dict__, "skipped": dict(self.skipped)}


def load_text() -> str:
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return " ".join(handle.read().split()[:3])
    except OSError:
        return "unknown"


def setup_home(root: Path, instance_id: str, instance: dict, bot: str) -> Home:
    from omb_tui.demo.home import write_demo_home

    home = Home(root)
    root.mkdir(parents=True, exist_ok=True)
    write_demo_home(home)
    config = json.loads(home.config_path.read_text(encoding="utf-8"))
    config["instances"] = {instance_id: instance}
    config["helper"] = {"instanceId": instance_id}
    home.config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    if bot == "scout":  # the planted contradiction: a later entry that replaces the coffee habit
        update = MemoryUpdate(home, bot, Actor("person", "command line"))
        update.add(PLANTED_NEWER, today=clock.today(), chat="Coffee")
    return home


def usage_since(home: Home, started: str, job: str) -> list[dict]:
    month = clock.now_utc().strftime("%Y-%m")
    return [row for row in read_usage(home, month) if row["at"] >= started and row.get("job") == job]


def with_calls(figures: StepFigures, rows: list[dict]) -> None:
    figures.calls = len(rows)
    figures.seconds_per_call = [round(row["duration_ms"] / 1000, 1) for row in rows]
    figures.modes = sorted({row.get("output_mode") or "none" for row in rows})
    for row in rows:
        if not row["ok"]:
            figures.failed_calls.append(str(row.get("error")))
            if any(words in str(row.get("error")) for words in TIMEOUT_WORDS):
                figures.lost_to_timeout += 1


def matches(text: str, words: set[str]) -> bool:
    return all(word in text.casefold() for word in words)


def run_capture(home: Home, bot: str) -> StepFigures:
    from omb_tui.core.upkeep.capture import capture

    figures = StepFigures("capture")
    result = capture(home, bot)
    figures.proposed = len(result.saved) + len(result.skipped)
    figures.accepted = [f"{s.text} (→ {s.target}; {s.conversation})" for s in result.saved]
    _count_skips(figures, result.skipped)
    found: set[tuple[str, int]] = set()
    for saved in result.saved:
        truth = CAPTURE_TRUTH.get(saved.conversation, [])
        hits = [n for n, words in enumerate(truth) if matches(saved.text, words)]
        (figures.as_expected if hits else figures.not_expected).append(saved.text)
        found |= {(saved.conversation, n) for n in hits}
    figures.missed = [
        f"{chat}: {' '.join(sorted(words))}"
        for chat, truth in CAPTURE_TRUTH.items()
        if not any((chat, n) in found for n in range(len(truth)))
        for words in truth[:1]
    ]
    figures.note = result.reason
    return figures


def run_organize(home: Home, bot: str) -> StepFigures:
    from omb_tui.core.upkeep.organize import organize

    figures = StepFigures("organize")
    result = organize(home, bot)
    figures.proposed = len(result.moved) + len(result.skipped) + result.core
    figures.accepted = [f"{m.line} → {m.topic}" for m in result.moved] + [f"{result.core} lines judged core"]
    _count_skips(figures, result.skipped)
    for moved in result.moved:
        detail = any(words.casefold() in moved.line.casefold() for words in DETAIL_TRUTH)
        core = any(words.casefold() in moved.line.casefold() for words in CORE_TRUTH)
        (figures.as_expected if detail and not core else figures.not_expected).append(moved.line)
    figures.note = result.reason
    return figures


def run_tidy(home: Home, bot: str) -> StepFigures:
    from omb_tui.core.memory.entries import parse_entries
    from omb_tui.core.memory.store import MemoryStore
    from omb_tui.core.upkeep.tidy import tidy

    figures = StepFigures("tidy-up")
    report = tidy(home, bot)
    figures.proposed = report.superseded + len(report.skipped)
    _count_skips(figures, report.skipped)
    store, today = MemoryStore(home, bot), clock.today().isoformat()
    files = [MEMORY_FILE] + [f"memory/{path.name}" for path in home.topic_paths(bot)]
    struck = [
        f"{rel}: {entry.fact}"
        for rel in files
        for entry in parse_entries(store.read(rel).text)
        if entry.struck and f"superseded {today}" in entry.raw
    ]
    figures.accepted = [f"struck: {fact}" for fact in struck]
    for fact in struck:
        (figures.as_expected if PLANTED_OLDER in fact else figures.not_expected).append(fact)
    if not any(PLANTED_OLDER in fact for fact in struck):
        figures.missed.append(f"the planted contradiction: {PLANTED_OLDER} / {PLANTED_NEWER}")
    figures.note = None if report.model_used else report.model
    return figures


def run_compact(home: Home, bot: str) -> StepFigures:
    from omb_tui.core.compact.session import propose

    figures = StepFigures("compaction")
    proposal = propose(home, bot)
    figures.proposed = sum(_changes_in(attempt.answer) for attempt in proposal.attempts)
    figures.accepted = [
        f"{c.category} of {plural(len(c.original.splitlines()), 'line')}: {c.original.strip()[:80]}"
        for c in proposal.changes
    ]
    for attempt in proposal.attempts:
        figures.skipped.update(_reason(error) for error in attempt.errors)
    figures.as_expected = [f"change-set accepted after {len(proposal.attempts)} attempts"] if proposal.ok else []
    if not proposal.ok:
        figures.missed.append("an accepted change-set")
    figures.note = proposal.error
    return figures


def _count_skips(figures: StepFigures, skipped: list) -> None:
    figures.skipped = Counter(_reason(item.reason) for item in skipped)
    figures.skipped_items = [f"{' '.join(item.text.split())[:100]} ({_reason(item.reason)[:60]})" for item in skipped]


def _changes_in(answer: str) -> int:
    try:
        return len(json.loads(answer).get("changes") or [])
    except (ValueError, AttributeError):
        return 0


def _reason(text: str) -> str:
    """A skip's reason without its particulars, so that the same reason counts together."""
    words = text.split(": ", 1)[0] if text.startswith("Change ") else text
    return words[:110]


STEPS = {"capture": run_capture, "organize": run_organize, "tidy": run_tidy, "compact": run_compact}
JOBS = {"capture": "capture", "organize": "organize", "tidy": "tidy-up", "compact": "compact-memory"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instance", required=True, metavar="ID", help="the instance's id in --config")
    default_home = Path(os.environ.get("OMB_HOME") or Path.home() / ".openmausbot")
    parser.add_argument("--config", type=Path, default=default_home / "config.json", help="the config.json to read")
    parser.add_argument("--bot", default="scout")
    parser.add_argument("--steps", default="capture,organize,tidy,compact")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="write the demo home here and keep it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    instances = json.loads(args.config.read_text(encoding="utf-8")).get("instances") or {}
    if args.instance not in instances:
        parser.error(f"no instance {args.instance!r} in {args.config}")
    with tempfile.TemporaryDirectory(prefix="omb-real-model-") as folder:
        root = args.keep or Path(folder) / "home"
        home = setup_home(root, args.instance, instances[args.instance], args.bot)
        results = []
        for name in args.steps.split(","):
            load_before = load_text()
            started, timer = clock.now_utc().isoformat(timespec="milliseconds"), time.monotonic()
            figures = STEPS[name](home, args.bot)
            figures.seconds = round(time.monotonic() - timer, 1)
            with_calls(figures, usage_since(home, started.replace("+00:00", ""), JOBS[name]))
            results.append({**figures.to_dict(), "load_before": load_before, "load_after": load_text()})
            if not args.json:
                print_step(results[-1])
    if args.json:
        print(json.dumps({"instance": args.instance, "model": instances[args.instance].get("model"), "steps": results}))
    return 0


def print_step(step: dict) -> None:
    per_call = ", ".join(f"{s:g}" for s in step["seconds_per_call"]) or "-"
    print(
        f"## {step['step']}: {step['seconds']:g} s, {step['calls']} calls ({per_call} s each), "
        f"modes {', '.join(step['modes']) or '-'}, {step['lost_to_timeout']} lost to a timeout; "
        f"load {step['load_before']} → {step['load_after']}"
    )
    print(
        f"   proposed {step['proposed']}, accepted {len(step['as_expected']) + len(step['not_expected'])} "
        f"({len(step['as_expected'])} as the demo expects, {len(step['not_expected'])} not)"
    )
    for line in step["accepted"]:
        print(f"   + {line}")
    for reason, count in Counter(step["skipped"]).most_common():
        print(f"   - skipped ×{count}: {reason}")
    for item in step["skipped_items"]:
        print(f"     · {item}")
    for line in step["missed"]:
        print(f"   ? missed: {line}")
    for line in step["failed_calls"]:
        print(f"   ! failed call: {line}")
    if step["note"]:
        print(f"   note: {step['note']}")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
