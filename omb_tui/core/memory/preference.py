"""What `prefer` decides with: the exact-fact rule, a fact the person removed from About me, and whether the
person's own message asks for it once more (docs/upkeep-about-me.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass


def removed_records(learned: list[dict], text: str) -> list[dict]:
    """The learned records of this fact that the person removed from About me (records keep the redacted text)."""
    from ..redaction.redact import redact

    saved = redact(text).text
    return [
        record
        for record in learned
        if record.get("removed")
        and (same_fact(str(record.get("text") or ""), text) or same_fact(str(record.get("text") or ""), saved))
    ]


_STATED_WORD = re.compile(r"[^\W\d_]{3,}")
_SMALL_WORDS = frozenset("the and for that this with are was you your from not but all any".split())


def said_again(fact: str, message: str | None) -> bool:
    """Does the person's own message state this fact once more: every word of three letters or more (beyond the
    smallest ones) of the fact, as a whole word, in the message? A bot's paraphrase of an older chat does not."""
    if not message:
        return False
    said = {word.casefold() for word in _STATED_WORD.findall(message)}
    wanted = {word.casefold() for word in _STATED_WORD.findall(fact)} - _SMALL_WORDS
    return bool(wanted) and wanted <= said


def same_fact(a: str, b: str) -> bool:
    """Exactly the same fact: spacing, a bullet and a final full stop are ignored, nothing else."""

    def norm(s: str) -> str:
        return " ".join(s.split()).rstrip(".")

    return norm(a) == norm(b)


@dataclass
class PreferResult:
    text: str
    added: bool
    redactions: int = 0
    journaled: bool = True  # False: saved, but the journal could not be written
    refused: bool = False  # not added: the person removed it from About me, and did not ask for it again

    def message(self) -> str:
        if self.refused:
            return (
                "Not saved: the person removed this from About me, and no bot adds it again until they ask for it "
                "once more in their own words."
            )
        if not self.added:
            return "That preference is already in About me."
        return "Saved to About me; every bot reads it there."

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "added": self.added,
            "redactions": self.redactions,
            "message": self.message(),
            "removed_before": self.refused,
        }
