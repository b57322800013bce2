"""Embeddings switched on against the scripted server, and a home whose one message is found by meaning alone:
shared by the embeddings, index, search, recall and hostile-server tests."""

from __future__ import annotations

from collections.abc import Iterator

from omb_tui.core.recall.meaning import forget_query_vectors
from support.capture import make_chat
from support.fake_llm import write_llm_config


def with_embeddings(home, fake, **fields):
    write_llm_config(
        home,
        fake,
        instances={"vectors": {"model": "openai/mini-embed", "api_base": fake.api_base, "timeout": 5}},
        embeddings={"instanceId": "vectors"},
        **fields,
    )


THRILLED = "I am thrilled about the Lisbon offsite!"
QUESTION = "who was excited"


def home_with_meaning(home, fake, more_turns: list) -> Iterator:
    """The home with THRILLED's chat (30 hours ago) and more turns, embeddings on, "thrilled" meaning "excited"."""
    forget_query_vectors()
    make_chat(home, [(THRILLED, "Me too."), *more_turns], hours_ago=30)
    with_embeddings(home, fake)
    fake.concepts.update(thrilled="excited")
    yield home
    forget_query_vectors()


def texts(result) -> list[str]:
    return [hit.text for hit in result.hits]
