"""Nightly compaction (omb_tui/core/compact/nightly.py, `omb-tui compact BOT --auto`, the `compact` step of
`upkeep --due`): backup, rows by Memory upkeep with the run id, memory-clean.log, attempts.log, the report, its
ERROR line when nothing was applied, propose-only and the switches. Spec: compact-memory.en.md."""

from __future__ import annotations

import json
import os
import stat
import sys
from datetime import date, datetime

import pytest
from support.compact_helpers import (
    AFTER_VALID,
    BOT,
    MEMORY,
    PEANUTS,
    TEA,
    VALID,
    answer,
    change,
    compact_rows,
    read_memory,
    write_memory,
)
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.cli import upkeep as upkeep_cli
from omb_tui.core.base import clock
from omb_tui.core.compact import nightly as nightly_module
from omb_tui.core.compact import session as session_module
from omb_tui.core.compact.nightly import compact_nightly, propose_only_now, switch_nightly
from omb_tui.core.compact.pending import pending_changes
from omb_tui.core.compact.records import compact_files
from omb_tui.core.journal.journal import HOW_UPKEEP, WHO_UPKEEP
from omb_tui.core.memory.settings import load_bot_settings, update_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.schedule import upkeep_due

pytestmark = pytest.mark.dates


@pytest.fixture
def nightly_home(llm_home):
    write_memory(llm_home)
    return llm_home


def files(home):
    return compact_files(home, BOT)


def test_a_valid_night_backs_up_applies_one_row_per_change_and_logs_each(nightly_home, fake_llm):
    fake_llm.script(VALID)

    outcome = compact_nightly(nightly_home, BOT, propose_only=False)

    assert read_memory(nightly_home) == AFTER_VALID
    rows = compact_rows(nightly_home)
    assert {(row.who, row.how, row.run) for row in rows} == {(WHO_UPKEEP, HOW_UPKEEP, outcome.report.run)}
    assert [row.id for row in rows] == outcome.rows and len(rows) == 3
    backups = list(files(nightly_home).backup_dir.iterdir())
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == MEMORY
    assert backups[0].name.endswith("_memory.backup.md") and stat.S_IMODE(os.stat(backups[0]).st_mode) == 0o600
    clean = files(nightly_home).clean_log.read_text(encoding="utf-8").splitlines()
    assert len(clean) == 3 and all(outcome.report.run in line for line in clean)
    assert "merge" in clean[2] and "Two lines say the same of Ada." in clean[2]
    attempts = files(nightly_home).attempts_log.read_text(encoding="utf-8")
    assert "attempt 1" in attempts and "errors: none" in attempts
    text = outcome.report.text
    assert text.splitlines()[0] == f"Memory compact: {BOT} — 3 changes (1 superseded, 1 detail, 1 merge)"
    assert "- merge: " in text and "Two lines say the same of Ada." in text

    MemoryStore(nightly_home, BOT).undo(rows[-1].id)  # each change undoable: the last one first
    assert "Ada leads the launch team too" in read_memory(nightly_home)


def test_three_rejected_answers_apply_nothing_and_the_report_starts_with_error(nightly_home, fake_llm):
    fake_llm.script(*[answer(change("superseded", PEANUTS))] * 3)

    outcome = compact_nightly(nightly_home, BOT, propose_only=False)

    assert read_memory(nightly_home) == MEMORY and compact_rows(nightly_home) == []
    first = outcome.report.text.splitlines()[0]
    assert first.startswith("Memory compact: ERROR — The model's change-set was rejected 3 times")
    assert not files(nightly_home).backup_dir.exists() and not files(nightly_home).clean_log.exists()
    attempts = files(nightly_home).attempts_log.read_text(encoding="utf-8")
    assert attempts.count("--- ") == 3 and attempts.count("about health, diet or allergies") == 3


def test_a_file_changed_meanwhile_is_an_error_and_nothing_is_applied(nightly_home, fake_llm, monkeypatch):
    fake_llm.script(VALID)
    real_propose = session_module.propose
    edited = MEMORY + "- 2026-03-01 · from chat · written during the run\n"

    def propose_then_edit(*args, **kwargs):
        proposal = real_propose(*args, **kwargs)
        write_memory(nightly_home, edited)
        return proposal

    monkeypatch.setattr(nightly_module, "propose", propose_then_edit)
    outcome = compact_nightly(nightly_home, BOT, propose_only=False)

    assert outcome.changed_meanwhile and read_memory(nightly_home) == edited and compact_rows(nightly_home) == []
    assert outcome.report.text.startswith("Memory compact: ERROR — MEMORY.md changed since the model read it")


