"""A full disk and a read-only home: a change is made whole (journaled with its earlier text, then the file replaced)
or not at all, and the person reads one sentence.

Spec: memory.md, "Where it lives" (atomic writes) and "The journal" (every change a row that undo can take back).
In process, every call that changes a file during `forget`, `remember`, a library write and `undo` is made to fail
in turn (tests/support/disk_faults.py): a write that half lands and then meets a full disk, an fsync, the rename; after
each, the memory files are as they were or the change is journaled whole with its earlier text (and undo takes it
back), no journal row is cut mid-line, and a failed command printed one sentence and exited non-zero. Then the same
commands on a real small tmpfs filled to the last byte, and remounted read-only, where the kernel allows it (user
namespaces): `--disk-fills N` fills (CI: 12; the full run: 200).
"""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest
from support.disk_faults import DiskFaults
from support.home import omb_tui_command

from omb_tui.cli import main
from omb_tui.core.files.disk import text_hash
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_OUTSIDE, WHO_PERSON
from omb_tui.core.memory.budget import MEMORY_MAX_LINES
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.turn.bot import Bot

BOT = "scout"
FOOD = "memory/food.md"


def full_memory() -> str:
    start = date(2026, 1, 1)
    notes = [f"- {(start + timedelta(days=i)).isoformat()} · fact number {i}\n" for i in range(MEMORY_MAX_LINES - 2)]
    return "# Memory\n" + "".join(notes) + "- 2026-09-01 · drinks coffee black\n"


def make_home(root: Path) -> Home:
    home = Home(root)
    workspace = home.workspace(BOT)
    (workspace / "memory").mkdir(parents=True)
    save_bot_settings(home, BotSettings(id=BOT, name="Scout"))
    (workspace / "MEMORY.md").write_text(full_memory())
    (workspace / FOOD).write_text("# Food\n\n- 2026-08-01 · coffee at nine, never after four\n- 2026-08-02 · tea\n")
    home.about_me_path.write_text("# About me\n\n- 2026-07-01 · likes coffee\n")
    Bot(home, BOT).look()
    store = MemoryStore(home, BOT)
    store.write(FOOD, store.read(FOOD).text + "- 2026-08-03 · no sugar\n", Actor(WHO_PERSON, "in a test"))
    return home


def files_of(home: Home) -> dict[str, bytes]:
    """Every file a person's memory is: the workspace, About me and the forgotten words."""
    out = {}
    for path in sorted(home.workspace(BOT).rglob("*")):
        if path.is_file():
            out[path.relative_to(home.root).as_posix()] = path.read_bytes()
    for path in (home.about_me_path, home.root / "profile-learned.json"):
        if path.exists():
            out[path.name] = path.read_bytes()
    return out


def journal_lines(home: Home) -> list[dict]:
    """The journal's rows; every line whole: the file ends with a newline and each line is a JSON object."""
    path = home.journal_path(BOT)
    if not path.exists():
        return []
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), f"the journal ends mid-line: {data[-80:]!r}"
    return [json.loads(line) for line in data.splitlines()]


