"""A restore killed at every moment: the bot is wholly there or wholly absent (or wholly as it was, for
`--replace`), never half, and a plain retry completes it.

Spec: memory.md, "Where it lives" (a crash mid-write leaves the old file, never a torn one), for a restore as a
whole (docs/backup.md, "Whole or not at all"). A child process restores a 45-file bot (a person's layer of it
among them: it comes back with its bot, whole or absent with it) and SIGKILLs itself at its
Nth step (a rename, an fsync, a folder made or removed, a file deleted): the moments are counted, not timed, so
each run kills at the same places on a quiet machine and a loaded one. After each kill `omb-tui bots` runs (every
start finishes or removes a stopped restore) and the bot's files are compared with a whole restore's.

CI kills at 24 moments spread over the restore; `OMB_RESTORE_KILLS=all` kills at every moment (the full run,
docs/performance.md, "Reliability"), and a number picks that many.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from omb_tui.core.backup.archive import read_backup, take_backup
from omb_tui.core.files.paths import Home, layer_id
from omb_tui.core.journal.changes import Actor
from omb_tui.core.memory.store import MemoryStore

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

BOT = "scout"
KILLS = os.environ.get("OMB_RESTORE_KILLS", "24")
CHILD = """\
import os, signal, sys
from omb_tui.cli import main

kill_at, moments = int(sys.argv[1]), 0

def step(function):
    def counted(*args, **kwargs):
        global moments
        moments += 1
        if moments == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return function(*args, **kwargs)
    return counted

for name in ("replace", "rename", "unlink", "mkdir", "rmdir", "fsync"):
    setattr(os, name, step(getattr(os, name)))
code = main(sys.argv[3:])
with open(sys.argv[2], "w") as out:
    out.write(str(moments))
sys.exit(code)
"""
PERSON = Actor("person", "edited in the test")
LAYER = layer_id(BOT, "dana")
VOLATILE = re.compile(rf"^memory-journal/{BOT}(--member-dana)?\.(lock|seen\.json|seen/.*|ndjson|replaced-.*\.ndjson)$")


def make_scout(home: Home, version: str) -> None:
    """Scout with 45 files a backup holds: memory files, instructions, settings, journal, chats, compaction's, and
    dana's layer of it (two memory files and its journal)."""
    workspace = home.workspace(BOT)
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    home.bots_dir.mkdir(parents=True, exist_ok=True)
    home.settings_path(BOT).write_text(json.dumps({"name": f"Scout {version}"}))
    (workspace / "MEMORY.md").write_text(f"# Memory\n\n- 2026-01-05 · {version}: lives in Pune\n")
    (workspace / "INSTRUCTIONS.md").write_text(f"Answer in two lines ({version}).\n")
    for number in range(17):
        (workspace / "memory" / f"topic-{number:02d}.md").write_text(f"# Topic {number}\n\n- {version} note {number}\n")
    for day in range(1, 11):
        (workspace / "memory" / f"2026-01-{day:02d}.md").write_text(f"- 09:00 · {version} log of day {day}\n")
    store = MemoryStore(home, BOT)
    with store.locked():  # a journal with rows, as a bot in use has
        store.sync_outside_changes()
        store.write("MEMORY.md", f"# Memory\n\n- 2026-01-05 · {version}: lives in Pune, by the river\n", PERSON)
    layer = MemoryStore(home, LAYER)
    with layer.locked():
        layer.write("MEMORY.md", f"# Memory\n\n- {version}: Dana takes her coffee black\n", PERSON)
        layer.write("memory/coffee.md", f"# Coffee\n\n- {version}: Dana's roastery is Blue Tokai\n", PERSON)
    chats = home.root / "conversations" / "chats" / BOT
    chats.mkdir(parents=True, exist_ok=True)
    for number in range(8):
        header = {"type": "header", "id": f"chat-{number}", "title": f"Chat {number}", "members": []}
        (chats / f"chat-{number}.ndjson").write_text(json.dumps(header) + "\n")
    compact = home.root / "compact" / BOT
    (compact / "backup").mkdir(parents=True, exist_ok=True)
    (compact / "memory-clean.log").write_text(f"2026-01-05 03:00:00 +0100 {version} merged\n")
    (compact / "pending.json").write_text("[]\n")
    (compact / "backup" / "2026-01-05_0300_memory.backup.md").write_text(f"- {version} earlier\n")


