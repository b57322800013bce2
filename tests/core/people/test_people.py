"""The people of a Team Cloud home (docs/team-cloud.md): `omb-tui people add|list|remove|token --rotate`, each
token printed once and kept only as a hash, names that cannot collide into another folder, and a home without
people exactly as before."""

from __future__ import annotations

import json
import os
import stat

from omb_tui.core.files.paths import validate_bot_id
from omb_tui.core.people.people import is_team_cloud, people_path, person_for_token
from omb_tui.core.redaction.redact import redact


def test_add_prints_the_token_once_and_keeps_only_its_hash(home, run_cli):
    added = run_cli("people", "add", "dana", "--json")
    assert added.code == 0
    token = json.loads(added.out)["token"]
    assert token.startswith("ombp_") and len(token) >= 45
    kept = people_path(home).read_text()
    assert token not in kept and json.loads(kept)["people"][0]["name"] == "dana"
    assert stat.S_IMODE(os.stat(people_path(home)).st_mode) == 0o600
    assert person_for_token(home, token) == "dana" and person_for_token(home, token + "x") is None
    listed = json.loads(run_cli("people", "list", "--json").out)["people"]
    assert [person["name"] for person in listed] == ["dana"] and "token" not in listed[0]
    assert token not in run_cli("people", "list").out
    assert redact(f"the token is {token}").text.count("ombp_") == 0  # never in a log or a file


def test_rotate_gives_a_new_token_and_the_old_one_stops_working(home, run_cli):
    old = json.loads(run_cli("people", "add", "sam", "--json").out)["token"]
    new = json.loads(run_cli("people", "token", "sam", "--rotate", "--json").out)["token"]
    assert new != old and person_for_token(home, new) == "sam" and person_for_token(home, old) is None


def test_remove_stops_the_token_and_keeps_layers_until_purge(home, run_cli):
    token = json.loads(run_cli("people", "add", "dana", "--json").out)["token"]
    layer = home.workspaces_dir / "scout--member-dana"
    layer.mkdir(parents=True)
    (layer / "MEMORY.md").write_text("# Memory\n\n- prefers short answers\n")
    removed = run_cli("people", "remove", "dana")
    assert removed.code == 0 and "their layers stay on disk (1 layer) until people remove dana --purge" in removed.out
    assert person_for_token(home, token) is None and layer.is_dir()
    run_cli("people", "add", "dana")
    assert run_cli("prefer", "scout", "Dana likes tea", "--person", "dana").code == 0  # her About me, in her layer
    purging = run_cli("people", "remove", "dana", "--purge", "--json")
    assert purging.code == 0, purging.err
    purged = json.loads(purging.out)
    assert purged["layers"] == ["scout--member-dana"] and not layer.exists()
    assert not home.person_dir("dana").exists() and not list(home.journal_dir.glob("scout--member-dana.*"))


def test_names_are_refused_in_one_sentence_rather_than_folded_into_another(home, run_cli):
    for name in ("Dana", "dana ", "dаna", "da--na", "-dana", "dana-", "1dana", "a" * 33, "dana/../scout"):
        refused = run_cli("people", "add", "--", name)
        assert refused.code == 2 and refused.err.count("\n") == 1 and "is not a valid person name" in refused.err
    assert run_cli("people", "add", "dana").code == 0
    again = run_cli("people", "add", "dana")
    assert again.code == 2 and "is a person of this home already" in again.err


def test_a_bot_id_cannot_name_a_persons_layer():
    for bot_id in ("scout--member-dana", "a--MEMBER-b"):
        try:
            validate_bot_id(bot_id)
        except Exception as exc:  # InvalidName: one sentence naming the reason
            assert "names a person's layer of a bot" in str(exc)
        else:
            raise AssertionError(f"{bot_id} was taken as a bot id")


def test_a_home_without_people_is_the_owners_alone(home, run_cli):
    assert not is_team_cloud(home) and not people_path(home).exists()
    assert run_cli("people", "list").out.startswith("No people: this home has its owner alone")
    run_cli("people", "add", "dana")
    assert is_team_cloud(home)
    run_cli("people", "remove", "dana")
    assert not is_team_cloud(home)


def test_unknown_people_are_one_sentence(home, run_cli):
    for argv in (("remove", "ghost"), ("token", "ghost", "--rotate")):
        result = run_cli("people", *argv)
        assert result.code == 2 and result.err == f"omb-tui: There is no person 'ghost' in {home.root}.\n"
