"""Every model action of the installed command on a home that connects no model (the demo's, as `omb-tui demo`
writes it): each says how to connect one in the core's one sentence, once, and never names an instance that is not
there. `chat` keeps the person's words marked not answered, as the app's Send does (tests/app/test_app_no_model.py).
"""

from __future__ import annotations

import json

import pytest

from omb_tui.core.memory import conversations as conv
from omb_tui.core.models.instances import NO_MODEL_CONNECTED

pytestmark = pytest.mark.dates

MISSING = "not among config.json's instances"


@pytest.fixture
def demo(tmp_path, todays_demo):
    return todays_demo().copy_to(tmp_path / "demo")


def said(proc) -> list[str]:
    return (proc.stdout + proc.stderr).decode().splitlines()


@pytest.mark.parametrize(
    "argv, code",
    [
        (("organize", "scout"), 0),
        (("capture", "scout"), 0),
        (("tidy", "ledger"), 0),
        (("compact", "scout"), 1),
        (("compact", "ledger", "--auto"), 1),
        (("models", "test"), 2),
        (("models",), 0),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else str(value),
)
def test_each_model_command_says_how_to_connect_a_model_in_one_line(demo, run_exe, argv, code):
    proc = run_exe(*argv, env={"OMB_HOME": str(demo.root)})
    lines = said(proc)
    assert proc.returncode == code, lines
    assert [line for line in lines if NO_MODEL_CONNECTED in line] == [
        next(line for line in lines if NO_MODEL_CONNECTED in line)
    ], lines  # exactly one line says it
    assert not any(MISSING in line or "helper model is not used" in line for line in lines), lines
    assert "Traceback" not in proc.stderr.decode()
    assert not any("attempts.log" in line or "attempt" in line.split(":")[0] for line in lines), lines  # none made


def test_the_tidy_up_runs_its_rule_steps_and_says_contradictions_wait_for_a_model(demo, run_exe):
    proc = run_exe("tidy", "ledger", env={"OMB_HOME": str(demo.root)})
    assert proc.returncode == 0
    assert f"Contradictions were not checked. {NO_MODEL_CONNECTED}" in said(proc)


def test_upkeep_due_says_it_once_for_every_bot(tmp_path, run_exe, home):
    """A plain home with two bots, neither tidied yet (so the tidy-up and organizing are due whatever the hour)."""
    from support.home import make_bot

    make_bot(home, "other", name="Other")
    memory = "".join(f'- 2026-01-0{n} · from chat "Plans" · fact number {n}\n' for n in range(1, 7))
    for bot_id in ("scout", "other"):
        (home.workspace(bot_id) / "MEMORY.md").write_text(memory, encoding="utf-8")
    proc = run_exe("upkeep", "--due")
    lines = said(proc)
    assert proc.returncode == 0, lines
    assert lines.count(NO_MODEL_CONNECTED) == 1 and lines[-1] == NO_MODEL_CONNECTED
    bot_lines = [line for line in lines if line.startswith(("scout:", "other:"))]
    assert len(bot_lines) == 2 and all("tidy-up" in line and "(" not in line for line in bot_lines), lines


def test_chat_says_it_and_keeps_the_words_marked_not_answered_with_no_log_line(demo, run_exe):
    log_folder = demo.workspace("scout") / "memory" / "log"
    before = {path.name: path.read_bytes() for path in log_folder.glob("*.md")}
    proc = run_exe(
        "chat",
        "scout",
        "--chat",
        "asked",
        stdin=b"Which hotel did we pick?\nAnd the train?\n",
        env={"OMB_HOME": str(demo.root)},
    )
    assert proc.returncode == 1
    assert proc.stderr.decode().splitlines()[-1] == f"omb-tui: {NO_MODEL_CONNECTED}"
    messages = conv.find_conversation(demo, "scout", "asked", with_messages=True).messages
    assert [(m.author_kind, m.failed, m.text) for m in messages] == [
        ("person", False, "Which hotel did we pick?"),  # the chat stops at the first turn no model answered
        ("harness", True, f"Not answered. {NO_MODEL_CONNECTED}"),
    ]
    after = {path.name: path.read_bytes() for path in log_folder.glob("*.md")}
    assert after == before  # nothing of the bot's: no daily log line
    lines = [json.loads(line) for line in conv.conversation_path(demo, "scout", "asked").read_text().splitlines()]
    assert not any(line.get("author_kind") == "bot" for line in lines)


def test_the_page_the_sentence_names_has_that_section():
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "models.md").read_text(encoding="utf-8")
    assert "\n## Connect a model\n" in page and 'docs/models.md, "Connect a model"' in NO_MODEL_CONNECTED
