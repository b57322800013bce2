"""Compaction's records and report: backups (name, contents, mode, retention), the clean log, the attempts log,
and the report's text and dict for applied, proposed, empty and failed runs. A fixed clock, local time = UTC."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timedelta, timezone

import pytest

from omb_tui.core.compact import records
from omb_tui.core.compact.records import (
    append_attempt,
    append_clean_log,
    backup_memory,
    clean_log_lines,
    compact_files,
    prune_backups,
)
from omb_tui.core.compact.report import compose_report
from omb_tui.core.compact.validator import Change
from omb_tui.core.files.paths import Home, InvalidName, LinkRefused

BOT = "scout"
NIGHT = datetime(2026, 12, 1, 3, 15, 2)  # naive: local time, which the utc_zone fixture makes UTC
RUN = "20261201T031502-1a2b3c"
SECRET_LINE = "- wifi password: Tulip77hunter\n"
MEMORY = "# Memory\n\n### Trips\n- 2026-11-02 · Flight to Oslo on the 5th\n" + SECRET_LINE


@pytest.fixture
def home(tmp_path, utc_zone) -> Home:
    return Home(tmp_path / "home")


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def make_backups(home: Home, moments: list[datetime]) -> None:
    folder = compact_files(home, BOT).backup_dir
    folder.mkdir(parents=True, exist_ok=True)
    for moment in moments:
        (folder / f"{moment:%Y-%m-%d_%H%M}_memory.backup.md").write_text("old\n")


def backup_names(home: Home) -> list[str]:
    return sorted(p.name for p in compact_files(home, BOT).backup_dir.iterdir())


# ---------------------------------------------------------------------------------------------- backups


def test_backup_is_named_by_local_minute_redacted_and_private(home):
    path = backup_memory(home, BOT, MEMORY, NIGHT)

    assert path == home.root / "compact" / BOT / "backup" / "2026-12-01_0315_memory.backup.md"
    text = path.read_text(encoding="utf-8")
    assert "Tulip77hunter" not in text
    assert text.startswith(
        "# Memory\n\n### Trips\n- 2026-11-02 · Flight to Oslo on the 5th\n- wifi password: «redacted"
    )
    assert mode(path) == 0o600
    for folder in (home.root / "compact", home.root / "compact" / BOT, path.parent):
        assert mode(folder) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


def test_backup_name_follows_the_local_zone_of_an_aware_time(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "Europe/Prague")
    time.tzset()
    try:
        path = backup_memory(Home(tmp_path / "home"), BOT, MEMORY, datetime(2026, 12, 1, 2, 15, tzinfo=UTC))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert path.name == "2026-12-01_0315_memory.backup.md"


def test_two_backups_in_one_minute_keep_both(home):
    first = backup_memory(home, BOT, "first\n", NIGHT)
    second = backup_memory(home, BOT, "second\n", NIGHT + timedelta(seconds=30))
    third = backup_memory(home, BOT, "third\n", NIGHT + timedelta(seconds=40))

    assert second.name == "2026-12-01_0315-2_memory.backup.md"
    assert third.name == "2026-12-01_0315-3_memory.backup.md"
    assert [first.read_text(), second.read_text(), third.read_text()] == ["first\n", "second\n", "third\n"]


def test_retention_keeps_the_last_thirty_days(home):
    recent = [NIGHT - timedelta(days=d) for d in range(1, 13)]  # 12 backups within 30 days
    old = [NIGHT - timedelta(days=d) for d in (31, 45, 90)]
    make_backups(home, recent + old)
    (compact_files(home, BOT).backup_dir / "notes.txt").write_text("mine\n")

    new = backup_memory(home, BOT, MEMORY, NIGHT)

    names = backup_names(home)
    assert new.name in names and "notes.txt" in names
    assert all(f"{m:%Y-%m-%d_%H%M}_memory.backup.md" in names for m in recent)
    assert not any(f"{m:%Y-%m-%d_%H%M}_memory.backup.md" in names for m in old)


def test_retention_always_keeps_the_newest_ten_whatever_their_age(home):
    monthly = [NIGHT - timedelta(days=40 * n) for n in range(1, 13)]  # 12 backups, all older than 30 days
    make_backups(home, monthly)

    removed = prune_backups(home, BOT, NIGHT)

    assert [p.name for p in removed] == [f"{m:%Y-%m-%d_%H%M}_memory.backup.md" for m in reversed(monthly[-2:])]
    assert len(backup_names(home)) == records.BACKUP_KEEP_NEWEST


def test_backup_refuses_a_linked_compact_folder_and_writes_nothing_there(home, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home.root / "compact").mkdir(parents=True)
    (home.root / "compact" / BOT).symlink_to(elsewhere)

    with pytest.raises(LinkRefused):
        backup_memory(home, BOT, MEMORY, NIGHT)
    with pytest.raises(LinkRefused):
        append_clean_log(home, BOT, ["a line"])
    assert list(elsewhere.iterdir()) == []


def test_a_link_planted_at_the_backup_name_is_passed_over_not_written_through(home, tmp_path):
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    folder = compact_files(home, BOT).backup_dir
    folder.mkdir(parents=True)
    (folder / "2026-12-01_0315_memory.backup.md").symlink_to(target)

    path = backup_memory(home, BOT, MEMORY, NIGHT)

    assert path.name == "2026-12-01_0315-2_memory.backup.md"
    assert target.read_text() == "keep me\n"


def test_a_bot_id_that_is_no_name_is_refused(home):
    with pytest.raises(InvalidName):
        backup_memory(home, "../escape", MEMORY, NIGHT)


# ---------------------------------------------------------------------------------------------- logs

CHANGES = [
    {
        "category": "duplicate",
        "original": "- 2026-11-02 · Lives in Pune\n",
        "merged": None,
        "reason": "Already in About me.",
    },
    {
        "category": "merge",
        "original": "- Flight to Oslo on the 5th\n- Hotel in Oslo till the 9th\n",
        "merged": "- Oslo trip 5–9 Dec\n",
        "reason": "Two lines on the same trip.",
    },
]


def test_clean_log_has_one_line_per_change_with_time_run_category_texts_and_reason(home):
    append_clean_log(home, BOT, clean_log_lines(RUN, CHANGES, NIGHT))
    append_clean_log(home, BOT, clean_log_lines(RUN, [Change("ephemeral", SECRET_LINE, "Old wifi.")], NIGHT))

    log = compact_files(home, BOT).clean_log
    assert log.read_text(encoding="utf-8").splitlines() == [
        f'2026-12-01 03:15:02 +0000 · {RUN} · duplicate · "- 2026-11-02 · Lives in Pune" → (deleted) · '
        "Already in About me.",
        f'2026-12-01 03:15:02 +0000 · {RUN} · merge · "- Flight to Oslo on the 5th - Hotel in Oslo till the 9th" '
        '→ "- Oslo trip 5–9 Dec" · Two lines on the same trip.',
        f'2026-12-01 03:15:02 +0000 · {RUN} · ephemeral · "- wifi password: «redacted 13 chars»" → (deleted) · '
        "Old wifi.",
    ]
    assert mode(log) == 0o600


def test_clean_log_shortens_a_long_original(home):
    long_change = {"category": "detail", "original": "x" * 500, "reason": "A command line."}
    (line,) = clean_log_lines(RUN, [long_change], NIGHT)
    assert f'"{"x" * 79}…"' in line


def test_a_log_past_its_cap_is_rotated_to_dot_one_and_the_new_line_starts_a_new_log(home, monkeypatch):
    monkeypatch.setattr(records, "CLEAN_LOG_MAX_BYTES", 300)
    for night in range(3):
        append_clean_log(home, BOT, clean_log_lines(f"run-{night}", CHANGES[:1], NIGHT + timedelta(days=night)))

    files = compact_files(home, BOT)
    live = files.clean_log.read_text(encoding="utf-8")
    older = files.clean_log.with_name("memory-clean.log.1").read_text(encoding="utf-8")
    assert "run-2" in live and "run-0" not in live
    assert "run-0" in older and "run-1" in older
    assert mode(files.clean_log.with_name("memory-clean.log.1")) == 0o600


def test_attempts_log_keeps_each_answer_redacted_and_the_validators_errors(home):
    answer = '{"changes": [{"category": "detail", "original": "api_key = sk-abcdefABCDEF0123456789xyz"}]}'
    append_attempt(home, BOT, RUN, 1, answer, ["Change 1: its 'reason' is missing.", "Change 2:\nbroken."], NIGHT)
    append_attempt(home, BOT, RUN, 2, '{"changes": []}', [], NIGHT)
    append_attempt(home, BOT, RUN, 3, None, [], NIGHT)

    text = compact_files(home, BOT).attempts_log.read_text(encoding="utf-8")
    kept_answer = '{"changes": [{"category": "detail", "original": "api_key = «redacted 28 chars»"}]}'
    assert "sk-abcdef" not in text
    assert text.splitlines()[:5] == [
        f"--- 2026-12-01 03:15:02 +0000 · run {RUN} · attempt 1 ---",
        f"answer ({len(kept_answer)} characters):",
        "    " + kept_answer,
        "errors (2):",
        "    Change 1: its 'reason' is missing.",
    ]
    assert "    Change 2: broken." in text
    assert 'attempt 2 ---\nanswer (15 characters):\n    {"changes": []}\nerrors: none\n' in text
    assert "attempt 3 ---\nanswer: none\nerrors: none\n" in text
    assert mode(compact_files(home, BOT).attempts_log) == 0o600


def test_attempts_log_caps_a_runaway_answer(home):
    append_attempt(home, BOT, RUN, 1, "ab" * 40_000, ["Broken JSON."], NIGHT)

    lines = compact_files(home, BOT).attempts_log.read_text(encoding="utf-8").splitlines()
    assert lines[1] == f"answer (80000 characters, the first {records.ATTEMPT_ANSWER_MAX_CHARS} kept):"
    assert lines[2] == "    " + ("ab" * 40_000)[: records.ATTEMPT_ANSWER_MAX_CHARS]


def test_an_answer_line_that_looks_like_a_header_stays_indented(home):
    append_attempt(home, BOT, RUN, 1, f"--- fake · run {RUN} · attempt 9 ---", [], NIGHT)
    headers = [
        line for line in compact_files(home, BOT).attempts_log.read_text().splitlines() if line.startswith("---")
    ]
    assert headers == [f"--- 2026-12-01 03:15:02 +0000 · run {RUN} · attempt 1 ---"]


# ---------------------------------------------------------------------------------------------- report


def test_report_of_an_applied_run_counts_by_category_and_lists_each_change():
    changes = [*CHANGES, {"category": "duplicate", "original": "- Prefers short replies", "reason": "In SOUL."}]
    report = compose_report(BOT, RUN, changes)

    assert report.text == (
        "Memory compact: scout — 3 changes (2 duplicate, 1 merge)\n"
        "- duplicate: - 2026-11-02 · Lives in Pune — Already in About me.\n"
        "- merge: - Flight to Oslo on the 5th - Hotel in Oslo till the 9th — Two lines on the same trip.\n"
        "- duplicate: - Prefers short replies — In SOUL.\n"
        f"Run {RUN}: undo it all with `omb-tui undo-run scout {RUN}`.\n"
    )
    data = report.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["applied"] is True and data["error"] is None
    assert data["counts"] == {"duplicate": 2, "merge": 1}
    assert data["changes"][1] == {
        "category": "merge",
        "original": CHANGES[1]["original"],
        "merged": "- Oslo trip 5–9 Dec\n",
        "reason": "Two lines on the same trip.",
    }


def test_report_redacts_and_shortens_what_it_quotes():
    report = compose_report(BOT, RUN, [Change("ephemeral", SECRET_LINE + "x" * 200, "Old wifi.")])

    assert "Tulip77hunter" not in report.text and "Tulip77hunter" not in json.dumps(report.to_dict())
    line = report.text.splitlines()[1]
    assert line.startswith("- ephemeral: - wifi password: «redacted 13 chars» xxx")
    assert line.endswith("x… — Old wifi.")


def test_report_of_a_failed_run_starts_with_the_error_line():
    report = compose_report(
        BOT,
        RUN,
        CHANGES,
        error="the change-set was refused three times\n(see log)",
        attempts=3,
        attempts_log="/h/compact/scout/attempts.log",
    )

    assert report.text.splitlines() == [
        "Memory compact: ERROR — the change-set was refused three times (see log).",
        f"Bot scout, run {RUN}, 3 attempts: nothing was applied.",
        "The model's answers and the validator's errors are in /h/compact/scout/attempts.log.",
    ]
    assert report.to_dict() == {
        "bot": BOT,
        "run": RUN,
        "applied": False,
        "proposed": False,
        "counts": {},
        "changes": [],
        "error": "the change-set was refused three times (see log).",
        "attempts": 3,
    }


@pytest.mark.parametrize(
    "not_kept, said",
    [
        (
            None,
            "2 changes not applied: MEMORY.md changed meanwhile; kept as proposals to accept or reject in the Review "
            "area.",
        ),
        (
            "pending.json is damaged",
            "2 changes not applied: MEMORY.md changed meanwhile; they could not be kept as "
            "proposals: pending.json is damaged.",
        ),
    ],
)
def test_report_of_a_partly_applied_run_keeps_its_changes_and_says_what_was_not_applied(not_kept, said):
    report = compose_report(BOT, RUN, CHANGES[:1], not_applied=2, not_kept=not_kept)

    assert report.text.splitlines()[-1] == said
    data = report.to_dict()
    assert data["applied"] is True and data["counts"] == {"duplicate": 1}
    assert data["changes"] == [
        {"category": "duplicate", "original": CHANGES[0]["original"], "merged": None, "reason": CHANGES[0]["reason"]}
    ]


def test_report_of_a_night_with_nothing_to_compact_is_not_an_error():
    report = compose_report(BOT, RUN, [])
    assert report.text == "Memory compact: scout — no changes\n"
    assert report.to_dict()["applied"] is False and report.error is None


def test_report_of_a_propose_only_run_says_nothing_was_applied():
    report = compose_report(BOT, RUN, CHANGES[:1], proposed=True)
    assert report.text.splitlines()[0] == "Memory compact: scout — 1 change (1 duplicate) proposed, none applied"
    assert report.text.splitlines()[-1] == f"Run {RUN}: accept or reject each change in the Review area of the app."
    assert report.to_dict()["applied"] is False and report.to_dict()["proposed"] is True
