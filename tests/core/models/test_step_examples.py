"""Each model step's worked example (upkeep/examples.py, compact/session.py) is in its prompt, matches its schema,
and is accepted whole by the step's own code: an example never teaches what code refuses."""

from __future__ import annotations

import json
from datetime import date

from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures
from test_bad_answers import make_chat

from omb_tui.core.compact import session
from omb_tui.core.compact.validator import CHANGESET_SCHEMA, validate
from omb_tui.core.files.disk import text_hash
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.models.structured import schema_problem
from omb_tui.core.upkeep import capture as capture_module
from omb_tui.core.upkeep import examples
from omb_tui.core.upkeep import organize as organize_module
from omb_tui.core.upkeep import tidy as tidy_module

BOT = "scout"


def write(home, rel: str, text: str) -> None:
    path = home.workspace(BOT) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    MemoryStore(home, BOT).sync_outside_changes()


def test_every_example_matches_its_steps_schema():
    assert schema_problem(examples.CAPTURE_EXAMPLE["answer"], capture_module.ANSWER_SCHEMA) is None
    assert schema_problem(examples.ORGANIZE_EXAMPLE["answer"], organize_module.ORGANIZE_SCHEMA) is None
    assert schema_problem(examples.TIDY_EXAMPLE["answer"], tidy_module.PAIRS_SCHEMA) is None
    assert schema_problem(session.EXAMPLE_ANSWER, CHANGESET_SCHEMA) is None


def test_the_capture_example_is_saved_whole_from_its_own_turns(llm_home, fake_llm):
    lines = [line[1:].split("] ", 1) for line in examples.CAPTURE_EXAMPLE["turns"].splitlines()]
    make_chat(llm_home, chat_id="move", title="Move", turns=[(who.split()[0].lower(), text) for who, text in lines])
    fake_llm.script({"content": json.dumps(examples.CAPTURE_EXAMPLE["answer"])})
    result = capture_module.capture(llm_home, BOT, today=date(2026, 3, 20))
    assert [saved.text for saved in result.saved] == [f["text"] for f in examples.CAPTURE_EXAMPLE["answer"]["facts"]]
    assert [s for s in result.skipped if not s.reason.startswith("not added to About me")] == []
    assert examples.capture_example() in fake_llm.requests[-1].body["messages"][0]["content"]


def test_the_organize_example_is_moved_and_judged_whole(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", "# Memory\n\n" + "\n".join(examples.ORGANIZE_EXAMPLE["lines"]) + "\n")
    write(llm_home, "memory/books.md", "---\ntitle: Books\n---\n# Books\n\n")
    fake_llm.script({"content": json.dumps(examples.ORGANIZE_EXAMPLE["answer"])})
    result = organize_module.organize(llm_home, BOT, today=date(2026, 3, 20))
    assert len(result.moved) == 2 and result.core == 1 and result.skipped == []
    assert examples.organize_example() in fake_llm.requests[-1].body["messages"][0]["content"]


def test_the_tidy_example_is_struck_with_its_part_still_true(llm_home, fake_llm):
    write(llm_home, "MEMORY.md", "# Memory\n\n- short replies, always\n")
    write(llm_home, "memory/life.md", "# Life\n\n" + "\n".join(examples.TIDY_EXAMPLE["entries"]) + "\n")
    fake_llm.script({"content": json.dumps(examples.TIDY_EXAMPLE["answer"])})
    report = tidy_module.tidy(llm_home, BOT, today=date(2026, 3, 20))
    assert (report.superseded, report.still_true_added, report.skipped) == (1, 1, [])
    assert examples.tidy_example() in fake_llm.requests[-1].body["messages"][0]["content"]


def test_the_compaction_example_is_accepted_by_the_validator():
    text = session.EXAMPLE_MEMORY
    validation = validate(text, json.dumps(session.EXAMPLE_ANSWER), keep_lines=[], read_hash=text_hash(text))
    assert validation.ok and len(validation.changes) == 2
    assert session.worked_example() in session.first_messages("- a line\n", {})[0]["content"]
