"""`omb-tui team members TEAM --add ID --remove ID`: membership changes after creation; notes and cards stay, and
who loads the team's block follows at once."""

from __future__ import annotations

import json

from support.home import make_bot

KEY = "launch/date"


def as_json(done):
    assert done.code == 0, done.err
    return json.loads(done.out)


def test_adding_and_removing_members_changes_who_loads_the_block(home, run_cli):
    make_bot(home, "ledger", "Ledger")
    make_bot(home, "harbor", "Harbor")
    as_json(run_cli("team", "create", "Launch crew", "--bots", "scout,ledger", "--json"))
    card = as_json(
        run_cli(
            "team",
            "propose",
            "Launch crew",
            "--key",
            KEY,
            "--title",
            "Launch day",
            "The launch is on Thursday.",
            "--json",
        )
    )
    run_cli("team", "accept", "Launch crew", KEY, "--revision", str(card["revision"]))
    as_json(run_cli("team", "propose", "Launch crew", "--key", "launch/time", "--title", "Time", "At ten.", "--json"))

    team = as_json(run_cli("team", "members", "Launch crew", "--add", "harbor", "--remove", "ledger", "--json"))
    assert team["bots"] == ["scout", "harbor"]
    assert (team["accepted"], team["pending"]) == (1, 1)  # notes and cards stay
    assert "The launch is on Thursday." in run_cli("prompt", "harbor").out
    assert "The launch is on Thursday." not in run_cli("prompt", "ledger").out
    assert run_cli("team", "members", "Launch crew").out.strip() == (
        f"The team 'Launch crew' ({team['key']}): scout, harbor."
    )


def test_membership_mistakes_are_one_sentence_and_change_nothing(home, run_cli):
    make_bot(home, "ledger", "Ledger")
    run_cli("team", "create", "Launch crew", "--bots", "scout")
    for args, said in (
        (("--add", "scout"), "'scout' is already a member of the team 'Launch crew'."),
        (("--remove", "ledger"), "'ledger' is not a member of the team 'Launch crew'."),
        (("--add", "nobody"), "There is no bot 'nobody'"),
        (("--add", "ledger", "--remove", "ledger"), "'ledger' is both added and removed; name it once."),
    ):
        done = run_cli("team", "members", "Launch crew", *args)
        assert done.code != 0 and said in done.err and "Traceback" not in done.err
        assert done.err.count("\n") == 1
    assert as_json(run_cli("team", "list", "--json"))[0]["bots"] == ["scout"]
