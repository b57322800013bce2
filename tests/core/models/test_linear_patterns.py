"""Every pattern and parser that runs on a model's text takes time linear in its length, so no answer can make a
step hang. Spec: HOUSE_STYLE, "The model proposes, code decides"; docs/models.md, "Answers that are refused".

Two kinds of proof, neither timed:
- the JSON reader's work is counted (the characters its scans and `json.loads` look at) and must stay within a
  fixed multiple of the answer's length, on inputs built to make a naive reader quadratic;
- the regular expressions (whose steps cannot be counted from Python) run on adversarial inputs of a million
  characters (four times the longest answer read) in a child process with a deadline of two minutes. All of them
  together take about three seconds when they are linear; a quadratic one needs some 10¹¹ steps on such an input,
  half an hour or more (the slowest pattern this replaced took 0.7 s at 20,000 characters, four times as long at
  each doubling), so the deadline separates the two by a wide margin either way, however busy the machine is. The
  regular expression engine holds the GIL for a whole match, which is why this is a process and not a thread.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from omb_tui.core.models import structured
from omb_tui.core.models.structured import SCAN_BUDGET, UnusableAnswer, parse_json_answer, read_json_object

SIZE = 200_000  # an adversarial answer, under MAX_ANSWER_CHARS
PATTERN_SIZE = 1_000_000
DEADLINE_S = 120

# Answers a reader that tries `json.loads` (or raw_decode) at every bracket would take quadratic time on.
ADVERSARIAL_ANSWERS = {
    "open braces": "{" * SIZE,
    "open brackets with items": "[1," * (SIZE // 3),
    "keys never closed": '{"a":' * (SIZE // 5),
    "quotes never closed": '{"' * (SIZE // 2),
    "prose braces": "{x} " * (SIZE // 4),
    "brackets nested 20 KB deep, then closed": "[{" * 5_000 + "}]" * 5_000,
    "fences with an opening brace": "```\n{" * (SIZE // 5),
    "unclosed thinking": "<think>{" * (SIZE // 8),
}


class CountingJson:
    """Stands in for `json` inside the reader: counts the characters handed to `loads`."""

    def __init__(self) -> None:
        self.characters = 0

    def loads(self, text: str) -> object:
        self.characters += len(text)
        return json.loads(text)

    def dumps(self, *args, **kwargs) -> str:
        return json.dumps(*args, **kwargs)


class CountingPattern:
    """Stands in for the reader's structure pattern: counts the characters its scans pass over, the tokens and what
    lies between them."""

    def __init__(self, pattern) -> None:
        self.pattern, self.characters = pattern, 0

    def finditer(self, text: str, start: int = 0):
        passed = start
        for token in self.pattern.finditer(text, start):
            self.characters += token.end() - passed
            passed = token.end()
            yield token
        self.characters += len(text) - passed  # the search for one more token ran to the end


@pytest.fixture
def counted(monkeypatch):
    counters = CountingJson(), CountingPattern(structured._STRUCTURE)
    monkeypatch.setattr(structured, "json", counters[0])
    monkeypatch.setattr(structured, "_STRUCTURE", counters[1])
    return lambda: counters[0].characters + counters[1].characters


@pytest.mark.parametrize("answer", ADVERSARIAL_ANSWERS.values(), ids=ADVERSARIAL_ANSWERS)
@pytest.mark.parametrize("schema", [{"type": "object"}, {"type": "array"}, None], ids=["object", "array", "any"])
def test_the_json_reader_looks_at_each_character_a_bounded_number_of_times(answer, schema, counted):
    with pytest.raises(UnusableAnswer):
        parse_json_answer(answer, schema)
    assert counted() <= 2 * SCAN_BUDGET * len(answer)


@pytest.mark.parametrize(
    "answer",
    [
        'Use { and [ freely.\n\n{"facts": []}',  # brackets that never close cost a scan each, within the budget
        'Use {curly} braces: {"facts": []} and "}" alone.',
        '<think>{"facts": ["a draft"]}</think>\n```json\n{"facts": []}\n```',
    ],
)
def test_prose_around_the_value_is_still_read(answer, counted):
    assert parse_json_answer(answer, {"type": "object"}) == {"facts": []}
    assert counted() <= 2 * SCAN_BUDGET * len(answer)


def test_tool_arguments_nested_deeper_than_the_limit_are_refused_before_json_loads(counted):
    with pytest.raises(UnusableAnswer, match="nested more than"):
        read_json_object("[" * 10_000 + "]" * 10_000)
    assert counted() < 100  # the scan stopped at the limit; json.loads never saw it


PATTERN_PROBE = textwrap.dedent("""
    import sys
    from omb_tui.core.compact import validator
    from omb_tui.core.facts import checks
    from omb_tui.core.facts.lines import PERSON, Line
    from omb_tui.core.memory import entries, memory_update
    from omb_tui.core.models import structured
    from omb_tui.core.team import model as team_model
    from omb_tui.core.upkeep import organize, tidy

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
        "entries: a source of spaces": lambda: entries.parse_entries("- 2026-01-01 · learned by x" + spaces + "y · f"),
        "entries: markers": lambda: entries.parse_entries("- fact" + " · until" * (N // 8) + "\\n"),
        "entries: a fence": lambda: entries.parse_entries("`" * N + "\\n"),
        "entries: a thematic break": lambda: entries.parse_entries("-" + spaces + "x\\n"),
        "entries: health words": lambda: entries.is_health_or_safety("does " * (N // 5)),
        "same fact": lambda: memory_update.same_fact("a " * (N // 2), "a " * (N // 2) + "x"),
        "team note keys": lambda: team_model.NOTE_KEY.match("a/" * (N // 2) + "A"),
        "organize YAML words": lambda: organize._PLAIN_YAML.fullmatch("a" * N + "!"),
        "tidy words": lambda: tidy._WORD.findall("a " * (N // 2)),
        "compact keep list": lambda: validator.keep_lines("- " + spaces + "\\n"),
        "compact answer": lambda: validator.read_changes('{"changes": [' + '{"a": "' * (N // 7)),
        "text check": lambda: structured.text_problem("a" * N + "\\x1b"),
    }
    for name, probe in probes.items():
        probe()
        print(name, flush=True)
""")


def run_probes(probe: str, size: int, deadline_s: int) -> list[str]:
    """The names of the probes that finished, run in a child process; fails naming the last one that did when the
    deadline passes first."""
    try:
        return subprocess.run(
            [sys.executable, "-c", probe, str(size)], capture_output=True, text=True, timeout=deadline_s, check=True
        ).stdout.splitlines()
    except subprocess.TimeoutExpired as stuck:
        finished = (stuck.stdout or b"").decode().splitlines()
        pytest.fail(f"a probe did not finish within {deadline_s} s; the last to finish: {finished[-1:]}")


def test_every_pattern_run_on_model_text_finishes_on_adversarial_input():
    assert len(run_probes(PATTERN_PROBE, PATTERN_SIZE, DEADLINE_S)) == 22


# Credential redaction runs on every text written (a model's answer too). Each of its rules is probed alone, on
# a text that repeats its literal gate (the input that makes a rule which reads to the end of a run from every
# occurrence quadratic), and on runs of token characters after it. 100,000 characters: all of them together take
# about 25 s of CPU when linear; a quadratic rule needs some 10¹⁰ steps on such an input (those this replaced took 4-30 s
# at 20,000 characters, 25 times as long at this size), so the deadline separates the two.
REDACTION_SIZE = 100_000
REDACTION_DEADLINE_S = 300
REDACTION_PROBE = textwrap.dedent("""
    import sys
    from omb_tui.core.redaction import assignments as redact_assignments, pasted as redact_pasted
    from omb_tui.core.redaction import tokens as redact_tokens, vendors as redact_vendors
    from omb_tui.core.redaction.redact import redact

    N = int(sys.argv[1])

    def fill(piece):
        return (piece * (N // len(piece) + 1))[:N]

    probes = {}
    for row in redact_vendors.VENDOR_PREFIXES:
        for text in (fill(row.prefix), fill(row.prefix + "aB3" * 40 + "!")):
            probes[f"vendor {row.prefix} {len(probes)}"] = lambda t=text, r=row: list(redact_vendors._row_spans(t, r))
    library = [rule for i in range(len(redact_tokens._LIBRARY_SPECS)) for rule in redact_tokens._library_rules(i)]
    gates = [gate for spec in redact_tokens._LIBRARY_SPECS for gate in spec.gates if isinstance(gate, str)]
    for rule in redact_tokens._OWN_RULES:
        for gate in rule.gates:
            if isinstance(gate, str):
                text = fill(gate)
                probes[f"token rule {gate} {len(probes)}"] = lambda t=text, r=rule: list(r.spans(t, t.lower()))
    for gate in gates:
        text = fill(gate)
        probes[f"library rules {gate}"] = lambda t=text: [list(r.spans(t, t.lower())) for r in library]
    for piece in [
        "authorization: ", "Authorization: Digest a=", "'Authorization: Basic ", "authorization: x ", "<password>",
        "<a", "--password ", "--token ", "docker login ", "docker login -p", "_auth=", "a_key=", "aKey: ", "token=",
        "password=", "password: ", "jdbc:oracle:thin:a/", "sqlplus a/", '"github-oauth": {"', "npm config set ",
        "cargo login ", "curl ", "sshpass ", "mysql ", "cookie: ", "cookie: a;", "private key ", "://", "://a:",
        "passwort ist ", "machine a login b password ", "the password is ", "key ", " · ", "~~", "|", "a:1:b:c:",
        "my passphrase is a ", "api key is ", "pass ", "secret: a ",
    ]:
        text = fill(piece)
        probes[f"assignments {piece!r}"] = lambda t=text: list(redact_assignments.assignment_spans(t, t.lower()))
        probes[f"pasted {piece!r}"] = lambda t=text: list(redact_pasted.pasted_spans(t, t.lower()))
    mixed = fill("Authorization: Digest a=1, token=ab12 ghp_x\u200b passphrase is b AKIA ")
    probes["the whole redaction, mixed"] = lambda: redact(mixed[: N // 4])
    for name, probe in probes.items():
        probe()
        print(name, flush=True)
    print("done", len(probes), flush=True)
""")


def test_every_redaction_rule_finishes_on_adversarial_input():
    done = run_probes(REDACTION_PROBE, REDACTION_SIZE, REDACTION_DEADLINE_S)
    assert done[-1].startswith("done ") and int(done[-1].split()[1]) > 200
