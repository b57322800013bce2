"""What the compaction tests share: a MEMORY.md to compact, change-set answers for the scripted model, and the
requests it received. The model is tests/support/fake_llm.py's server on 127.0.0.1; nothing reaches the network."""

from __future__ import annotations

import json

from omb_tui.core.memory.store import MemoryStore

BOT = "scout"

MEMORY = """# Memory

## Work

### Projects
- 2026-01-05 · from chat · the launch moved to March
- 2026-02-01 · from chat · the launch is on March 14
- 2026-02-02 · from chat · run `make deploy --force` from /srv/app to deploy
- 2026-02-03 · from chat · Ada leads the launch
- 2026-02-04 · from chat · Ada leads the launch team too

### Debugging
- 2026-02-10 · from chat · the flaky test was fixed by a retry on Tuesday
- 2026-02-11 · from chat · the CI cache was cleared once to fix the build

## Person
- 2026-01-01 · from chat · allergic to peanuts
- 2026-01-02 · from chat · never send messages after 22:00
- 2026-01-03 · from chat · likes green tea in the morning
- 2026-01-04 · from chat · prefers short replies
"""

LAUNCH_OLD = "- 2026-01-05 · from chat · the launch moved to March\n"
DEPLOY = "- 2026-02-02 · from chat · run `make deploy --force` from /srv/app to deploy\n"
ADA = "- 2026-02-03 · from chat · Ada leads the launch\n- 2026-02-04 · from chat · Ada leads the launch team too\n"
ADA_MERGED = "- 2026-02-04 · from chat · Ada leads the launch team\n"
FLAKY = "- 2026-02-10 · from chat · the flaky test was fixed by a retry on Tuesday\n"
TEA = "- 2026-01-03 · from chat · likes green tea in the morning\n"
PEANUTS = "- 2026-01-01 · from chat · allergic to peanuts\n"


def change(category: str, original: str, reason: str = "It no longer holds.", merged: str | None = None) -> dict:
    item = {"category": category, "original": original, "reason": reason}
    if merged is not None:
        item["merged"] = merged
    return item


def answer(*changes: dict) -> str:
    return json.dumps({"changes": list(changes)})


VALID = answer(
    change("superseded", LAUNCH_OLD, "The launch date is now set."),
    change("detail", DEPLOY, "A command belongs in a skill."),
    change("merge", ADA, "Two lines say the same of Ada.", merged=ADA_MERGED),
)
AFTER_VALID = MEMORY.replace(LAUNCH_OLD, "").replace(DEPLOY, "").replace(ADA, ADA_MERGED)


def write_memory(home, text: str = MEMORY, rel: str = "MEMORY.md") -> None:
    target = home.workspace(BOT).joinpath(*rel.split("/"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def read_memory(home) -> str:
    return (home.workspace(BOT) / "MEMORY.md").read_text(encoding="utf-8")


def messages_of(fake, number: int) -> list[dict]:
    """The messages of the request with that number (1 = the first)."""
    return fake.requests[number - 1].body["messages"]


def compact_rows(home):
    """The journal rows that compaction wrote, oldest first."""
    return [row for row in reversed(MemoryStore(home, BOT).journal.rows()) if row.step == "compact"]
