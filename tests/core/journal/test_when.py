"""Days and times as people type and read them: one parser and one format for the CLI, the app and the core.

Spec: memory.md, "The journal" (rows in UTC, shown in local time) and "Recall by time" (today, yesterday, a date).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timezone

import pytest

from omb_tui.core.base import clock
from omb_tui.core.journal.filter import JournalFilter
from omb_tui.core.journal.when import parse_day
from omb_tui.core.search.session_search import parse_when
from omb_tui.core.turn.bot import parse_day as recall_as_of_day

pytestmark = pytest.mark.dates

TODAY = date(2026, 11, 30)


def test_one_day_parser_reads_dates_and_only_given_a_today_the_words():
    assert parse_day("2026-11-30") == TODAY
    assert parse_day("Yesterday", today=TODAY) == date(2026, 11, 29)
    assert parse_day("today", today=TODAY) == TODAY
    with pytest.raises(ValueError, match=r"^'today' is not a date; use YYYY-MM-DD\.$"):
        parse_day("today")  # the CLI's --as-of and --until take dates only, as before
    with pytest.raises(ValueError, match="'2026-13-01' is not a date"):
        parse_day("2026-13-01", today=TODAY)


def test_every_caller_reads_days_the_same_way():
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert recall_as_of_day("2026-11-29") == date(2026, 11, 29)
    assert parse_when("yesterday", now=now, end=False).date() == parse_day("yesterday", today=now.astimezone().date())
    assert parse_when("2026-11-29", now=now, end=True).date() == date(2026, 11, 29)
    assert JournalFilter.parse("day:today").fields == (("day", clock.today().isoformat()),)


def test_the_command_line_says_a_bad_day_in_one_sentence(run_cli):
    result = run_cli("prompt", "scout", "--as-of", "2026-13-01")
    assert result.code == 2
    assert result.err.strip() == (
        "omb-tui: Argument --as-of: '2026-13-01' is not a date; use YYYY-MM-DD. See: omb-tui prompt --help"
    )
