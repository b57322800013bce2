"""The bad-answer matrix: every step that asks a model (capture, organize, tidy, compact with --json and with
--auto, the chat turn and the bot's tools) against the answers a model should never give, through the real command
line. Spec: HOUSE_STYLE, "The model proposes, code decides"; docs/models.md, "Answers that are refused".

For each bad answer: no traceback, the exit code the command documents, one sentence that says what was wrong with
the answer, the bot's files (and its journal) byte for byte as they were, and one usage row per call, failed when the
call itself refused the answer. Where only part of an answer is bad, the rest is applied wholly and journaled. Every
answer comes from the scripted OpenAI-compatible server in tests/support/fake_llm.py on 127.0.0.1.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import NamedTuple

import pytest
from support.compact_helpers import BOT, LAUNCH_OLD, MEMORY, write_memory
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.base import clock
from omb_tui.core.compact import nightly as nightly_module
from omb_tui.core.compact import session as session_module
from omb_tui.core.compact.records import compact_files
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.models.structured import MAX_ANSWER_CHARS, MAX_JSON_DEPTH
from omb_tui.core.models.usage import read_usage

PUNE = '- 2026-01-05 · from chat "Plans" · The person lives in Pune'
WORK_TOPIC = "# Work\n\n- 2026-01-02 · works at Acme and likes tea\n- 2026-02-01 · works at Globex now\n"
OLDER, NEWER = "- 2026-01-02 · works at Acme and likes tea", "- 2026-02-01 · works at Globex now"
VEGETARIAN = "I'm vegetarian, by the way."

# A character a model must never hand over as text: a lone surrogate (not Unicode text at all), NUL, ESC.
BAD_CHARACTERS = {"lone surrogate": ("\ud800", "U+D800"), "NUL": ("\x00", "U+0000"), "ESC": ("\x1b", "U+001B")}


# ----- what each step is asked, and a right answer it would apply -----
def capture_answer(text: str = "The person is vegetarian", quote: object = "I'm vegetarian") -> dict:
    return {
        "facts": [
            {"text": text, "kind": "fact", "quotes": [quote], "target": "MEMORY.md", "until": None, "about_me": False}
        ]
    }


def organize_answer(title: object = "Places") -> dict:
    return {"moves": [{"line": PUNE, "topic": "places.md", "title": title, "aliases": []}], "core": []}


def tidy_answer(still_true: object = "likes tea") -> dict:
    return {"pairs": [{"older": OLDER, "newer": NEWER, "still_true": still_true}]}


def compact_answer(reason: object = "The launch date is now set.") -> dict:
    return {"changes": [{"category": "superseded", "original": LAUNCH_OLD, "reason": reason}]}


RIGHT = {
    "capture": capture_answer,
    "organize": organize_answer,
    "tidy": tidy_answer,
    "compact": compact_answer,
    "compact --auto": compact_answer,
}
WRONG_TYPES = {  # JSON of the asked-for object, with numbers where text belongs
    "capture": capture_answer(text=5),
    "organize": organize_answer(title=7),
    "tidy": tidy_answer(still_true=5),  # an entry may be named by its number; the part still true is text
    "compact": compact_answer(reason=3),
    "compact --auto": compact_answer(reason=3),
}
WRONG_TYPE_SENTENCES = {
    "capture": "the answer.facts[0].text must be text",
    "organize": "the answer.moves[0].title must be text",
    "tidy": "the answer.pairs[0].still_true must be text or null",
    "compact": "Change 1 lacks 'reason' as text",
    "compact --auto": "Change 1 lacks 'reason' as text",
}


def with_bad_character(step: str, character: str) -> dict:
    """A right answer but for one character in a text the step would write (a fact, a title, a reason)."""
    if step == "capture":
        return capture_answer(text="The person is vegetarian" + character)
    if step == "organize":
        return organize_answer(title="Places" + character)
    if step == "tidy":
        return tidy_answer(still_true="likes tea" + character)
    return compact_answer(reason="The launch date is now set." + character)


class BadAnswer(NamedTuple):
    name: str
    reply: dict  # what the fake server answers
    sentence: str  # what the one sentence must say
    call_refuses: bool = True  # refused by the call (a failed usage row), else by the step's own checks


def bad_answers(step: str) -> list[BadAnswer]:
    """The answers a step that asks for JSON must refuse, and how."""
    deep = '{"x": ' + "[{" * 5_000 + "}]" * 5_000 + "}"  # 20 KB of brackets
    huge = json.dumps(RIGHT[step]())[:-1] + ', "pad": "' + "x" * MAX_ANSWER_CHARS + '"}'
    cases = [
        BadAnswer(
            "garbage", {"content": "I am sorry, I cannot do that today."}, "holds no JSON object that can be read"
        ),
        BadAnswer("deep nesting", {"content": deep}, f"nested more than {MAX_JSON_DEPTH} levels deep"),
        BadAnswer("huge", {"content": huge}, f"more than the {MAX_ANSWER_CHARS:,} characters"),
        BadAnswer(
            "tool calls",
            {"content": None, "tool_calls": [("memory_update", {"action": "add", "text": "x"})]},
            "called tools instead of answering with JSON",
        ),
        BadAnswer("content null", {"content": None}, "the answer holds no text"),
        BadAnswer(
            "content a list",
            {"content": [{"type": "text", "text": json.dumps(RIGHT[step]())}]},
            "not in the shape of an OpenAI chat answer",
        ),
        BadAnswer("a list, not an object", {"content": "[1, 2, 3]"}, "holds no JSON object that can be read"),
        BadAnswer("numbers for text", {"content": json.dumps(WRONG_TYPES[step])}, WRONG_TYPE_SENTENCES[step]),
    ]
    for name, (character, code) in BAD_CHARACTERS.items():
        what = (
            f"a lone surrogate ({code}), which is not text"
            if name == "lone surrogate"
            else f"a control character ({code})"
        )
        for escapes, label in ((True, name), (False, f"{name}, unescaped")):  # as a JSON escape, or the character
            reply = {"content": json.dumps(with_bad_character(step, character), ensure_ascii=escapes)}
            cases.append(BadAnswer(label, reply, f"{WHERE[step]} holds {what}", call_refuses=False))
    return cases


WHERE = {
    "capture": "its text",
    "organize": "its title",
    "tidy": "the part still true",
    "compact": "the reason",
    "compact --auto": "the reason",
}  # the text each step names when the model's own words may not be kept


def matrix(*steps: str) -> list:
    return [pytest.param(step, case, id=f"{step}: {case.name}") for step in steps for case in bad_answers(step)]


# ----- the home each step works on -----
def snapshot(home) -> dict[str, bytes]:
    """Every file of the bot's workspace and its journal, as bytes."""
    files = {
        str(path.relative_to(home.root)): path.read_bytes() for path in home.workspace(BOT).rglob("*") if path.is_file()
    }
    journal = Path(home.journal_path(BOT))
    files["journal"] = journal.read_bytes() if journal.exists() else b""
    return files


