"""Vectors in the recall index (core/index/vectors.py, core/recall/meaning.py):
`omb-tui index BOT` makes each note's and message's vector through the embeddings instance, keeps them beside their
rows (dropped and made again when a row changes, all made again when the model changes), says what it could not
make, and a query's vector is one call with a deadline, cached by its text. Every answer comes from the scripted
OpenAI-compatible server on 127.0.0.1 (tests/support/fake_llm.py)."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest
from support.capture import make_chat
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from support.meaning import with_embeddings

from omb_tui.core.index.schema import index_path
from omb_tui.core.index.vectors import pack, unpack
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.recall.meaning import forget_query_vectors, query_vector


@pytest.fixture(autouse=True)
def _fresh_query_cache():
    forget_query_vectors()
    yield
    forget_query_vectors()


def index_json(run_cli):
    result = run_cli("index", "scout", "--json")
    return result.code, json.loads(result.out)


def stored(home) -> dict[str, int]:
    db = sqlite3.connect(index_path(home, "scout"))
    try:
        return {
            table: db.execute(f"SELECT count(*) FROM {table} WHERE length(vec) > 0").fetchone()[0]
            for table in ("note_vectors", "message_vectors")
        } | {
            "notes": db.execute("SELECT count(*) FROM notes").fetchone()[0],
            "messages": db.execute("SELECT count(*) FROM messages").fetchone()[0],
        }
    finally:
        db.close()


def embedding_requests(fake):
    return [r for r in fake.requests if r.path.endswith("/embeddings")]


def test_without_embeddings_the_index_is_built_as_before_and_nothing_is_sent(llm_home, fake_llm, run_cli):
    code, report = index_json(run_cli)
    assert code == 0 and report["vectors"]["model"] is None and report["vectors"]["made"] == 0
    assert embedding_requests(fake_llm) == []


def test_every_note_and_message_gets_its_vector_once(llm_home, fake_llm, run_cli):
    make_chat(llm_home, [("I'm vegetarian, by the way.", "Noted."), ("We fly to Lisbon on Friday.", "Lovely.")])
    with_embeddings(llm_home, fake_llm)
    code, report = index_json(run_cli)
    counts = stored(llm_home)
    assert code == 0 and report["vectors"]["model"] == "openai/mini-embed" and report["vectors"]["left"] == 0
    assert counts["note_vectors"] == counts["notes"] > 0 and counts["message_vectors"] == counts["messages"] == 4
    assert report["vectors"]["made"] == counts["notes"] + counts["messages"]
    sent = [text for request in embedding_requests(fake_llm) for text in request.body["input"]]
    assert "Milind: We fly to Lisbon on Friday." in sent  # a turn with its speaker
    before = len(fake_llm.requests)
    assert index_json(run_cli)[1]["vectors"]["made"] == 0 and len(fake_llm.requests) == before  # nothing again


def test_a_changed_note_is_embedded_again_and_a_new_model_remakes_them_all(llm_home, fake_llm, run_cli):
    with_embeddings(llm_home, fake_llm)
    index_json(run_cli)
    notes = stored(llm_home)["notes"]
    topic = MemoryStore(llm_home, "scout").read("memory/travel.md")
    MemoryStore(llm_home, "scout").write(
        "memory/travel.md", topic.text + "- aisle seats on short hops\n", Actor(WHO_PERSON, HOW_COMMAND_LINE)
    )
    again = index_json(run_cli)[1]["vectors"]
    travel_notes = sum(1 for line in (topic.text + "- x\n").splitlines() if line.startswith("- "))
    assert 0 < again["made"] <= travel_notes + 1 and not again["remade"]
    counts = stored(llm_home)
    assert counts["note_vectors"] == counts["notes"]  # the old rows' vectors went with them
    write_llm_config(
        llm_home,
        fake_llm,
        instances={"vectors": {"model": "openai/other-embed", "api_base": fake_llm.api_base, "timeout": 5}},
        embeddings={"instanceId": "vectors"},
    )
    remade = index_json(run_cli)[1]["vectors"]
    assert remade["remade"] and remade["made"] == stored(llm_home)["notes"] >= notes


def test_a_failing_instance_is_said_and_the_rest_is_made_next_time(llm_home, fake_llm, run_cli):
    with_embeddings(llm_home, fake_llm)
    fake_llm.script_embeddings({"status": 500})
    result = run_cli("index", "scout")
    assert result.code == 1 and "still to make: instance 'vectors' answered 500" in result.out
    assert stored(llm_home)["note_vectors"] == 0
    assert run_cli("search", "scout", "aisle").code == 0  # words still find what they did
    assert index_json(run_cli)[1]["vectors"]["left"] == 0


def test_a_querys_vector_is_one_call_cached_by_its_text_and_words_alone_past_its_deadline(llm_home, fake_llm):
    with_embeddings(llm_home, fake_llm)
    first = query_vector(llm_home, "what did we book?")
    again = query_vector(llm_home, "what did we book?")
    assert first.vector is not None and again.vector == first.vector and len(embedding_requests(fake_llm)) == 1
    fake_llm.script_embeddings({"delay": 2.0})
    late = query_vector(llm_home, "something else")
    assert late.vector is None and "did not answer within 0.3 s" in late.why_not
    write_llm_config(llm_home, fake_llm)
    assert query_vector(llm_home, "what did we book?").why_not == "embeddings are off"


def test_a_packed_vector_keeps_its_direction():
    vector = [math.sin(n) * (n % 7) for n in range(384)]
    back = unpack(pack(vector))
    norm = math.sqrt(sum(x * x for x in vector))
    cosine = sum(a * b for a, b in zip(back, vector)) / norm / math.sqrt(sum(b * b for b in back))
    assert cosine > 0.999 and len(pack(vector)) == 388


def upkeep_lines(run_cli) -> dict[str, dict]:
    """`upkeep --due --json`: one JSON line per bot, by bot."""
    return {line["bot"]: line for line in map(json.loads, run_cli("upkeep", "--due", "--json").out.splitlines())}


def test_the_upkeep_run_makes_the_missing_vectors_and_leaves_them_alone_without_embeddings(llm_home, fake_llm, run_cli):
    assert "vectors" not in upkeep_lines(run_cli)["scout"] and embedding_requests(fake_llm) == []
    with_embeddings(llm_home, fake_llm)
    scout = upkeep_lines(run_cli)["scout"]
    counts = stored(llm_home)
    assert scout["vectors"]["made"] == counts["notes"] + counts["messages"] > 0 and scout["vectors"]["left"] == 0
    assert upkeep_lines(run_cli)["scout"]["vectors"]["made"] == 0
