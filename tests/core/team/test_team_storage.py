"""Teams on disk: persistent keys, rename, delete (retired, not erased), 0600 and redacted, and the version-1
file migrated atomically (spec: "Shared team memory integrity")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from support.home import make_bot

from omb_tui.core.files.paths import MemoryInputError, NotFound
from omb_tui.core.team import api
from omb_tui.core.team.storage import create_team, delete_team, list_teams, rename_team, team_path, teams_dir
from omb_tui.core.turn.bot import Bot

KEY = "tapa/sequence-02/colour"


@pytest.fixture
def crew(home):
    make_bot(home, "ledger", "Ledger")
    return create_team(home, "Tapa crew", ["scout", "ledger"])


def accepted_note(home, team_ref, key=KEY, title="Sequence 02 colour", text="Warm amber grade, never teal."):
    card = api.propose(home, team_ref, key, title, text)
    return api.accept(home, team_ref, key, card.revision)


def test_a_team_is_one_private_file_named_by_its_key_outside_every_workspace(home, crew):
    accepted_note(home, "Tapa crew")
    path = team_path(home, crew.key)
    assert path.parent == home.root / "teams" and path.name == f"{crew.key}.json"
    assert os.stat(path).st_mode & 0o777 == 0o600
    data = json.loads(path.read_text())
    assert data["version"] == 2 and data["name"] == "Tapa crew" and data["notes"][0]["key"] == KEY


def test_secrets_never_reach_the_team_file(home, crew):
    api.propose(
        home, "Tapa crew", "deploy/access", "Deploy key", "Deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    )
    text = team_path(home, crew.key).read_text()
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in text and "«redacted" in text


def test_renaming_keeps_the_notes_and_the_pending_cards(home, crew):
    accepted_note(home, "Tapa crew")
    api.propose(home, "Tapa crew", "tapa/fps", "Frame rate", "24 frames a second")
    renamed = rename_team(home, "Tapa crew", "Tapa editors")
    assert renamed.key == crew.key
    view = api.show(home, "Tapa editors").to_dict()
    assert [n["key"] for n in view["notes"]] == [KEY] and [c["key"] for c in view["pending"]] == ["tapa/fps"]
    with pytest.raises(NotFound):
        api.show(home, "Tapa crew")
    assert "Warm amber" in Bot(home, "scout").prompt()


def test_a_new_team_with_a_deleted_teams_name_never_sees_its_notes(home, crew):
    accepted_note(home, "Tapa crew")
    delete_team(home, "Tapa crew")
    assert "Warm amber" not in Bot(home, "scout").prompt()
    again = create_team(home, "Tapa crew", ["scout"])
    assert again.key != crew.key
    view = api.show(home, "Tapa crew").to_dict()
    assert view["notes"] == [] and view["pending"] == []
    assert "Warm amber" not in Bot(home, "scout").prompt()
    # The retired record stays on disk for recovery: deletion is not a secure erase.
    retired = json.loads(team_path(home, crew.key).read_text())
    assert retired["retired"] and "Warm amber" in retired["notes"][0]["text"]
    with pytest.raises(NotFound, match="was deleted"):
        api.show(home, crew.key)


def test_team_names_are_unique_among_active_teams_and_bots_must_exist(home, crew):
    with pytest.raises(MemoryInputError, match="already a team"):
        create_team(home, "tapa CREW", [])
    with pytest.raises(NotFound, match="no bot"):
        create_team(home, "Other", ["ghost"])
    assert [t.name for t in list_teams(home)] == ["Tapa crew"]


def test_a_team_is_found_by_its_key_as_well_as_its_name(home, crew):
    accepted_note(home, crew.key)
    assert api.show(home, crew.key).team.name == "Tapa crew"


# ----- version 1 -----
V1 = {
    "version": 1,
    "name": "Tapa crew",
    "bots": ["scout"],
    "notes": [{"title": "Sequence 02 colour", "text": "Warm amber grade."}, {"title": "Frame rate", "text": "24 fps"}],
}


def write_v1(home, key="tapa-crew", data=V1) -> bytes:
    teams_dir(home).mkdir(parents=True, exist_ok=True)
    raw = json.dumps(data).encode()
    team_path(home, key).write_bytes(raw)
    return raw


def test_a_version_1_file_migrates_on_first_read_keeping_a_copy(home):
    raw = write_v1(home)
    view = api.show(home, "Tapa crew").to_dict()
    assert [(n["key"], n["revision"], n["status"]) for n in view["notes"]] == [
        ("sequence-02-colour", 1, "accepted"),
        ("frame-rate", 1, "accepted"),
    ]
    assert json.loads(team_path(home, "tapa-crew").read_text())["version"] == 2
    assert (teams_dir(home) / "tapa-crew.json.v1").read_bytes() == raw
    assert os.stat(team_path(home, "tapa-crew")).st_mode & 0o777 == 0o600
    assert "Warm amber grade." in Bot(home, "scout").prompt()


def test_a_plain_list_is_a_version_1_file_too(home):
    write_v1(home, "crew", ["Always cc Milind", {"title": "Frame rate", "text": "24 fps", "pinned": True}])
    view = api.show(home, "crew").to_dict()
    assert [(n["title"], n["pinned"]) for n in view["notes"]] == [("Frame rate", True), ("Always cc Milind", False)]


def test_a_failed_rename_during_the_migration_leaves_the_version_1_file_whole(home, monkeypatch):
    raw = write_v1(home)
    real_replace = os.replace

    def failing_replace(src, dst, *args, **kwargs):
        if str(dst).endswith("tapa-crew.json"):
            raise OSError(28, "No space left on device")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        api.show(home, "tapa-crew")
    assert team_path(home, "tapa-crew").read_bytes() == raw
    monkeypatch.setattr(os, "replace", real_replace)
    assert len(api.show(home, "tapa-crew").to_dict()["notes"]) == 2
    assert [p.name for p in teams_dir(home).iterdir() if p.name.endswith(".tmp")] == []


KILLED_MIDWAY = textwrap.dedent("""
    import os, signal, sys
    from omb_tui.core.files.paths import Home
    from omb_tui.core.team import api
    real_replace = os.replace
    def kill_at(src, dst, *args, **kwargs):
        if str(dst).endswith(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst, *args, **kwargs)
    os.replace = kill_at
    api.show(Home(sys.argv[1]), "tapa-crew")
