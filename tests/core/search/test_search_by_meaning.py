"""session_search by words and meaning (core/search/by_meaning.py): with an embeddings
instance and the index's vectors made, a message that shares no word with the question is found by its meaning,
fused with the words' hits in one score (the best by words 1.0, plus 0.15 for each standard deviation of meaning), under every rule of results (the window, the person's conversations,
memory off); before its vector is made, or when the query's vector is late, the hits are the words' alone and the
result says why. The scripted server's vectors make words of one "concept" alike (tests/support/fake_llm.py)."""

from __future__ import annotations

import json
import time

import pytest
from support.capture import make_chat
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from support.meaning import QUESTION, THRILLED, home_with_meaning, texts

from omb_tui.core.index import background as vectors_background
from omb_tui.core.index import vectors as index_vectors
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.people.people import add_person
from omb_tui.core.recall.meaning import forget_query_vectors
from omb_tui.core.search.session_search import session_search


@pytest.fixture
def meaning_home(llm_home, fake_llm):
    yield from home_with_meaning(llm_home, fake_llm, [("Please file the tax forms.", "Filed.")])


def test_a_message_sharing_no_word_is_found_by_its_meaning_once_its_vector_is_made(meaning_home, run_cli):
    before = session_search(meaning_home, "scout", QUESTION)
    assert THRILLED not in texts(before) and before.by_meaning is True  # no vector yet: found by words as today
    assert run_cli("index", "scout").code == 0
    after = session_search(meaning_home, "scout", QUESTION)
    assert texts(after)[0] == THRILLED and after.hits[0].matched == []
    listed = json.loads(run_cli("search", "scout", QUESTION, "--json").out)
    assert listed["by_meaning"] is True and listed["hits"][0]["text"] == THRILLED


def test_the_window_and_the_persons_conversations_hold_for_meaning_too(meaning_home, run_cli):
    run_cli("index", "scout")
    assert THRILLED not in texts(session_search(meaning_home, "scout", QUESTION, since="24h"))  # said 30 hours ago
    add_person(meaning_home, "dana")
    assert THRILLED not in texts(session_search(meaning_home, "scout", QUESTION, for_person="dana"))  # Milind's chat


def test_a_late_query_vector_answers_by_words_and_says_why(meaning_home, fake_llm, run_cli):
    run_cli("index", "scout")
    fake_llm.script_embeddings({"delay": 2.0})
    late = session_search(meaning_home, "scout", QUESTION)
    assert late.by_meaning is False and "did not answer within 0.3 s" in late.meaning_skipped
    assert THRILLED not in texts(late)
    fake_llm.script_embeddings({"delay": 2.0})
    forget_query_vectors()
    printed = run_cli("search", "scout", QUESTION)
    assert printed.code == 0 and "found by words alone: " in printed.err and "0.3 s" in printed.err


def test_without_embeddings_the_answer_keeps_its_exact_shape(llm_home, fake_llm):
    make_chat(llm_home, [(THRILLED, "Me too.")])
    data = session_search(llm_home, "scout", "Lisbon").to_dict()
    assert "by_meaning" not in data and "meaning_skipped" not in data
    assert not [r for r in fake_llm.requests if r.path.endswith("/embeddings")]


def test_memory_off_leaves_notes_out_by_meaning_too(meaning_home, fake_llm, run_cli):
    fake_llm.concepts.update(seats="chairs")
    run_cli("index", "scout")
    found = session_search(meaning_home, "scout", "chairs").hits
    assert [hit.text for hit in found if hit.source == "memory"] == ["- 2026-01-06 · likes window seats"]
    update_bot_settings(meaning_home, "scout", memory=False)
    assert not any(hit.source == "memory" for hit in session_search(meaning_home, "scout", "chairs").hits)


def test_meaning_puts_the_message_that_means_the_question_before_one_holding_the_same_words(meaning_home, run_cli):
    rainy = "Lisbon is rainy in spring."
    make_chat(meaning_home, [(rainy, "Bring a coat.")], chat_id="weather", title="Weather", hours_ago=2)
    before = session_search(meaning_home, "scout", "excited for Lisbon")
    assert texts(before)[:2] == [rainy, THRILLED]  # by words alike: the newer first
    run_cli("index", "scout")
    after = session_search(meaning_home, "scout", "excited for Lisbon")
    assert texts(after)[:2] == [THRILLED, rainy] and after.hits[0].matched == before.hits[1].matched != []
    assert after.hits[0].score > after.hits[1].score


def test_a_long_lived_process_makes_the_missing_vectors_in_its_background(meaning_home):
    assert THRILLED not in texts(session_search(meaning_home, "scout", QUESTION))  # no vector: by words alone
    assert vectors_background.poke(meaning_home, "scout") is None  # a command never starts a pass
    vectors_background.enable()  # as the app, the MCP server and serve do
    try:
        deadline = time.monotonic() + 60
        while THRILLED not in texts(session_search(meaning_home, "scout", QUESTION)):
            assert time.monotonic() < deadline, "the background pass made no vector"
            time.sleep(0.05)
        assert vectors_background.poke(meaning_home, "scout") is None  # one pass a bot per interval
    finally:
        vectors_background.forget()


def test_a_message_older_than_the_kept_matrix_is_found_by_words_and_ranked_by_meaning(
    meaning_home, run_cli, monkeypatch
):
    rainy = "Lisbon is rainy in spring."
    make_chat(meaning_home, [(rainy, "Bring a coat.")], chat_id="weather", title="Weather", hours_ago=2)
    run_cli("index", "scout")
    monkeypatch.setattr(index_vectors, "MATRIX_ROWS", 2)  # only the newest two turns: the weather chat's
    found = session_search(meaning_home, "scout", "excited for Lisbon")
    assert texts(found)[:2] == [THRILLED, rainy]  # THRILLED, older, by its words, and first by its meaning
    assert THRILLED not in texts(session_search(meaning_home, "scout", QUESTION))  # meaning alone: the newest only


def test_a_background_pass_sends_the_key_of_the_session_that_started_it(meaning_home, fake_llm, monkeypatch):
    """The MCP service serves many clients from one process: the pass a session's search starts reads the key from
    that session's environment (core/memory/environment.py), not from the service's own."""
    from omb_tui.core.memory import environment

    monkeypatch.delenv("OMB_EMBED_KEY", raising=False)
    write_llm_config(
        meaning_home,
        fake_llm,
        instances={
            "vectors": {"model": "openai/mini-embed", "api_base": fake_llm.api_base, "api_key_env": "OMB_EMBED_KEY"}
        },
        embeddings={"instanceId": "vectors"},
    )
    session_search(meaning_home, "scout", QUESTION)  # the index, by words: no key here
    vectors_background.enable()
    try:
        with environment.session_environment({"OMB_EMBED_KEY": "key-of-the-session"}):
            started = vectors_background.poke(meaning_home, "scout")
        assert started is not None
        started.join(60)  # a bound on a stuck pass, never a measure
        assert not started.is_alive()
    finally:
        vectors_background.forget()
    sent = {
        request.headers.get("authorization") for request in fake_llm.requests if request.path.endswith("/embeddings")
    }
    assert sent == {"Bearer key-of-the-session"}
