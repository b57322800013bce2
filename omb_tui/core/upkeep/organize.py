"""Organizing: one model call files the detail in MEMORY.md into topic files; code decides what moves.

Spec: memory.md, "Memory upkeep" (Organizing): the lines of MEMORY.md not judged before are offered to one quick
model call, which names the lines that are detail about one subject (and the topic for each) and the lines that are
core. Code refuses a move of a line that is not exactly in the file, of a diet, allergy or health line or a rule the
person gave (neither is ever offered), of a line judged core before; at most 20 lines move in one pass; a line moves
unchanged, with the lines it owns, into its topic (created with a header), and the topic is written before MEMORY.md,
so a line is never out of both. Each file's change is one journal row (*filed into topics*) carrying the run's id.
docs/upkeep-organize.md gives every decision.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ..base import clock
from ..base.text_checks import first_text_problem
from ..files.disk import encode, read_text, write_private_json
from ..files.paths import MEMORY_DIR, MEMORY_FILE, Home, MemoryInputError, validate_topic_name
from ..journal.changes import StaleHash
from ..memory.budget import read_topics, topic_index_line
from ..memory.entries import (
    Entry,
    is_health_or_safety,
    is_person_rule,
    line_content,
    parse_entries,
    render_entries,
)
from ..memory.memory_update import newline_of
from ..memory.run_gates import REFUSED_BY_GUARD
from ..memory.settings import load_bot_settings
from ..memory.store import MemoryStore
from ..models.call import ModelUnavailable, complete
from ..models.context import input_budget
from ..models.instances import NO_MODEL_CONNECTED, is_no_model
from ..redaction.data import redact_data
from ..redaction.redact import redact
from ..runs.run import Skipped, UpkeepRun
from .examples import organize_example

JOB = "organize"
STEP = "organize"
NOTE = "filed into topics"
MAX_MOVES = 20  # lines moved in one pass (spec)
OFFER_MAX_CHARS = 24_000  # what one call is shown; lines past it wait for the next pass
MOVED_HASHES_KEPT = 2000  # lines once moved, remembered so one put back by hand is not moved again
ALIASES_KEPT = 10
ALIAS_MAX_CHARS = 60
TITLE_MAX_CHARS = 80
MEMORY_WRITE_ATTEMPTS = 3

# A rule the person gave opens (after its date and source) with one of these words (spec: always, never, don't,
# from now on, every time, whenever; "do not" and a curly apostrophe are the same words).
_PLAIN_YAML = re.compile(r"[A-Za-z][A-Za-z0-9 ._-]*")
_YAML_WORDS = {"yes", "no", "on", "off", "true", "false", "null", "y", "n"}

ORGANIZE_SCHEMA = {
    "type": "object",
    "properties": {
        "moves": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "line": {"type": ["integer", "string"]},  # its number as shown, or the exact line
                    "topic": {"type": "string"},
                    "title": {"type": "string"},
                    "aliases": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["line", "topic"],
            },
        },
        "core": {"type": "array", "items": {"type": ["integer", "string"]}},
    },
    "required": ["moves", "core"],
}

ORGANIZE_PROMPT = """\
You keep a bot's long-term notes in order. MEMORY.md loads into every conversation the bot has, so it should hold \
only core facts; detail about one subject belongs in that subject's topic file under memory/, which the bot reads \
when it needs it.

You are shown the lines of MEMORY.md that have not been judged before, each after its number, and the topic files \
that exist. For each line decide one of three things:
- move it: it is detail about one subject, such as another person, a project or client, a trip, or likes in one \
domain (food, music, books). Give the line's number, and the topic file it belongs in: an existing \
one when it fits, else a new name made of letters, numbers, spaces, dots and dashes ending in .md (for example \
"acme-corp.md"), with a short title and aliases (the other words someone would ask about it with).
- core: the bot needs it in every conversation, such as the person's name, where they live, their company, or how \
they like replies. A line you call core is never asked about again.
- neither: leave it out of both lists; it stays where it is and is looked at again in a later pass.

