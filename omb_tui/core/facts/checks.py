"""The checks a fact proposed by capture passes before anything is saved; each refusal is one sentence.

Spec: memory.md, "Memory upkeep" ("Noticing facts") and "Checks before a dream saves a fact". Each check
is its own function returning the reason to skip (None: it passes), so each has its own test. The rules
that depend on words (tasks, "suppose") and the one that does not (questions) are in docs/upkeep-capture.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ..base.text_checks import first_text_problem
from ..files.paths import ARCHIVE_NAME, MEMORY_FILE, CredentialName, InvalidName, validate_topic_name
from ..memory.memory_update import forgotten_matches, same_fact
from ..redaction.redact import contains_credential
from .lines import BOT, OTHER_BOT, OTHER_PERSON, PERSON, Line

KINDS = ("fact", "preference", "decision", "outcome")
NEEDS_QUOTE = ("fact", "preference")  # about the person: kept only with the words it rests on
TEXT_MAX_CHARS = 1_000


def norm(text: str) -> str:
    """Whitespace and case normalised, nothing else (the spec's "exact substring")."""
    return " ".join(text.split()).casefold()


# ----- the shape of one item -----
def target_problem(target: object) -> str | None:
    """`MEMORY.md` or `memory/<topic>.md` with a valid topic name (never the archive)."""
    if target == MEMORY_FILE:
        return None
    if not isinstance(target, str) or not target.startswith("memory/"):
        return f"its target {target!r} is neither MEMORY.md nor memory/<topic>.md"
    name = target[len("memory/") :]
    if name == ARCHIVE_NAME:
        return "the archive holds older notes, not new ones"
    try:
        validate_topic_name(name)
    except CredentialName:
        return "its target is a topic name that looks like a credential"
    except InvalidName:
        return f"{target!r} is not a valid topic name (letters, numbers, spaces, dots and dashes, ending in .md)"
    return None


@dataclass(frozen=True)
class ProposedFact:
    """One fact of the model's answer, as `checked_fact` found it shaped, read by name from then on. Only its shape
    is checked here (text, kind, quotes, target, the words it would be written with); the checks against the
    turns and the files come after, each a function below."""

    text: str  # as the model wrote it
    kind: str  # one of KINDS
    target: str  # MEMORY.md or memory/<topic>.md
    quotes: tuple[str, ...]  # as given, blank ones too
    until: object  # the last day it is true, as given: until_date reads it
    about_me: bool  # the model said true
    topic_title: str | None  # a new topic's title (None when none was given as text)
    aliases: tuple[str, ...]  # a new topic's other words (the texts among those given)
    team_key: object  # a fact for the team: team.capture reads it
    team_title: object


def checked_fact(item: object) -> ProposedFact | str:
    """The model's item as a ProposedFact, or why its shape is refused (one sentence)."""
    problem = shape_problem(item)
    if problem:
        return problem
    assert isinstance(item, dict)  # shape_problem passes objects only
    aliases = item.get("aliases")
    return ProposedFact(
        text=item["text"],
        kind=item["kind"],
        target=item["target"],
        quotes=tuple(item.get("quotes") or []),
        until=item.get("until"),
        about_me=item.get("about_me") is True,
        topic_title=item["topic_title"] if isinstance(item.get("topic_title"), str) else None,
        aliases=tuple(a for a in (aliases if isinstance(aliases, list) else []) if isinstance(a, str)),
        team_key=item.get("team_key"),
        team_title=item.get("team_title"),
    )


def shape_problem(item: object) -> str | None:
    if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
        return "the model's item has no text"
    if len(item["text"]) > TEXT_MAX_CHARS:
        return f"it is longer than {TEXT_MAX_CHARS} characters"
    if item.get("kind") not in KINDS:
        return f"its kind {item.get('kind')!r} is not fact, preference, decision or outcome"
    quotes = item.get("quotes", [])
    if not isinstance(quotes, list) or not all(isinstance(q, str) for q in quotes):
        return "its quotes are not a list of text"
    return target_problem(item.get("target")) or words_problem(item)


def words_problem(item: dict) -> str | None:
    """A text the fact would be written with, in the model's own words (not a quote, which must be the person's),
    that may not be kept: a control character or a lone surrogate (base.text_checks)."""
    aliases = item.get("aliases")
    if not isinstance(aliases, list):
        aliases = []
    return first_text_problem(
        [
            ("its text", item.get("text")),
            ("its topic title", item.get("topic_title")),
            ("its team title", item.get("team_title")),
            *(("an alias", alias) for alias in aliases),
        ]
    )


# ----- secrets and forgotten words -----
def secret_problem(text: str, quotes: list[str]) -> str | None:
    if any(contains_credential(part) for part in (text, *quotes)):
        return "it looks like it holds a secret"
    return None


def forgotten_problem(text: str, quotes: list[str], forgotten: list[dict]) -> str | None:
    """Words the person asked to forget (profile-learned.json) are never learned again."""
    for entry in forgotten:
        if any(forgotten_matches(entry, part) for part in (text, *quotes)):
            return "it mentions words the person asked to forget"
    return None


# ----- quotes -----
def quote_problem(kind: str, quotes: list[str], lines: list[Line], *, in_room: bool) -> str | None:
    """A fact or preference rests on the person's own words, each quote an exact substring of a line of
    theirs in the batch (in a room, a fact may rest on another person's words about the shared work).
    A decision or an outcome needs no quote; one it gives must still be in the batch's lines."""
    if kind in NEEDS_QUOTE and not any(q.strip() for q in quotes):
        return "a fact about the person needs the words it rests on, and none were quoted"
    allowed = {PERSON}
    if kind not in NEEDS_QUOTE:
        allowed = {PERSON, BOT, OTHER_PERSON, OTHER_BOT}
    elif kind == "fact" and in_room:
        allowed = {PERSON, OTHER_PERSON}
    for quote in quotes:
        wanted = norm(quote)
        if not wanted:
            return "a quote is empty"
        found = {line.role for line in lines if wanted in norm(line.text)}
        if found & allowed:
            continue
        if BOT in found:
            return f"the quote \u201c{_clip(quote)}\u201d is the bot's own words, not the person's"
        if OTHER_BOT in found:
            return f"the quote \u201c{_clip(quote)}\u201d is another bot's words, not the person's"
        if OTHER_PERSON in found:
            return f"the quote \u201c{_clip(quote)}\u201d is another person's words, not this person's"
        return f"the quote \u201c{_clip(quote)}\u201d is not in what was said in these turns"
    return None


def quoted_lines(quotes: list[str], lines: list[Line]) -> list[tuple[str, str]]:
    """For each quote, (the person's line it was taken from, the quote), both normalised."""
    found = []
    for quote in quotes:
        wanted = norm(quote)
        for line in lines:
            if line.role in (PERSON, OTHER_PERSON) and wanted and wanted in norm(line.text):
                found.append((norm(line.text), wanted))
                break
    return found


# A sentence ends at one of these (Latin, Greek, Armenian, Arabic, Devanagari, CJK, Ethiopic…) or at the
# line's end. A question mark of any script ends a question.
_SENTENCE_END = ".!?\u037e\u055e\u0589\u061f\u06d4\u0964\u0965\u3002\uff01\uff1f\uff61\u1367\u1368\u2026"
_QUESTION_MARKS = "?\u037e\u055e\u061f\uff1f\u1367"  # Latin, Greek, Armenian, Arabic, full-width, Ethiopic
# Tasks and hypotheticals can only be told by words: English first, then a few common languages.
_TASK_OPENINGS = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|and|also|now|then|please|pls|bitte|por favor|s'il te pla[iî]t|,|\s)+)?"
    r"(?:write|draft|create|find|search|look up|look for|give me|tell me|show me|summari[sz]e|translate|"
    r"generate|help me|remind me|compare|explain|can you|could you|would you|will you|please|"
    r"schreib|erstelle|mach|finde|zeig|hilf|écris|fais|trouve|montre|aide-moi|escribe|haz|busca|muestra|ayúdame)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:suppose|supposing|imagine|what if|hypothetically|let's say|lets say|pretend|assume|"
    r"assuming|in theory|angenommen|stell dir vor|was wäre wenn|imaginons|imagine que|supposons|et si|"
    r"supongamos|imagina|qué pasaría si|y si|immagina|supponiamo|e se)\b",
    re.IGNORECASE,
)


