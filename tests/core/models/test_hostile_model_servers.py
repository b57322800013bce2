"""Every deadline holds against a hostile server (core/models/bounded_http.py; docs/models.md, "Bounded
connections"): a server that trickles its answer a byte every 0.2 s, sends a huge body, redirects elsewhere, changes
its vectors' length between calls or sends numbers beyond float32. Each gives one sentence; the call ends at its
deadline with its connection closed (the scripted server sees the client hang up), whatever the path: an embeddings
call, `index`, recall, `search`, a chat completion (whole or streamed) and `models test`. No timing is asserted:
a trickle takes two minutes to send whole, and each call must end, its connection cut, well before that."""

from __future__ import annotations

import threading
import time
import warnings

import pytest
from support.fake_llm import fake_llm, llm_home, start, write_llm_config  # noqa: F401 - fixtures
from support.meaning import QUESTION, THRILLED, home_with_meaning, texts, with_embeddings
from test_embeddings_call import embedding_rows

from omb_tui.core.models import call, embeddings
from omb_tui.core.models.call import ModelUnavailable, complete
from omb_tui.core.models.embeddings import EmbeddingsUnavailable, embed
from omb_tui.core.recall.recall import recall
from omb_tui.core.search.session_search import session_search

TRICKLE = {"trickle": 0.2}  # the whole answer takes two minutes to arrive (fake_llm.TRICKLE_BYTES)
WELL_BEFORE_THE_TRICKLE_ENDS = 60.0  # seconds: generous, so a loaded machine cannot make a test fail
ASK = [{"role": "user", "content": "Any notes?"}]


def finishes(work):
    """What `work()` returned or raised, once it has; fails when it is still running well before the trickle would
    have been sent whole (the call was held by it)."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(WELL_BEFORE_THE_TRICKLE_ENDS)
    assert not worker.is_alive(), "the call was still held by the trickling server"
    return outcome


def hung_up_on(fake) -> list[str]:
    """How the server's hostile answers ended, once each has (the client closing its connection is seen at the
    server's next byte)."""
    give_up = time.monotonic() + WELL_BEFORE_THE_TRICKLE_ENDS
    while not fake.hostile and time.monotonic() < give_up:
        time.sleep(0.05)
    return fake.hostile


def raised(outcome, kind):
    error = outcome.get("error")
    assert isinstance(error, kind), outcome
    return error.reason


# ----- embeddings -----
def test_a_trickled_embeddings_answer_ends_at_the_calls_deadline_with_its_connection_closed(llm_home, fake_llm):
    with_embeddings(llm_home, fake_llm)
    fake_llm.script_embeddings(TRICKLE)
    reason = raised(finishes(lambda: embed(llm_home, ["one"], timeout=1.0)), EmbeddingsUnavailable)
    assert reason == "instance 'vectors' did not answer within 1 s"
    assert hung_up_on(fake_llm) == ["cut by the client"]
    (row,) = embedding_rows(llm_home)
    assert not row["ok"] and row["error"] == reason


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_answer_larger_than_its_bound_is_refused_before_it_is_read(llm_home, fake_llm, monkeypatch, chunked):
    monkeypatch.setattr(embeddings, "MAX_ANSWER_BYTES", 1024 * 1024)
    with_embeddings(llm_home, fake_llm)
    fake_llm.script_embeddings({"huge": 64 * 1024 * 1024, "chunked": chunked})
    reason = raised(finishes(lambda: embed(llm_home, ["one"])), EmbeddingsUnavailable)
    assert reason == "instance 'vectors' sent an answer larger than the 1,048,576 bytes one may have: refused unread"
    assert hung_up_on(fake_llm) == ["cut by the client"]


def test_a_redirect_is_refused_and_the_texts_never_reach_the_other_address(llm_home, fake_llm):
    elsewhere, stop = start()
    try:
        with_embeddings(llm_home, fake_llm)
        fake_llm.script_embeddings({"redirect": f"{elsewhere.api_base}/embeddings"})
        with pytest.raises(EmbeddingsUnavailable) as caught:
            embed(llm_home, ["the texts stay here"])
        assert caught.value.reason == "instance 'vectors' answered with a redirect (307), which is not followed"
        assert elsewhere.requests == []
    finally:
        stop()


def test_numbers_beyond_float32_are_refused_and_no_warning_reaches_stderr(llm_home, fake_llm):
    with_embeddings(llm_home, fake_llm)
    fake_llm.script_embeddings(
        {"data": [{"index": 0, "embedding": [1e39, 1.0]}]},
        {"data": [{"index": 0, "embedding": "not base64!"}]},  # a type the answer's model does not declare
    )
    with warnings.catch_warnings(record=True) as caught_warnings:
        warnings.simplefilter("always")
        with pytest.raises(EmbeddingsUnavailable) as beyond:
            embed(llm_home, ["one"])
        with pytest.raises(EmbeddingsUnavailable) as not_numbers:
            embed(llm_home, ["one"])
    assert (
        beyond.value.reason
        == "instance 'vectors' answered, but a vector holds a number beyond float32's range (3.4e38)"
    )
    assert "neither numbers nor base64" in not_numbers.value.reason
    assert [str(warning.message) for warning in caught_warnings] == []


