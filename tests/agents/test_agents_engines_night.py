"""The demo's night of upkeep on the person's own plans, offline (docs/models.md, "Engines"; docs/upkeep.md): the
demo home as `omb-tui demo` writes it, Scout on `claude-code`, Atlas on `codex` (its upkeep switched on) and Harbor
on `acp` (claude-code-acp), each the real CLI from npm, their models the scripted APIs on 127.0.0.1 answering every step
from what it was shown (tests/support/night_answers.py); the night run as a person runs it, `omb-tui upkeep --due`,
at 04:00 the next morning by the clock the test sets (tests/support/engine_night.py).

- `omb-tui changes --json` shows that night's Memory upkeep run, with its changes, for each bot on an engine, and
  the usage rows of those bots name their engine and say `cost: "plan"`;
- no process of any CLI outlives the night, no session file is left in the scratch HOME, no temporary folder;
- capture through each engine writes the same journal rows (file, text, who, how) as through an API instance
  (tests/support/fake_llm.py) given the same answers.

The `agents` tier (docs/testing.md, "Tiers"): skipped when npm is not on PATH or a package cannot be fetched.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from support import night_answers
from support.engine_night import (
    CALL_TIMEOUT,
    OnEngine,
    Person,
    ScriptedModels,
    next_morning,
    on_engines,
    put_on,
    run_at,
    scratch_person,
)
from support.fake_llm import FakeLLM
from support.fake_llm import start as start_fake_llm
from support.npm_tools import CLAUDE_CODE, CLAUDE_CODE_ACP, CODEX, install, needs_npm, processes_running_from

from omb_tui.core.files.paths import Home
from omb_tui.core.models.usage import read_usage

pytestmark = [needs_npm, pytest.mark.dates]


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    """Each engine's CLI from npm, installed once for the module; skips when one cannot be fetched."""
    return {
        "claude": install(tmp_path_factory, CLAUDE_CODE, "claude"),
        "codex": install(tmp_path_factory, CODEX, "codex"),
        "claude-code-acp": install(tmp_path_factory, CLAUDE_CODE_ACP, "claude-code-acp"),
    }


@pytest.fixture
def models():
    with ScriptedModels() as scripted:
        yield scripted


@pytest.fixture
def fake_api():
    """An API instance's server answering the same steps the same way."""
    fake, stop = start_fake_llm(FakeLLM(answer_for=night_answers.fake_llm_answer))
    try:
        yield fake
    finally:
        stop()


@pytest.fixture
def person(tmp_path) -> Person:
    return scratch_person(tmp_path / "person")


def run(person: Person, home: Home, *argv: str, at, models: ScriptedModels) -> str:
    done = run_at(person, home, list(argv), at, models)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def nothing_outlived_the_calls(person: Person, engines: list[OnEngine]) -> None:
    deadline = time.monotonic() + 10  # a killed process takes the kernel a moment to end
    left = [pid for on in engines for pid in processes_running_from(on.install)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [pid for on in engines for pid in processes_running_from(on.install)]
    assert left == []
    files = [p.relative_to(person.user) for p in person.user.rglob("*") if p.is_file()]
    sessions = [p for p in files if p.suffix == ".jsonl" or "sessions" in p.parts or p.name.startswith("history")]
    assert sessions == []  # Claude Code's projects/*.jsonl and sessions/, Codex's sessions/ and history.jsonl
    assert list(person.tmp.iterdir()) == []  # every call's empty folder (and Codex's own home) removed


def test_the_demo_night_runs_on_three_engines(todays_demo, tmp_path, programs, models, person):
    demo = todays_demo()
    home = demo.copy_to(tmp_path / "home")
    engines = on_engines(programs)
    put_on(home, {on.instance: models.instance(on) for on in engines}, {on.bot: on.instance for on in engines})
    night = next_morning(demo.finished)

    ran = [
        json.loads(line)
        for line in run(person, home, "upkeep", "--due", "--json", at=night, models=models).splitlines()
    ]

    runs = {item["bot"]: item["run"] for item in ran}
    changes = json.loads(run(person, home, "changes", "--json", at=night + timedelta(hours=5), models=models))
    groups = {bot["bot"]: bot["groups"] for bot in changes["bots"]}
    usage = read_usage(home, night.astimezone(UTC).strftime("%Y-%m"))
    for on in engines:
        upkeep = [group for group in groups[on.bot] if group["kind"] == "upkeep" and runs[on.bot] in group["runs"]]
        assert upkeep and upkeep[0]["changes"], (on.bot, ran)
        assert {change["who"] for change in upkeep[0]["changes"]} == {"Memory upkeep"}
        rows = [row for row in usage if row["bot"] == on.bot]
        assert rows and all(row["ok"] for row in rows), rows
        assert {(row["engine"], row["cost"], row["instance"]) for row in rows} == {(on.engine, "plan", on.instance)}
    nothing_outlived_the_calls(person, engines)


def capture_rows(home: Home, bot: str, run_id: str) -> list[dict]:
    """The journal rows of one capture run as a reader compares them: the file, the text it changed, who, how."""
    rows = [json.loads(line) for line in home.journal_path(bot).read_text(encoding="utf-8").splitlines()]
    keep = ("file", "diff", "note", "who", "how", "step", "chat")
    return [{key: row.get(key) for key in keep} for row in rows if row.get("run") == run_id]


@pytest.mark.parametrize("engine", ["claude-code", "codex", "acp"])
def test_a_capture_through_an_engine_writes_what_an_api_instance_writes(
    todays_demo, tmp_path, programs, models, fake_api, person, engine
):
    demo = todays_demo()
    on = next(on for on in on_engines(programs) if on.engine == engine)
    at = next_morning(demo.finished)
    written = {}
    for how, instance in (
        ("api", {"model": "openai/qwen3-8b", "api_base": fake_api.api_base, "timeout": CALL_TIMEOUT}),
        ("engine", models.instance(on)),
    ):
        home = demo.copy_to(tmp_path / how)
        put_on(home, {"night": instance}, {"scout": "night"})
        done = json.loads(run(person, home, "capture", "scout", "--json", at=at, models=models))
        written[how] = (capture_rows(home, "scout", done["run"]), done["skipped"])
        rows = read_usage(home, at.astimezone(UTC).strftime("%Y-%m"))
        assert rows and {row.get("engine") for row in rows} == ({None} if how == "api" else {engine})
    assert written["api"][0], "the API instance's capture saved nothing: the scripted answers are not read"
    assert written["engine"] == written["api"]
    nothing_outlived_the_calls(person, [on])