A work log that is finished or stale (a status line about one task, pull request, release or errand that is done, or \
that was noted more than two weeks ago and has not changed) moves under its project's topic, or under "work-log.md" \
when it has no project. Today is {today}.

Move at most {max_moves} lines; a line moves unchanged. Answer with JSON only, in this shape: {{"moves": \
[{{"line": <its number>, "topic": "<name>.md", "title": "...", "aliases": ["..."]}}], "core": [<its number>]}} \
("title" and "aliases" only for a new topic)."""


# ----- what was judged before: hashes of exact lines, outside the workspace -----
def line_hash(line: str) -> str:
    return hashlib.sha256(encode(line)).hexdigest()


class JudgedLines:
    """`memory-journal/<bot>.organized.json`: the lines judged core and the lines once moved, as hashes only.

    Outside the workspace, like the journal: the bot's file tools cannot mark a line core."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.core: set[str] = set()
        self.moved: list[str] = []  # oldest first
        with contextlib.suppress(FileNotFoundError):
            self._read()

    def _read(self) -> None:
        try:
            data = json.loads(read_text(self.path))
        except ValueError:
            return  # unreadable: every line is offered again, which only costs a call
        if isinstance(data, dict):
            self.core = {h for h in data.get("core") or [] if isinstance(h, str)}
            self.moved = [h for h in data.get("moved") or [] if isinstance(h, str)]

    def save(self, lines_in_file: set[str]) -> None:
        """Keep the core hashes of lines still in MEMORY.md (the others can never be offered again anyway)."""
        core = sorted(self.core & lines_in_file)
        write_private_json(self.path, {"core": core, "moved": self.moved[-MOVED_HASHES_KEPT:]})


def judged_lines_path(home: Home, bot_id: str) -> Path:
    return home.journal_dir / f"{bot_id}.organized.json"


# ----- the result -----
@dataclass
class Moved:
    line: str
    topic: str  # memory/<name>.md

    def to_dict(self) -> dict:
        return {"line": self.line, "topic": self.topic}


@dataclass
class OrganizeResult:
    run: str
    moved: list[Moved] = field(default_factory=list)
    core: int = 0  # lines judged core in this pass
    skipped: list[Skipped] = field(default_factory=list)
    offered: int = 0
    reason: str | None = None  # why nothing was asked or nothing moved as a whole (no model, switched off…)

    def to_dict(self) -> dict:
        return {
            "moved": [m.to_dict() for m in self.moved],
            "core": self.core,
            "skipped": [s.to_dict() for s in self.skipped],
            "run": self.run,
            "offered": self.offered,
            "reason": self.reason,
        }


# ----- which lines are offered -----
def _first_line(entry: Entry) -> str:
    return line_content(entry.lines[0])


def why_not_offered(entry: Entry, judged: JudgedLines, today: date) -> str | None:
    """None when the entry may be offered for moving; else the sentence that says why it stays."""
    owned = "".join(entry.lines[1:])
    if is_health_or_safety(f"{entry.fact}\n{owned}"):
        return "A line about diet, allergies or health always stays in MEMORY.md."
    if is_person_rule(entry):
        return "A rule the person gave always stays in MEMORY.md."
    digest = line_hash(_first_line(entry))
    if digest in judged.core:
        return "This line was judged core before; it stays in MEMORY.md."
    if digest in judged.moved:
        return "This line was filed into a topic before and put back; it stays in MEMORY.md."
    if entry.struck or entry.expired(today) or entry.moved is not None:
        return "A struck, expired or archived line is the tidy-up's to move, not organizing's."
    return None


def _offered_entries(
    entries: list[Entry], judged: JudgedLines, today: date, max_chars: int = OFFER_MAX_CHARS
) -> list[Entry]:
    offered, size = [], 0
    for entry in entries:
        if not entry.is_bullet or why_not_offered(entry, judged, today) is not None:
            continue
        size += len(_first_line(entry)) + 1
        if size > max_chars:
            break
        offered.append(entry)
    return offered


