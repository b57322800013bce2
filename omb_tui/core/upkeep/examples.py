"""One worked example for each upkeep step that asks a model: what it is shown and the answer its code accepts.

Spec: memory.md, "Memory upkeep"; docs/local-models.md, "What each step asks of the model". A small model follows
an example better than a rule: each step's prompt ends with its example, in the smallest shape the step reads
(fields the step can do without are left out). The examples are data, not prose, so a test runs each through its
step's own checks and code accepts every item of it: an example never teaches what code refuses.
"""

from __future__ import annotations

import json
from typing import Any

CAPTURE_EXAMPLE: dict[str, Any] = {
    "turns": (
        "[PERSON Milind] We moved to Delhi in March. I prefer short replies.\n"
        "[BOT Scout] Noted: short replies from now on.\n"
        "[PERSON Milind] Can you find me a flight to Pune?"
    ),
    "answer": {
        "facts": [
            {
                "quotes": ["We moved to Delhi in March."],
                "kind": "fact",
                "text": "The person lives in Delhi",
                "target": "MEMORY.md",
                "until": None,
                "about_me": True,
            },
            {
                "quotes": ["I prefer short replies."],
                "kind": "preference",
                "text": "The person prefers short replies",
                "target": "MEMORY.md",
                "until": None,
                "about_me": True,
            },
        ]
    },
    "why": "the flight is a task for the bot, not a fact about the person",
}

ORGANIZE_EXAMPLE: dict[str, Any] = {
    "topics": ["memory/books.md — Books"],
    "lines": [
        '- 2026-03-02 · from chat "Intro" · The person is called Milind and lives in Delhi',
        '- 2026-03-04 · from chat "Acme" · Acme Corp pays invoices 45 days after the end of the month',
        '- 2026-03-05 · from chat "Books" · Reading Piranesi, then The Overstory',
    ],
    "answer": {
        "moves": [
            {"line": 2, "topic": "acme-corp.md", "title": "Acme Corp", "aliases": ["Acme"]},
            {"line": 3, "topic": "books.md"},
        ],
        "core": [1],
    },
}

TIDY_EXAMPLE: dict[str, Any] = {
    "entries": [
        '- 2026-01-05 · from chat "Plans" · Lives in Pune and prefers short replies',
        '- 2026-02-10 · from chat "Plans" · Likes green tea',
        '- 2026-03-01 · from chat "Move" · Moved to Delhi',
    ],
    "answer": {"pairs": [{"older": 1, "newer": 3, "still_true": "prefers short replies"}]},
}


def worked_example(shown: str, answer: dict) -> str:
    """The example as a prompt ends with it: what the step is shown, then the answer, as compact JSON."""
    return f"Example.\n{shown}\nAnswer: {json.dumps(answer, ensure_ascii=False)}"


def capture_example() -> str:
    return worked_example(f"## Turns\n{CAPTURE_EXAMPLE['turns']}", CAPTURE_EXAMPLE["answer"])


def organize_example() -> str:
    shown = (
        "Topic files:\n" + "\n".join(ORGANIZE_EXAMPLE["topics"]) + "\n\nLines:\n" + "\n".join(ORGANIZE_EXAMPLE["lines"])
    )
    return worked_example(shown, ORGANIZE_EXAMPLE["answer"])


def tidy_example() -> str:
    entries = "\n".join(f"{number}| {entry}" for number, entry in enumerate(TIDY_EXAMPLE["entries"], 1))
    return worked_example(f"Entries:\n{entries}", TIDY_EXAMPLE["answer"])