""")


@pytest.mark.parametrize("killed_at", ["tapa-crew.json.v1", "tapa-crew.json"])
def test_a_migration_killed_midway_leaves_either_file_whole(home, killed_at):
    raw = write_v1(home)
    done = subprocess.run([sys.executable, "-c", KILLED_MIDWAY, str(home.root), killed_at], timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert team_path(home, "tapa-crew").read_bytes() == raw  # the version-1 file, whole
    copy = teams_dir(home) / "tapa-crew.json.v1"
    assert not copy.exists() or copy.read_bytes() == raw
    view = api.show(home, "tapa-crew").to_dict()  # the next read migrates it
    assert len(view["notes"]) == 2 and (teams_dir(home) / "tapa-crew.json.v1").read_bytes() == raw


def test_a_damaged_team_file_is_one_sentence_naming_the_field(home, crew):
    data = json.loads(team_path(home, crew.key).read_text())
    data["notes"] = [{"key": KEY, "title": "x", "text": 5}]
    team_path(home, crew.key).write_text(json.dumps(data))
    with pytest.raises(MemoryInputError, match="note 1's 'text' is not text"):
        api.show(home, "Tapa crew")


def test_a_linked_teams_folder_is_refused_and_nothing_is_written_through_it(home, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (home.root / "teams").symlink_to(outside)
    with pytest.raises(MemoryInputError, match="symbolic link"):
        create_team(home, "Tapa crew", ["scout"])
    assert list(outside.iterdir()) == []


def test_reading_teams_in_a_home_without_any_creates_nothing(home, run_cli):
    from omb_tui.core.team.storage import get_team

    assert list_teams(home) == []
    with pytest.raises(NotFound, match="There is no team"):
        get_team(home, "Tapa crew")
    assert run_cli("team", "show", "Tapa crew").code != 0
    assert run_cli("team", "list").code == 0
    with pytest.raises(NotFound):
        api.accept(home, "Tapa crew", KEY, "1")
    assert not teams_dir(home).exists()
