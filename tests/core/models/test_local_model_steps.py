"""Every model step against each kind of local server (docs/local-models.md): the output modes fall back, the input is
cut into chunks that fit the instance's `contextTokens`, a context-length error or a stream that pauses changes no
file, and each step's worked example is one its own code accepts. The scripted server (tests/support/fake_llm.py) plays the
servers; nothing invalid is ever applied, and every check is as strict as with any other model."""

from __future__ import annotations

import json

import pytest
from support.compact_helpers import BOT, LAUNCH_OLD, MEMORY, write_memory
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from test_bad_answers import (  # noqa: F401 - the step_home fixture
    COMMANDS,
    NEWER,
    OLDER,
    PUNE,
    capture_answer,
    compact_answer,
    make_chat,
    organize_answer,
    prepare,
    snapshot,
    step_home,
    tidy_answer,
)

from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.upkeep import tidy as tidy_module

RIGHT_ANSWERS = {
    "capture": capture_answer,
    "organize": organize_answer,
    "tidy": tidy_answer,
    "compact": compact_answer,
}


def read(home, rel: str) -> str:
    return (home.workspace(BOT) / rel).read_text(encoding="utf-8")


def applied(step: str, home) -> bool:
    """Whether the step's right answer is in the files."""
    if step == "capture":
        return read(home, "MEMORY.md").endswith("(noticed) · The person is vegetarian\n")
    if step == "organize":
        return PUNE in read(home, "memory/places.md") and PUNE not in read(home, "MEMORY.md")
    if step == "tidy":
        return "~~" in read(home, "memory/work.md")
    return LAUNCH_OLD not in read(home, "MEMORY.md")


def command(step: str) -> list[str]:
    """The step's command; compaction applies its change-set (`--auto`, as the nightly run does)."""
    return COMMANDS["compact --auto" if step == "compact" else step][0]


def local(home, fake, **fields) -> None:
    spec = {"model": "openai/qwen2.5-coder-1.5b-instruct", "api_base": fake.api_base, "timeout": 5, **fields}
    write_llm_config(home, fake, instances={"local": spec})


@pytest.mark.parametrize("kind", ["llama-cpp-python", "json-object-only", "no-response-format"])
@pytest.mark.parametrize("step", ["capture", "organize", "tidy", "compact"])
def test_each_step_is_answered_through_each_kind_of_local_server(step, kind, step_home, fake_llm, run_cli):
    prepare(step, step_home)
    fake_llm.behave_like(kind)
    fake_llm.script({"content": json.dumps(RIGHT_ANSWERS[step]())})
    result = run_cli(*command(step))
    assert result.code == 0, result.out + result.err
    assert applied(step, step_home)
    asked = [kind for kind in fake_llm.formats if kind not in fake_llm.refuses]
    assert len(asked) == 1  # one answered request; the refused ones were each sent once


CONTEXT_ERROR = {"status": 400, "message": "Requested tokens (9120) exceed context window of 8192"}


@pytest.mark.parametrize("step", ["capture", "organize", "tidy", "compact", "compact --auto"])
def test_a_context_length_error_changes_no_file_and_says_so(step, step_home, fake_llm, run_cli):
    prepare(step, step_home)
    before = snapshot(step_home)
    fake_llm.script(CONTEXT_ERROR, CONTEXT_ERROR, CONTEXT_ERROR)
    result = run_cli(*COMMANDS[step][0])
    shown = result.out + result.err
    assert "Traceback" not in shown and "longer than the context window" in shown, shown
    assert snapshot(step_home) == before
    assert len(fake_llm.requests) == 1  # not sent again in another output mode, nor again in compaction's session


@pytest.mark.parametrize("step", ["capture", "organize", "tidy", "compact"])
def test_a_stream_that_stops_midway_changes_no_file(step, step_home, fake_llm, run_cli):
    prepare(step, step_home)
    local(step_home, fake_llm, stream=True, idleTimeout=0.3)
    before = snapshot(step_home)
    fake_llm.script(*[{"content": json.dumps(RIGHT_ANSWERS[step]()), "pause": (3, 30)}] * 3)
    result = run_cli(*command(step))
    assert "stopped answering: no token for 0.3 s" in result.out + result.err
    assert snapshot(step_home) == before


