"""A writer killed mid-write, many times: every file whole, and no line lost between MEMORY.md and the archive.

Spec: memory.md, "Where it lives" (atomic writes: a crash mid-write leaves the old file, never a torn one) and
"What loads, and the budget" (the archive is written before MEMORY.md, so a line is never out of one without
already being in the other). A writer subprocess loops memory_update add with numbered facts and prints each
number after add returns; the test kills it with SIGKILL at seeded random moments and checks after each kill.
MEMORY.md starts at its 200-line budget, so nearly every add moves an entry to the archive.

Moving is made idempotent: a note the archive already holds is not appended again, and the next write
finishes a move a kill interrupted, so no note is ever twice in the archive and, once a writer has run again,
none is in both files. CI runs 40 kills; `pytest tests/stress/test_crash_safety.py --kills 500 -s` is the full run,
which prints its figures (docs/performance.md, "Reliability").
"""

from __future__ import annotations

import json
import random
import re
import select
import signal
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import pytest

from omb_tui.core.files.disk import text_hash
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import Journal
from omb_tui.core.memory.budget import MEMORY_MAX_LINES
from omb_tui.core.memory.entries import parse_entries
from omb_tui.core.turn.bot import Bot

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

BOT = "crash"
SEED = 20260930
FACT = "crash fact {:05d} noted for the kill test"
DAY = r"\d{4}-\d{2}-\d{2}"
MOVED = rf" · moved {DAY}"
FACT_LINE = re.compile(rf"- {DAY} · crash fact (\d{{5}}) noted for the kill test({MOVED})?\n\Z")
SEED_LINE = re.compile(rf"- {DAY} · seed fact (\d{{3}})({MOVED})?\n\Z")
NEVER_MOVE = ["# Memory\n", "- hand-written: answer in short paragraphs\n", "- 2025-01-01 · allergic to peanuts\n"]
SEEDS = 196  # with NEVER_MOVE: 199 lines, so the second add already overflows

WRITER = """\
import sys
from omb_tui.core.memory.memory_update import MemoryUpdate
from omb_tui.core.files.paths import Home

update = MemoryUpdate(Home(sys.argv[1]), {bot!r})
for number in range(int(sys.argv[2]), int(sys.argv[3])):
    update.add({fact!r}.format(number))
    sys.stdout.write(f"{{number}}\\n")
    sys.stdout.flush()
"""


def seed_memory(home: Home) -> list[str]:
    start = date(2025, 1, 2)
    seeds = [f"- {(start + timedelta(days=i)).isoformat()} · seed fact {i:03d}\n" for i in range(SEEDS)]
    workspace = home.workspace(BOT)
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("".join(NEVER_MOVE + seeds), encoding="utf-8")
    Bot(home, BOT).look()
    return seeds


def read_whole_lines(path: Path) -> list[str]:
    """The file's lines; it must be valid UTF-8 and end with a newline (no torn last line)."""
    if not path.exists():
        return []
    text = path.read_bytes().decode("utf-8")  # a torn multi-byte character fails here
    assert text == "" or text.endswith("\n"), f"{path.name} ends mid-line: {text[-80:]!r}"
    assert [e.raw for e in parse_entries(text)] == text.splitlines(keepends=True)  # one line per entry
    return text.splitlines(keepends=True)