def usage_rows(home) -> list[dict]:
    return read_usage(home, clock.now_utc().strftime("%Y-%m"))


def make_chat(
    home, person_text: str = VEGETARIAN, *, chat_id: str = "plans", title: str = "Plans", turns: list | None = None
) -> None:
    """A 1:1 chat the person started five hours ago, with one turn for capture to read (or `turns`, a list of
    ("person" | "bot", text), a minute apart)."""
    at = clock.now() - timedelta(hours=5)
    chat = conv.Conversation(
        id=chat_id,
        title=title,
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", BOT)],
        created=at - timedelta(hours=1),
    )
    path = conv.create_conversation(home, chat, BOT)
    for n, (role, text) in enumerate(turns or [("person", person_text), ("bot", "Noted.")]):
        author, origin = ("Milind", "person") if role == "person" else (BOT, None)
        conv.append_message(path, conv.Message(role, author, at + timedelta(seconds=30 * n), text, origin=origin))


@pytest.fixture
def step_home(llm_home, monkeypatch):
    """The test home set up so that every step makes its call: a chat to capture, a line to organize, a topic
    with two entries to tidy, a MEMORY.md to compact (nightly applying, not only proposing)."""
    make_chat(llm_home)
    (llm_home.workspace(BOT) / "memory" / "work.md").write_text(WORK_TOPIC, encoding="utf-8")
    update_bot_settings(llm_home, BOT, compact_propose_only=False)
    return llm_home


COMMANDS = {
    "capture": (["capture", BOT], 0),
    "organize": (["organize", BOT], 0),
    "tidy": (["tidy", BOT], 0),
    "compact": (["compact", BOT, "--json"], 1),
    "compact --auto": (["compact", BOT, "--auto", "--json"], 1),
}