def build_messages(offered: list[Entry], topics: list[str], today: date) -> list[dict]:
    topic_lines = "\n".join(topics) if topics else "(none yet)"
    lines = "\n".join(f"{number}| {_first_line(e)}" for number, e in enumerate(offered, 1))
    return [
        {
            "role": "system",
            "content": f"{ORGANIZE_PROMPT.format(today=today.isoformat(), max_moves=MAX_MOVES)}\n{organize_example()}",
        },
        {
            "role": "user",
            "content": f"Topic files:\n{topic_lines}\n\nLines of MEMORY.md to judge, one a line after its number "
            f"(the number is not part of the line):\n{lines}",
        },
    ]


# ----- topics -----
def topic_rel(name: str) -> str:
    """`memory/<name>.md` for a valid topic name (a leading `memory/` is accepted); InvalidName otherwise."""
    name = name[len(MEMORY_DIR) + 1 :] if name.startswith(f"{MEMORY_DIR}/") else name
    return f"{MEMORY_DIR}/{validate_topic_name(name)}"


def _yaml_text(value: str) -> str:
    """A YAML scalar for a header field: plain when it cannot be misread, else a JSON string (valid YAML)."""
    if _PLAIN_YAML.fullmatch(value) and value.lower() not in _YAML_WORDS and value.strip() == value:
        return value
    return json.dumps(value, ensure_ascii=False)


def _one_line(value: object, limit: int) -> str:
    text = " ".join(str(value).split()) if isinstance(value, str) else ""
    return text if len(text) <= limit else ""


def topic_header(rel: str, title: str, aliases: list[str], newline: str) -> str:
    """The frontmatter and heading a new topic starts with (title and aliases, as the topic index reads them)."""
    stem = rel.rsplit("/", 1)[-1][: -len(".md")]
    # Redacted before they are quoted for YAML: an escaped quote would hide a secret from the store's redaction.
    title, aliases = redact_data(title), redact_data(aliases)
    title = _one_line(title, TITLE_MAX_CHARS) or stem.replace("-", " ").replace("_", " ").strip().capitalize()
    kept: list[str] = []
    for alias in aliases:
        alias = _one_line(alias, ALIAS_MAX_CHARS)
        if alias and alias.lower() not in {a.lower() for a in kept} and alias.lower() != title.lower():
            kept.append(alias)
    lines = ["---", f"title: {_yaml_text(title)}"]
    if kept[:ALIASES_KEPT]:
        lines.append(f"aliases: [{', '.join(_yaml_text(a) for a in kept[:ALIASES_KEPT])}]")
    lines += ["---", f"# {title}", "", ""]
    return newline.join(lines)


def _entry_text(entry: Entry, newline: str) -> str:
    """The entry's lines as they are, each ending with the target file's newline."""
    return "".join(line_content(line) + newline for line in entry.lines)


def _filed_text(current_text: str, exists: bool, rel: str, moves: list[_Move]) -> str:
    newline = newline_of(current_text) if exists else "\n"
    text = current_text if exists else topic_header(rel, moves[0].title, moves[0].aliases, newline)
    if text and not text.endswith("\n"):
        text += newline
    held = {line_content(line) for line in text.split("\n")}
    for move in moves:
        if _first_line(move.entry) in held and len(move.entry.lines) == 1:
            continue  # the topic holds this very line already: it is not written twice
        text += _entry_text(move.entry, newline)
    return text


# ----- the answer, checked -----
@dataclass
class _Move:
    entry: Entry
    rel: str
    title: str
    aliases: list[str]