def _sentences_around(line: str, start: int, end: int) -> str:
    """The sentence(s) of `line` holding line[start:end], with their final marks."""
    before = max((line.rfind(mark, 0, start) for mark in _SENTENCE_END), default=-1)
    after = len(line)
    for mark in _SENTENCE_END:
        found = line.find(mark, end)
        if found != -1:
            after = min(after, found)
    while after < len(line) and line[after] in _SENTENCE_END:
        after += 1  # "?!" and "..." stay with the sentence
    return line[before + 1 : after].strip()


def not_a_statement_problem(quotes: list[str], lines: list[Line]) -> str | None:
    """A question, a task for the bot or a "suppose…" is never a fact about who the person is."""
    for line, quote in quoted_lines(quotes, lines):
        start = line.find(quote)
        sentence = _sentences_around(line, start, start + len(quote))
        if any(mark in sentence for mark in _QUESTION_MARKS):  # a question mark only ever ends a sentence
            return f"the quoted words are a question (\u201c{_clip(sentence)}\u201d), not a fact"
        if _HYPOTHETICAL.search(sentence):
            return f"the quoted words are a supposition (\u201c{_clip(sentence)}\u201d), not a fact"
        if _TASK_OPENINGS.search(sentence):
            return f"the quoted words are a task for the bot (\u201c{_clip(sentence)}\u201d), not a fact"
    return None


