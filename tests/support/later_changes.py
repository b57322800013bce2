"""A night whose run has later changes after it, as a person finds it in the morning: scout's capture run wrote
MEMORY.md, a daily log and a topic; after it the person, an outside editor and the bot changed the same
three files eight times. `U` on the run asks a question naming all eight, longer than a 60x20 terminal. Written
through the core as each writer writes; `fix_times` then fixes ids and times for the pictures."""

from __future__ import annotations

import json

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore
from support.app_helpers import add_bot

RUN_ID = "20261129T020000-aaaaaa"
LOG = "memory/log/2026-11-28.md"
TOPIC = "memory/lisbon-and-porto.md"
LATER_CHANGES = 8


def write_night_with_later_changes(home: Home) -> MemoryStore:
    """scout's capture run (three changes), then eight later changes to the same files by three writers."""
    from omb_tui.core.runs.run import UpkeepRun

    scout = add_bot(
        home, files={"MEMORY.md": "# Memory\n\n- likes tea\n", LOG: "- 09:00 · said hello\n", TOPIC: "# Lisbon trip\n"}
    )
    capture = UpkeepRun("scout", RUN_ID).actor("capture")
    append(scout, "MEMORY.md", "- flies to Lisbon on 2026-12-03\n", capture, 'quotes: "I fly to Lisbon on the 3rd"')
    append(scout, LOG, "- 21:40 · booked the flight\n", capture, 'quotes: "booked it"')
    append(scout, TOPIC, "- seat 12A, window\n", capture, 'quotes: "seat 12A"')
    person = Actor(WHO_PERSON, HOW_COMMAND_LINE)
    outside = Actor(WHO_PERSON, HOW_OUTSIDE)
    bot = Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip")
    for n, (rel, actor) in enumerate(
        [
            ("MEMORY.md", person),
            (LOG, outside),
            (TOPIC, bot),
            ("MEMORY.md", person),
            (LOG, outside),
            (TOPIC, bot),
            ("MEMORY.md", person),
            (TOPIC, bot),
        ]
    ):
        append(scout, rel, f"- later note {n + 1}\n", actor)
    return scout


def append(store: MemoryStore, rel: str, line: str, actor: Actor, note: str | None = None) -> None:
    store.write(rel, store.read(rel).text + line, actor, note=note, allow_log=rel.startswith("memory/log/"))


def fix_times(store: MemoryStore) -> None:
    """Each row's id and time as on a fixed night, one minute apart from 01:50 (the files set up) on."""
    path = store.journal.path
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for n, row in enumerate(rows):
        minute = 50 + n
        row["id"], row["at"] = f"row-{n:02d}", f"2026-11-29T{1 + minute // 60:02d}:{minute % 60:02d}:00.000+00:00"
    path.write_text(
        "".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows), encoding="utf-8"
    )
