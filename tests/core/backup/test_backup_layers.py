"""Backups with people's layers (docs/team-cloud.md, "Backup, duplicate, team package"; docs/backup.md): `backup
--bot` and `backup --all` hold every person's layer of the bots, its journal and records, and `--all` each person's
own folder; never people.json nor a token. A restore puts the layers back with their bots (`--as` renames them, a
layer the home has is replaced only with `--replace`, a path that is not the layer the manifest names is refused);
`duplicate` and `team package` leave them out."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tarfile

import pytest
from support.home import BOT_ID
from test_backup import crafted, regular

from omb_tui.core.backup.archive import read_backup, take_backup
from omb_tui.core.files.paths import Home, layer_id
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import bot_layers, layer_store
from omb_tui.core.people.people import add_person, people_path
from omb_tui.core.team.storage import create_team

YOU = Actor(WHO_PERSON, HOW_COMMAND_LINE)
DANA_NOTE = "- Dana takes her coffee black, no sugar\n"
DANA_TOPIC = "# Coffee\n\n- Dana's favourite roastery is Blue Tokai\n"
SAM_NOTE = "- Sam writes Rust at work and Go at home\n"
DANA = layer_id(BOT_ID, "dana")
SAM = layer_id(BOT_ID, "sam")


@pytest.fixture
def people(home) -> list[str]:
    """dana and sam, each with a layer of scout (dana's MEMORY.md written twice, and a topic); dana's own About me
    in her folder. Their tokens, as `people add` printed them."""
    tokens = [add_person(home, name)[1] for name in ("dana", "sam")]
    dana = layer_store(home, BOT_ID, "dana")
    dana.write("MEMORY.md", "# Memory\n\n- Dana drinks tea\n", YOU)
    dana.write("MEMORY.md", f"# Memory\n\n{DANA_NOTE}", YOU)
    dana.write("memory/coffee.md", DANA_TOPIC, YOU)
    layer_store(home, BOT_ID, "sam").write("MEMORY.md", f"# Memory\n\n{SAM_NOTE}", YOU)
    about = home.root / "people" / "dana" / "about-me.md"
    about.parent.mkdir(parents=True)
    about.write_text("- Dana lives in Lisbon\n")
    return tokens


def layer_files(home: Home, workspace_id: str) -> dict[str, bytes]:
    """The layer's workspace files and journal, by path in the home."""
    found = {str(p.relative_to(home.root)): p.read_bytes() for p in home.workspace(workspace_id).rglob("*.md")}
    found[f"memory-journal/{workspace_id}.ndjson"] = home.journal_path(workspace_id).read_bytes()
    return found


def never_a_token(home: Home, data: bytes, tokens: list[str]) -> None:
    """No token, no token's hash and no people.json in the bytes of a backup."""
    hashes = [p["token_sha256"] for p in json.loads(people_path(home).read_text())["people"]]
    assert all(hashlib.sha256(t.encode()).hexdigest() in hashes for t in tokens)  # the hashes are what is kept
    for secret in [*tokens, *hashes]:
        assert secret.encode() not in data
    assert b"people.json\x00" not in data and b"token_sha256" not in data and b"ombp_" not in data


# ----- what a backup holds -----
@pytest.mark.parametrize("how", [["--bot", BOT_ID], ["--all"]], ids=["bot", "all"])
def test_a_backup_holds_every_layer_of_the_bot_and_never_a_token(home, people, tmp_path, run_cli, how):
    backup = tmp_path / "x.tar"
    result = run_cli("backup", *how, "--to", str(backup))
    assert result.code == 0, result.err
    assert "People's own layers of the bots are in it (dana's of scout, sam's of scout); never their tokens." in (
        result.out
    )
    opened = read_backup(backup)
    for workspace_id in (DANA, SAM):
        for path, data in layer_files(home, workspace_id).items():
            assert opened.files[path] == data, path  # byte for byte, the journal with every row
    assert f"memory-journal/{DANA}.reviewed.json" not in opened.files  # dana has no review marks: none invented
    entries = {entry["path"]: entry for entry in opened.manifest.files}
    assert entries[f"workspaces/{DANA}/memory/coffee.md"]["bot"] == BOT_ID
    assert entries[f"workspaces/{DANA}/memory/coffee.md"]["person"] == "dana"
    assert entries[f"memory-journal/{SAM}.ndjson"]["person"] == "sam"
    assert "person" not in entries["workspaces/scout/MEMORY.md"]  # the bot's own files are as they were
    assert opened.manifest.version == 2
    assert not any(path.endswith((".lock", ".seen.json")) for path in opened.files)
    never_a_token(home, backup.read_bytes(), people)
    about = "people/dana/about-me.md"
    if how == ["--all"]:
        assert opened.files[about] == b"- Dana lives in Lisbon\n" and entries[about] == {**entries[about], "bot": None}
        assert entries[about]["person"] == "dana"
        assert "Left out people.json: it holds the people's token hashes" in result.out
    else:
        assert about not in opened.files  # a person's own files are the home's: --all
    assert "people.json" not in opened.files


def test_a_backup_of_a_home_without_people_is_as_it_was(home, tmp_path):
    backup = tmp_path / "x.tar"
    report = take_backup(home, backup, everything=True)
    opened = read_backup(backup)
    assert opened.manifest.version == 1 and report.layers == []  # an omb-tui that knows no layers restores it
    assert all("person" not in entry for entry in opened.manifest.files)


def test_an_odd_file_in_a_persons_folder_is_left_out_and_said(home, people, tmp_path, run_cli):
    (home.root / "people" / "dana" / "run.sh").write_text("echo hi\n")
    (home.root / "people" / "Not A Person").mkdir()
    result = run_cli("backup", "--all", "--to", str(tmp_path / "x.tar"))
    assert result.code == 0, result.err
    assert "Left out people/dana/run.sh: not a file omb-tui keeps for a person." in result.out
    assert "Left out people/Not A Person: not a person's folder." in result.out
    assert not any("run.sh" in path for path in read_backup(tmp_path / "x.tar").files)


# ----- restore -----
def test_a_restore_brings_each_layer_back_byte_for_byte_and_its_undo_works(home, people, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    assert run_cli("backup", "--all", "--to", str(backup)).code == 0
    other = Home(tmp_path / "other")
    result = run_cli("--home", str(other.root), "restore", str(backup), with_home=False)
    assert result.code == 0, result.err
    assert "Restored dana's layer of scout: 3 files, 2 import rows in its journal." in result.out
    assert "dana is not a person of this home (a backup never holds a token): `omb-tui people add dana`" in result.out
    assert not people_path(other).exists()

    assert bot_layers(other, BOT_ID) == ["dana", "sam"]
    before = layer_files(home, DANA)
    after = layer_files(other, DANA)
    journal = f"memory-journal/{DANA}.ndjson"
    assert {p: d for p, d in after.items() if p != journal} == {p: d for p, d in before.items() if p != journal}
    assert after[journal].startswith(before[journal])  # the layer's history, then the restore's import rows
    assert (other.root / "people/dana/about-me.md").read_text() == "- Dana lives in Lisbon\n"
    for path in [*other.workspace(DANA).rglob("*"), other.journal_path(DANA)]:
        if path.is_file():
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path

    add_person(other, "dana")  # a new token: the layer is hers again
    dana = layer_store(other, BOT_ID, "dana")
    rows = {row.file: row for row in dana.journal.rows() if row.who == "import"}
    assert set(rows) == {"MEMORY.md", "memory/coffee.md"} and {row.bot for row in rows.values()} == {DANA}
    dana.undo(rows["memory/coffee.md"].id, YOU)
    assert not (other.workspace(DANA) / "memory" / "coffee.md").exists()
    tea = next(row for row in dana.journal.rows() if row.file == "MEMORY.md" and row.who == WHO_PERSON)
    assert tea.before_text is not None and "tea" in tea.before_text  # the history kept its earlier text for undo
    assert DANA_NOTE not in MemoryStore(other, BOT_ID).read("MEMORY.md").text  # the bot's own memory knows nothing


def test_a_bot_restored_as_a_new_id_takes_its_layers_along_under_that_id(home, people, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    take_backup(home, backup, bots=[BOT_ID])
    result = run_cli("restore", str(backup), "--as", "scout2")
    assert result.code == 0, result.err
    assert "Restored dana's layer of scout as scout2: 3 files" in result.out
    assert "is not a person of this home" not in result.out  # dana and sam are people of this home
    moved = layer_id("scout2", "dana")
    assert (home.workspace(moved) / "memory" / "coffee.md").read_text() == DANA_TOPIC
    assert {row.bot for row in MemoryStore(home, moved).journal.rows()} == {moved}
    assert bot_layers(home, "scout2") == ["dana", "sam"]
    assert (home.workspace(DANA) / "memory" / "coffee.md").read_text() == DANA_TOPIC  # the original untouched


def test_replace_journals_the_layer_it_replaced_and_undo_puts_it_back(home, people, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    take_backup(home, backup, bots=[BOT_ID])
    dana = layer_store(home, BOT_ID, "dana")
    dana.write("MEMORY.md", "# Memory\n\n- Dana moved to Porto\n", YOU)
    dana.write("memory/later.md", "# Later\n\n- written after the backup\n", YOU)
    changed = (home.workspace(DANA) / "MEMORY.md").read_bytes()

    assert run_cli("restore", str(backup), "--replace").code == 0
    assert (home.workspace(DANA) / "MEMORY.md").read_text() == f"# Memory\n\n{DANA_NOTE}"
    assert not (home.workspace(DANA) / "memory" / "later.md").exists()  # not in the backup: deleted, journaled
    assert list(home.journal_dir.glob(f"{DANA}.replaced-*.ndjson"))  # the layer's journal before it is kept
    row = next(r for r in dana.journal.rows() if r.file == "MEMORY.md")
    assert row.who == "import" and row.undoable
    dana.undo(row.id, YOU)
    assert (home.workspace(DANA) / "MEMORY.md").read_bytes() == changed


def test_a_layer_the_home_has_without_its_bot_is_replaced_only_with_replace(home, people, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    take_backup(home, backup, bots=[BOT_ID])
    other = Home(tmp_path / "other")
    leftover = other.workspace(DANA)
    leftover.mkdir(parents=True)
    (leftover / "MEMORY.md").write_text("- a layer left behind\n")
    result = run_cli("--home", str(other.root), "restore", str(backup), with_home=False)
    assert result.code == 2 and "already has dana's layer of 'scout'" in result.err
    assert not other.has_bot(BOT_ID) and (leftover / "MEMORY.md").read_text() == "- a layer left behind\n"
    assert run_cli("--home", str(other.root), "restore", str(backup), "--replace", with_home=False).code == 0
    assert (leftover / "MEMORY.md").read_text() == f"# Memory\n\n{DANA_NOTE}"


def test_a_layer_reached_through_a_link_is_refused_and_nothing_is_written(home, people, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    take_backup(home, backup, bots=[BOT_ID])
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, home.workspace(layer_id("scout2", "dana")))
    result = run_cli("restore", str(backup), "--as", "scout2", "--replace")
    assert result.code == 2 and "symbolic link" in result.err
    assert list(outside.iterdir()) == [] and not home.has_bot("scout2")


def retarred(archive: bytes, manifest: dict) -> bytes:
    """The tar `archive` with its manifest.json replaced by `manifest`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(archive)) as source, tarfile.open(fileobj=buffer, mode="w") as tar:
        for member in source:
            data = (
                json.dumps(manifest).encode() if member.name == "manifest.json" else source.extractfile(member).read()
            )
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(
    "path, bot, person",
    [
        ("workspaces/atlas--member-dana/MEMORY.md", "scout", "dana"),  # a layer of a bot the entry does not name
        ("workspaces/scout--member-sam/MEMORY.md", "scout", "dana"),  # another person's
        ("workspaces/scout--member-dana/MEMORY.md", "scout", None),  # a layer's path given as the bot's own file
        ("workspaces/scout--member-dana/MEMORY.md", None, "dana"),  # given as a person's file of the home
        ("workspaces/scout--member-Dana/MEMORY.md", "scout", "Dana"),  # a name no person can have
        ("workspaces/scout--member-dana/run.sh", "scout", "dana"),  # not a memory file
        ("workspaces/scout--member-dana/memory/notes/../x.md", "scout", "dana"),  # `..`
        ("memory-journal/scout--member-dana.bashrc", "scout", "dana"),  # not a record the project keeps
        ("memory-journal/scout--member-dana.seen.json", "scout", "dana"),  # the seen-state: never in a backup
        ("people/dana/run.sh", None, "dana"),  # not a file omb-tui keeps for a person
        ("people/sam/about-me.md", None, "dana"),  # another person's folder
        ("people/dana/notes/about-me.md", None, "dana"),  # nested
    ],
)
def test_a_crafted_layer_path_is_refused_and_writes_nothing(tmp_path, run_cli, path, bot, person):
    members = [regular("workspaces/scout/MEMORY.md"), regular(path)]
    planted = crafted(members)  # a valid manifest, then its entries given the bot and person of the parametrisation
    manifest = json.loads(tarfile.open(fileobj=io.BytesIO(planted)).extractfile("manifest.json").read())
    manifest["version"] = 2
    manifest["files"][1].update(bot=bot, person=person)
    backup = tmp_path / "crafted.tar"
    backup.write_bytes(retarred(planted, manifest))
    target = tmp_path / "target"
    target.mkdir()
    result = run_cli("--home", str(target), "restore", str(backup), with_home=False)
    assert result.code == 2, result
    assert "not a file of an omb-tui home" in result.err or "leads out of the home" in result.err, result.err
    assert list(target.iterdir()) == []


def test_a_layer_comes_back_only_with_its_bot(home, people, tmp_path, run_cli):
    atlas = home.workspace("atlas")
    atlas.mkdir()
    (atlas / "MEMORY.md").write_text("- atlas\n")
    backup = tmp_path / "x.tar"
    take_backup(home, backup)
    other = Home(tmp_path / "other")
    assert run_cli("--home", str(other.root), "restore", str(backup), "--bot", "atlas", with_home=False).code == 0
    assert other.has_bot("atlas") and not other.has_bot(BOT_ID)
    assert bot_layers(other, BOT_ID) == [] and not other.journal_path(DANA).exists()


# ----- what leaves them out -----
def test_a_duplicate_leaves_every_layer_out(home, people, run_cli):
    result = run_cli("duplicate", BOT_ID, "scout2")
    assert result.code == 0, result.err
    assert bot_layers(home, "scout2") == []
    copied = [p for p in home.root.rglob("*") if "scout2" in str(p.relative_to(home.root)) and p.is_file()]
    assert copied and all(b"coffee" not in p.read_bytes() and b"Rust" not in p.read_bytes() for p in copied)
    assert bot_layers(home, BOT_ID) == ["dana", "sam"]  # the bot's own layers stay where they were


def test_a_team_package_leaves_every_layer_out_and_a_team_backup_holds_them(home, people, tmp_path, run_cli):
    create_team(home, "Crew", [BOT_ID])
    package = tmp_path / "crew-package.tar"
    assert run_cli("team", "package", "Crew", "--to", str(package)).code == 0
    data = package.read_bytes()
    assert b"coffee" not in data and b"Rust" not in data and b"--member-" not in data and b"Lisbon" not in data
    never_a_token(home, data, people)

    team_backup = tmp_path / "crew.tar"
    assert run_cli("team", "backup", "Crew", "--to", str(team_backup)).code == 0
    opened = read_backup(team_backup)
    assert opened.files[f"workspaces/{DANA}/memory/coffee.md"] == DANA_TOPIC.encode()  # its bots whole
    never_a_token(home, team_backup.read_bytes(), people)


def test_json_names_the_layers_a_backup_holds_and_a_restore_brought_back(home, people, tmp_path, run_cli):
    backup = tmp_path / "x.tar"
    result = run_cli("backup", "--bot", BOT_ID, "--to", str(backup), "--json")
    assert result.code == 0, result.err
    said = json.loads(result.out)
    assert said["layers"] == [{"bot": BOT_ID, "person": "dana"}, {"bot": BOT_ID, "person": "sam"}]
    other = Home(tmp_path / "other")
    add_person(other, "sam")
    result = run_cli("--home", str(other.root), "restore", str(backup), "--json", with_home=False)
    assert result.code == 0, result.err
    said = json.loads(result.out)
    assert [(layer["person"], layer["files"], layer["replaced"]) for layer in said["layers"]] == [
        ("dana", 3, False),
        ("sam", 2, False),
    ]
    assert said["people_to_add"] == ["dana"]  # sam is a person of that home already
