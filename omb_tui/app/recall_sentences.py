"""What the recall preview says, in its own words: pure functions over the core's results, no widgets.

The core decides (why recall did not run, as a code; which lines load); these sentences only say it to a
person, so they can be read and tested without a screen. They live in the app, not the core: they name
the app's own controls ("Settings: Let this bot use memory"), and the CLI words the same facts its own way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.base.text import plural
from ..core.memory.budget import LINE_EXPIRED, LINE_LOADS, LINE_PAST_CUT, TOPIC_INDEX_MAX_CHARS, TopicIndex
from ..core.recall.recall import (
    MAX_BLOCK_CHARS,
    MIN_MESSAGE_CHARS,
    SKIP_AUTO_RECALL_OFF,
    SKIP_MEMORY_OFF,
    SKIP_SHORT_MESSAGE,
    RecallResult,
)

if TYPE_CHECKING:  # the widget module imports textual; these sentences only read its data
    from .widgets.load_preview import MemoryLoad

# Who started the turn, as the kind picker names it (spec: "Rooms, routine runs, and turns started by
# another bot, a webhook or a teammate hand-off, recall notes only").
KIND_LABELS = {
    "person": "1:1 started by the person",
    "room": "room",
    "routine": "routine run",
    "bot": "started by another bot",
    "webhook": "webhook",
    "handoff": "teammate hand-off",
}

SKIP_SENTENCES = {
    SKIP_SHORT_MESSAGE: f"Not recalled: messages under {MIN_MESSAGE_CHARS} characters are not recalled.",
    SKIP_MEMORY_OFF: "Recall is off: this bot's memory is switched off (Settings: Let this bot use memory).",
    SKIP_AUTO_RECALL_OFF: "Recall is off: features.autoRecall is false in config.json.",
}


def skip_sentence(result: RecallResult) -> str:
    """Why nothing was recalled, for a person: recall's reason code said plainly, else its own sentence."""
    return SKIP_SENTENCES.get(result.skip_code or "", f"Not recalled: {result.skipped}.")


def size_line(result: RecallResult) -> str:
    """`1,931 / 6,000 characters · 4 notes · 3 passages · 1:1 started by the person`."""
    line = (
        f"{len(result.block):,} / {MAX_BLOCK_CHARS:,} characters · {plural(len(result.notes), 'note', grouped=True)} · "
        f"{plural(len(result.passages), 'passage', grouped=True)} · {KIND_LABELS.get(result.kind, result.kind)}"
    )
    return line if result.passages_allowed else line + ": notes only"


def words_line(result: RecallResult) -> str:
    """The words recall looked up, and how many of them each hit needed (the two-word rule)."""
    if not result.words:
        return "No content words in this message (only short or common words): nothing to look up."
    rule = (
        "any one of them is enough"
        if result.matches_needed < 2
        else f"each hit needs {result.matches_needed} of them (5 or more content words)"
    )
    meaning = ""  # with semantic recall on (docs/recall.md, "Recall by meaning")
    if result.by_meaning:
        meaning = " · and by meaning"
    elif result.meaning_skipped:
        meaning = f" · by words alone ({result.meaning_skipped})"
    return f"Words: {', '.join(result.words)} · {rule}{meaning}"


BY_MEANING = "(its meaning: no word in common)"


def why_lines(result: RecallResult) -> list[str]:
    """Each item with the message's words it matched (an item found by meaning alone says so)."""
    numbered = []
    for note in result.notes:
        where = f"{note.file} › {note.section}" if note.section else note.file
        if note.opening:
            where = f"the start of {note.file} (its name matches)"
        why = "(its name)" if note.opening else ", ".join(note.matched) or BY_MEANING
        numbered.append((note.number, f"[{note.number}] {where}: {why}"))
    for passage in result.passages:
        why = ", ".join(passage.matched) or BY_MEANING
        numbered.append((passage.number, f"[{passage.number}] {passage.label}: {why}"))
    return [line for _, line in sorted(numbered)]  # in block order: an opening comes after the passages


def memory_summary(load: MemoryLoad, index: TopicIndex) -> str:
    if not load.memory_on:
        return "Memory is off for this bot: nothing of MEMORY.md or the topic index loads into its system prompt."
    loading = load.count(LINE_LOADS)
    parts = [f"As of {load.as_of.isoformat()}: {loading:,} of {plural(len(load.lines), 'line', grouped=True)} load"]
    if load.count(LINE_EXPIRED):
        parts.append(f"{load.count(LINE_EXPIRED):,} expired")
    if load.count(LINE_PAST_CUT):
        parts.append(f"{load.count(LINE_PAST_CUT):,} past the {load.cut_name}")
    listed = (
        f"topic index: {plural(index.listed, 'topic', grouped=True)}, {len(index.text):,} / {TOPIC_INDEX_MAX_CHARS:,} characters"
        if index.text
        else "no topic files"
    )
    return " · ".join(parts) + f"\n✓ loads  ✗ does not · {listed}"