# ----- index, recall, search -----
@pytest.fixture
def meaning_home(llm_home, fake_llm):
    yield from home_with_meaning(llm_home, fake_llm, [("Please file the tax forms.", "Filed.")])


def test_index_stops_at_the_instances_deadline_with_one_sentence(meaning_home, fake_llm, run_cli):
    with_embeddings(meaning_home, fake_llm)  # the instance's timeout: 5 s
    fake_llm.script_embeddings(TRICKLE)
    result = finishes(lambda: run_cli("index", "scout"))["value"]
    assert result.code == 1 and "still to make: instance 'vectors' did not answer within 5 s." in result.out
    assert hung_up_on(fake_llm) == ["cut by the client"]


def test_recall_and_search_answer_by_words_at_the_query_deadline(meaning_home, fake_llm, run_cli):
    run_cli("index", "scout")
    fake_llm.script_embeddings(TRICKLE, TRICKLE, TRICKLE)
    found = finishes(lambda: session_search(meaning_home, "scout", QUESTION))["value"]
    assert found.by_meaning is False and found.meaning_skipped == "instance 'vectors' did not answer within 0.3 s"
    assert THRILLED not in texts(found)
    recalled = finishes(lambda: recall(meaning_home, "scout", "Excited!!!"))["value"]
    assert recalled.by_meaning is False and "did not answer within 0.3 s" in recalled.log_line
    printed = finishes(lambda: run_cli("search", "scout", "who was thrilled"))["value"]
    assert printed.code == 0 and "found by words alone: " in printed.err and "0.3 s" in printed.err
    assert hung_up_on(fake_llm) and fake_llm.hostile == ["cut by the client"] * len(fake_llm.hostile)


def test_vectors_whose_length_changes_between_calls_stop_index_with_one_sentence(llm_home, fake_llm, run_cli):
    from support.capture import make_chat

    make_chat(llm_home, [(f"turn {n} about item{n}", f"noted item{n}") for n in range(100)], hours_ago=30)
    with_embeddings(llm_home, fake_llm)
    fake_llm.script_embeddings(*[{"width": 8 if n % 2 else 16} for n in range(100)])
    result = finishes(lambda: run_cli("index", "scout"))["value"]
    assert result.code == 1
    assert "still to make: instance 'vectors' changed its vectors' length between calls (16 numbers, then 8)" in (
        result.out
    )
    assert len(embedding_rows(llm_home)) == 2  # it stopped at the change, and never dropped and remade in a loop


# ----- chat and models test -----
def local(home, fake, **fields):
    spec = {"model": "openai/qwen3-8b", "api_base": fake.api_base, "timeout": 1, **fields}
    write_llm_config(home, fake, instances={"local": spec})


@pytest.mark.parametrize(
    "stream, sentence",
    [(False, "did not answer within 1 s"), (True, "did not start answering within 1 s")],
    ids=["whole", "streamed"],
)
def test_a_trickled_chat_answer_ends_at_the_calls_timeout(llm_home, fake_llm, stream, sentence):
    local(llm_home, fake_llm, stream=stream)
    fake_llm.script(TRICKLE)
    reason = raised(finishes(lambda: complete(llm_home, "scout", "capture", ASK)), ModelUnavailable)
    assert reason == f"instance 'local' {sentence}"
    assert hung_up_on(fake_llm) == ["cut by the client"]
    assert len(fake_llm.requests) == 1  # never tried again


def test_a_huge_or_redirected_chat_answer_is_refused_in_one_sentence(llm_home, fake_llm, monkeypatch):
    monkeypatch.setattr(call, "MAX_ANSWER_BYTES", 1024 * 1024)
    local(llm_home, fake_llm)
    fake_llm.script({"huge": 64 * 1024 * 1024, "chunked": True}, {"redirect": f"{fake_llm.api_base}/other"})
    with pytest.raises(ModelUnavailable) as huge:
        complete(llm_home, "scout", "capture", ASK)
    with pytest.raises(ModelUnavailable) as redirected:
        complete(llm_home, "scout", "capture", ASK)
    assert huge.value.reason == (
        "instance 'local' sent an answer larger than the 1,048,576 bytes one may have: refused unread"
    )
    assert redirected.value.reason == "instance 'local' answered with a redirect (307), which is not followed"
    assert [request.path for request in fake_llm.requests] == ["/v1/chat/completions"] * 2


def test_models_test_against_a_trickling_server_ends_at_the_instances_timeout(llm_home, fake_llm, run_cli):
    local(llm_home, fake_llm)
    fake_llm.script(TRICKLE)
    result = finishes(lambda: run_cli("models", "test", "local"))["value"]
    assert result.code == 1 and "local: instance 'local' did not answer within 1 s." in result.out
    assert hung_up_on(fake_llm) == ["cut by the client"]