def cli(home: Home, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--home", str(home.root), *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_sentence_saying_nothing_changed(code: int, err: str, what: str) -> None:
    assert code != 0, what
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"{what}: {err!r}"
    assert lines[0].startswith("omb-tui: The disk is full: "), f"{what}: {err!r}"
    assert "nothing was changed" in lines[0], f"{what}: {err!r}"


def check_whole_or_untouched(
    home: Home, capsys, before: dict[str, bytes], rows_before: int, code: int, err: str, what: str
):
    """After one faulted command: untouched with one sentence, or done and journaled whole; then the next look finds
    no change made outside the app, and undo takes every journaled change back."""
    after, rows = files_of(home), journal_lines(home)
    if code != 0:
        assert after == before, f"{what}: a file changed although the command failed"
        assert len(rows) == rows_before, f"{what}: the journal claims a change that was not made"
        assert_one_sentence_saying_nothing_changed(code, err, what)
    else:
        new_rows = rows[rows_before:]
        for name, data in after.items():
            if name.startswith("workspaces/") and before.get(name) != data:
                rel = name.split("/", 2)[2]
                journaled = [r for r in new_rows if r["file"] == rel]
                assert journaled, f"{what}: {rel} changed with no journal row"
                row = journaled[-1]
                assert row["after_hash"] == text_hash(data.decode()), what
                assert row["undoable"], f"{what}: {row['not_undoable_reason']}"
    code, out, err = cli(home, capsys, "journal", BOT, "--json")  # the next look, with the disk well again
    assert code == 0, err
    rows_now = journal_lines(home)
    assert not [r for r in rows_now if r["how"] == HOW_OUTSIDE], f"{what}: the next look found a change nobody saw"
    for row in reversed(rows_now[rows_before:]):  # newest first: each takes back one change
        code, out, err = cli(home, capsys, "undo", BOT, row["id"])
        assert code == 0, f"{what}: undo of {row['file']}: {err}"
    assert {k: v for k, v in files_of(home).items() if k != "profile-learned.json"} == {
        k: v for k, v in before.items() if k != "profile-learned.json"
    }, f"{what}: undo did not bring the files back"


COMMANDS = {
    "forget": ("forget", BOT, "coffee"),
    "remember": ("remember", BOT, "takes the 8:15 train on Mondays"),
    "prefer": ("prefer", BOT, "answers in short paragraphs"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_cut_at_every_moment_by_a_full_disk_is_whole_or_untouched(command, tmp_path, monkeypatch, capsys):
    prepared = make_home(tmp_path / "prepared")
    root = tmp_path / "home"
    faults = DiskFaults(root, monkeypatch)
    shutil.copytree(prepared.root, root)
    home = Home(root)
    faults.arm(None)
    code, _, err = cli(home, capsys, *COMMANDS[command])
    assert code == 0, err
    moments = faults.moments()
    assert len(moments) > 10, moments  # the counted run wrote the journal, the files and the seen-state
    failures = 0
    for moment in moments:
        shutil.rmtree(root)
        shutil.copytree(prepared.root, root)
        before, rows_before = files_of(home), len(journal_lines(home))
        faults.arm(moment)
        code, _, err = cli(home, capsys, *COMMANDS[command])
        faults.arm(None)
        failures += code != 0
        check_whole_or_untouched(home, capsys, before, rows_before, code, err, f"{command}, {moment}")
    assert failures > 0  # the faults reached the writes that matter
    print(f"\n{command}: cut at {len(moments)} moments; {failures} refused, {len(moments) - failures} made whole")


def test_a_library_write_on_a_full_disk_raises_one_sentence_and_changes_nothing(tmp_path, monkeypatch):
    home = make_home(tmp_path / "home")
    faults = DiskFaults(home.root, monkeypatch)
    store = MemoryStore(home, BOT)
    store.write(FOOD, "# Food\n\n- tea only\n", Actor(WHO_PERSON, "test"))
    moments = faults.moments()
    for moment in moments:
        before, rows_before = files_of(home), len(journal_lines(home))
        faults.arm(moment)
        try:
            result = MemoryStore(home, BOT).write(FOOD, f"# Food\n\n- {moment}\n", Actor(WHO_PERSON, "test"))
        except OSError as exc:
            faults.arm(None)
            from omb_tui.core.base.errors import oserror_sentence

            sentence = oserror_sentence(exc)
            assert sentence.startswith("The disk is full: ") and "nothing was changed" in sentence, sentence
            assert files_of(home) == before, moment
            assert len(journal_lines(home)) == rows_before, moment
            continue
        faults.arm(None)
        assert result.journaled and result.row_id is not None, moment
        row = MemoryStore(home, BOT).journal.find(result.row_id)
        assert row is not None and row.undoable and row.before_text is not None, moment


@pytest.mark.parametrize("refusal", [errno.EROFS, errno.EACCES])
def test_a_read_only_home_refuses_forget_and_remember_in_one_sentence(refusal, tmp_path, monkeypatch, capsys):
    home = make_home(tmp_path / "home")
    faults = DiskFaults(home.root, monkeypatch)
    before, journal = files_of(home), home.journal_path(BOT).read_bytes()
    faults.read_only = refusal
    for argv in COMMANDS.values():
        code, out, err = cli(home, capsys, *argv)
        assert code != 0 and "Traceback" not in err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "nothing was changed" in lines[0], err
        assert ("read-only" if refusal == errno.EROFS else "Permission denied") in lines[0]
    faults.read_only = None
    assert files_of(home) == before
    assert home.journal_path(BOT).read_bytes() == journal


def test_a_torn_last_row_is_skipped_by_readers_and_repaired_by_the_next_append(tmp_path, capsys):
    home = make_home(tmp_path / "home")
    journal = home.journal_path(BOT)
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'{"id":"torn-row","at":"2026-')  # a writer stopped mid-append
    code, out, err = cli(home, capsys, "journal", BOT, "--json")
    assert code == 0
    code, out, err = cli(home, capsys, "remember", BOT, "a note after the torn row")
    assert code == 0, err
    rows = journal_lines(home)  # every line whole
    assert journal.read_bytes().startswith(whole)
    assert "a note after the torn row" in rows[-1]["diff"]


# ----- search: its index cannot grow -----


def test_search_on_a_full_disk_answers_from_the_index_it_has_and_says_so_once(tmp_path, capsys):
    from omb_tui.core.index.recall_index import open_index

    home = make_home(tmp_path / "home")
    code, out, err = cli(home, capsys, "search", BOT, "coffee", "--json")
    assert code == 0, err
    before = json.loads(out)["hits"]
    assert before
    assert cli(home, capsys, "remember", BOT, "coffee beans from Kenya")[0] == 0
    index = open_index(home, BOT)
    index.connection.db.execute("PRAGMA max_page_count=1")  # the index cannot grow by a page: SQLite's full disk
    code, out, err = cli(home, capsys, "search", BOT, "coffee", "--json")
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["hits"] == before  # what the index held, without the note it could not take in
    assert json.loads(out)["index_not_updated"].startswith("The disk is full: ")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("omb-tui: The disk is full: the search index"), err
    assert index.connection.path.exists()  # kept: a full disk is not a damaged index
    index.connection.db.execute("PRAGMA max_page_count=1073741823")
    code, out, err = cli(home, capsys, "search", BOT, "Kenya")
    assert code == 0 and "coffee beans from Kenya" in out and err == ""


def test_search_on_a_full_disk_with_no_index_yet_is_one_sentence(tmp_path, capsys, monkeypatch):
    import sqlite3

    home = make_home(tmp_path / "home")
    real_connect = sqlite3.connect

    def connect_to_a_full_disk(*args, **kwargs):
        db = real_connect(*args, **kwargs)
        db.execute("PRAGMA max_page_count=1")
        return db

    monkeypatch.setattr(sqlite3, "connect", connect_to_a_full_disk)
    code, out, err = cli(home, capsys, "search", BOT, "coffee")
    assert code != 0 and "Traceback" not in err and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("omb-tui: The disk is full: "), err


# ----- a real small tmpfs, filled to a random byte, then remounted read-only -----

DRIVER = r"""
import hashlib, json, os, random, subprocess, sys
from pathlib import Path

from omb_tui.core.journal.changes import Actor
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.turn.bot import Bot

mount, command, fills, seed, memory_text = Path(sys.argv[1]), json.loads(sys.argv[2]), *map(int, sys.argv[3:5]), sys.argv[5]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
home = Home(mount / "home")
bot = "scout"
workspace = home.workspace(bot)
(workspace / "memory").mkdir(parents=True)
save_bot_settings(home, BotSettings(id=bot, name="Scout"))
(workspace / "MEMORY.md").write_text(memory_text)
(workspace / "memory/food.md").write_text("# Food\n\n- 2026-08-01 · coffee at nine\n")
Bot(home, bot).look()
MemoryStore(home, bot).write("memory/food.md", "# Food\n\n- 2026-08-01 · coffee at nine\n- tea\n", Actor("person", "set-up"))
filler = mount / "filler"
rng = random.Random(seed)
figures = {"runs": 0, "refused": 0, "made": 0, "outside_rows": 0, "undone": 0, "search_answered": 0,
           "search_one_sentence": 0, "read_only_refused": 0}
problems = []


def files():
    out = {p.relative_to(home.root).as_posix(): p.read_bytes() for p in sorted(workspace.rglob("*")) if p.is_file()}
    learned = home.root / "profile-learned.json"
    if learned.exists():
        out["profile-learned.json"] = learned.read_bytes()
    return out


def journal():
    path = home.journal_path(bot)
    data = path.read_bytes() if path.exists() else b""
    if data and not data.endswith(b"\n"):
        problems.append(f"the journal ends mid-row: {data[-60:]!r}")
    return data, [json.loads(line) for line in data.splitlines() if line.strip()]


def run(*argv):
    proc = subprocess.run([*command, "--home", str(home.root), *argv], capture_output=True, text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    if "Traceback" in proc.stderr or len(lines) > 1:
        problems.append(f"{argv[0]}: {proc.stderr[-300:]!r}")
    return proc.returncode, lines


def fill(left):
    filler.unlink(missing_ok=True)
    info = os.statvfs(mount)
    size = info.f_bavail * info.f_frsize - left
    if size > 0:
        with open(filler, "wb") as handle:
            try:
                handle.write(b"\0" * size)
            except OSError:
                pass


run("search", bot, "coffee")  # the index, built with room to spare
remembered = []
for number in range(fills):
    op = ("remember", "forget", "search")[number % 3]
    if op == "remember":
        argv = ("remember", bot, f"fillnote{number:04d} takes the early train")
    elif op == "forget":
        argv = ("forget", bot, remembered.pop(rng.randrange(len(remembered))) if remembered else "coffee")
    else:
        argv = ("search", bot, "train")
    fill(rng.randrange(0, 48_000))
    before, (journal_before, rows_before) = files(), journal()
    code, lines = run(*argv)
    after, (journal_after, rows_after) = files(), journal()
    figures["runs"] += 1
    if op == "search":
        figures["search_answered" if code == 0 else "search_one_sentence"] += 1
        if code and not (lines and lines[0].startswith("omb-tui: The disk is full")):
            problems.append(f"search: {lines}")
    elif code:
        figures["refused"] += 1
        if not (len(lines) == 1 and "nothing was changed" in lines[0]):
            problems.append(f"{op}: {lines}")
        if after != before or journal_after != journal_before:
            problems.append(f"{op} failed yet changed {sorted(k for k in after if after.get(k) != before.get(k))}")
    else:
        figures["made"] += 1
        if op == "remember":
            remembered.append(f"fillnote{number:04d}")
        new_rows = rows_after[len(rows_before):]
        for name, data in after.items():
            if name.startswith("workspaces/") and before.get(name) != data:
                rel = name.split("/", 2)[2]
                mine = [r for r in new_rows if r["file"] == rel]
                if not mine or mine[-1]["after_hash"] != hashlib.sha256(data).hexdigest() or not mine[-1]["undoable"]:
                    problems.append(f"{op}: {rel} changed without a whole, undoable row")
    filler.unlink(missing_ok=True)
    count = len(journal()[1])
    run("journal", bot, "--json")  # the next look, with room again
    figures["outside_rows"] += sum(r["how"] == "changed outside the app" for r in journal()[1][count:])
    if op == "forget" and code == 0 and rows_after[len(rows_before):]:
        for row in reversed(rows_after[len(rows_before):]):
            undo_code, undo_lines = run("undo", bot, row["id"])
            if undo_code:
                problems.append(f"undo of a forget: {undo_lines}")
        if {k: v for k, v in files().items() if k != "profile-learned.json"} != {
            k: v for k, v in before.items() if k != "profile-learned.json"
        }:
            problems.append("undo did not bring a forget back")
        figures["undone"] += 1

subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
before, (journal_before, _) = files(), journal()
for argv in (("remember", bot, "a note on a read-only home"), ("forget", bot, "coffee")):
    code, lines = run(*argv)
    if code and len(lines) == 1 and "read-only" in lines[0] and "nothing was changed" in lines[0]:
        figures["read_only_refused"] += 1
    else:
        problems.append(f"read-only {argv[0]}: {code} {lines}")
code, lines = run("search", bot, "train")
if code not in (0, 1):
    problems.append(f"read-only search: {code} {lines}")
if files() != before or journal()[0] != journal_before:
    problems.append("the read-only home changed")
print(json.dumps({"figures": figures, "problems": problems}))
"""


def tmpfs_refusal(tmp_path: Path) -> str | None:
    """Why a small tmpfs cannot be mounted here (no unshare, user namespaces off, mount refused); None when it can."""
    if shutil.which("unshare") is None:
        return "unshare is not installed"
    probe = tmp_path / "probe"
    probe.mkdir()
    tried = subprocess.run(
        ["unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
        capture_output=True,
        text=True,
    )
    if tried.returncode:
        return f"the kernel refuses a tmpfs in a user namespace here: {tried.stderr.strip()[:200]}"
    return None


def test_a_real_tmpfs_filled_to_a_random_byte_and_then_read_only_loses_nothing(tmp_path, request):
    refusal = tmpfs_refusal(tmp_path)
    if refusal is not None:
        pytest.skip(refusal)
    fills = request.config.getoption("--disk-fills")
    mount = tmp_path / "mnt"
    mount.mkdir()
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    proc = subprocess.run(
        ["unshare", "-rm", sys.executable, str(script), str(mount), json.dumps(omb_tui_command()), str(fills)]
        + ["20261204", full_memory()],
        capture_output=True,
        text=True,
        timeout=60 + 20 * fills,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    figures = report["figures"]
    assert report["problems"] == [], "\n".join(report["problems"])
    assert figures["outside_rows"] == 0  # every change was journaled by its own command
    assert figures["refused"] > 0 and figures["made"] > 0  # the fills met the writes on both sides
    assert figures["read_only_refused"] == 2
    print(f"\n{fills} fills of a 4 MB tmpfs: {figures}")
