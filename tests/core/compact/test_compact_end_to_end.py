"""Nightly compaction end to end, as cron and a person would run it with the installed `omb-tui`: nightly compaction
switched on for a demo bot, `upkeep --due` compacts it with a model (tests/support/fake_llm.py's server on 127.0.0.1),
and the next morning `review` lists the run, one change is reverted and the rest of the run undone."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from support.end_to_end import demo_home, lines, step_shaped
from support.fake_llm import fake_llm  # noqa: F401 (the fixture)

from omb_tui.core.memory.entries import is_health_or_safety, is_person_rule, parse_entries

pytestmark = pytest.mark.dates


def two_plain_bullets(text: str) -> list[str]:
    """Two lines of the demo's MEMORY.md that compaction may delete: found once, no health line or rule."""
    found = []
    for entry in parse_entries(text):
        line = entry.raw
        if (
            entry.is_bullet
            and entry.until is None
            and not entry.struck
            and len(entry.lines) == 1
            and line.endswith("\n")
            and text.count(line) == 1
            and not is_health_or_safety(line)
            and not is_person_rule(entry)
        ):
            found.append(line)
    return found[:2]


def test_nightly_compaction_from_cron_then_the_morning_review(tmp_path, run_exe, fake_llm):  # noqa: F811
    home, env = demo_home(tmp_path, run_exe)
    config = json.loads(home.config_path.read_text()) if home.config_path.exists() else {}
    config["instances"] = {"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "timeout": 10}}
    config["helper"] = {"instanceId": "local"}
    home.config_path.write_text(json.dumps(config))
    env.pop("OMB_HELPER_INSTANCE")
    switched = run_exe("compact", "scout", "--nightly", "on", "--propose-only", "off", env=env)
    assert switched.returncode == 0, switched.stderr.decode()

    memory_path = home.workspace("scout") / "MEMORY.md"
    before = memory_path.read_text()
    first, second = two_plain_bullets(before)
    change_set = {
        "changes": [
            {"category": "ephemeral", "original": first, "reason": "A one-off state."},
            {"category": "superseded", "original": second, "reason": "It no longer holds."},
        ]
    }
    shaped = step_shaped(fake_llm) or fake_llm.next_reply

    def reply() -> dict:  # the compaction call gets the change-set, every other step an empty answer
        if "changes" in json.dumps(fake_llm.requests[-1].body.get("messages")):
            return {"content": json.dumps(change_set)}
        return shaped()

    fake_llm.next_reply = reply
    night = lines(run_exe("upkeep", "--due", "--json", env=env))["scout"]
    assert night["compact"] is not None, night
    after = memory_path.read_text()
    assert first not in after and second not in after

    backups = list((home.root / "compact" / "scout" / "backup").glob("*_memory.backup.md"))
    assert len(backups) == 1  # MEMORY.md as compaction read it (after the same run's tidy-up)
    assert backups[0].read_text().replace(first, "").replace(second, "") == after
    datetime.strptime(backups[0].name[:15], "%Y-%m-%d_%H%M")
    clean_log = (home.root / "compact" / "scout" / "memory-clean.log").read_text()
    assert "ephemeral" in clean_log and "superseded" in clean_log

    listed = json.loads(run_exe("review", "--bot", "scout", "--json", env=env).stdout)
    runs = [run for bot in listed["bots"] if bot["bot"] == "scout" for run in bot["runs"]]
    compact_run = next(run for run in runs if "compact" in run["steps"])
    assert compact_run["id"] == night["run"]
    changes = [c for c in compact_run["changes"] if c["step"] == "compact"]
    assert [(c["category"], c["reason"]) for c in changes] == [
        ("ephemeral", "A one-off state."),
        ("superseded", "It no longer holds."),
    ]

    reverted = run_exe("revert", "scout", changes[0]["id"], env=env)
    assert reverted.returncode == 0, reverted.stderr.decode()
    assert first in memory_path.read_text() and second not in memory_path.read_text()

    undone = run_exe("undo-run", "scout", night["run"], "--yes", env=env)  # the tidy-up's changes too
    assert undone.returncode == 0, undone.stderr.decode()
    assert memory_path.read_text() == before