@pytest.fixture
def editor_saves_midway(nightly_home, monkeypatch):
    """An editor that takes no lock saves MEMORY.md between the run's first and second write."""
    real_write = MemoryStore.write
    writes = []

    def an_editor_saves_before_the_second_write(self, rel, text, *args, **kwargs):
        writes.append(rel)
        if len(writes) == 2:
            write_memory(nightly_home, read_memory(nightly_home) + "- 2026-03-01 · from chat · typed meanwhile\n")
        return real_write(self, rel, text, *args, **kwargs)

    monkeypatch.setattr(MemoryStore, "write", an_editor_saves_before_the_second_write)


def test_changes_left_when_an_editor_saves_midway_are_named_and_kept_as_proposals(
    nightly_home, fake_llm, editor_saves_midway
):
    fake_llm.script(VALID)
    outcome = compact_nightly(nightly_home, BOT, propose_only=False)

    assert len(outcome.rows) == 1 and "typed meanwhile" in read_memory(nightly_home)
    assert "2 changes not applied: MEMORY.md changed meanwhile" in outcome.report.text
    waiting = pending_changes(nightly_home, BOT)
    assert [item.id for item in waiting] == outcome.pending and len(waiting) == 2
    assert {item.run for item in waiting} == {outcome.report.run}


def test_auto_json_after_a_partial_apply_prints_the_report_and_sends_it_to_the_webhook(
    nightly_home, fake_llm, run_cli, editor_saves_midway, monkeypatch
):
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)  # urllib would send the webhook through a proxy
    hook = fake_llm.api_base + "/chat/completions"  # the fake model's server records the webhook's JSON as well
    write_llm_config(nightly_home, fake_llm, compact={"report": {"webhook": hook}})
    update_bot_settings(nightly_home, BOT, compact_propose_only=False)
    fake_llm.script(VALID)

    result = run_cli("compact", BOT, "--auto", "--json")

    assert result.code == 0 and result.err == ""
    report = json.loads(result.out)
    assert report["applied"] is True and report["error"] is None and len(report["rows"]) == 1
    assert [change["category"] for change in report["changes"]] == ["superseded"] and len(report["pending"]) == 2
    assert report["sink"] == {"sink": "webhook", "sent": True, "error": None}
    sent = fake_llm.requests[-1].body
    assert sent["changes"] == report["changes"]
    assert "2 changes not applied: MEMORY.md changed meanwhile; kept as proposals" in sent["text"]


def test_a_slow_model_past_the_limit_is_an_error(nightly_home, fake_llm):
    fake_llm.script({"delay": 30, "content": VALID})
    outcome = compact_nightly(nightly_home, BOT, propose_only=False, deadline_s=1)
    assert outcome.report.text.startswith("Memory compact: ERROR — No valid change-set within the 1-second limit")
    assert read_memory(nightly_home) == MEMORY
    assert "answer: none" in files(nightly_home).attempts_log.read_text(encoding="utf-8")


def test_propose_only_keeps_the_changes_pending_and_applies_nothing(nightly_home, fake_llm):
    fake_llm.script(VALID)
    outcome = compact_nightly(nightly_home, BOT, propose_only=True)

    assert read_memory(nightly_home) == MEMORY and compact_rows(nightly_home) == []
    waiting = pending_changes(nightly_home, BOT)
    assert [item.id for item in waiting] == outcome.pending == ["1", "2", "3"]
    assert {item.run for item in waiting} == {outcome.report.run}
    assert "proposed, none applied" in outcome.report.text.splitlines()[0]
    assert stat.S_IMODE(os.stat(files(nightly_home).pending).st_mode) == 0o600


def test_propose_only_is_the_default_for_the_first_week_of_nightly_compaction(home):
    settings = switch_nightly(home, BOT, True, today=date(2026, 12, 1))
    assert settings.compact_nightly and settings.compact_nightly_since == "2026-12-01"
    assert propose_only_now(settings, date(2026, 12, 7)) is True
    assert propose_only_now(settings, date(2026, 12, 8)) is False
    settings = switch_nightly(home, BOT, propose_only=True)
    assert propose_only_now(settings, date(2027, 6, 1)) is True
    settings = switch_nightly(home, BOT, propose_only=None)
    assert settings.compact_propose_only is None
    assert load_bot_settings(home, BOT).compact_nightly_since == "2026-12-01"


def test_the_command_line_switches_nightly_compaction(home, run_cli):
    result = run_cli("compact", BOT, "--nightly", "on", "--propose-only", "off")
    assert result.code == 0
    assert result.out == f"Nightly compaction of {BOT} is on; a nightly run now applies its changes.\n"
    saved = json.loads(home.settings_path(BOT).read_text(encoding="utf-8"))
    assert saved["compactNightly"] is True and saved["compactProposeOnly"] is False
    assert saved["compactNightlySince"] == clock.today().isoformat()
    assert run_cli("compact", BOT, "--propose-only", "maybe").code == 2