def _checked_moves(
    answer: dict, entries: list[Entry], judged: JudgedLines, today: date, core_lines: set[str], result: OrganizeResult
) -> list[_Move]:
    by_line: dict[str, Entry] = {}
    for bullet in entries:
        if bullet.is_bullet:
            by_line.setdefault(_first_line(bullet), bullet)
    moves: list[_Move] = []
    taken: set[str] = set()
    for proposal in answer.get("moves") or []:
        line = proposal.get("line") if isinstance(proposal, dict) else None
        line = line if isinstance(line, str) else ""
        entry = by_line.get(line)
        if entry is None:
            result.skipped.append(_skip(line, "This line is not exactly in MEMORY.md."))
            continue
        reason = why_not_offered(entry, judged, today)
        if reason is None and line in core_lines:
            reason = "The same answer called this line core; it stays in MEMORY.md."
        if reason is None and line in taken:
            reason = "This line is already moved in this pass."
        if reason is None and len(moves) >= MAX_MOVES:
            reason = f"At most {MAX_MOVES} lines move in one pass; this one waits for the next."
        if reason is None:
            try:
                rel = topic_rel(str(proposal.get("topic") or ""))
            except MemoryInputError as exc:
                reason = str(exc)
        if reason is None:
            reason = _words_problem(proposal)
        if reason is not None:
            result.skipped.append(_skip(line, reason))
            continue
        taken.add(line)
        aliases = proposal.get("aliases")
        moves.append(
            _Move(
                entry,
                rel,
                str(proposal.get("title") or ""),
                [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else [],
            )
        )
    return moves


def _words_problem(proposal: dict) -> str | None:
    """The new topic's title or an alias, in the model's own words, that may not be kept (base.text_checks)."""
    aliases = proposal.get("aliases")
    if not isinstance(aliases, list):
        aliases = []
    problem = first_text_problem([("its title", proposal.get("title")), *(("an alias", a) for a in aliases)])
    return f"{problem[:1].upper()}{problem[1:]}; the line stays in MEMORY.md." if problem else None


def _skip(text: str, reason: str) -> Skipped:
    return Skipped(redact(text).text, reason)  # a proposed line is the model's words: never shown with a key


def by_text(answer: dict, offered: list[Entry]) -> dict:
    """The answer with each line given by its number replaced by that offered line's exact text (a small model
    names a number surely and copies a long line badly); a number not offered becomes a text no line of the file
    has, refused like any line that is not in it. Every check then runs on the exact lines, as strictly."""

    def line_of(value: object) -> object:
        if type(value) is not int:
            return value
        return _first_line(offered[value - 1]) if 1 <= value <= len(offered) else f"(line {value}, never offered)"

    moves = answer.get("moves")
    if isinstance(moves, list):
        moves = [dict(m, line=line_of(m.get("line"))) if isinstance(m, dict) else m for m in moves]
    core = answer.get("core")
    if isinstance(core, list):
        core = [line_of(line) for line in core]
    return {**answer, "moves": moves, "core": core}


# ----- the step -----
def organize(
    home: Home,
    bot_id: str,
    *,
    run: UpkeepRun | None = None,
    today: date | None = None,
    store: MemoryStore | None = None,
) -> OrganizeResult:
    """One organizing pass over the bot's MEMORY.md; every change is journaled with the run's id."""
    run = run or UpkeepRun(bot_id)
    today = today or clock.today()
    store = store or MemoryStore(home, bot_id)
    result = OrganizeResult(run=run.id)
    settings = load_bot_settings(home, bot_id)
    if not settings.memory or not settings.upkeep:
        switch = "Memory" if not settings.memory else "Memory upkeep"
        result.reason = f"{switch} is switched off for {bot_id}: nothing was organized."
        return result

    store.sync_outside_changes()
    before = store.read(MEMORY_FILE)
    judged = JudgedLines(judged_lines_path(home, bot_id))
    topics = [topic_index_line(info) for info in read_topics(home, bot_id)]
    fixed = "".join(m["content"] for m in build_messages([], topics, today))
    # The answer copies each line it moves: half of what the context leaves is kept for it.
    budget = input_budget(home, bot_id, fixed=fixed, answer_share=0.5, default=OFFER_MAX_CHARS)
    offered = _offered_entries(parse_entries(before.text), judged, today, budget)
    result.offered = len(offered)
    if not offered:
        result.reason = "No line of MEMORY.md is waiting to be judged: nothing was asked."
        return result
    try:
        answer = complete(home, bot_id, JOB, build_messages(offered, topics, today), schema=ORGANIZE_SCHEMA)
    except ModelUnavailable as exc:
        if is_no_model(exc.reason):
            result.reason = NO_MODEL_CONNECTED
        else:
            result.reason = f"No model could organize: {exc.reason.rstrip('.')}; nothing moved."
        return result

    data = by_text(answer.data if isinstance(answer.data, dict) else {}, offered)
    offered_lines = {_first_line(e) for e in offered}
    core_lines = {line for line in data.get("core") or [] if isinstance(line, str) and line in offered_lines}
    with store.locked():
        now = store.read(MEMORY_FILE)
        if now.hash != before.hash:
            reason = "MEMORY.md changed while the model was answering; nothing moved (the next pass looks again)."
            result.skipped += [
                _skip(str(m.get("line", "")), reason) for m in data.get("moves") or [] if isinstance(m, dict)
            ]
        else:
            moves = _checked_moves(data, parse_entries(now.text), judged, today, core_lines, result)
            _apply_moves(store, run, moves, result)
            judged.moved += [line_hash(m.line) for m in result.moved]
        new_core = {line_hash(line) for line in core_lines} - judged.core
        judged.core |= new_core
        result.core = len(new_core)
        in_file = {line_hash(_first_line(e)) for e in parse_entries(store.read(MEMORY_FILE).text) if e.is_bullet}
        judged.save(in_file)
    return result


def _apply_moves(store: MemoryStore, run: UpkeepRun, moves: list[_Move], result: OrganizeResult) -> None:
    """Each topic first, then MEMORY.md once: a line is never out of both files."""
    actor = run.actor(STEP)
    by_topic: dict[str, list[_Move]] = {}
    for move in moves:
        by_topic.setdefault(move.rel, []).append(move)
    filed: list[_Move] = []
    for rel, topic_moves in by_topic.items():
        try:
            current = store.read(rel)
            written = store.write(
                rel,
                _filed_text(current.text, current.exists, rel, topic_moves),
                actor,
                expected_hash=current.hash,
                note=NOTE,
            )
            if not written.changed:
                result.skipped += [_skip(_first_line(m.entry), REFUSED_BY_GUARD) for m in topic_moves]
                continue
        except StaleHash:
            reason = f"{rel} changed while the lines were being filed; the line stays in MEMORY.md."
            result.skipped += [_skip(_first_line(m.entry), reason) for m in topic_moves]
            continue
        except MemoryInputError as exc:
            result.skipped += [_skip(_first_line(m.entry), str(exc)) for m in topic_moves]
            continue
        filed += topic_moves
    if not filed:
        return
    taken_out = _take_out_of_memory(store, actor, [m.entry for m in filed])
    if taken_out is None:
        why = f"{REFUSED_BY_GUARD}; it is in both MEMORY.md and its topic"
        result.skipped += [_skip(_first_line(m.entry), why) for m in filed]
        return
    for move in filed:
        if _first_line(move.entry) in taken_out:
            result.moved.append(Moved(_first_line(move.entry), move.rel))
        else:
            result.skipped.append(
                _skip(
                    _first_line(move.entry),
                    (
                        "MEMORY.md kept changing while the line was being filed: it is now in both MEMORY.md and "
                        f"{move.rel}."
                    ),
                )
            )


def _take_out_of_memory(store: MemoryStore, actor, moved: list[Entry]) -> set[str] | None:
    """Remove the moved entries from MEMORY.md, again on top of a lock-free editor's save; the lines taken out
    (None: the nightly guard did not let the write happen)."""
    wanted = {_first_line(e): e.raw for e in moved}
    for _ in range(MEMORY_WRITE_ATTEMPTS):
        current = store.read(MEMORY_FILE)
        kept, taken = [], set()
        for entry in parse_entries(current.text):
            line = _first_line(entry) if entry.is_bullet else None
            if line in wanted and line not in taken and entry.raw == wanted[line]:
                taken.add(line)
            else:
                kept.append(entry)
        try:
            written = store.write(MEMORY_FILE, render_entries(kept), actor, expected_hash=current.hash, note=NOTE)
            return taken if written.changed or not taken else None
        except StaleHash:
            continue
    return set()
