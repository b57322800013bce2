"""`omb-tui team backup|package|import` (docs/backup.md): a team backup carries its bots whole, `helperModel` too; a
shared team package carries the accepted notes and the bots' instructions and nothing personal (spec memory.md,
"Keeping one bot off the helper")."""

from __future__ import annotations

import json

import pytest
from test_backup import crafted, regular

from omb_tui.core.backup.archive import read_backup
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.conversations import chats_dir
from omb_tui.core.memory.settings import load_bot_settings, set_bot_switches
from omb_tui.core.team import api as team_api
from omb_tui.core.team.storage import create_team, get_team


@pytest.fixture
def crew(home):
    """The team "Crew" of scout: a note accepted then edited (history), a pending card; scout off the helper, with
    instructions, a chat and About me in the home."""
    set_bot_switches(home, "scout", {"helperModel": False})
    (home.workspace("scout") / "INSTRUCTIONS.md").write_text("Answer in two lines.\n")
    chats_dir(home, "scout").mkdir(parents=True)
    (chats_dir(home, "scout") / "plans.ndjson").write_text('{"type": "header"}\n')
    home.about_me_path.write_text("- I live in Pune\n")
    create_team(home, "Crew", ["scout"])
    team_api.propose(home, "Crew", "crew/colour", "Colour", "Amber.")
    team_api.accept(home, "Crew", "crew/colour", 1)
    team_api.edit(home, "Crew", "crew/colour", 2, "Warm amber.")
    team_api.propose(home, "Crew", "crew/other", "Other", "A card still pending.")
    return get_team(home, "Crew")


def test_a_team_backup_brings_back_the_team_and_its_bots_off_the_helper(home, crew, tmp_path, run_cli):
    backup = tmp_path / "crew.tar"
    assert run_cli("team", "backup", "Crew", "--to", str(backup)).code == 0
    other = Home(tmp_path / "other")
    result = run_cli("--home", str(other.root), "team", "import", str(backup), with_home=False)
    assert result.code == 0, result.err
    assert "Imported the team 'Crew': 1 accepted note, scout." in result.out
    assert load_bot_settings(other, "scout").helper_model is False
    team_file = f"teams/{crew.key}.json"
    assert (other.root / team_file).read_bytes() == (home.root / team_file).read_bytes()  # history and cards too
    assert (other.workspace("scout") / "INSTRUCTIONS.md").read_text() == "Answer in two lines.\n"
    assert (chats_dir(other, "scout") / "plans.ndjson").exists()
    assert not other.about_me_path.exists()  # About me is the home's, not the team's
    again = run_cli("--home", str(other.root), "team", "import", str(backup), with_home=False)
    assert again.code == 2 and "already has a bot 'scout'" in again.err


def test_a_team_package_carries_no_personal_setting_and_no_helper_switch(home, crew, tmp_path, run_cli):
    package = tmp_path / "crew-package.tar"
    result = run_cli("team", "package", "Crew", "--to", str(package))
    assert result.code == 0 and "not encrypted" in result.err
    data = package.read_bytes()
    assert b"helperModel" not in data and b"Pune" not in data and b"plans" not in data
    assert b"A card still pending" not in data and b"Amber." not in data  # neither cards nor history
    opened = read_backup(package)
    assert sorted(opened.files) == ["bots/scout.json", f"teams/{crew.key}.json", "workspaces/scout/INSTRUCTIONS.md"]
    assert json.loads(opened.files["bots/scout.json"]) == {"name": "Scout"}

    other = Home(tmp_path / "other")
    result = run_cli("--home", str(other.root), "team", "import", str(package), with_home=False)
    assert result.code == 0, result.err
    assert load_bot_settings(other, "scout").helper_model is True  # the package did not carry it
    assert (other.workspace("scout") / "INSTRUCTIONS.md").read_text() == "Answer in two lines.\n"
    team = get_team(other, "Crew")
    assert [(n.key, n.text, n.history) for n in team.accepted()] == [("crew/colour", "Warm amber.", [])]
    assert team.cards == {}
    assert not (other.workspace("scout") / "MEMORY.md").exists() and not chats_dir(other, "scout").exists()


def test_a_package_is_imported_with_team_import_only_and_never_over_what_the_home_has(home, crew, tmp_path, run_cli):
    package = tmp_path / "crew-package.tar"
    assert run_cli("team", "package", "Crew", "--to", str(package)).code == 0
    refused = run_cli("restore", str(package))
    assert refused.code == 2 and "import it with `omb-tui team import FILE`" in refused.err
    before = sorted(p.name for p in home.root.rglob("*"))
    taken = run_cli("team", "import", str(package))
    assert taken.code == 2 and "already has a bot 'scout'" in taken.err
    assert sorted(p.name for p in home.root.rglob("*")) == before


def test_a_package_holding_anything_else_is_refused(tmp_path, run_cli):
    members = [regular("bots/scout.json", b'{"name": "Scout"}'), regular("workspaces/scout/MEMORY.md")]
    package = tmp_path / "odd.tar"
    package.write_bytes(crafted(members, kind="team-package", team="team-00000000"))
    target = tmp_path / "target"
    target.mkdir()
    result = run_cli("--home", str(target), "team", "import", str(package), with_home=False)
    assert result.code == 2 and "which a team package never holds" in result.err, result.err
    assert list(target.iterdir()) == []


def test_escape_codes_in_a_packaged_bot_name_never_reach_the_terminal(home, crew, tmp_path, run_cli):
    """A package is someone else's file: a name with ESC, BEL or a C1 CSI would recolour, retitle or clear the
    terminal of whoever lists their bots. Every surface reads a bot's name printable, its controls escaped."""
    hostile = "Scout\x1b[2J\x1b]0;pwned\x07\x9b31m\u202e"
    settings = json.loads(home.settings_path("scout").read_text())
    home.settings_path("scout").write_text(json.dumps({**settings, "name": hostile}))
    package = tmp_path / "crew-package.tar"
    assert run_cli("team", "package", "Crew", "--to", str(package)).code == 0
    other = Home(tmp_path / "other")
    imported = run_cli("--home", str(other.root), "team", "import", str(package), with_home=False)
    assert imported.code == 0, imported.err
    listed = run_cli("--home", str(other.root), "bots", with_home=False)
    assert listed.code == 0, listed.err
    for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert raw not in listed.out + imported.out, repr(raw)
    assert "Scout\\x1b[2J" in listed.out
    assert load_bot_settings(other, "scout").name.isprintable()
