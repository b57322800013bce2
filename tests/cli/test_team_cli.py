"""`omb-tui team …`: every command with --json, a stale revision exits 3 printing the current one, a missing
`--revision` exits 2 naming it, and `omb-tui prompt BOT` carries the team block."""

from __future__ import annotations

import json

import pytest
from support.home import make_bot

KEY = "tapa/sequence-02/colour"


@pytest.fixture
def crew(home, run_cli):
    make_bot(home, "ledger", "Ledger")
    done = run_cli("team", "create", "Tapa crew", "--bots", "scout,ledger", "--json")
    assert done.code == 0, done.err
    return json.loads(done.out)


def as_json(done):
    assert done.code == 0, done.err
    return json.loads(done.out)


def test_propose_accept_and_every_members_prompt_carries_it(run_cli, crew):
    card = as_json(
        run_cli(
            "team",
            "propose",
            "Tapa crew",
            "--key",
            KEY,
            "--title",
            "Sequence 02 colour",
            "Warm amber grade, never teal.",
            "--json",
        )
    )
    assert (card["status"], card["based_on"]) == ("proposed", None)
    note = as_json(run_cli("team", "accept", crew["key"], KEY, "--revision", str(card["revision"]), "--json"))
    assert note["status"] == "accepted"
    for bot in ("scout", "ledger"):
        assert "Warm amber grade, never teal." in run_cli("prompt", bot).out
    shown = as_json(run_cli("team", "show", "tapa crew", "--json"))
    assert [(n["key"], n["title"], n["pinned"], n["status"], n["revision"]) for n in shown["notes"]] == [
        (KEY, "Sequence 02 colour", False, "accepted", note["revision"])
    ]
    assert run_cli("team", "prompt", "Tapa crew").out.startswith("## Team memory: Tapa crew")
    gauge = as_json(run_cli("team", "gauge", "Tapa crew", "--json"))
    assert (gauge["max_bytes"], gauge["loaded"], gauge["not_loaded"]) == (6000, 1, 0) and gauge["bytes"] > 0
    assert "1 note loads, 0 do not (session_search" in run_cli("team", "gauge", "Tapa crew").out
    assert "): 1 note loads, 0 do not; " in run_cli("team", "show", "Tapa crew").out
    assert run_cli("team", "list").out.rstrip().endswith("bots: scout, ledger  1 note, 0 pending")


def test_a_stale_revision_exits_3_printing_the_current_one(run_cli, crew):
    card = as_json(run_cli("team", "propose", "Tapa crew", "--key", KEY, "--title", "Colour", "Warm amber.", "--json"))
    note = as_json(run_cli("team", "accept", "Tapa crew", KEY, "--revision", str(card["revision"]), "--json"))
    edited = as_json(
        run_cli(
            "team",
            "edit",
            "Tapa crew",
            KEY,
            "--revision",
            str(note["revision"]),
            "--json",
            stdin=b"Warm amber, softer.\n",
        )
    )
    done = run_cli("team", "edit", "Tapa crew", KEY, "--revision", str(note["revision"]), stdin=b"mine")
    assert done.code == 3 and f"revision {edited['revision']} now" in done.err and done.err.count("\n") == 1
    done = run_cli("team", "delete-note", "Tapa crew", KEY, "--revision", str(note["revision"]), "--json")
    assert done.code == 3 and json.loads(done.out)["current_revision"] == edited["revision"]
    assert as_json(run_cli("team", "show", "Tapa crew", "--json"))["notes"][0]["text"] == "Warm amber, softer."


@pytest.mark.parametrize(
    "command", [["accept"], ["reject"], ["edit"], ["delete-note"], ["pin"], ["unpin"], ["restore", "1"]]
)
def test_a_missing_revision_exits_2_naming_the_flag(run_cli, crew, command):
    run_cli("team", "propose", "Tapa crew", "--key", KEY, "--title", "Colour", "Warm amber.")
    done = run_cli("team", command[0], "Tapa crew", KEY, *command[1:])
    assert done.code == 2 and "--revision" in done.err and "Traceback" not in done.err


def test_rename_delete_list_history_restore_pin(run_cli, crew):
    card = as_json(run_cli("team", "propose", "Tapa crew", "--key", KEY, "--title", "Colour", "Warm amber.", "--json"))
    note = as_json(run_cli("team", "accept", "Tapa crew", KEY, "--revision", str(card["revision"]), "--json"))
    edited = as_json(
        run_cli("team", "edit", "Tapa crew", KEY, "--revision", str(note["revision"]), "--json", stdin=b"Cool blue.")
    )
    history = as_json(run_cli("team", "history", "Tapa crew", KEY, "--json"))
    assert [(v["revision"], v["text"], v["status"]) for v in history["versions"]] == [
        (note["revision"], "Warm amber.", "superseded")
    ]
    restored = as_json(
        run_cli(
            "team", "restore", "Tapa crew", KEY, str(note["revision"]), "--revision", str(edited["revision"]), "--json"
        )
    )
    assert restored["text"] == "Warm amber." and restored["revision"] == edited["revision"] + 1
    pinned = as_json(run_cli("team", "pin", "Tapa crew", KEY, "--revision", str(restored["revision"]), "--json"))
    assert pinned["pinned"]
    renamed = as_json(run_cli("team", "rename", "Tapa crew", "Tapa editors", "--json"))
    assert renamed["key"] == crew["key"] and renamed["accepted"] == 1
    assert [t["name"] for t in as_json(run_cli("team", "list", "--json"))] == ["Tapa editors"]
    done = run_cli("team", "delete", "Tapa editors")
    assert done.code == 0 and "not a secure erase" in done.out
    assert as_json(run_cli("team", "list", "--json")) == []
    assert "Warm amber" not in run_cli("prompt", "scout").out


def test_reject_drops_the_card(run_cli, crew):
    card = as_json(run_cli("team", "propose", "Tapa crew", "--key", KEY, "--title", "Colour", "Warm amber.", "--json"))
    assert run_cli("team", "reject", "Tapa crew", KEY, "--revision", str(card["revision"])).code == 0
    assert as_json(run_cli("team", "show", "Tapa crew", "--json"))["pending"] == []


def test_bad_inputs_are_one_sentence(run_cli, crew):
    for argv, words in (
        (["team", "show", "Nobody"], "no team"),
        (["team", "create", "Other", "--bots", "ghost"], "no bot"),
        (["team", "propose", "Tapa crew", "--key", "Bad Key", "--title", "t", "x"], "not a note key"),
        (["team", "accept", "Tapa crew", KEY, "--revision", "1"], "no pending card"),
    ):
        done = run_cli(*argv)
        assert done.code == 2 and words in done.err and done.err.count("\n") == 1, (argv, done.err)


def test_the_installed_command_runs_a_team_command(run_exe, crew):
    done = run_exe("team", "list", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)[0]["name"] == "Tapa crew"


def test_a_card_reviewed_meanwhile_exits_3_as_the_routes_answer_409(run_cli, crew):
    card = as_json(run_cli("team", "propose", "Tapa crew", "--key", KEY, "--title", "Colour", "Warm amber.", "--json"))
    assert run_cli("team", "accept", "Tapa crew", KEY, "--revision", str(card["revision"])).code == 0
    late = run_cli("team", "reject", "Tapa crew", KEY, "--revision", str(card["revision"]))
    assert late.code == 3 and "no longer pending" in late.err
