"""Property tests draw the same examples on every run; free exploration is a tier of its own (docs/testing.md)."""

from __future__ import annotations

import subprocess
import sys

from conftest import explore_profile
from hypothesis import HealthCheck, settings
from support.repo import TESTS

WORDS = "tests/core/index/test_words.py"
EXPLORE_WORDS = "tests/explore/test_explore_words.py"


def test_every_run_draws_the_same_examples_with_no_deadline():
    current = settings()
    assert current.derandomize and current.database is None
    assert current.deadline is None and HealthCheck.too_slow in current.suppress_health_check


def test_exploring_draws_random_examples_as_many_as_asked():
    explored = explore_profile(5_000)
    assert not explored.derandomize and explored.max_examples == 5_000 and explored.deadline is None


def collected(*options: str) -> list[str]:
    """The test ids pytest would run from the words' two files, with these options."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "--collect-only", "-q", *options]
        + [WORDS, EXPLORE_WORDS],
        capture_output=True,
        text=True,
        cwd=TESTS.parent,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_the_explore_tier_runs_only_when_asked_and_then_with_the_property_tests_alone():
    default = collected()
    assert default and not [name for name in default if name.startswith(EXPLORE_WORDS)]
    explored = collected("--explore")
    assert {name.partition("::")[0] for name in explored} == {WORDS, EXPLORE_WORDS}
    # with --explore, only property tests: the words' examples by hand stay out
    assert f"{WORDS}::test_any_text_gives_clean_terms" in explored
    assert f"{WORDS}::test_stop_words_and_one_letter_words_are_not_content_words" not in explored
