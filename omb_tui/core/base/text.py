"""Words for people: a count and its noun, singular or plural, the one spelling every surface and the core use.

Spec: the style of every message (one plain sentence; "1 bot", "2 bots", never "bot(s)").
"""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None, *, grouped: bool = False) -> str:
    """`count` and `word`, the word plural unless the count is exactly 1: "1 bot", "0 bots", "2 later changes".

    `many` is the plural of a word that does not just take an s ("entry", "entries"); `grouped` writes the count
    with thousands separators ("1,250 rows"), as the app does where a count can grow large."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {word if count == 1 else many or word + 's'}"


def printable(text: str) -> str:
    """`text` with every character a terminal would act on (ESC, BEL, a C1 control, a newline, a bidi override)
    written as its escape (`\\x1b`): a name or a sentence printed to a terminal can recolour, retitle or clear
    nothing. The one place names and sentences are made safe to print (`one_line`, a bot's name as it is read)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


QUOTE_MAX_CHARS = 120  # what a message repeats of one input at most: a name, a time, a word typed
SENTENCE_MAX_CHARS = 1000  # what one error sentence holds at most, whatever it quotes


def cut_to(text: str, limit: int = QUOTE_MAX_CHARS) -> str:
    """`text` as a message repeats it: whole when short, else its first `limit` characters and how long it was,
    so an error about a 100 KB paste stays one readable line. Every quoting of an input goes through here."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"