class Checker:
    """What must hold after every kill; remembers every fact it has ever seen on disk."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.workspace = home.workspace(BOT)
        self.ever_seen: set[str] = set()
        self.last_row_start = 0
        self.last_row = b""
        self.rows_taken_back = 0

    def facts(self) -> tuple[list[str], list[str]]:
        memory = read_whole_lines(self.workspace / "MEMORY.md")
        archive = read_whole_lines(self.workspace / "memory" / "archive.md")
        for line in memory:
            assert line in NEVER_MOVE or FACT_LINE.match(line) or SEED_LINE.match(line), f"torn line {line!r}"
            assert " · moved " not in line, f"a moved line is still in MEMORY.md: {line!r}"
        for line in archive:
            assert FACT_LINE.match(line) or SEED_LINE.match(line), f"torn archive line {line!r}"
            assert " · moved " in line, f"an archive line without its moved date: {line!r}"
        return memory, archive

    def check(self, reported: set[int], asked_below: int) -> tuple[int, int]:
        memory, archive = self.facts()
        archived = [_key(line) for line in archive]
        assert len(set(archived)) == len(archived), "a note is twice in the archive"
        self.in_both = len({_key(line) for line in memory} & set(archived))
        assert memory[: len(NEVER_MOVE)] == NEVER_MOVE, "a line that never moves has moved"
        assert len(memory) <= MEMORY_MAX_LINES
        assert len(set(memory)) == len(memory), "a line is twice in MEMORY.md"
        present = {_key(line) for line in memory + archive}
        for number in reported:
            assert f"crash {number}" in present, f"fact {number} was reported added but is in neither file"
        for key in present:
            if key.startswith("crash "):
                assert int(key.split()[1]) < asked_below, f"{key} was never asked for"
        lost = self.ever_seen - present
        assert not lost, f"lines lost between MEMORY.md and the archive: {sorted(lost)[:5]}"
        self.ever_seen |= present
        self.check_bookkeeping()
        return len(memory), len(archive)

    def check_bookkeeping(self) -> None:
        """New journal lines are whole JSON rows; the seen state parses; temp files are never memory files."""
        journal = self.home.journal_path(BOT)
        with open(journal, "rb") as handle:
            handle.seek(self.last_row_start)  # the newest row read last time: a kill may have left it unfinished
            added = handle.read()
        taken_back = not added.startswith(self.last_row)  # its change never happened: the next look took it back
        self.rows_taken_back += taken_back
        start = self.last_row_start if taken_back else self.last_row_start + len(self.last_row)
        new = added if taken_back else added[len(self.last_row) :]
        *whole, tail = new.split(b"\n")
        for raw in whole:
            if raw.strip():
                json.loads(raw)
        assert not tail, f"the journal ends mid-row: {tail[-80:]!r}"  # appended whole or not at all
        if new:
            self.last_row = whole[-1] + b"\n"
            self.last_row_start = start + len(new) - len(self.last_row)
        elif taken_back:
            self.last_row, self.last_row_start = b"", start
        json.loads(self.home.journal_state_path(BOT).read_text())
        rels = {mp.rel for mp in self.home.memory_files(BOT)}
        assert rels <= {"MEMORY.md", "memory/archive.md"}, rels
        assert self.home.topic_paths(BOT) == []


def _key(line: str) -> str:
    match = FACT_LINE.match(line) or SEED_LINE.match(line)
    if match is None:
        return line
    kind = "crash" if line.split(" · ")[1].startswith("crash") else "seed"
    return f"{kind} {int(match.group(1))}"


def numbers_in(data: bytes) -> list[int]:
    """Complete lines only: a number is reported once its newline is out."""
    return [int(line) for line in data.split(b"\n")[:-1] if line.strip()]


def test_killed_writer_never_tears_a_file_or_loses_a_line(tmp_path, request):
    kills = request.config.getoption("--kills")
    home = Home(tmp_path / "home")
    seeds = seed_memory(home)
    workspace = home.workspace(BOT)
    # Leftovers of an earlier crash: temp files must never be read as memory files.
    (workspace / ".MEMORY.md.planted.tmp").write_text("- 2025-01-01 · half a li")
    (workspace / "memory" / ".archive.md.planted.tmp").write_text("- torn")
    Bot(home, BOT).look()
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(bot=BOT, fact=FACT))
    rng = random.Random(SEED)
    checker = Checker(home)
    checker.ever_seen = {f"seed {i}" for i in range(len(seeds))}
    reported: set[int] = set()
    next_number = 0
    kills_mid_run = 0
    most_in_both = 0
    for kill in range(kills):
        err_path = tmp_path / f"writer-{kill}.err"
        with open(err_path, "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, str(script), str(home.root), str(next_number), str(next_number + 100_000)],
                stdout=subprocess.PIPE,
                stderr=err,
            )
        try:
            # Wait (as a hang guard, not a timing check) for the first add, so every kill lands mid-loop.
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            assert ready, "the writer never finished its first add"
            first = proc.stdout.readline()
            assert first.endswith(b"\n"), f"the writer died: {err_path.read_text()}"
            time.sleep(rng.choice([0.0, rng.uniform(0, 0.02), rng.uniform(0, 0.25)]))
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.kill()
            rest = proc.stdout.read()
            proc.stdout.close()
            proc.wait()
        if proc.returncode == -signal.SIGKILL:
            kills_mid_run += 1
        done = numbers_in(first + rest)
        assert done == list(range(next_number, next_number + len(done))), "the writer skipped a number"
        reported.update(done)
        # The add in flight when the kill came may or may not have landed; it is asked for either way.
        next_number += len(done) + 1
        checker.check(reported, next_number)
        most_in_both = max(most_in_both, checker.in_both)
        if kill == 0:  # the first writer under the lock cleared the temp files of dead writers
            assert not (workspace / ".MEMORY.md.planted.tmp").exists()
            assert not (workspace / "memory" / ".archive.md.planted.tmp").exists()
    assert kills_mid_run == kills

    # A writer that is left alone afterwards still works, and everything is still there.
    finish = subprocess.run(
        [sys.executable, str(script), str(home.root), str(next_number), str(next_number + 3)],
        capture_output=True,
        timeout=120,
    )
    assert finish.returncode == 0, finish.stderr.decode()
    reported.update(numbers_in(finish.stdout))
    memory_lines, archive_lines = checker.check(reported, next_number + 3)
    assert memory_lines == MEMORY_MAX_LINES
    assert archive_lines >= len(reported) - MEMORY_MAX_LINES  # entries really did move, on most adds
    assert checker.in_both == 0, "an interrupted move was not finished by the next write"
    leftovers = [p.name for p in workspace.rglob("*.tmp")]
    rows = list(reversed(Journal(home.journal_path(BOT)).rows()))
    assert rows, "the journal cannot be read after the kills"
    for rel in ("MEMORY.md", "memory/archive.md"):  # each row a change that was made, none missing between
        chain = [r for r in rows if r.file == rel]
        for earlier, later in zip(chain, chain[1:], strict=False):
            assert later.before_hash == earlier.after_hash, f"{rel}: row {later.id} follows no row that was made"
        assert chain[-1].after_hash == text_hash((workspace / rel).read_text()), f"{rel}: its newest row was not made"
    print(
        f"\n{kills} kills, {len(reported)} notes acknowledged: 0 torn files, 0 lost, 0 twice in the archive, "
        f"at most {most_in_both} in both files between a kill and the next write, 0 after it; "
        f"{len(leftovers)} temp files left; {checker.rows_taken_back} journal rows of changes a kill stopped "
        f"before the rename, taken back by the next look; every row of MEMORY.md follows the one before it"
    )
    prompt = Bot(home, BOT).prompt()
    assert "planted" not in prompt and "half a li" not in prompt and "- torn" not in prompt