def prepare(step: str, home) -> None:
    """Compaction's MEMORY.md in place; every file written here journaled first, so the snapshot holds it."""
    if step.startswith("compact"):
        write_memory(home, MEMORY)
    MemoryStore(home, BOT).sync_outside_changes()


def replies_for(step: str, reply: dict) -> list[dict]:
    """Compaction sends a rejected change-set back up to three times: the model answers the same way each time."""
    return [reply] * (session_module.MAX_ATTEMPTS if step.startswith("compact") else 1)


# ----- the matrix -----
@pytest.mark.parametrize("step, case", matrix("capture", "organize", "tidy", "compact", "compact --auto"))
def test_a_bad_answer_changes_no_file_and_is_one_sentence(step, case, step_home, fake_llm, run_cli):
    prepare(step, step_home)
    before = snapshot(step_home)
    fake_llm.script(*replies_for(step, case.reply))
    argv, code = COMMANDS[step]

    result = run_cli(*argv)

    shown = result.out + result.err
    assert "Traceback" not in shown and result.code == code, shown
    assert case.sentence.casefold() in shown.casefold(), shown  # compaction's retry message opens with a capital
    assert snapshot(step_home) == before
    calls = usage_rows(step_home)
    assert len(calls) == len(fake_llm.requests)  # one row a call; an unusable answer is not asked again
    assert all(row["ok"] is not case.call_refuses for row in calls)
    if case.call_refuses:
        assert all(row["error"].startswith("instance 'local' answered, but ") for row in calls)


def test_an_answer_refused_by_the_call_is_one_sentence_naming_the_instance(step_home, fake_llm, run_cli):
    fake_llm.script({"content": '{"facts": ' + "[" * 20_000})
    result = run_cli("capture", BOT)
    assert result.out.splitlines()[-1] == (
        f"Nothing was read: instance 'local' answered, but the answer is nested more than {MAX_JSON_DEPTH} levels deep."
    )


def test_a_partly_valid_answer_applies_and_records_the_valid_part_wholly(step_home, fake_llm, run_cli):
    prepare("capture", step_home)
    good = capture_answer()["facts"][0]
    bad = dict(good, text="The person is vegetarian\x1b[2J", target="memory/food.md")
    fake_llm.script({"content": json.dumps({"facts": [bad, good]})})

    result = run_cli("capture", BOT, "--json")

    report = json.loads(result.out)
    assert [saved["text"] for saved in report["saved"]] == ["The person is vegetarian"]
    assert report["skipped"] == [
        {"text": "The person is vegetarian\x1b[2J", "reason": "its text holds a control character (U+001B)"}
    ]
    memory = (step_home.workspace(BOT) / "MEMORY.md").read_text(encoding="utf-8")
    assert memory.endswith("(noticed) · The person is vegetarian\n") and "\x1b" not in memory
    assert not (step_home.workspace(BOT) / "memory" / "food.md").exists()
    rows = [row for row in MemoryStore(step_home, BOT).journal.rows() if row.run == report["run"]]
    assert [row.file for row in rows] == ["MEMORY.md"]


