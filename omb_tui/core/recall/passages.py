"""The conversation passages of recall's block (docs/recall.md, "The block"): the messages of other conversations
that match, each with the turn that answers it or that it answers, two at most from one conversation; by words, and
with semantic recall on, by meaning too (meaning.py)."""

from __future__ import annotations

from datetime import date

from ..index.recall_index import MessageHit, RecallIndex, conversation_key
from ..memory import conversations as conv
from .meaning import MEANING_MATCH, Meaning, with_meaning

MAX_PASSAGES = 4
PASSAGES_PER_CONVERSATION = 2
PASSAGE_TURNS_MAX = 5  # a passage grows past its three turns only by matched turns just beside it (_join)
CANDIDATES = MAX_PASSAGES * 6  # messages ranked for the passages


def find_passages(
    index: RecallIndex,
    query: list[str],
    need: int,
    today: date,
    current: conv.Conversation | None,
    person: str | None = None,
    meaning: Meaning | None = None,
) -> list[list[MessageHit]]:
    """Ranked messages of other conversations, each with the turns around it that answer it or that it answers.

    With `meaning` (semantic recall on, the query's vector in time): the words' hits and the replies whose own
    meaning stands MEANING_MATCH standard deviations above the rest, ranked by their fused score (meaning.py)."""
    people = set(current.people()) if current else ({person} if person else set())

    def accept(conversation: conv.Conversation) -> bool:
        # what one person said to the bot is not recalled into another person's chat
        return not people or bool(people & set(conversation.people()))

    hits = index.search_messages(
        query,
        need=need,
        today=today,
        limit=CANDIDATES,
        accept=accept,
        other_than=current,
        replies_only=True,
        texts=False,
    )
    meant: set[int] = set()  # found by meaning alone
    if meaning is not None and meaning.messages is not None:
        hits, meant = _with_meaning(index, meaning, hits, accept, current)
    chosen: list[list[MessageHit]] = []
    from_conversation: dict[str, list[list[MessageHit]]] = {}  # the passages chosen from each conversation
    for hit in hits:
        key = conversation_key(hit.conversation)
        passages = from_conversation.setdefault(key, [])
        beside = next((p for p in passages if p[0].seq - 1 <= hit.seq <= p[-1].seq + 1), None)
        if beside is not None and (beside[0].seq <= hit.seq <= beside[-1].seq or _join(index, beside, hit)):
            continue  # shown already, or joined to the passage it is just beside
        if len(passages) >= PASSAGES_PER_CONVERSATION:
            continue
        shown = {message.seq for passage in passages for message in passage}  # two passages never overlap
        turns = [m for m in (*_answered(index, hit, -1), hit, *_answered(index, hit, +1)) if m.seq not in shown]
        passages.append(turns)
        chosen.append(turns)
        if len(chosen) >= MAX_PASSAGES:
            break
    # the texts of the chosen ones only, read from their files; a line changed since the index read it is left out
    readable = {message.id for message in index.message_texts([message for pair in chosen for message in pair])}
    return [
        [message for message in pair if message.id in readable]
        for pair in chosen
        if any(message.id in readable and (message.matched or message.id in meant) for message in pair)
    ]


def _join(index: RecallIndex, passage: list[MessageHit], hit: MessageHit) -> bool:
    """A matched turn just before or after a passage joins it, with the turn beyond it that answers it or that it
    answers, while the passage holds fewer than PASSAGE_TURNS_MAX turns (False when it is full: the turn may start
    a passage of its own)."""
    if len(passage) >= PASSAGE_TURNS_MAX:
        return False
    side = -1 if hit.seq < passage[0].seq else +1
    passage.extend([hit, *_answered(index, hit, side)][: PASSAGE_TURNS_MAX - len(passage)])
    passage.sort(key=lambda message: message.seq)
    return True


def _answered(index: RecallIndex, hit: MessageHit, offset: int) -> list[MessageHit]:
    """The turn just before a message (offset -1) or after it (+1) when it is the other side's: a person's and a
    bot's, or two people's in a room; never a harness notice or a failed reply."""
    other = index.neighbour(hit, offset, texts=False)
    if other is None or other.author_kind not in ("person", "bot") or other.failed:
        return []
    if (other.author_kind, other.author) == (hit.author_kind, hit.author):
        return []
    return [other]


def _with_meaning(
    index: RecallIndex, meaning: Meaning, hits: list[MessageHit], accept, current
) -> tuple[list[MessageHit], set[int]]:
    """The words' hits and the replies found by meaning alone (their own meaning at least MEANING_MATCH), best
    first by the fused score; and the latter's ids."""
    left_out = conversation_key(current) if current is not None else None

    def keep(hit: MessageHit) -> bool:
        return (
            hit.author_kind in ("person", "bot") and not hit.failed and conversation_key(hit.conversation) != left_out
        )

    words = {hit.id for hit in hits}
    every, _ = with_meaning(
        index, meaning, hits, [], [], MAX_PASSAGES * 2, accept=accept, keep=keep, min_own=MEANING_MATCH
    )
    every.sort(key=lambda hit: (-hit.score, -hit.at.timestamp(), hit.id))
    return every, {hit.id for hit in every if hit.id not in words}
