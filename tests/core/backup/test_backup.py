"""`omb-tui backup` and `omb-tui restore` (docs/backup.md): a round trip that gives back every file byte for byte,
a backup that never holds half a write, refusals that write nothing, and no key or credential in a backup.

Spec: memory.md, "Memory upkeep" ("Upkeep pauses while a backup runs"), "The journal" (an import is a row, undoable)
and "Keeping one bot off the helper" (a restored bot keeps `helperModel`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tarfile
import threading
from pathlib import Path

import pytest
from support.credential_corpus_data import CREDENTIALS

from omb_tui.core.backup import archive, contents
from omb_tui.core.backup.archive import read_backup, take_backup
from omb_tui.core.files.locks import held_exclusively
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.journal import Journal, decode_line
from omb_tui.core.memory.memory_update import MemoryUpdate
from omb_tui.core.memory.settings import load_bot_settings, set_bot_switches
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.review.runs import review
from omb_tui.core.schedule import backup_lock_path, backup_running


def manifest_of(home: Home, tmp_path: Path, name: str) -> dict[str, str]:
    """Every file a full backup of `home` holds, path -> sha256 (a plain backup, read back and checked)."""
    target = tmp_path / f"{name}.tar"
    take_backup(home, target, everything=True)
    opened = read_backup(target)
    return {entry["path"]: entry["sha256"] for entry in opened.manifest.files}


def every_file(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ----- the round trip -----
def test_a_full_backup_restored_into_an_empty_home_gives_every_file_back(todays_demo, tmp_path, run_cli):
    source = todays_demo().copy_to(tmp_path / "source")
    set_bot_switches(source, "harbor", {"helperModel": False})
    before = manifest_of(source, tmp_path, "before")
    backup = tmp_path / "x.tar"
    assert run_cli("--home", str(source.root), "backup", "--all", "--to", str(backup), with_home=False).code == 0
    assert stat.S_IMODE(os.stat(backup).st_mode) == 0o600

    restored = Home(tmp_path / "new-home")  # does not exist yet: restore makes it
    result = run_cli("--home", str(restored.root), "restore", str(backup), with_home=False)
    assert result.code == 0, result.err
    assert "Restored scout:" in result.out

    after = manifest_of(restored, tmp_path, "after")
    assert sorted(after) == sorted(before)
    journals = {p for p in before if p.startswith("memory-journal/") and p.endswith(".ndjson")}
    assert {p for p in before if before[p] != after[p]} == journals  # every other file byte for byte
    for path in journals:  # the journal as it was, then the restore's import rows
        old, new = (source.root / path).read_bytes(), (restored.root / path).read_bytes()
        assert new.startswith(old) and new != old
        added = [decode_line(line) for line in new[len(old) :].splitlines()]
        assert {(row.who, row.how) for row in added} == {("import", "restored from a backup")}
    assert not load_bot_settings(restored, "harbor").helper_model  # a restored bot stays off the helper
    for path in restored.root.rglob("*"):
        if path.is_file():
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path

    # The journal and the review work as before: last night's runs, the same changes.
    def runs(home):
        return [(b.bot, [(r.id, [c.id for c in r.changes]) for r in b.runs]) for b in review(home).bots]

    assert runs(restored) == runs(source)
    assert (
        Journal(restored.journal_path("scout")).rows(limit=500)[-1]
        == Journal(source.journal_path("scout")).rows(limit=500)[-1]
    )


def test_undo_of_a_restored_row_takes_the_file_back(home, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    take_backup(home, backup)
    other = Home(tmp_path / "other")
    assert run_cli("--home", str(other.root), "restore", str(backup), with_home=False).code == 0
    rows = {row.file: row for row in MemoryStore(other, "scout").journal.rows() if row.who == "import"}
    assert set(rows) == {"MEMORY.md", "memory/travel.md", "memory/log/2026-01-05.md"}
    assert run_cli("--home", str(other.root), "undo", "scout", rows["memory/travel.md"].id, with_home=False).code == 0
    assert not (other.workspace("scout") / "memory" / "travel.md").exists()


def test_replace_journals_what_it_replaced_and_undo_puts_it_back(home, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    take_backup(home, backup)
    memory = home.workspace("scout") / "MEMORY.md"
    MemoryUpdate(home, "scout").add("A note made after the backup")
    changed = memory.read_bytes()

    refused = run_cli("restore", str(backup))
    assert refused.code == 2 and "already has a bot 'scout'" in refused.err
    assert memory.read_bytes() == changed  # nothing written

    assert run_cli("restore", str(backup), "--replace").code == 0
    assert b"after the backup" not in memory.read_bytes()
    row = next(r for r in MemoryStore(home, "scout").journal.rows() if r.file == "MEMORY.md")
    assert row.who == "import" and row.undoable
    assert run_cli("undo", "scout", row.id).code == 0
    assert memory.read_bytes() == changed
    assert list(home.journal_dir.glob("scout.replaced-*.ndjson"))  # the journal before the restore is kept
    again = tmp_path / "again.tar"  # and a backup of the home as it is now restores as any other
    take_backup(home, again)
    assert "memory-journal/scout.replaced-" in " ".join(read_backup(again).files)
    assert run_cli("--home", str(tmp_path / "third"), "restore", str(again), with_home=False).code == 0


def test_as_restores_one_bot_beside_itself(home, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    take_backup(home, backup)
    assert run_cli("restore", str(backup), "--as", "scout2").code == 0
    assert every_file(home.workspace("scout2")) == every_file(home.workspace("scout"))
    assert {row.bot for row in MemoryStore(home, "scout2").journal.rows()} == {"scout2"}
    refused = run_cli("restore", str(backup), "--bot", "nobody")
    assert refused.code == 2 and "holds no bot 'nobody'; it holds scout" in refused.err


# ----- never half a write -----
def test_a_backup_taken_while_remember_runs_in_a_loop_holds_no_torn_file(home, tmp_path, monkeypatch):
    notes = [0]  # written so far, under `written`
    written = threading.Condition()
    stop = threading.Event()
    failures: list[BaseException] = []
    landed_while_reading: list[bool] = []
    read_whole = contents._read_whole

    def read_and_give_the_writer_a_chance(path):
        data = read_whole(path)
        if path.name == "MEMORY.md":
            # The writer loops without pause: unless the bot's lock keeps it out, a note lands within this second,
            # between this read and the journal's.
            with written:
                before = notes[0]
                landed_while_reading.append(written.wait_for(lambda: notes[0] > before, timeout=1.0))
        return data

    monkeypatch.setattr(contents, "_read_whole", read_and_give_the_writer_a_chance)

    def remember_in_a_loop() -> None:
        update = MemoryUpdate(home, "scout")
        try:
            while not stop.is_set():
                update.add(f"Loop note number {notes[0] + 1} about the harbour trip")
                with written:
                    notes[0] += 1
                    written.notify_all()
        except BaseException as exc:  # noqa: BLE001 - the test reports it below
            failures.append(exc)

    thread = threading.Thread(target=remember_in_a_loop)
    thread.start()
    try:
        for take in range(3):
            with written:  # at least three more notes before each backup; the writer goes on while it is read
                target_count = notes[0] + 3
                assert written.wait_for(lambda n=target_count: notes[0] >= n or failures, timeout=60)
            target = tmp_path / f"during-{take}.tar"
            take_backup(home, target)
            opened = read_backup(target)
            memory = opened.files["workspaces/scout/MEMORY.md"]
            rows = [decode_line(line) for line in opened.files["memory-journal/scout.ndjson"].splitlines()]
            assert all(not hasattr(row, "error") for row in rows)  # every journal line whole
            newest = [row for row in rows if row.file == "MEMORY.md"][-1]
            assert hashlib.sha256(memory).hexdigest() == newest.after_hash  # the file and its journal agree
            assert memory.endswith(b"\n")
    finally:
        stop.set()
        thread.join(60)
    assert not failures
    assert landed_while_reading == [False, False, False]


def test_the_backup_holds_backup_lock_while_it_reads_so_upkeep_pauses(home, tmp_path, monkeypatch):
    seen = []
    original = archive.collect

    def collect(*args, **kwargs):
        seen.append(backup_running(home))
        return original(*args, **kwargs)

    monkeypatch.setattr(archive, "collect", collect)
    take_backup(home, tmp_path / "x.tar")
    assert seen == [True] and not backup_running(home)


def test_a_second_backup_while_one_runs_is_refused_and_writes_nothing(home, tmp_path, run_cli):
    with held_exclusively(backup_lock_path(home)) as held:
        assert held
        result = run_cli("backup", "--to", str(tmp_path / "x.tar"))
    assert result.code == 2 and "Another backup holds backup.lock" in result.err
    assert not (tmp_path / "x.tar").exists()


# ----- encrypted, damaged, wrong key -----
@pytest.fixture
def identity(tmp_path):
    import pyrage

    key = pyrage.x25519.Identity.generate()
    path = tmp_path / "key.txt"
    path.write_text(f"# created: now\n# public key: {key.to_public()}\n{key}\n")
    return str(key.to_public()), path


def test_a_recipient_backup_restores_with_its_identity_only(home, tmp_path, run_cli, identity):
    public, key_file = identity
    backup = tmp_path / "x.age"
    result = run_cli("backup", "--to", str(backup), "--recipient", public)
    assert result.code == 0 and "encrypted with age" in result.out and result.err == ""
    data = backup.read_bytes()
    assert data.startswith(b"age-encryption.org/v1") and b"Pune" not in data
    other = tmp_path / "other"
    missing = run_cli("--home", str(other), "restore", str(backup), with_home=False)
    assert missing.code == 2 and "is encrypted: give --passphrase" in missing.err
    assert run_cli("--home", str(other), "restore", str(backup), "--identity", str(key_file), with_home=False).code == 0
    assert (other / "workspaces" / "scout" / "MEMORY.md").read_bytes() == (
        home.workspace("scout") / "MEMORY.md"
    ).read_bytes()


def test_a_passphrase_backup_from_the_environment_and_a_wrong_passphrase(home, tmp_path, run_cli, monkeypatch):
    backup = tmp_path / "x.age"
    monkeypatch.setenv("OMB_BACKUP_PASSPHRASE", "correct horse")
    assert run_cli("backup", "--to", str(backup), "--passphrase").code == 0
    monkeypatch.delenv("OMB_BACKUP_PASSPHRASE")
    other = tmp_path / "other"
    wrong = run_cli(
        "--home", str(other), "restore", str(backup), "--passphrase", stdin=b"wrong horse\n", with_home=False
    )
    assert wrong.code == 2 and "could not be decrypted" in wrong.err and len(wrong.err.splitlines()) == 1
    assert not other.exists()  # not even the home's folder
    right = run_cli(
        "--home", str(other), "restore", str(backup), "--passphrase", stdin=b"correct horse\n", with_home=False
    )
    assert right.code == 0, right.err


def damaged_copies(data: bytes) -> dict[str, bytes]:
    middle = len(data) // 2
    return {
        "truncated": data[: len(data) * 2 // 3],
        "flipped byte": data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :],
        "empty": b"",
    }


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "age"])
def test_a_damaged_or_truncated_backup_is_one_sentence_and_writes_nothing(home, tmp_path, run_cli, identity, encrypted):
    public, key_file = identity
    backup = tmp_path / "x.backup"
    take_backup(home, backup, recipients=[public] if encrypted else [])
    for what, data in damaged_copies(backup.read_bytes()).items():
        damaged = tmp_path / f"{what}.backup"
        damaged.write_bytes(data)
        other = tmp_path / f"home-{what}-{encrypted}"
        other.mkdir()
        extra = ["--identity", str(key_file)] if encrypted else []
        result = run_cli("--home", str(other), "restore", str(damaged), *extra, with_home=False)
        assert result.code == 2, (what, result)
        assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err, what
        assert "nothing was restored" in result.err or "is not an omb-tui backup" in result.err, result.err
        assert list(other.iterdir()) == [], what


# ----- crafted archives -----
def manifest_listing(files: dict[str, bytes], **manifest_fields) -> dict:
    """A valid manifest of scout's backup listing `files` (path -> bytes), with `manifest_fields` over it."""
    listing = [
        {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "bot": "scout"}
        for path, data in files.items()
    ]
    manifest = {
        "format": "omb-tui backup",
        "version": 1,
        "kind": "bots",
        "created": "2026-12-01T00:00:00+00:00",
        "bots": ["scout"],
        "files": listing,
    }
    return {**manifest, **manifest_fields}