@pytest.mark.parametrize("step", ["capture", "organize", "tidy", "compact", "compact --auto"])
def test_a_slow_answer_past_the_call_timeout_changes_nothing(step, step_home, fake_llm, run_cli, monkeypatch):
    write_llm_config(
        step_home,
        fake_llm,
        instances={"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "timeout": 0.5}},
    )
    # Compaction bounds its calls by its own deadline (10 minutes), not the instance's timeout: 1 s here.
    real_propose = session_module.propose
    monkeypatch.setattr(session_module, "propose", lambda home, bot, **_: real_propose(home, bot, deadline_s=1))
    monkeypatch.setattr(nightly_module, "propose", lambda home, bot, **_: real_propose(home, bot, deadline_s=1))
    prepare(step, step_home)
    before = snapshot(step_home)
    fake_llm.script({"delay": 60, "content": json.dumps(RIGHT[step]())})  # cut short when the test ends
    argv, code = COMMANDS[step]

    result = run_cli(*argv)

    shown = result.out + result.err
    assert "Traceback" not in shown and result.code == code, shown
    assert "did not answer within" in shown or "within the 1-second limit" in shown, shown
    assert snapshot(step_home) == before


def test_each_bad_answer_of_compact_auto_is_logged_as_an_attempt(step_home, fake_llm, run_cli):
    prepare("compact --auto", step_home)
    fake_llm.script(*[{"content": json.dumps(compact_answer(reason="set\ud800"))}] * 3)
    result = run_cli("compact", BOT, "--auto", "--json")
    report = json.loads(result.out)
    assert result.code == 1 and report["applied"] is False and report["error"].startswith("The model's change-set")
    attempts = compact_files(step_home, BOT).attempts_log.read_text(encoding="utf-8")
    assert attempts.count("--- ") == 3 and attempts.count("U+D800") >= 3


# ----- the chat turn and the bot's tools -----
def memory_files(home) -> dict[str, bytes]:
    """The bot's memory as a chat turn may not change it: every file but the daily turn log it keeps."""
    return {name: data for name, data in snapshot(home).items() if "/memory/log/" not in name and name != "journal"}


CHAT_REFUSED = [
    ("huge", {"content": "x" * (MAX_ANSWER_CHARS + 1)}, f"more than the {MAX_ANSWER_CHARS:,} characters"),
    ("content a list", {"content": [{"type": "text", "text": "hello"}]}, "not in the shape of an OpenAI chat answer"),
    (
        "huge tool arguments",
        {"raw_tool_calls": [("memory_update", json.dumps({"text": "x" * MAX_ANSWER_CHARS}))]},
        f"more than the {MAX_ANSWER_CHARS:,} characters",
    ),
    (
        "deep tool arguments",
        {"raw_tool_calls": [("memory_update", "[" * 10_000 + "]" * 10_000)]},
        "not in the shape of an OpenAI chat answer",
    ),
    *[(name, {"content": f"Hello{character}"}, code) for name, (character, code) in BAD_CHARACTERS.items()],
]


@pytest.mark.parametrize("reply, sentence", [pytest.param(r, s, id=n) for n, r, s in CHAT_REFUSED])
def test_a_chat_answer_that_cannot_be_shown_fails_the_turn_in_one_sentence(
    reply, sentence, step_home, fake_llm, run_cli
):
    prepare("chat", step_home)
    before = memory_files(step_home)
    fake_llm.script(reply)
    result = run_cli("chat", BOT, "--chat", "plans", stdin=b"hello\n")
    assert result.code == 1 and "Traceback" not in result.err and result.out == ""
    assert result.err.startswith("omb-tui: instance 'local' answered, but ") and sentence in result.err
    assert result.err.count("\n") == 1
    assert memory_files(step_home) == before
    assert len(fake_llm.requests) == 1 and usage_rows(step_home)[-1]["ok"] is False


def test_a_chat_answer_with_no_text_and_no_tool_call_is_a_failed_turn_that_says_so(step_home, fake_llm, run_cli):
    fake_llm.script({"content": None})
    result = run_cli("chat", BOT, "--chat", "plans", stdin=b"hello\n")
    assert result.code == 1 and result.out == "(the turn failed) The model answered with no text.\n"


@pytest.mark.parametrize("content", ["I am sorry, I cannot do that today.", "[1, 2, 3]", "{}[]" * 5_000])
def test_text_that_only_looks_odd_is_a_chat_answer(content, step_home, fake_llm, run_cli):
    fake_llm.script(content)
    result = run_cli("chat", BOT, "--chat", "plans", stdin=b"hello\n")
    assert result.code == 0 and result.out == content + "\n"


BAD_ARGUMENTS = [
    ("a list", "[1, 2]", "must be a JSON object"),
    ("garbage", "add likes tea", "not valid JSON"),
    *[
        (name, json.dumps({"action": "add", "text": f"likes tea{character}"}), code)
        for name, (character, code) in BAD_CHARACTERS.items()
    ],
]


@pytest.mark.parametrize("arguments, sentence", [pytest.param(a, s, id=n) for n, a, s in BAD_ARGUMENTS])
def test_a_tool_call_with_bad_arguments_does_nothing_and_tells_the_model(
    arguments, sentence, step_home, fake_llm, run_cli
):
    prepare("chat", step_home)
    before = memory_files(step_home)
    fake_llm.script({"raw_tool_calls": [("memory_update", arguments)]}, "I could not save it.")
    result = run_cli("chat", BOT, "--chat", "plans", stdin=b"remember that I like tea\n")
    assert result.code == 0 and "Traceback" not in result.err, result.err
    told = fake_llm.requests[-1].body["messages"][-1]
    assert told["role"] == "tool" and told["content"].startswith("Nothing was done: ") and sentence in told["content"]
    assert result.out == "I could not save it.\n"
    assert memory_files(step_home) == before