# ----- numbers, paths and URLs -----
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'“”«»]+", re.IGNORECASE)
# A path starts where no word character, dot or dash comes before it: a match is tried once per run of such
# characters, not at each of them, so a long run without a slash costs its length once (linear, not quadratic).
_PATH = re.compile(r"(?<![\w.-])(?:(?:~|\.{1,2})?(?:[\w.-]*[/\\][\w.-]+)+[/\\]?|(?:~|\.{1,2})[/\\])")
_NUMBER = re.compile(r"(?<![\w.,-])-?\d+(?:[.,:/-]\d+)*")
_TRAILING = ".,;:!?)]}\"'"


def exact_tokens(text: str) -> set[str]:
    """Every URL, path and number in the text, as written (trailing punctuation aside)."""
    found: set[str] = set()
    rest = text
    for pattern in (_URL, _PATH):
        for match in pattern.finditer(rest):
            found.add(match.group().rstrip(_TRAILING))
        rest = pattern.sub(" ", rest)
    found.update(match.group() for match in _NUMBER.finditer(rest))
    return {token for token in found if token}


def tokens_problem(text: str, sources: list[str], where: str) -> str | None:
    """Every number, path and URL in the text must appear in `sources` (the quotes, or the batch's lines)."""
    available: set[str] = set()
    for source in sources:
        available |= exact_tokens(source)
    for token in sorted(exact_tokens(text)):
        if token not in available:
            return f"\u201c{token}\u201d is not in {where}"
    return None


# ----- dates -----
_YEARLY = re.compile(
    r"\b(?:birthday|birth ?day|born|anniversary|name ?day|yearly|annual(?:ly)?|every year|each year|"
    r"geburtstag|jahrestag|anniversaire|cumpleaños|aniversario|compleanno)\b",
    re.IGNORECASE,
)


def is_yearly(text: str) -> bool:
    """A birthday, an anniversary or another date that comes back every year (an English-first word list)."""
    return bool(_YEARLY.search(text))


def until_date(value: object, text: str, today: date) -> tuple[date | None, str | None]:
    """(the until date to save, the reason to skip). A yearly date never gets one: it is dropped."""
    if value in (None, ""):
        return None, None
    if not isinstance(value, str):
        return None, "its until date is not a date (YYYY-MM-DD)"
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return None, f"its until date {value!r} is not a date (YYYY-MM-DD)"
    if is_yearly(text):
        return None, None
    if day < today:
        return None, f"it ended on {day.isoformat()}, before today"
    return day, None


# ----- already known -----
def duplicate_problem(text: str, known: dict[str, list[str]]) -> str | None:
    """The exact-fact rule against each file's facts: {file: [facts]}."""
    for where, facts in known.items():
        if any(same_fact(text, fact) for fact in facts):
            return f"it is already in {where}"
    return None


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
