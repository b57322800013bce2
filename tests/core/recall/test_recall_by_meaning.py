"""Recall by meaning (docs/recall.md; recall/passages.py, recall/meaning.py): with an embeddings instance set and
`features.semanticRecall` on (its default then), a passage whose meaning matches the message enters recall's block
although it shares no word with it; the four passages, the block's order and its opening line stay; off, or with
the query's vector late, the block is the words' alone and the log line says why. The scripted server's vectors make
words of one "concept" alike (tests/support/fake_llm.py)."""

from __future__ import annotations

import logging

import pytest
from support.capture import make_chat
from support.fake_llm import embedding_of, fake_llm, llm_home  # noqa: F401 - fixtures
from support.meaning import THRILLED, home_with_meaning, with_embeddings

from omb_tui.app.recall_sentences import why_lines, words_line
from omb_tui.core.base import clock
from omb_tui.core.recall.meaning import forget_query_vectors
from omb_tui.core.recall.recall import MAX_PASSAGES, OPENING_LINE, recall

pytestmark = pytest.mark.dates  # a passage is dated by its message's local day

MESSAGE = "Excited!!!"  # one word, whose scripted vector only THRILLED's shares (its "concept")
# Chatter sharing nothing with the message, so that a turn meaning it stands far above the mean of the bot's turns.
CHATTER = [(f"Item {n}: stock{n} stock{n}s remain", f"Noted stock{n}.") for n in range(20)]


@pytest.fixture
def meaning_home(llm_home, fake_llm):
    yield from home_with_meaning(llm_home, fake_llm, CHATTER)


def passage_texts(result) -> list[str]:
    return [passage.text for passage in result.passages]


def test_a_passage_sharing_no_word_enters_the_block_by_its_meaning(meaning_home, run_cli):
    before = recall(meaning_home, "scout", MESSAGE)
    assert before.passages == [] and before.by_meaning is True  # no vector yet: the words' block, empty
    assert run_cli("index", "scout").code == 0
    after = recall(meaning_home, "scout", MESSAGE)
    assert THRILLED in after.passages[0].text and after.passages[0].matched == []
    assert after.block.startswith(OPENING_LINE) and THRILLED in after.block
    assert after.to_dict()["by_meaning"] is True


def test_unrelated_turns_never_enter_by_meaning(meaning_home, run_cli):
    run_cli("index", "scout")
    turns = [text for pair in [(THRILLED, "Me too."), *CHATTER] for text in pair]
    unrelated = next(  # a message whose (scripted) vector is at right angles to every turn's: it means none of them
        message
        for message in ("quarterly invoices pending?", "tax audit schedule soon?", "garage door repair quote?")
        if all(sum(a * b for a, b in zip(embedding_of(message), embedding_of(text))) == 0 for text in turns)
    )
    result = recall(meaning_home, "scout", unrelated)
    assert result.by_meaning is True and result.passages == [] and result.block == ""


def test_semantic_recall_switched_off_keeps_the_words_rules(meaning_home, fake_llm, run_cli):
    run_cli("index", "scout")
    with_embeddings(meaning_home, fake_llm, features={"semanticRecall": False})
    result = recall(meaning_home, "scout", MESSAGE)
    assert result.passages == [] and "by_meaning" not in result.to_dict()


def test_a_late_vector_gives_the_words_block_and_the_log_line_says_why(meaning_home, fake_llm, run_cli, caplog):
    run_cli("index", "scout")
    fake_llm.script_embeddings({"delay": 2.0})
    with caplog.at_level(logging.INFO, logger="omb_tui.recall"):
        result = recall(meaning_home, "scout", MESSAGE)
    assert result.passages == [] and result.by_meaning is False
    assert "by words alone (" in result.log_line and "0.3 s" in result.log_line
    assert any("by words alone" in record.getMessage() for record in caplog.records)


def test_still_four_passages_at_most_with_meaning(meaning_home, fake_llm, run_cli):
    for n in range(5):  # two passages at most from one conversation: five more chats, each with an excited turn
        make_chat(meaning_home, [(f"Thrilled, truly, {n}!", "Good.")], chat_id=f"more-{n}", title=f"More {n}")
    crates = [(f"Item {n}: crate{n} crate{n}s remain", f"Noted crate{n}.") for n in range(30)]
    make_chat(meaning_home, crates, chat_id="crates", title="Crates")  # so that six excited turns still stand out
    run_cli("index", "scout")
    result = recall(meaning_home, "scout", MESSAGE)
    assert len(result.passages) == MAX_PASSAGES and all(passage.matched == [] for passage in result.passages)


def test_a_topic_note_whose_meaning_matches_enters_the_notes(meaning_home, fake_llm, run_cli):
    day = clock.today().isoformat()
    stock = "".join(f"- {day} · crate{n} crate{n}s counted\n" for n in range(20))  # notes that mean nothing asked
    (meaning_home.workspace("scout") / "memory" / "stock.md").write_text(f"---\ntitle: Stock\n---\n# Stock\n\n{stock}")
    fake_llm.concepts.update(seats="chairs")
    assert recall(meaning_home, "scout", "Chairs, chairs!").notes == []  # no vectors yet: no word in common
    run_cli("index", "scout")
    result = recall(meaning_home, "scout", "Chairs, chairs!")
    assert [(note.file, note.matched) for note in result.notes] == [("memory/travel.md", [])]
    assert "likes window seats" in result.block


def test_the_recall_preview_says_an_item_came_by_meaning_and_when_meaning_was_late(meaning_home, fake_llm, run_cli):
    run_cli("index", "scout")
    found = recall(meaning_home, "scout", MESSAGE)
    assert words_line(found).endswith(" · and by meaning")
    assert why_lines(found)[0].endswith(": (its meaning: no word in common)")  # not "(its name)", not empty
    fake_llm.script_embeddings({"delay": 2.0})
    forget_query_vectors()
    late = recall(meaning_home, "scout", MESSAGE)
    assert " · by words alone (" in words_line(late)