def crafted(members: list[tuple[tarfile.TarInfo, bytes]], listed: list[str] | None = None, **manifest_fields) -> bytes:
    """A tar with a valid manifest listing `listed` (the members' names by default) and the members as given."""
    manifest = manifest_listing(
        {info.name: data for info, data in members if listed is None or info.name in listed}, **manifest_fields
    )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        raw = json.dumps(manifest).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(raw)
        tar.addfile(info, io.BytesIO(raw))
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def regular(name: str, data: bytes = b"- planted\n") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def link(name: str, target: str, kind: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, b""


@pytest.mark.parametrize(
    "members, sentence",
    [
        ([regular("workspaces/scout/../../../outside.md")], "leads out of the home"),
        ([regular("/tmp/absolute.md")], "absolute or leads out of the home"),
        (
            [
                regular("workspaces/scout/MEMORY.md"),
                link("workspaces/scout/memory/x.md", "/etc/passwd", tarfile.SYMTYPE),
            ],
            "a link or a special file",
        ),
        ([link("workspaces/scout/memory/y.md", "workspaces/scout/MEMORY.md", tarfile.LNKTYPE)], "a link or a special"),
        ([regular("workspaces/scout/notes/../MEMORY.md")], "leads out of the home"),
        ([regular("workspaces/scout/secret.sh")], "not a file of an omb-tui home"),
        ([regular("bots/quill.json")], "not a file of an omb-tui home"),
    ],
    ids=["dot-dot", "absolute", "symlink", "hard link", "dot-dot inside", "not a memory file", "another bot's file"],
)
def test_a_crafted_archive_never_writes_outside_the_home(tmp_path, run_cli, members, sentence):
    backup = tmp_path / "crafted.tar"
    backup.write_bytes(crafted(members))
    target = tmp_path / "target"
    target.mkdir()
    result = run_cli("--home", str(target), "restore", str(backup), with_home=False)
    assert result.code == 2 and sentence in result.err, result.err
    assert list(target.iterdir()) == []
    assert not (tmp_path / "outside.md").exists() and not Path("/tmp/absolute.md").exists()


def test_a_member_the_manifest_does_not_list_is_refused(tmp_path, run_cli):
    backup = tmp_path / "crafted.tar"
    backup.write_bytes(
        crafted(
            [regular("workspaces/scout/MEMORY.md"), regular("workspaces/scout/memory/x.md")],
            listed=["workspaces/scout/MEMORY.md"],
        )
    )
    target = tmp_path / "target"
    target.mkdir()
    result = run_cli("--home", str(target), "restore", str(backup), with_home=False)
    assert result.code == 2 and "which its manifest does not list" in result.err
    assert list(target.iterdir()) == []


# ----- keys and credentials -----
def test_no_key_and_no_credential_is_in_a_plain_backup(home, tmp_path, run_cli):
    secrets = [c.secret for c in CREDENTIALS]
    config = {
        "helper": {"instanceId": "claude", "apiKey": secrets[0]},
        "instances": {
            "claude": {
                "model": "anthropic/claude-haiku-4-5",
                "api_key_env": "ANTHROPIC_API_KEY",
                "api_key": secrets[1],
            },
        },
        "token": secrets[2],
        "notes": [c.note for c in CREDENTIALS],
    }
    home.config_path.write_text(json.dumps(config))
    corpus = "".join(f"- {c.note}\n" for c in CREDENTIALS)
    (home.workspace("scout") / "MEMORY.md").write_text(corpus)  # edited outside the app: never redacted by the store
    (home.workspace("scout") / "memory" / "keys.md").write_text(corpus)
    backup = tmp_path / "plain.tar"
    result = run_cli("backup", "--all", "--to", str(backup))
    assert result.code == 0
    assert "not encrypted" in result.err
    assert "set ANTHROPIC_API_KEY" in result.out and "held a credential" in result.out
    data = backup.read_bytes()
    leaked = [c.kind for c in CREDENTIALS if c.secret.encode() in data]
    assert leaked == []
    opened = read_backup(backup)
    kept = json.loads(opened.files["config.json"])
    assert "apiKey" not in kept["helper"] and "api_key" not in kept["instances"]["claude"] and "token" not in kept
    assert kept["instances"]["claude"]["api_key_env"] == "ANTHROPIC_API_KEY"
    assert opened.manifest.environment == ["ANTHROPIC_API_KEY"]
    assert not any(path.endswith("serve-token") for path in opened.files)


def test_an_empty_passphrase_is_refused_before_anything_is_read(home, tmp_path, run_cli):
    result = run_cli("backup", "--to", str(tmp_path / "x.age"), "--passphrase", stdin=b"\n")
    assert result.code == 2 and "The passphrase is empty" in result.err
    assert not (tmp_path / "x.age").exists()


def test_a_recipient_that_is_not_a_key_is_one_sentence(home, tmp_path, run_cli):
    result = run_cli("backup", "--to", str(tmp_path / "x.age"), "--recipient", "age1notakey")
    assert result.code == 2 and "is not an age recipient" in result.err
    assert not (tmp_path / "x.age").exists()
    assert not backup_lock_path(home).exists()  # said before the home was read at all


@pytest.mark.parametrize(
    "command, words",
    [
        ("backup", ["--bot", "--all", "--to", "--recipient", "--passphrase", "--json"]),
        ("restore", ["FILE", "--bot", "--as", "--replace", "--passphrase", "--identity"]),
        ("duplicate", ["BOT", "NEW_ID", "--name"]),
        ("bot", ["BOT", "set"]),
    ],
)
def test_the_new_commands_answer_help(run_cli, command, words):
    result = run_cli(command, "--help")
    assert result.code == 0 and result.out.startswith("usage: omb-tui")
    for word in words:
        assert word in result.out
    assert command in run_cli("--help").out


def test_a_manifest_naming_a_bot_no_home_can_have_is_refused(tmp_path, run_cli):
    backup = tmp_path / "crafted.tar"
    backup.write_bytes(crafted([regular("workspaces/scout/MEMORY.md")], bots=["../evil"]))
    target = tmp_path / "target"
    result = run_cli("--home", str(target), "restore", str(backup), "--replace", with_home=False)
    assert result.code == 2 and "names a bot '../evil' that no home can have" in result.err
    assert not target.exists()


def test_a_change_made_outside_the_app_is_journaled_before_the_backup_so_it_can_be_undone_after(
    home, tmp_path, run_cli
):
    memory = home.workspace("scout") / "MEMORY.md"
    before = memory.read_bytes()
    memory.write_bytes(before + b"- typed in another editor\n")
    backup = tmp_path / "x.tar"
    take_backup(home, backup)
    other = Home(tmp_path / "other")
    assert run_cli("--home", str(other.root), "restore", str(backup), with_home=False).code == 0
    outside = next(r for r in MemoryStore(other, "scout").journal.rows() if r.how == "changed outside the app")
    assert run_cli("--home", str(other.root), "undo", "scout", outside.id, "--yes", with_home=False).code == 0
    assert (other.workspace("scout") / "MEMORY.md").read_bytes() == before


def test_about_me_replaced_by_a_full_restore_is_an_undoable_import_row(home, tmp_path, run_cli):
    home.about_me_path.write_text("- I live in Pune\n")
    backup = tmp_path / "x.tar"
    take_backup(home, backup, everything=True)
    home.about_me_path.write_text("- I live in Lisbon now\n")
    refused = run_cli("restore", str(backup))
    assert refused.code == 2 and "already has a bot 'scout'" in refused.err
    assert run_cli("restore", str(backup), "--replace").code == 0
    assert home.about_me_path.read_text() == "- I live in Pune\n"
    row = next(r for r in MemoryStore(home, "scout").journal.rows() if r.file == "about-me.md")
    assert row.who == "import" and run_cli("undo", "scout", row.id, "--yes").code == 0
    assert home.about_me_path.read_text() == "- I live in Lisbon now\n"


def test_the_backup_file_may_be_in_a_folder_reached_through_a_link(home, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "linked").symlink_to(real)  # as /tmp -> /private/tmp on macOS
    take_backup(home, tmp_path / "linked" / "x.tar")
    assert read_backup(real / "x.tar").manifest.bots == ["scout"]


REMEMBER_LOOP = """
import sys
from pathlib import Path
from omb_tui.core.memory.memory_update import MemoryUpdate
from omb_tui.core.files.paths import Home

home, stop = Home(sys.argv[1]), Path(sys.argv[2])
update = MemoryUpdate(home, "scout")
number = 0
while not stop.exists():
    number += 1
    update.add(f"Loop note number {number} about the harbour trip")
    print(number, flush=True)
"""


class NumbersFrom:
    """The numbers a process prints, one a line, read as they come (select on its stdout)."""

    def __init__(self, process) -> None:
        self.process, self.buffer, self.numbers = process, b"", []

    def wait_for(self, condition, timeout: float) -> bool:
        import select
        import time

        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                return condition()
            if select.select([self.process.stdout], [], [], left)[0]:
                self.buffer += os.read(self.process.stdout.fileno(), 4096)
                *lines, self.buffer = self.buffer.split(b"\n")
                self.numbers += [int(line) for line in lines if line.strip()]
        return True


def test_a_backup_taken_while_remember_runs_in_another_process_holds_no_torn_file(home, tmp_path, monkeypatch):
    import re
    import subprocess
    import sys

    stop = tmp_path / "stop"
    process = subprocess.Popen(
        [sys.executable, "-c", REMEMBER_LOOP, str(home.root), str(stop)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    printed = NumbersFrom(process)
    landed_while_reading = []
    read_whole = contents._read_whole

    def read_and_give_the_writer_a_chance(path):
        data = read_whole(path)
        if path.name == "MEMORY.md":
            # The other process loops without pause: unless the bot's lock (a flock) keeps it out, it finishes a
            # note newer than any this read saw within this second, between this read and the journal's.
            seen = max(int(n) for n in re.findall(rb"Loop note number (\d+)", data))
            landed_while_reading.append(printed.wait_for(lambda: max(printed.numbers) > seen, timeout=1.0))
        return data

    monkeypatch.setattr(contents, "_read_whole", read_and_give_the_writer_a_chance)
    try:
        for take in range(2):
            wanted = (max(printed.numbers) if printed.numbers else 0) + 3
            assert printed.wait_for(lambda n=wanted: printed.numbers and max(printed.numbers) >= n, timeout=60)
            target = tmp_path / f"during-{take}.tar"
            take_backup(home, target)
            opened = read_backup(target)
            memory = opened.files["workspaces/scout/MEMORY.md"]
            rows = [decode_line(line) for line in opened.files["memory-journal/scout.ndjson"].splitlines()]
            assert all(not hasattr(row, "error") for row in rows)
            newest = [row for row in rows if row.file == "MEMORY.md"][-1]
            assert hashlib.sha256(memory).hexdigest() == newest.after_hash
    finally:
        stop.touch()
        process.wait(60)
    assert landed_while_reading == [False, False]


def test_a_webhook_and_custom_auth_fields_are_left_out_of_config_and_named(home, tmp_path, run_cli):
    """A Discord webhook's path is its secret (docs/compact-nightly.md); an Authorization header or a cookie a person
    added to an instance is one too, whatever its name: none is in the backup, and the manifest names each."""
    hook = "https://discord.com/api/webhooks/1234567890/Zq8vNw3TgKpL2mXrYc7BdHf9sJe4uA6oWi1nQt5RyV0"
    config = {
        "compact": {"report": {"webhook": hook, "timeout": 10}},
        "instances": {
            "local": {
                "model": "openai/qwen3-8b",
                "api_base": "http://127.0.0.1:8080/v1",
                "headers": {"Authorization": "Basic b21iOmh1bnRlcjJodW50ZXIy", "X-Trace": "on"},
                "proxy_auth": "omb:hunter2hunter2",
                "cookie": "sid=8f14e45fceea167a5a36dedd4bea2543",
            }
        },
    }
    home.config_path.write_text(json.dumps(config))
    backup = tmp_path / "x.tar"
    result = run_cli("backup", "--all", "--to", str(backup))
    assert result.code == 0, result.err
    data = backup.read_bytes()
    for secret in (hook, "discord.com/api/webhooks", "b21iOmh1bnRlcjJodW50ZXIy", "hunter2hunter2", "8f14e45f"):
        assert secret.encode() not in data, secret
    opened = read_backup(backup)
    kept = json.loads(opened.files["config.json"])
    assert kept["compact"]["report"] == {"timeout": 10}
    assert kept["instances"]["local"]["headers"] == {"X-Trace": "on"}
    assert kept["instances"]["local"]["api_base"] == "http://127.0.0.1:8080/v1"
    named = [
        "compact.report.webhook",
        "instances.local.cookie",
        "instances.local.headers.Authorization",
        "instances.local.proxy_auth",
    ]
    assert opened.manifest.left_out_fields == named
    assert json.loads(tarfile.open(backup).extractfile("manifest.json").read())["left_out_fields"] == named
    assert "compact.report.webhook" in result.out
    restored = run_cli("--home", str(tmp_path / "new"), "restore", str(backup), with_home=False)
    assert restored.code == 0 and "compact.report.webhook" in restored.out, restored.out


# ----- a hand-made backup: every text restored is redacted, and only files the project writes come back -----
def test_a_token_in_a_hand_made_backup_is_redacted_in_every_file_restore_writes(tmp_path, run_cli):
    """The store redacts what it writes, so a backup made here holds no credential; a backup made by hand can. A
    restore writes chats, compaction's logs and the journal's records itself, outside the store: each is redacted."""
    secret = CREDENTIALS[0].secret
    chat = "\n".join(
        [
            json.dumps({"type": "header", "id": "plans", "title": "Plans", "members": []}),
            json.dumps({"type": "message", "author_kind": "person", "author": "me", "text": f"my key is {secret}"}),
            "",
        ]
    ).encode()
    members = [
        regular("workspaces/scout/MEMORY.md", b"- 2026-01-05 \xc2\xb7 lives in Pune\n"),
        regular("workspaces/scout/INSTRUCTIONS.md", f"Use {secret} for the API.\n".encode()),
        regular("conversations/chats/scout/plans.ndjson", chat),
        regular("compact/scout/memory-clean.log", f"2026-01-05 03:00:00 +0100 merged: {secret}\n".encode()),
        regular("memory-journal/scout.reviewed.json", json.dumps({"note": secret}).encode()),
        regular("bots/scout.json", json.dumps({"name": "Scout", "token": secret}).encode()),
    ]
    backup = tmp_path / "hand-made.tar"
    backup.write_bytes(crafted(members))
    target = tmp_path / "target"
    target.mkdir()
    result = run_cli("--home", str(target), "restore", str(backup), with_home=False)
    assert result.code == 0, result.err
    leaked = [
        str(p.relative_to(target)) for p in target.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()
    ]
    assert leaked == []
    restored_chat = (target / "conversations/chats/scout/plans.ndjson").read_text()
    assert "my key is" in restored_chat and json.loads(restored_chat.splitlines()[1])["author"] == "me"
    assert (target / "workspaces/scout/MEMORY.md").read_bytes() == b"- 2026-01-05 \xc2\xb7 lives in Pune\n"


@pytest.mark.parametrize(
    "path",
    [
        "compact/scout/run.sh",
        "compact/scout/backup/notes.md",
        "compact/scout/deep/pending.json",
        "memory-journal/scout.bashrc",
        "memory-journal/scout.replaced-yesterday.ndjson",
        "memory-journal/scout.seen.json",
    ],
)
def test_a_file_the_project_never_writes_under_compact_or_the_journal_is_refused(tmp_path, run_cli, path):
    backup = tmp_path / "crafted.tar"
    backup.write_bytes(crafted([regular("workspaces/scout/MEMORY.md"), regular(path, b"planted\n")]))
    target = tmp_path / "target"
    target.mkdir()
    result = run_cli("--home", str(target), "restore", str(backup), with_home=False)
    assert result.code == 2 and "not a file of an omb-tui home" in result.err, result.err
    assert list(target.iterdir()) == []