def scout_files(root: Path) -> dict[str, bytes]:
    """Every file of scout's in the home, by path; the journal and the seen-state by presence only (their rows
    carry the moment they were written)."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or BOT not in rel or rel.startswith(".restore-stage"):
            continue
        if rel.endswith(".lock"):
            continue
        rel = re.sub(r"\.replaced-\d{8}T\d{6}Z\.", ".replaced-STAMP.", rel)  # the moment it was replaced
        found[rel] = b"" if VOLATILE.match(rel) else path.read_bytes()
    return found


def journal_rows(root: Path) -> int:
    path = root / "memory-journal" / f"{BOT}.ndjson"
    return sum(1 for line in path.read_bytes().splitlines() if json.loads(line)) if path.exists() else 0


def run_child(tmp_path: Path, kill_at: int, *argv: str) -> tuple[int, int]:
    """`omb-tui ARGV…` in a child that SIGKILLs itself at its `kill_at`th step (0: never); its status and steps."""
    counted = tmp_path / "moments"
    counted.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(kill_at), str(counted), *argv], capture_output=True, timeout=300
    )
    assert done.returncode in (0, -signal.SIGKILL), done.stderr.decode()
    return done.returncode, int(counted.read_text()) if counted.exists() else kill_at


def moments_to_kill(total: int) -> list[int]:
    if KILLS == "all":
        return list(range(1, total + 1))
    count = min(int(KILLS), total)
    return sorted({1 + round(i * (total - 1) / max(count - 1, 1)) for i in range(count)})


@pytest.mark.parametrize("mode", ["new", "replace"])
def test_a_restore_killed_at_any_moment_leaves_the_bot_whole_or_absent(tmp_path, mode, capsys):
    from omb_tui.cli import main

    source = Home(tmp_path / "source")
    make_scout(source, "backed up")
    backup = tmp_path / "scout.tar"
    take_backup(source, backup)
    start = tmp_path / "start"
    start.mkdir()
    if mode == "replace":
        make_scout(Home(start), "replaced")
    extra = ["--replace"] if mode == "replace" else []
    before = scout_files(start)

    reference = tmp_path / "reference"
    shutil.copytree(start, reference)
    code, total = run_child(tmp_path, 0, "--home", str(reference), "restore", str(backup), *extra)
    assert code == 0
    after = scout_files(reference)
    assert len(read_backup(backup).files) == 45
    assert f"workspaces/{LAYER}/memory/coffee.md" in after
    rows_after = journal_rows(reference)

    outcomes = {"whole": 0, "absent": 0, "as it was": 0, "finished at the start": 0, "removed at the start": 0}
    kills = moments_to_kill(total)
    for moment in kills:
        target = tmp_path / f"kill-{moment}"
        shutil.copytree(start, target)
        code, _ = run_child(tmp_path, moment, "--home", str(target), "restore", str(backup), *extra)
        assert code == -signal.SIGKILL

        capsys.readouterr()
        assert main(["--home", str(target), "bots", "--json"]) == 0  # a start: a stopped restore is dealt with
        said = capsys.readouterr().err
        if "it is finished now" in said:
            outcomes["finished at the start"] += 1
        elif "what it had staged was removed" in said:
            outcomes["removed at the start"] += 1
        assert not (target / ".restore-stage").exists(), f"moment {moment}: the stage is left"
        now = scout_files(target)
        if "it is finished now" in said:
            assert now == after, f"moment {moment}: said finished, but it is not whole"
        if "what it had staged was removed" in said:
            assert now == before, f"moment {moment}: said nothing was put in place, but something was"
        if now == after:
            assert journal_rows(target) == rows_after, f"moment {moment}: the journal is not the whole restore's"
            outcomes["whole"] += 1
        elif now == before:
            outcomes["absent" if mode == "new" else "as it was"] += 1
        else:
            missing = sorted(set(after) - set(now))
            raise AssertionError(f"moment {moment} of {total}: half a bot, {len(missing)} files missing: {missing[:4]}")
        retry = subprocess.run(
            [sys.executable, "-m", "omb_tui.cli", "--home", str(target), "restore", str(backup), *extra],
            capture_output=True,
        )
        if mode == "new" and now == after:
            assert retry.returncode == 2 and b"already has a bot" in retry.stderr
        else:
            assert retry.returncode == 0, retry.stderr.decode()
            assert scout_files(target) == after, f"moment {moment}: the retry did not restore the bot whole"
        shutil.rmtree(target)
    assert outcomes["whole"] and outcomes["absent" if mode == "new" else "as it was"]
    print(f"\nrestore ({mode}), {len(kills)} kills over {total} steps: {outcomes}; never half")
