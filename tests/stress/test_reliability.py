"""Nothing lost, no credential on disk: moves to the archive that stop half way, writers that meet a
lock-free editor, a journal that cannot be written, and credentials in every file the project writes.

The kill loop is tests/stress/test_crash_safety.py; the credential corpus is tests/core/redaction/test_credential_corpus.py.
Spec: memory.md, "Where it lives", "What loads, and the budget", "The journal", "Remember and forget, in chat".
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, date, timedelta
from pathlib import Path

import pytest
from support.fake_llm import fake_llm  # noqa: F401 - a fixture

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import StaleHash
from omb_tui.core.memory.budget import MEMORY_MAX_LINES
from omb_tui.core.memory.entries import parse_entries
from omb_tui.core.memory.memory_update import ARCHIVE_REL, MemoryUpdate, forgotten_matches
from omb_tui.core.memory.settings import BotSettings, load_profile_learned, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.turn.bot import Bot

TODAY = date(2026, 11, 30)
BOT = "scout"
AWS_KEY = "AKIAJPJOMKEFOIUC3LGT"
GITHUB_TOKEN = "ghp_" + "R2d2C3poBb8Yoda4Luke5Leia6Han7Solo8Chewie"


@pytest.fixture
def home(tmp_path) -> Home:
    home = Home(tmp_path / "home")
    home.workspace(BOT).mkdir(parents=True)
    save_bot_settings(home, BotSettings(id=BOT, name="Scout"))
    return home


def workspace_file(home: Home, rel: str) -> Path:
    return home.workspace(BOT).joinpath(*rel.split("/"))


def read(home: Home, rel: str) -> str:
    path = workspace_file(home, rel)
    return path.read_text() if path.exists() else ""


def full_memory(n: int = MEMORY_MAX_LINES) -> str:
    start = date(2026, 1, 1)
    return "".join(f"- {(start + timedelta(days=i)).isoformat()} · fact number {i}\n" for i in range(n))


def facts(text: str) -> list[str]:
    """The facts of a file's bullets, without their moved marks (how the archive and MEMORY.md are compared)."""
    return [e.fact for e in parse_entries(text) if e.is_bullet]


def journal_rows(home: Home) -> list[dict]:
    path = home.journal_path(BOT)
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()] if path.exists() else []


# ----- a move to the archive that stops half way -----


def test_a_note_already_in_the_archive_is_not_appended_again(home):
    """A kill between the archive write and the MEMORY.md write leaves the moved note in both files; the next
    overflow must not append it to the archive a second time, and it takes it out of MEMORY.md."""
    workspace_file(home, "MEMORY.md").write_text(full_memory())
    MemoryUpdate(home, BOT).add("first new note", today=TODAY)  # fact number 0 moved
    archived = read(home, ARCHIVE_REL)
    # What a kill right after the archive write leaves: the moved entry back in MEMORY.md.
    workspace_file(home, "MEMORY.md").write_text(
        full_memory()[: full_memory().index("\n") + 1] + read(home, "MEMORY.md")
    )
    Bot(home, BOT).look()
    MemoryUpdate(home, BOT).add("second new note", today=TODAY)
    assert facts(read(home, ARCHIVE_REL)).count("fact number 0") == 1
    assert "fact number 0" not in facts(read(home, "MEMORY.md"))
    assert read(home, ARCHIVE_REL).startswith(archived)