def test_auto_prints_the_report_and_json_gives_its_fields(nightly_home, fake_llm, run_cli, monkeypatch):
    monkeypatch.setattr(upkeep_cli, "at_a_terminal", lambda: True)  # by hand: the person's own request, unguarded
    update_bot_settings(nightly_home, BOT, compact_propose_only=False)
    fake_llm.script(
        VALID,
        answer(change("superseded", PEANUTS)),
        answer(change("superseded", PEANUTS)),
        answer(change("superseded", PEANUTS)),
    )

    result = run_cli("compact", BOT, "--auto")
    assert result.code == 0 and result.out.startswith(f"Memory compact: {BOT} — 3 changes")

    result = run_cli("compact", BOT, "--auto", "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["error"].startswith("The model's change-set was rejected 3 times") and data["rows"] == []
    assert data["attempts"] == 3 and data["applied"] is False


def test_the_report_goes_to_the_configured_command_on_stdin(nightly_home, fake_llm, tmp_path):
    received = tmp_path / "report.txt"
    keep_stdin = f"import sys; open({str(received)!r}, 'w', encoding='utf-8').write(sys.stdin.read())"
    write_llm_config(nightly_home, fake_llm, compact={"report": {"command": [sys.executable, "-c", keep_stdin]}})
    fake_llm.script(
        answer(change("superseded", PEANUTS)),
        answer(change("superseded", PEANUTS)),
        answer(change("superseded", PEANUTS)),
    )

    outcome = compact_nightly(nightly_home, BOT, propose_only=False)

    assert outcome.sink == {"sink": "command", "sent": True, "error": None}
    assert received.read_text(encoding="utf-8") == outcome.report.text
    assert outcome.report.text.startswith("Memory compact: ERROR — ")


# ----- the step of `upkeep --due` -----
@pytest.fixture
def other_steps_quiet(monkeypatch):
    """Organizing and the tidy-up have their own tests; here they do nothing and call no model."""
    from omb_tui.core import schedule

    class Done:
        def to_dict(self):
            return {}

    monkeypatch.setattr(schedule, "organize", lambda *args, **kwargs: Done())  # the names the scheduler calls
    monkeypatch.setattr(schedule, "tidy", lambda *args, **kwargs: Done())


def test_upkeep_due_compacts_once_a_day_where_nightly_is_on(nightly_home, fake_llm, other_steps_quiet):
    now = clock.now()
    first = upkeep_due(nightly_home, now=now).bots[0]
    assert first.compact is None and fake_llm.requests == []  # switched off by default

    switch_nightly(nightly_home, BOT, True, propose_only=False)
    # VALID takes 4 of the 11 entries out of memory: past the guard's default share of a night (docs/guard.md)
    write_llm_config(nightly_home, fake_llm, upkeep={"guard": {"maxChangedShare": 0.5}})
    fake_llm.script(VALID)
    first = upkeep_due(nightly_home, now=now).bots[0]
    assert first.compact is not None and len(first.compact["rows"]) == 3
    assert {row.run for row in compact_rows(nightly_home)} == {first.run}
    assert "compaction 3 applied, 0 proposed" in first.line()

    again = upkeep_due(nightly_home, now=now).bots[0]
    assert again.compact is None and len(fake_llm.requests) == 1  # once a day
    assert "compact" in again.to_dict()


def test_auto_from_cron_is_guarded_as_the_nightly_run_and_by_hand_is_not(nightly_home, fake_llm, run_cli, monkeypatch):
    """`compact --auto` in a crontab once ran unguarded. Without a terminal it is the nightly run: the guard's
    share of MEMORY.md a night may change stops a second run that night; at a terminal the person may go on."""
    update_bot_settings(nightly_home, BOT, compact_propose_only=False)
    fake_llm.script(VALID, answer(change("superseded", TEA)))
    first = json.loads(run_cli("compact", BOT, "--auto", "--json").out)
    assert first["guarded"] is True and first["guard"]["run"] == first["run"] and first["applied"] is True
    second = run_cli("compact", BOT, "--auto")
    assert second.code == 0 and "Guard: stopped: the night may take out at most" in second.out
    assert TEA in read_memory(nightly_home)  # refused by the guard: the night had changed its share already
    monkeypatch.setattr(upkeep_cli, "at_a_terminal", lambda: True)
    fake_llm.script(answer(change("superseded", TEA)))
    by_hand = json.loads(run_cli("compact", BOT, "--auto", "--json").out)
    assert by_hand["guarded"] is False and by_hand["guard"] is None and by_hand["applied"] is True
    assert TEA not in read_memory(nightly_home)