@pytest.mark.parametrize("step", ["capture", "organize", "tidy", "compact"])
def test_a_slow_stream_still_writing_is_applied(step, step_home, fake_llm, run_cli):
    prepare(step, step_home)
    # A first token well within the timeout even on a busy machine, and the whole answer longer than it (about 4 s)
    local(step_home, fake_llm, stream=True, timeout=3, idleTimeout=5)
    content = json.dumps(RIGHT_ANSWERS[step]())
    fake_llm.script({"content": content, "chunk_delay": 4.0 / max(1, len(content) // 4)})
    assert run_cli(*command(step)).code == 0
    assert applied(step, step_home)


# ----- chunks that fit the instance's context -----
def entries(count: int, word: str) -> str:
    return "".join(
        f"- 2026-0{1 + n % 9}-1{n % 9} · {word} note number {n} about a subject of its own\n" for n in range(count)
    )


def test_the_tidy_up_asks_in_chunks_that_fit_the_context_and_applies_each_chunks_pairs(step_home, fake_llm):
    topic = "# Work\n\n" + OLDER + "\n" + NEWER + "\n" + entries(60, "work")
    (step_home.workspace(BOT) / "memory" / "work.md").write_text(topic, encoding="utf-8")
    MemoryStore(step_home, BOT).sync_outside_changes()
    local(step_home, fake_llm, contextTokens=1024)
    fake_llm.script(*[{"content": json.dumps({"pairs": []})}] * 20)
    fake_llm.replies.appendleft({"content": json.dumps(tidy_answer())})
    report = tidy_module.tidy(step_home, BOT)
    topic_calls = [r.body for r in fake_llm.requests if "memory/work.md" in r.body["messages"][-1]["content"]]
    assert len(topic_calls) >= 3
    for body in topic_calls:  # each call within the context, with a quarter kept for the answer
        assert sum(len(m["content"]) for m in body["messages"]) // 3 < 1024
    shown = [line for body in topic_calls for line in body["messages"][-1]["content"].splitlines()[2:]]
    assert len(shown) == 62 and len(set(shown)) == 62  # every entry once, none left out
    assert report.superseded == 1 and "~~" in read(step_home, "memory/work.md")


def test_organize_offers_only_the_lines_that_fit_the_context(step_home, fake_llm):
    from omb_tui.core.upkeep.organize import organize

    write_memory(step_home, "# Memory\n\n" + entries(80, "detail"))
    local(step_home, fake_llm, contextTokens=2048)
    fake_llm.script({"content": json.dumps({"moves": [], "core": []})})
    result = organize(step_home, BOT)
    assert 0 < result.offered < 80
    body = fake_llm.requests[-1].body
    assert sum(len(m["content"]) for m in body["messages"]) // 3 < 2048


def test_capture_cuts_the_turns_into_batches_and_shows_what_fits_of_memory(step_home, fake_llm):
    from omb_tui.core.upkeep.capture import capture

    write_memory(step_home, "# Memory\n\n" + entries(200, "known"))
    words = "I cook a lot at home on weekends and like trying new recipes. " * 6
    turns = [(role, f"{n}: {words}" if role == "person" else "Noted.") for n in range(12) for role in ("person", "bot")]
    make_chat(step_home, chat_id="cooking", title="Cooking", turns=turns)
    local(step_home, fake_llm, contextTokens=2048)
    fake_llm.script(*[{"content": json.dumps({"facts": []})}] * 10)
    capture(step_home, BOT)
    assert len([r for r in fake_llm.requests if "Cooking" in r.body["messages"][-1]["content"]]) >= 3
    for body in (r.body for r in fake_llm.requests):
        assert sum(len(m["content"]) for m in body["messages"]) // 3 < 2048
        assert "the rest of MEMORY.md is not shown" in body["messages"][-1]["content"]


def test_compaction_asks_nothing_when_memory_does_not_fit_the_context(step_home, fake_llm, run_cli):
    write_memory(step_home, MEMORY + entries(150, "kept"))
    MemoryStore(step_home, BOT).sync_outside_changes()
    local(step_home, fake_llm, contextTokens=1024)
    result = run_cli("compact", BOT)
    assert "do not fit the 1,024-token context" in result.out + result.err
    assert fake_llm.requests == []


def test_organize_takes_lines_by_their_number_and_checks_them_as_strictly(step_home, fake_llm):
    from omb_tui.core.upkeep.organize import organize

    fake_llm.script(
        {
            "content": json.dumps(
                {"moves": [{"line": 1, "topic": "places.md"}, {"line": 9, "topic": "x.md"}], "core": [7]}
            )
        }
    )
    result = organize(step_home, BOT)
    assert [m.line for m in result.moved] == [PUNE] and PUNE in read(step_home, "memory/places.md")
    assert [(s.text, s.reason) for s in result.skipped] == [
        ("(line 9, never offered)", "This line is not exactly in MEMORY.md.")
    ]
    shown = fake_llm.requests[-1].body["messages"][-1]["content"]
    assert f"1| {PUNE}" in shown and result.core == 0  # core's 7 names no offered line: nothing judged


def test_the_tidy_up_takes_entries_by_their_number_and_checks_them_as_strictly(step_home, fake_llm):
    fake_llm.script({"content": json.dumps({"pairs": [{"older": 2, "newer": 5, "still_true": None}]})})
    report = tidy_module.tidy(step_home, BOT)  # only memory/work.md is asked (MEMORY.md has too few entries)
    topic_call = fake_llm.requests[-1].body["messages"][-1]["content"]
    assert f"1| {OLDER}" in topic_call and f"2| {NEWER}" in topic_call
    assert report.superseded == 0 and [s.reason for s in report.skipped] == [
        "the newer entry is not exactly an entry of the file"  # entry 5 was never shown
    ]
    # (a pair named by numbers that are shown is struck: tests/core/models/test_step_examples.py runs the tidy-up's example)
