"""A model for a whole night of upkeep, whatever carries its requests: each step's answer is made from the request
itself, in the shape that step asks for, so the night writes real, checked changes (docs/upkeep.md).

- capture: one fact per call, its quote a sentence copied from a PERSON line of the turns it was shown;
- organize: the last line it was shown moves to the topic `notes-from-upkeep.md`;
- the guard's recall checks: each fact's first words as the words to ask for it with;
- the tidy-up's contradictions and nightly compaction: nothing to change (valid, empty answers).

The scripted servers differ only in where a request keeps its text (an API's `messages`, Claude Code's and the ACP
agent's Messages API, Codex's Responses `input` and `instructions`): `request_text(body)` gathers every string of
the body, and `answer(text)` finds the step by its instructions and its material by the headings the step writes.
"""

from __future__ import annotations

import json
import re

CAPTURE = "You help keep an AI assistant's long-term memory."
ORGANIZE = "You keep a bot's long-term notes in order."
PROBES = "You write recall checks for an assistant's memory."
TIDY = "You tidy one memory file of an assistant."
COMPACT = "You audit and compact the long-term memory file (MEMORY.md)"

TOPIC = "memory/notes-from-upkeep.md"
TOPIC_TITLE = "Notes from upkeep"
PROBE_WORDS = 6

_PERSON_LINE = re.compile(r"^\[PERSON ([^\]\n]+)\] (.+)$", re.MULTILINE)
_SENTENCE = re.compile(r"[^.!?]*[A-Za-z][^.!?]*\.")
_NUMBERED = re.compile(r"(\d+)([|.]) (.+)")
_EXAMPLE = re.compile(r"^Example\.\n.*?^Answer: [^\n]*", re.MULTILINE | re.DOTALL)  # examples.worked_example


def request_text(body: object) -> str:
    """Every string of a request body, in order, one per line: instructions, messages and content blocks alike."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(body)
    return "\n".join(found)


def _after(text: str, heading: str) -> str:
    """The material after `heading`, the step's worked example left out (it shows the same headings)."""
    text = _EXAMPLE.sub("", text)
    at = text.find(heading)
    return text[at + len(heading) :] if at >= 0 else ""


def _numbered(text: str, mark: str) -> list[tuple[int, str]]:
    """The numbered lines `N| line` (or `N. line`) at the start of `text`, up to the first that is not one."""
    found = []
    for line in text.splitlines():
        match = _NUMBERED.fullmatch(line)
        if not match or match.group(2) != mark:
            break
        found.append((int(match.group(1)), match.group(3)))
    return found


def _capture(text: str) -> dict:
    for name, line in _PERSON_LINE.findall(_after(text, "## Turns\n")):
        for sentence in _SENTENCE.findall(line):
            quote = sentence.strip()
            if len(quote.split()) >= 4 and line.count(quote) == 1:
                fact = {
                    "quotes": [quote],
                    "kind": "fact",
                    "text": f"{name} said: {quote}",
                    "target": TOPIC,
                    "topic_title": TOPIC_TITLE,
                    "aliases": ["upkeep notes"],
                    "until": None,
                    "about_me": False,
                }
                return {"facts": [fact]}
    return {"facts": []}


def _organize(text: str) -> dict:
    lines = _numbered(_after(text, "(the number is not part of the line):\n"), "|")
    if not lines:
        return {"moves": [], "core": []}
    last = lines[-1][0]
    return {"moves": [{"line": last, "topic": TOPIC.removeprefix("memory/"), "title": TOPIC_TITLE}], "core": []}


def _probes(text: str) -> dict:
    facts = _numbered(_after(text, "The facts:\n\n"), ".")
    return {"probes": [{"n": n, "probe": " ".join(fact.split()[:PROBE_WORDS])} for n, fact in facts]}


def answer(text: str) -> str | None:
    """The JSON answer for the step whose request holds `text`, or None for a request of no step (a title)."""
    if CAPTURE in text:
        data = _capture(text)
    elif ORGANIZE in text:
        data = _organize(text)
    elif PROBES in text:
        data = _probes(text)
    elif TIDY in text:
        data = {"pairs": []}
    elif COMPACT in text:
        data = {"changes": []}
    else:
        return None
    return json.dumps(data)


def fake_llm_answer(body: dict) -> dict | None:
    """`FakeLLM.answer_for`: the same answers through an API instance."""
    text = answer(request_text(body.get("messages")))
    return None if text is None else {"content": text}
