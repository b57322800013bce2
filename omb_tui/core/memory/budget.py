"""What loads from MEMORY.md each turn, the gauge, the topic index and the prompt block.

Implements the spec section "What loads, and the budget". ``MEMORY_MAX_LINES`` and
``MEMORY_MAX_BYTES`` are defined here once; the panel, the CLI and the prompt import them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from omb_tui.core.memory.entries import parse_entries, split_lines

from ..base.text import plural
from ..files.disk import read_text
from ..files.paths import Home

MEMORY_MAX_LINES = 200
MEMORY_MAX_BYTES = 24 * 1024  # UTF-8 bytes, line endings included
AMBER_FRACTION = 0.8
TOPIC_INDEX_MAX_TOPICS = 40
TOPIC_INDEX_MAX_CHARS = 2000
TOPIC_INDEX_LINE_MAX_CHARS = 200  # so one long description cannot push other topics out

MEMORY_HEADING = "## Memory (MEMORY.md)"
MEMORY_EMPTY_NOTE = "(MEMORY.md has nothing to load.)"
TOPIC_INDEX_HEADING = "## Topic files"
TOPIC_INDEX_INTRO = "These do not load by themselves; read one with your file tools when you need it."


def utf8_size(text: str) -> int:
    """Bytes the text takes on disk as UTF-8; never raises, even for lone surrogates."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        # surrogateescape gives back the original byte of a file read with it; surrogatepass covers the rest
        try:
            return len(text.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError:
            return len(text.encode("utf-8", "surrogatepass"))


# The state of one line of MEMORY.md on a day.
LINE_LOADS = "loading"
LINE_EXPIRED = "expired"  # inside the cut, in an entry whose until date has passed
LINE_PAST_CUT = "past the cut"
# Which limit cut the file.
CUT_BY_LINES = "lines"
CUT_BY_BYTES = "bytes"


@dataclass(frozen=True)
class MemoryLine:
    """One line of MEMORY.md and whether it loads on the day the cut was measured for."""

    number: int  # from 1, as an editor counts
    text: str  # as in the file, line ending included
    state: str  # LINE_LOADS, LINE_EXPIRED or LINE_PAST_CUT
    until: date | None = None  # the until date of the expired entry it belongs to
    ends_entry: bool = True  # the last line of its entry (a bullet owns the lines under it)

    @property
    def loads(self) -> bool:
        return self.state == LINE_LOADS


@dataclass(frozen=True)
class LoadCut:
    """How much of MEMORY.md fits the budget: whole lines from the top, whichever limit cuts first.

    ``cut_by`` says which limit cut (``CUT_BY_LINES`` or ``CUT_BY_BYTES``), None when every line fits.
    ``lines`` holds each line with its state on ``as_of``; it is empty when no day was given (the
    gauge needs only the counts, and a day is what decides expiry).
    """

    lines_total: int
    bytes_total: int
    lines_loaded: int
    bytes_loaded: int
    lines_not_loaded: int
    cut_off: bool
    loaded_text: str
    cut_by: str | None = None
    as_of: date | None = None
    lines: tuple[MemoryLine, ...] = ()


def load_cut(text: str, as_of: date | None = None) -> LoadCut:
    """Take whole lines from the top while at most 200 lines and 24,576 bytes (endings counted) fit.

    With ``as_of``, every line is marked too: past the cut, expired on that day, or loading.
    """
    lines = split_lines(text)
    sizes = [utf8_size(line) for line in lines]
    lines_loaded = 0
    bytes_loaded = 0
    cut_by = None
    for size in sizes:
        if lines_loaded + 1 > MEMORY_MAX_LINES:
            cut_by = CUT_BY_LINES
            break
        if bytes_loaded + size > MEMORY_MAX_BYTES:
            cut_by = CUT_BY_BYTES
            break
        lines_loaded += 1
        bytes_loaded += size
    return LoadCut(
        lines_total=len(lines),
        bytes_total=sum(sizes),
        lines_loaded=lines_loaded,
        bytes_loaded=bytes_loaded,
        lines_not_loaded=len(lines) - lines_loaded,
        cut_off=lines_loaded < len(lines),
        loaded_text="".join(lines[:lines_loaded]),
        cut_by=cut_by,
        as_of=as_of,
        lines=_line_states(text, lines_loaded, as_of) if as_of is not None else (),
    )


def _line_states(text: str, lines_loaded: int, as_of: date) -> tuple[MemoryLine, ...]:
    """Every line inside the cut loads unless its entry has expired on ``as_of``; the rest are past the cut."""
    marked: list[MemoryLine] = []
    for entry in parse_entries(text):
        expired = entry.expired(as_of)
        for position, line in enumerate(entry.lines, start=1):
            number = len(marked) + 1
            if number > lines_loaded:
                state = LINE_PAST_CUT
            elif expired:
                state = LINE_EXPIRED
            else:
                state = LINE_LOADS
            marked.append(
                MemoryLine(
                    number, line, state, entry.until if expired else None, ends_entry=position == entry.line_count
                )
            )
    return tuple(marked)


def loaded_memory(text: str, today: date) -> str:
    """The text of MEMORY.md that loads today: the cut, minus entries whose until date has passed.

    An entry loads on its until date and stops loading the day after. Entries are read from
    the whole file, so an entry the cut splits keeps only its lines above the cut (none, if
    it has expired).
    """
    return "".join(line.text for line in load_cut(text, today).lines if line.loads)


@dataclass(frozen=True)
class Gauge:
    """The Memory panel's gauge: the whole file against the budget.

    ``level`` is ``red`` once any line is cut off, else ``amber`` from 80% of either limit,
    else ``ok``. Expired entries count here (they are still in the file) and never make the
    gauge red: leaving them out of the prompt is deliberate, not a cut.
    """

    lines: int
    bytes: int
    max_lines: int
    max_bytes: int
    level: str  # "ok" | "amber" | "red"
    lines_not_loaded: int

    def to_dict(self) -> dict:
        return {
            "lines": self.lines,
            "bytes": self.bytes,
            "max_lines": self.max_lines,
            "max_bytes": self.max_bytes,
            "level": self.level,
            "lines_not_loaded": self.lines_not_loaded,
        }


def gauge(text: str) -> Gauge:
    cut = load_cut(text)
    if cut.lines_not_loaded > 0:
        level = "red"
    elif cut.lines_total >= AMBER_FRACTION * MEMORY_MAX_LINES or cut.bytes_total >= AMBER_FRACTION * MEMORY_MAX_BYTES:
        level = "amber"
    else:
        level = "ok"
    return Gauge(
        lines=cut.lines_total,
        bytes=cut.bytes_total,
        max_lines=MEMORY_MAX_LINES,
        max_bytes=MEMORY_MAX_BYTES,
        level=level,
        lines_not_loaded=cut.lines_not_loaded,
    )


@dataclass(frozen=True)
class TopicInfo:
    """One topic file as the index lists it; `frontmatter_problem` says what is wrong with a broken header."""

    name: str  # file name inside memory/, e.g. "travel.md"
    title: str | None = None
    description: str | None = None
    aliases: tuple[str, ...] = ()
    size_bytes: int = 0
    frontmatter_problem: str | None = None  # e.g. "line 2: mapping values are not allowed here"

    @property
    def frontmatter_ok(self) -> bool:
        return self.frontmatter_problem is None


def read_topic_info(name: str, text: str) -> TopicInfo:
    """Read a topic's ``title``, ``description`` and ``aliases`` from its YAML frontmatter.

    A file without frontmatter, or with an empty one, is listed by name and is fine. Bad
    YAML, a header that is not a mapping, or a field of the wrong type (a list or mapping
    as title/description; aliases other than a list of plain values or one plain value)
    gives the name only, with what is wrong in ``frontmatter_problem``. It never raises.
    """
    size = utf8_size(text)
    entries = parse_entries(text)
    if not entries or entries[0].kind != "frontmatter":
        return TopicInfo(name=name, size_bytes=size)
    header = "".join(entries[0].lines[1:-1])
    import frontmatter  # YAML costs start-up time; only topic listings need it

    try:
        metadata = frontmatter.YAMLHandler().load(header)
    except Exception as exc:  # any YAML failure (syntax, recursion, bad tags) just means "broken header"
        return TopicInfo(name=name, size_bytes=size, frontmatter_problem=_yaml_problem(exc))
    if metadata is None:
        return TopicInfo(name=name, size_bytes=size)
    if not isinstance(metadata, dict):
        return TopicInfo(
            name=name, size_bytes=size, frontmatter_problem="it is not a list of fields (name: value lines)"
        )
    title = metadata.get("title")
    description = metadata.get("description")
    aliases = metadata.get("aliases")
    if aliases is not None and not isinstance(aliases, list):
        aliases = [aliases]
    for field, values in (("title", [title]), ("description", [description]), ("aliases", aliases or [])):
        if not all(_is_plain(value) for value in values):
            problem = f"{'each alias' if field == 'aliases' else field} must be plain text, not a list or a mapping"
            return TopicInfo(name=name, size_bytes=size, frontmatter_problem=problem)
    return TopicInfo(
        name=name,
        title=_one_line(title),
        description=_one_line(description),
        aliases=tuple(alias for alias in (_one_line(value) for value in aliases or []) if alias),
        size_bytes=size,
    )


def read_topics(home: Home, bot_id: str) -> list[TopicInfo]:
    """Each topic of the bot (every memory/<topic>.md but the archive, by name), read for its header; a file that
    cannot be read is left out."""
    infos = []
    for path in home.topic_paths(bot_id):
        try:
            text = read_text(path)
        except OSError:
            continue
        infos.append(read_topic_info(path.name, text))
    return infos


def _yaml_problem(error: Exception) -> str:
    """A YAML error in one line: where (the file's line, after the opening ---) and what."""
    problem = getattr(error, "problem", None)
    # Where what went wrong began (an unclosed "[" is noticed only at the end of the header).
    mark = getattr(error, "context_mark", None) or getattr(error, "problem_mark", None)
    if not problem:
        return "its YAML cannot be read"
    where = f"line {mark.line + 2}: " if mark is not None else ""
    return f"{where}{' '.join(str(problem).split())}"


def _is_plain(value: object) -> bool:
    # YAML reads "title: 2026" as a number and "title: 2026-09-10" as a date; both are fine as text
    return value is None or isinstance(value, (str, int, float, date))


def _one_line(value: object) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


# Which limit cut the topic index.
INDEX_CUT_BY_TOPICS = "topics"  # 40 topics
INDEX_CUT_BY_CHARACTERS = "characters"  # 2,000 characters


@dataclass(frozen=True)
class TopicIndex:
    """The topic index block: ``text`` is the heading, intro, listed lines and the "more" line.

    ``listed_topics`` are the topics of ``lines``, in the same order; ``omitted_topics`` are the ones
    past the cut, in index order; ``cut_by`` says which limit cut (None when every topic is listed).
    """

    lines: tuple[str, ...]
    text: str
    listed_topics: tuple[TopicInfo, ...] = ()
    omitted_topics: tuple[TopicInfo, ...] = ()
    cut_by: str | None = None

    @property
    def listed(self) -> int:
        return len(self.listed_topics)

    @property
    def omitted(self) -> int:
        return len(self.omitted_topics)

    @property
    def more_line(self) -> str:
        """All the bot is told about the topics left out ("" when none are)."""
        return _more_topics_line(self.omitted) if self.omitted else ""


def topic_index_line(topic: TopicInfo) -> str:
    """``- memory/travel.md — Travel: trips and bookings (aliases: trips, flights)``, parts present only."""
    line = f"- memory/{topic.name}"
    label = ": ".join(part for part in (topic.title, topic.description) if part)
    if label:
        line += f" — {label}"
    if topic.aliases:
        line += f" (aliases: {', '.join(topic.aliases)})"
    if len(line) > TOPIC_INDEX_LINE_MAX_CHARS:
        line = line[: TOPIC_INDEX_LINE_MAX_CHARS - 1].rstrip() + "…"
    return line


def _more_topics_line(omitted: int) -> str:
    return f"… and {plural(omitted, 'more topic')} not listed."


def topic_index(topics: Iterable[TopicInfo]) -> TopicIndex:
    """List topics by name, at most 40 of them and 2,000 characters for the whole ``text``.

    The 2,000 characters cover everything in ``text``: heading, intro line, topic lines and,
    when topics are left out, the closing ``… and N more topics not listed.`` line. The
    caller passes every ``memory/<topic>.md`` except ``archive.md``. No topics, no text.
    """
    ordered = sorted(topics, key=lambda topic: (topic.name.casefold(), topic.name))
    if not ordered:
        return TopicIndex(lines=(), text="")
    candidate_lines = [topic_index_line(topic) for topic in ordered[:TOPIC_INDEX_MAX_TOPICS]]
    best = 0
    for count in range(len(candidate_lines), -1, -1):
        if len(_render_index(candidate_lines[:count], len(ordered) - count)) <= TOPIC_INDEX_MAX_CHARS:
            best = count
            break
    listed_lines = tuple(candidate_lines[:best])
    omitted = len(ordered) - best
    if not omitted:
        cut_by = None
    elif best == TOPIC_INDEX_MAX_TOPICS:
        cut_by = INDEX_CUT_BY_TOPICS
    else:
        cut_by = INDEX_CUT_BY_CHARACTERS
    return TopicIndex(
        lines=listed_lines,
        text=_render_index(listed_lines, omitted),
        listed_topics=tuple(ordered[:best]),
        omitted_topics=tuple(ordered[best:]),
        cut_by=cut_by,
    )


def _render_index(lines: Iterable[str], omitted: int) -> str:
    parts = [TOPIC_INDEX_HEADING, "", TOPIC_INDEX_INTRO, *lines]
    if omitted:
        parts.append(_more_topics_line(omitted))
    return "\n".join(parts) + "\n"


def cut_off_line(lines_not_loaded: int) -> str:
    """The only thing the bot is told about the cut."""
    return f"MEMORY.md was cut off here: {plural(lines_not_loaded, 'more line')} did not load."


def prompt_block(memory_text: str, topics: Iterable[TopicInfo], today: date) -> str:
    """The memory block exactly as it goes into the system prompt.

    Format (``\\r\\n`` in the file becomes ``\\n``; trailing blank lines are dropped)::

        ## Memory (MEMORY.md)

        <loaded memory: the cut, expired entries left out, or "(MEMORY.md has nothing to load.)">

        MEMORY.md was cut off here: N more lines did not load.     <- only when cut off

        ## Topic files                                               <- only when there are topics

        These do not load by themselves; read one with your file tools when you need it.
        - memory/travel.md — Travel: trips and bookings (aliases: trips, flights)
        … and N more topics not listed.                              <- only when some are left out

    When the bot's memory switch is off nothing loads; see :func:`prompt_block_if_enabled`.
    """
    cut = load_cut(memory_text)
    memory = loaded_memory(memory_text, today).replace("\r\n", "\n").rstrip()
    sections = [f"{MEMORY_HEADING}\n\n{memory or MEMORY_EMPTY_NOTE}\n"]
    if cut.cut_off:
        sections.append(cut_off_line(cut.lines_not_loaded) + "\n")
    index = topic_index(topics)
    if index.text:
        sections.append(index.text)
    return "\n".join(sections)


def prompt_block_if_enabled(enabled: bool, memory_text: str, topics: Iterable[TopicInfo], today: date) -> str:
    """The prompt block, or nothing at all when the bot's "Let this bot use memory" switch is off."""
    return prompt_block(memory_text, topics, today) if enabled else ""
