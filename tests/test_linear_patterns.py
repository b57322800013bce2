"""Every pattern and parser that runs on a model's text takes time linear in its length, so no answer can make a
step hang. Spec: HOUSE_STYLE, "The model proposes, code decides"; docs/models.md, "Answers that are refused".

Not timed: the regular expressions (whose steps cannot be counted from Python) run on adversarial inputs of a
million characters (four times the longest answer a step reads) in a child process with a deadline of two minutes. All
of them together take about three seconds when they are linear; a quadratic one needs some 10¹¹ steps on such an
input, half an hour or more (the slowest pattern this replaced took 0.7 s at 20,000 characters, four times as long at
each doubling), so the deadline separates the two by a wide margin either way, however busy the machine is. The
regular expression engine holds the GIL for a whole match, which is why this is a process and not a thread.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PATTERN_SIZE = 1_000_000
DEADLINE_S = 120


PATTERN_PROBE = textwrap.dedent("""
    import sys
    from omb_tui.core.compact import validator
    from omb_tui.core.memory import entries, memory_update
    from omb_tui.core.team import model as team_model
    from omb_tui.core.upkeep import capture_checks as checks, organize, tidy
    from omb_tui.core.upkeep.capture_state import PERSON, Line

    N = int(sys.argv[1])
    spaces = " " * N
    probes = {
        "capture paths: a word with no slash": lambda: checks.exact_tokens("a" * N),
        "capture paths: dots": lambda: checks.exact_tokens("." * N),
        "capture paths: tildes": lambda: checks.exact_tokens("~" * N),
        "capture paths: double slashes": lambda: checks.exact_tokens("a/" * (N // 4) + "/" * (N // 2)),
        "capture numbers": lambda: checks.exact_tokens("1." * (N // 2) + "x" + " -1," * (N // 4)),
        "capture URLs": lambda: checks.exact_tokens("http://" * (N // 7)),
        "capture tasks": lambda: checks._TASK_OPENINGS.search("hey " * (N // 4) + "x"),
        "capture suppositions": lambda: checks._HYPOTHETICAL.search("supposin" * (N // 8)),
        "capture yearly dates": lambda: checks.is_yearly("birth " * (N // 6)),
        "capture statements": lambda: checks.not_a_statement_problem(["a" * 50], [Line(1, PERSON, "p", "a" * N)]),
        "entries: a source of spaces": lambda: entries.parse_entries("- 2026-01-01 · learned by x" + spaces + "y · f\\n"),
        "entries: markers": lambda: entries.parse_entries("- fact" + " · until" * (N // 8) + "\\n"),
        "entries: a fence": lambda: entries.parse_entries("`" * N + "\\n"),
        "entries: a thematic break": lambda: entries.parse_entries("-" + spaces + "x\\n"),
        "entries: health words": lambda: entries.is_health_or_safety("does " * (N // 5)),
        "same fact": lambda: memory_update.same_fact("a " * (N // 2), "a " * (N // 2) + "x"),
        "team note keys": lambda: team_model.NOTE_KEY.match("a/" * (N // 2) + "A"),
        "organize YAML words": lambda: organize._PLAIN_YAML.fullmatch("a" * N + "!"),
        "tidy words": lambda: tidy._WORD.findall("a " * (N // 2)),
        "compact keep list": lambda: validator.keep_lines("- " + spaces + "\\n"),
    }
    for name, probe in probes.items():
        probe()
        print(name, flush=True)
""")


def test_every_pattern_run_on_model_text_finishes_on_adversarial_input():
    try:
        done = subprocess.run([sys.executable, "-c", PATTERN_PROBE, str(PATTERN_SIZE)], capture_output=True, text=True,
                              timeout=DEADLINE_S, check=True).stdout.splitlines()
    except subprocess.TimeoutExpired as stuck:
        finished = (stuck.stdout or b"").decode().splitlines()
        pytest.fail(f"a pattern did not finish within {DEADLINE_S} s; the last to finish: {finished[-1:]}")
    assert len(done) == 20
