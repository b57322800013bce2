"""Embeddings through litellm (core/models/embeddings.py): off unless config.json names an
instance, read at every call; only redacted text is sent, only to that instance; the answer is checked whole (one
finite vector per text, all of one length) and a wrong, hostile or slow one is one sentence and no vectors; every
call, failed ones too, is a usage row counted in the spend limit. Every answer comes from the scripted
OpenAI-compatible server on 127.0.0.1 (tests/support/fake_llm.py)."""

from __future__ import annotations

import math

import pytest
from support.fake_llm import EMBED_DIMENSIONS, fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from support.meaning import with_embeddings
from test_models_usage import seed_row, this_month

from omb_tui.core.files import file_stamp
from omb_tui.core.models.embeddings import EMBED_JOB, EmbeddingsUnavailable, embed, embeddings_route
from omb_tui.core.models.usage import read_usage

SECRET = "sk-test-NOTAREALKEY0123456789abcdef"


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def embedding_rows(home):
    return [row for row in read_usage(home, this_month()) if row["job"] == EMBED_JOB]


def test_off_unless_set_and_switched_without_a_restart(llm_home, fake_llm):
    assert embeddings_route(llm_home) is None
    with pytest.raises(EmbeddingsUnavailable, match="no embeddings instance is set"):
        embed(llm_home, ["hello"])
    with_embeddings(llm_home, fake_llm)
    assert len(embed(llm_home, ["hello"])) == 1
    write_llm_config(llm_home, fake_llm, embeddings={"instanceId": "gone"})
    with pytest.raises(EmbeddingsUnavailable, match="'gone' is not among config.json's instances"):
        embed(llm_home, ["hello"])
    assert [r.path for r in fake_llm.requests] == ["/v1/embeddings"]


def test_one_vector_per_text_from_the_named_model_with_a_usage_row(llm_home, fake_llm):
    with_embeddings(llm_home, fake_llm)
    fake_llm.concepts.update(thrilled="excited", trail="hike")
    vectors = embed(llm_home, ["I am so excited", "I am so thrilled", "tax forms"], bot_id="scout")
    assert [len(v) for v in vectors] == [EMBED_DIMENSIONS] * 3
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2])
    (request,) = fake_llm.requests
    assert request.body["model"] == "mini-embed" and request.body["input"][2] == "tax forms"
    (row,) = embedding_rows(llm_home)
    assert row["ok"] and row["bot"] == "scout" and row["instance"] == "vectors" and row["prompt_tokens"] == 10
    assert row["triggered_by"] == "Embeddings" and row["cost"] == "unknown"


def test_only_redacted_text_leaves_the_machine(llm_home, fake_llm):
    with_embeddings(llm_home, fake_llm)
    embed(llm_home, [f"the deploy key is {SECRET}", "x" * 10_000])
    sent = fake_llm.requests[0].body["input"]
    assert SECRET not in sent[0] and "the deploy key is" in sent[0]
    assert len(sent[1]) == 4000  # cut before sending


@pytest.mark.parametrize(
    "reply, reason",
    [
        ({"data": []}, "it gave 0 vectors for 2 texts"),
        ({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]}, "not numbered one for each"),
        ({"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}]}, "not all of one length"),
        ({"data": [{"index": 0, "embedding": [1.0, "x"]}, {"index": 1, "embedding": [1.0, 2.0]}]}, "finite number"),
        ({"data": [{"index": 0, "embedding": [1e400]}, {"index": 1, "embedding": [1.0]}]}, "finite number"),
        ({"data": [{"index": 0, "embedding": [0.0, 0.0]}, {"index": 1, "embedding": [1.0, 2.0]}]}, "all zeros"),
        ({"data": [{"index": 0, "embedding": [1.0] * 5000}, {"index": 1, "embedding": [1.0] * 5000}]}, "1 to 4096"),
        ({"data": [{"index": 0, "embedding": "!!"}, {"index": 1, "embedding": "!!"}]}, "neither numbers nor base64"),
        ({"status": 500}, "answered 500"),
        ({"delay": 3.0}, "did not answer within"),
    ],
)
def test_a_wrong_hostile_or_slow_answer_is_one_sentence_and_no_vectors(llm_home, fake_llm, reply, reason):
    with_embeddings(llm_home, fake_llm)
    fake_llm.script_embeddings(reply)
    with pytest.raises(EmbeddingsUnavailable) as caught:
        embed(llm_home, ["one", "two"], timeout=1.0)
    assert reason in caught.value.reason and "\n" not in caught.value.reason
    assert len(fake_llm.requests) == 1  # one try, never retried behind the caller's back
    (row,) = embedding_rows(llm_home)
    assert not row["ok"] and reason in row["error"]


def test_base64_vectors_are_read_as_openai_sends_them(llm_home, fake_llm):
    import base64
    import struct

    with_embeddings(llm_home, fake_llm)
    packed = base64.b64encode(struct.pack("<3f", 0.5, -0.25, 1.0)).decode()
    fake_llm.script_embeddings({"data": [{"index": 0, "embedding": packed}]})
    assert embed(llm_home, ["one"]) == [[0.5, -0.25, 1.0]]


def test_a_missing_key_and_the_spend_limit_refuse_before_anything_is_sent(llm_home, fake_llm, monkeypatch):
    monkeypatch.delenv("OMB_EMBED_KEY", raising=False)
    write_llm_config(
        llm_home,
        fake_llm,
        instances={
            "vectors": {"model": "openai/mini-embed", "api_base": fake_llm.api_base, "api_key_env": "OMB_EMBED_KEY"}
        },
        embeddings={"instanceId": "vectors"},
    )
    with pytest.raises(EmbeddingsUnavailable, match="OMB_EMBED_KEY is not set"):
        embed(llm_home, ["one"])
    with_embeddings(llm_home, fake_llm, limits={"monthlySpendUsd": 5})
    seed_row(llm_home, this_month(), 5.0)
    with pytest.raises(EmbeddingsUnavailable, match="the monthly spend limit is reached"):
        embed(llm_home, ["one"])
    assert fake_llm.requests == []


def test_the_route_kept_between_calls_follows_every_change_of_config_json(llm_home, fake_llm, monkeypatch):
    from omb_tui.core.models import embeddings

    monkeypatch.setattr(embeddings, "_routes", {})
    monkeypatch.setattr(file_stamp, "SETTLED_NS", -(10**12))  # every stamp taken as settled at once
    with_embeddings(llm_home, fake_llm)
    assert embeddings_route(llm_home) is not None
    assert embeddings.embeddings_route(llm_home) is embeddings._routes[str(llm_home.config_path)][1]  # kept
    write_llm_config(llm_home, fake_llm)  # embeddings switched off: read again, no restart
    assert embeddings_route(llm_home) is None
    llm_home.config_path.unlink()
    assert embeddings_route(llm_home) is None


def test_a_change_too_recent_to_trust_its_stamp_is_never_taken_from_what_was_kept(llm_home, fake_llm, monkeypatch):
    from omb_tui.core.models import embeddings

    monkeypatch.setattr(embeddings, "_routes", {})
    with_embeddings(llm_home, fake_llm)  # just written: its stamp is not settled
    embeddings_route(llm_home)
    assert embeddings._routes == {}