def test_an_interrupted_move_is_finished_by_the_next_write_and_journaled(home, monkeypatch):
    workspace_file(home, "MEMORY.md").write_text(full_memory())
    Bot(home, BOT).look()
    real_write = MemoryStore.write

    def killed_after_the_archive(self, rel, *args, **kwargs):
        if rel == "MEMORY.md":
            raise KeyboardInterrupt  # stands for a kill: nothing after this runs
        return real_write(self, rel, *args, **kwargs)

    monkeypatch.setattr(MemoryStore, "write", killed_after_the_archive)
    with pytest.raises(KeyboardInterrupt):
        MemoryUpdate(home, BOT).add("the note in flight", today=TODAY)
    monkeypatch.setattr(MemoryStore, "write", real_write)
    assert "fact number 0" in facts(read(home, "MEMORY.md")) and "fact number 0" in facts(read(home, ARCHIVE_REL))

    finished = MemoryUpdate(home, BOT).finish_interrupted_move()
    assert finished == 1
    assert "fact number 0" not in facts(read(home, "MEMORY.md"))
    assert facts(read(home, ARCHIVE_REL)).count("fact number 0") == 1
    row = journal_rows(home)[-1]
    assert row["file"] == "MEMORY.md" and "interrupted" in row["note"]
    assert "\n-- 2026-01-01 · fact number 0\n" in row["diff"]  # the removed line, and nothing added
    assert not [line for line in row["diff"].splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert MemoryUpdate(home, BOT).finish_interrupted_move() == 0  # done once


def test_a_note_put_back_by_hand_is_never_taken_out_again(home):
    """Only the entries of a move that was interrupted are finished: a person who copies a line back from the
    archive into MEMORY.md keeps it there."""
    workspace_file(home, "MEMORY.md").write_text(full_memory())
    MemoryUpdate(home, BOT).add("a note", today=TODAY)
    text = read(home, "MEMORY.md")
    workspace_file(home, "MEMORY.md").write_text("- 2026-01-01 · fact number 0\n" + text.split("\n", 1)[1])
    Bot(home, BOT).look()
    assert MemoryUpdate(home, BOT).finish_interrupted_move() == 0
    assert "fact number 0" in facts(read(home, "MEMORY.md"))


# ----- a lock-free editor saving between the two writes -----


def test_a_conflict_between_the_two_writes_retries_the_add_on_the_new_text(home, monkeypatch, run_cli):
    workspace_file(home, "MEMORY.md").write_text(full_memory())
    Bot(home, BOT).look()
    real_write = MemoryStore.write
    saves = iter(["- 2026-06-01 · the person's own line\n"])

    def editor_saves_after_the_archive(self, rel, *args, **kwargs):
        result = real_write(self, rel, *args, **kwargs)
        if rel == ARCHIVE_REL:
            line = next(saves, None)
            if line:  # a lock-free editor appends to MEMORY.md at the worst moment
                with open(workspace_file(home, "MEMORY.md"), "a") as handle:
                    handle.write(line)
        return result

    monkeypatch.setattr(MemoryStore, "write", editor_saves_after_the_archive)
    result = run_cli("remember", BOT, "the new note", "--json")
    assert result.code == 0, result.err
    memory_facts = facts(read(home, "MEMORY.md"))
    assert "the person's own line" in memory_facts and "the new note" in memory_facts
    archived = facts(read(home, ARCHIVE_REL))
    assert len(archived) == len(set(archived)), "a note is twice in the archive"
    assert not set(archived) & set(memory_facts), "a moved note is still in MEMORY.md"
    assert any(r["how"] == "changed outside the app" and r["file"] == "MEMORY.md" for r in journal_rows(home))


def test_an_editor_that_never_stops_saving_gets_exit_3_and_no_duplicate(home, monkeypatch, run_cli):
    workspace_file(home, "MEMORY.md").write_text(full_memory())
    Bot(home, BOT).look()
    real_write = MemoryStore.write
    counter = iter(range(1000))

    def editor_saves_every_time(self, rel, *args, **kwargs):
        result = real_write(self, rel, *args, **kwargs)
        if rel == ARCHIVE_REL:
            with open(workspace_file(home, "MEMORY.md"), "a") as handle:
                handle.write(f"- 2026-06-01 · person's line {next(counter)}\n")
        return result

    monkeypatch.setattr(MemoryStore, "write", editor_saves_every_time)
    for _ in range(3):
        result = run_cli("remember", BOT, "the new note")
        assert result.code == 3, result.err
        assert "nothing was written" not in result.err and "try again" in result.err
        assert result.err.count("\n") == 1
    monkeypatch.setattr(MemoryStore, "write", real_write)
    archived = facts(read(home, ARCHIVE_REL))
    assert len(archived) == len(set(archived)), "repeated conflicts put a note in the archive twice"
    assert run_cli("remember", BOT, "once the editor is quiet").code == 0
    memory_facts = facts(read(home, "MEMORY.md"))
    assert not set(facts(read(home, ARCHIVE_REL))) & set(memory_facts)
    assert sum(f.startswith("person's line") for f in memory_facts + facts(read(home, ARCHIVE_REL))) >= 15


def test_a_write_rechecks_the_file_right_before_the_rename(home, monkeypatch):
    """An outside save landing while a write is under way (after its hash check, before its rename) is not
    overwritten: a hash-checked write is refused, an unchecked one journals it first."""
    workspace_file(home, "MEMORY.md").write_text("- 2026-01-01 · old\n")
    store = MemoryStore(home, BOT)
    first = store.read("MEMORY.md")
    import omb_tui.core.memory.store as store_module

    real_fsync = store_module.os.fsync
    landed = []

    def outside_save_during_the_write(fd):
        real_fsync(fd)
        if not landed:
            landed.append(True)
            with open(workspace_file(home, "MEMORY.md"), "a") as handle:
                handle.write("- 2026-01-02 · typed elsewhere\n")

    monkeypatch.setattr(store_module.os, "fsync", outside_save_during_the_write)
    from omb_tui.core.journal.changes import Actor

    with pytest.raises(StaleHash):
        store.write("MEMORY.md", "- replaced\n", Actor("person", "command line"), expected_hash=first.hash)
    assert "typed elsewhere" in read(home, "MEMORY.md")

    landed.clear()
    store.write("MEMORY.md", "- replaced\n", Actor("person", "command line"))
    rows = journal_rows(home)
    outside = [r for r in rows if r["how"] == "changed outside the app"]
    assert outside and "typed elsewhere" in outside[-1]["diff"]
    assert rows[-1]["before_text"].endswith("typed elsewhere\n")


def test_an_append_landing_between_the_check_and_the_rename_is_folded_in(home, monkeypatch):
    """An editor that takes no lock may append to the old file after the last check (or through a handle it
    opened before): those bytes go after the new text, journaled as the editor's change, never lost."""
    import omb_tui.core.memory.store as store_module
    from omb_tui.core.journal.changes import Actor

    workspace_file(home, "MEMORY.md").write_text("- 2026-01-01 · old\n")
    store = MemoryStore(home, BOT)
    real_replace = store_module.os.replace
    appended = []

    def an_append_just_before_the_rename(source, target):
        if not appended and str(target).endswith("MEMORY.md"):
            appended.append(True)
            with open(target, "a") as handle:  # the old file, about to be replaced
                handle.write("- 2026-01-02 · typed elsewhere\n")
        return real_replace(source, target)

    monkeypatch.setattr(store_module.os, "replace", an_append_just_before_the_rename)
    store.write("MEMORY.md", "- 2026-01-01 · old\n- 2026-01-03 · ours\n", Actor("person", "command line"))
    assert read(home, "MEMORY.md") == "- 2026-01-01 · old\n- 2026-01-03 · ours\n- 2026-01-02 · typed elsewhere\n"
    last = journal_rows(home)[-1]
    assert last["how"] == "changed outside the app" and "+- 2026-01-02 · typed elsewhere" in last["diff"]


LOCK_FREE_WRITER = """\
import sys
from datetime import date
from omb_tui.core.memory.memory_update import MemoryUpdate
from omb_tui.core.files.paths import Home

from omb_tui.core.memory.store import StaleHash
import os, time

real_fsync = os.fsync
def slow_fsync(fd):  # a slow disk: the time a write spends between its hash check and its rename grows
    real_fsync(fd)
    time.sleep(0.002)
os.fsync = slow_fsync

update = MemoryUpdate(Home(sys.argv[1]), "scout")
gave_up = 0
for number in range(int(sys.argv[2])):
    sys.stdin.readline()  # the test's go-ahead: it paces its appends by these adds, not by the clock
    try:
        update.add(f"remembered {number:04d}", today=date(2026, 11, 30))
    except StaleHash:  # exit 3 from the command line
        gave_up += 1
    print("added", flush=True)
print(gave_up)
"""


def test_a_lock_free_editor_appending_while_remember_runs_loses_nothing(home, tmp_path, request):
    """The concurrency run: a writer process adds notes (each an overflow) while this process appends lines to
    MEMORY.md the way a lock-free editor does. Every appended line ends in MEMORY.md, the archive, or at least a
    journal row; `--appends 150 -s` is the full run.

    The appends are paced by the adds, not by the clock: one append during every second add, at a random moment
    within the time the add before took. So a loaded machine, where every add is slower, meets as many appends
    per add as a quiet one (a clock-paced editor met an add's every retry there, and the add gave up)."""
    appends = request.config.getoption("--appends")
    workspace_file(home, "MEMORY.md").write_text(full_memory())
    Bot(home, BOT).look()
    script = tmp_path / "writer.py"
    script.write_text(LOCK_FREE_WRITER)
    writer = subprocess.Popen(
        [sys.executable, str(script), str(home.root), str(appends * 2)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    rng = random.Random(8)
    appended = []
    add_took = 0.05

    def one_add(then: Callable[[], None] | None = None) -> None:
        nonlocal add_took
        started = time.monotonic()
        writer.stdin.write(b"go\n")
        writer.stdin.flush()
        if then is not None:
            then()
        assert writer.stdout.readline() == b"added\n", "the writer stopped before its adds were done"
        add_took = time.monotonic() - started

    def append(number: int) -> None:
        threading.Event().wait(rng.uniform(0, add_took))  # somewhere inside the add under way
        line = f"- 2026-05-{1 + number % 28:02d} · appended outside {number:04d}\n"
        fd = os.open(workspace_file(home, "MEMORY.md"), os.O_WRONLY | os.O_APPEND)  # no lock, as `echo >>`
        os.write(fd, line.encode())
        os.close(fd)
        appended.append(f"appended outside {number:04d}")

    try:
        for number in range(appends):
            one_add()
            one_add(lambda number=number: append(number))
    finally:
        writer.stdin.close()  # a writer stopped early ends too
        # Read through the buffered stdout that readline used (communicate() would miss what it holds already).
        out, err = writer.stdout.read(), writer.stderr.read()
        writer.wait(timeout=300)
    assert writer.returncode == 0, err.decode()
    gave_up = int(out)
    Bot(home, BOT).look()
    on_disk = " ".join(facts(read(home, "MEMORY.md")) + facts(read(home, ARCHIVE_REL)))
    journaled = " ".join((r.get("diff") or "") + (r.get("before_text") or "") for r in journal_rows(home))
    lost = [a for a in appended if a not in on_disk]
    unrecorded = [a for a in lost if a not in journaled]
    print(
        f"\n{appends} lock-free appends during {appends * 2} adds: {len(lost)} not in the files, "
        f"{len(unrecorded)} of them without a journal row; {gave_up} adds gave up (exit 3)"
    )
    assert unrecorded == []
    assert gave_up == 0, "an add gave up although a retry could succeed"
    archived = facts(read(home, ARCHIVE_REL))
    assert len(archived) == len(set(archived))


# ----- the journal cannot be written -----


def test_a_change_the_journal_cannot_record_is_not_made(home, run_cli):
    workspace_file(home, "MEMORY.md").write_text("- 2026-01-01 · old\n")
    Bot(home, BOT).look()
    journal = home.journal_path(BOT)
    kept = journal.read_bytes() if journal.exists() else b""
    journal.unlink(missing_ok=True)
    journal.mkdir()  # the journal cannot be opened for appending
    result = run_cli("remember", BOT, "not saved without a row", "--json")
    assert result.code == 1
    assert result.err.strip().splitlines() == [
        "omb-tui: Is a directory: MEMORY.md could not be saved, nothing was changed."
    ]
    assert read(home, "MEMORY.md") == "- 2026-01-01 · old\n"
    journal.rmdir()
    journal.write_bytes(kept)
    assert run_cli("journal", BOT, "--json").code == 0  # the next look finds nothing to journal
    assert journal_rows(home) == []


# ----- temp files of dead writers -----


def test_the_next_write_removes_temp_files_of_dead_writers(home, run_cli):
    workspace_file(home, "memory").mkdir()
    stale = [workspace_file(home, ".MEMORY.md.k2j4h5x1.tmp"), workspace_file(home, "memory/.archive.md.a8d7f6s5.tmp")]
    for path in stale:
        path.write_text("- half a no")
    keep = workspace_file(home, "memory/notes.tmp.md")
    keep.write_text("not ours")
    assert run_cli("remember", BOT, "a note").code == 0
    assert not any(p.exists() for p in stale)
    assert keep.exists()


# ----- credentials in the files around memory -----


def test_prefer_keeps_no_credential_in_profile_learned(home, run_cli):
    result = run_cli("prefer", BOT, f"Deploy with key {AWS_KEY} please", "--json")
    assert result.code == 0 and json.loads(result.out)["redactions"] == 1
    assert AWS_KEY not in result.out
    assert AWS_KEY not in home.profile_learned_path.read_text()
    assert AWS_KEY not in home.about_me_path.read_text()
    assert "Deploy with key «redacted" in load_profile_learned(home).learned[0]["text"]


@pytest.mark.parametrize("bare", ["Tulip369", "x2eZRwN/Ks9+Qe1Lm", GITHUB_TOKEN])
def test_every_forgotten_word_is_kept_only_as_a_hash(home, run_cli, bare):
    # "forget Tulip369" names a password by itself: no detector can tell it from a word, so no word is kept.
    result = run_cli("forget", BOT, bare, "--json")
    assert result.code == 0 and GITHUB_TOKEN not in result.out
    on_disk = home.profile_learned_path.read_text()
    assert bare not in on_disk and bare.lower() not in on_disk
    [forgotten] = load_profile_learned(home).forgotten
    assert forgotten["count"] == 1 and "words" not in forgotten
    assert forgotten_matches(forgotten, f"the wifi is {bare}, ask Ana")
    assert not forgotten_matches(forgotten, f"the wifi is {bare}x")


def test_plain_forgotten_words_of_an_earlier_version_are_hashed_when_read(home, run_cli):
    home.profile_learned_path.write_text(
        json.dumps({"learned": [], "forgotten": [{"words": "wifi Tulip369", "at": "2026-01-02"}]})
    )
    [forgotten] = load_profile_learned(home).forgotten
    assert forgotten["count"] == 2 and forgotten["at"] == "2026-01-02"
    assert "Tulip369" not in home.profile_learned_path.read_text()  # saved back as hashes at once
    assert forgotten_matches(forgotten, "- 2026-02-01 · the wifi password is Tulip369.")
    assert not forgotten_matches(forgotten, "- 2026-02-01 · the wifi is slow")
    assert run_cli("remember", BOT, "the wifi needs Tulip369 now").code == 0  # remembering it again lifts it
    assert load_profile_learned(home).forgotten == []


def test_forgotten_words_that_look_like_a_secret_are_kept_as_a_hash(home, run_cli):
    result = run_cli("forget", BOT, "deploy", GITHUB_TOKEN, "--json")
    assert result.code == 0 and GITHUB_TOKEN not in result.out
    on_disk = home.profile_learned_path.read_text()
    assert GITHUB_TOKEN not in on_disk and GITHUB_TOKEN.lower() not in on_disk and "deploy" not in on_disk
    forgotten = load_profile_learned(home).forgotten[0]
    assert forgotten["count"] == 2 and len(forgotten["hashed_words"]) == 2
    # The hash still tells when a note mentions the forgotten words again.
    assert forgotten_matches(forgotten, f"Deploy uses {GITHUB_TOKEN}.")
    assert not forgotten_matches(forgotten, "Deploy uses ghp_another.")
    assert not forgotten_matches(forgotten, f"{GITHUB_TOKEN} alone")
    # Forgetting the same words twice keeps one entry.
    run_cli("forget", BOT, "deploy", GITHUB_TOKEN)
    assert len(load_profile_learned(home).forgotten) == 1


def test_the_recall_index_never_holds_a_credential(home):
    from omb_tui.core.index.recall_index import open_index

    workspace_file(home, "MEMORY.md").write_text(f"- 2026-01-01 · the deploy token is {GITHUB_TOKEN}\n")
    with open_index(home, BOT) as index:
        index.refresh()
    for path in home.root.joinpath("index").iterdir():
        assert GITHUB_TOKEN.encode() not in path.read_bytes(), path.name


def test_conversation_lines_are_redacted_on_disk_and_in_the_index(home):
    from datetime import datetime, timezone

    from omb_tui.core.index.recall_index import open_index
    from omb_tui.core.memory.conversations import (
        Conversation,
        Member,
        Message,
        Starter,
        append_message,
        create_conversation,
    )

    conversation = Conversation(
        id="deploys",
        title="Deploys",
        kind="1:1",
        started_by=Starter("person", "Ana"),
        members=[Member("person", "Ana"), Member("bot", BOT)],
        created=clock.now_utc(),
    )
    path = create_conversation(home, conversation, BOT)
    append_message(path, Message("person", "Ana", clock.now_utc(), f"use {AWS_KEY} for the deploy", origin="person"))
    assert AWS_KEY not in path.read_text()
    with open_index(home, BOT) as index:
        index.refresh()
    for item in home.root.joinpath("index").iterdir():
        assert AWS_KEY.encode() not in item.read_bytes()


def test_the_credential_corpus_reaches_no_file_through_any_writing_command(home, run_cli):
    """Every fake credential of the corpus (tests/support/credential_corpus_data.py) through remember, write, prefer,
    forget and undo; then every file under the home is searched for every secret."""
    from support.credential_corpus_data import CREDENTIALS

    topic = ""
    for number, credential in enumerate(CREDENTIALS):
        note = credential.note
        run_cli("remember", BOT, note)  # a key block longer than one note is refused: nothing written
        topic += f"- {note}\n" if "\n" not in note else note + "\n"
        assert run_cli("write", BOT, "memory/keys.md", stdin=topic.encode()).code == 0
        topic = read(home, "memory/keys.md")
        if "\n" not in note and len(note) <= 300:
            assert run_cli("prefer", BOT, note).code in (0, 2)  # 2: one that reads as a dated entry
        if number % 10 == 0:
            run_cli("forget", BOT, *note.split()[:6])
    rows = journal_rows(home)
    run_cli("undo", BOT, rows[len(rows) // 2]["id"], "--yes")
    files = [p for p in home.root.rglob("*") if p.is_file()]
    assert len(files) > 5
    leaks = [
        (c.kind, str(p.relative_to(home.root)))
        for p in files
        for c in CREDENTIALS
        if c.secret.encode() in p.read_bytes()
    ]
    assert leaks == []


def test_no_credential_reaches_any_file_through_the_writing_commands(home, run_cli):
    """Every file under the home after remember, write, prefer, forget and undo with credentials in them."""
    secrets = [AWS_KEY, GITHUB_TOKEN, "sk-ant-api03-" + "x7Yq" * 20, "hunter2-Very-Secret"]
    run_cli("remember", BOT, f"the AWS key is {secrets[0]}")
    run_cli("write", BOT, "memory/keys.md", stdin=f"# Keys\n\n- github {secrets[1]}\n".encode())
    run_cli("prefer", BOT, f"sign requests with {secrets[2]}")
    run_cli("remember", BOT, f"wifi password: {secrets[3]}")
    run_cli("forget", BOT, "wifi", "password:", secrets[3])
    run_cli("forget", BOT, "github", secrets[1])
    rows = journal_rows(home)
    run_cli("undo", BOT, rows[-1]["id"], "--yes")
    leaks = [
        (str(p.relative_to(home.root)), s[:8])
        for p in home.root.rglob("*")
        if p.is_file()
        for s in secrets
        if s.encode() in p.read_bytes()
    ]
    assert leaks == []


def test_a_providers_error_echoing_the_corpus_reaches_neither_the_output_nor_a_file(home, fake_llm, run_exe):
    """A 400 whose message echoes the request (so every credential of the corpus, as typed and JSON-escaped),
    one instance per credential, all tested by one run of the installed command: stdout, stderr and every file
    under the home are searched for every secret."""
    from support.credential_corpus_data import CREDENTIALS, escaped_forms
    from support.fake_llm import write_llm_config

    instances = {f"c{n}": {"model": "openai/x", "api_base": fake_llm.api_base} for n in range(len(CREDENTIALS))}
    write_llm_config(home, fake_llm, instances=instances)
    from omb_tui.core.models.output_modes import LADDER

    # each instance is asked once per output mode, as a 400 may be the server refusing a response format
    # (docs/models.md, "Output modes"); every one of its refusals echoes the credential
    fake_llm.script(*[{"status": 400}] * len(LADDER))  # instance "local" is tested first
    for credential in CREDENTIALS:  # then c0, c1, … in order
        request = json.dumps({"messages": [{"role": "user", "content": credential.note}]})
        hidden = escaped_forms(credential)["first-letter"]
        refusal = {"status": 400, "message": f"Invalid request: {request} (bad value '{hidden}')"}
        fake_llm.script(*[refusal] * len(LADDER))
    done = run_exe("models", "test", timeout=600)  # one call per credential: some 300, each redacted (a busy machine)
    assert done.returncode == 1 and done.stdout.count(b"refused the request (400)") == len(CREDENTIALS) + 1
    printed = (done.stdout + done.stderr).decode("utf-8")
    assert [c.kind for c in CREDENTIALS if c.secret in printed] == []
    files = [p for p in home.root.rglob("*") if p.is_file()]
    assert [(c.kind, p.name) for p in files for c in CREDENTIALS if c.secret.encode() in p.read_bytes()] == []


def test_the_corpus_as_bare_forgotten_words_and_escaped_chat_lines_reaches_no_file(home, run_cli):
    """Every secret of the corpus forgotten by itself ("forget Tulip369"), and said in a chat in each escaped form
    JSON or YAML gives it (\\u0041KIA…, \\", \\/, \\x41, escaped twice); then every file under the home, and what
    any number of JSON parses of it would show, is searched for every secret."""
    from datetime import datetime, timezone

    from support.credential_corpus_data import CREDENTIALS, escaped_forms
    from support.decoding import fully_decoded

    from omb_tui.core.index.recall_index import open_index
    from omb_tui.core.memory.conversations import (
        Conversation,
        Member,
        Message,
        Starter,
        append_message,
        create_conversation,
    )

    for credential in CREDENTIALS:
        assert run_cli("forget", BOT, "--", *credential.secret.split()).code == 0, credential.kind
    chat = Conversation(
        id="keys",
        title="Keys",
        kind="1:1",
        started_by=Starter("person", "Ana"),
        members=[Member("person", "Ana"), Member("bot", BOT)],
        created=clock.now_utc(),
    )
    path = create_conversation(home, chat, BOT)
    for credential in CREDENTIALS:
        for escaped in escaped_forms(credential).values():
            append_message(path, Message("person", "Ana", clock.now_utc(), escaped, origin="person"))
    with open_index(home, BOT) as index:
        index.refresh()
    forgotten = load_profile_learned(home).forgotten  # each still tells when a note mentions its words
    assert [
        c.kind for c in CREDENTIALS if not any(forgotten_matches(f, f"a note: {c.secret}") for f in forgotten)
    ] == []
    leaks = []
    for item in (p for p in home.root.rglob("*") if p.is_file()):
        text = item.read_bytes().decode("utf-8", "replace")
        leaks += [(c.kind, item.name) for c in CREDENTIALS if c.secret in text or c.secret in fully_decoded(text)]
    assert leaks == []
