"""The team routes (/api/teams/...), through a real server on 127.0.0.1: one route per `omb-tui team` command,
what each answers, every refusal (400, 404, 409 stale with the current revision, 428 without one), the owner's
token, and concurrent accepts of one card."""

from __future__ import annotations

import json
import os
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import jsonschema
import pytest
from support.home import make_bot
from support.serve_helpers import LiveServer

from omb_tui.core.team import api as team_api
from omb_tui.core.team.storage import create_team, team_path, teams_locked
from omb_tui.core.turn.bot import Bot
from omb_tui.server.app import OPENAPI_PATH, WORKER_THREADS

KEY = "tapa/sequence-02/colour"
CREW = "/api/teams/Tapa%20crew"
NOTE = f"{CREW}/notes/{KEY}"
FAKE_KEY = "sk-ant-api03-" + "Zq7Xv2Lm9Rt4Wp8Ks3Nd6Hf1Jc5Bg0Ya" * 2  # shaped like a key, not a real one
SPEC = json.loads(OPENAPI_PATH.read_text())


@pytest.fixture
def server(home):
    make_bot(home, "ledger", "Ledger")
    with LiveServer(home) as server:
        yield server


@pytest.fixture
def crew(home, server):
    """The team "Tapa crew" (scout and ledger) with the note KEY accepted at revision 2."""
    team = create_team(home, "Tapa crew", ["scout", "ledger"])
    team_api.propose(home, team.key, KEY, "Sequence 02 colour", "Warm amber, never teal.")
    team_api.accept(home, team.key, KEY, 1)
    return team


def ok(reply) -> dict:
    assert reply.status == 200, reply.data
    return reply.data


def matches(reply, method: str, path: str) -> bool:
    """The answer has the shape openapi.json gives that route and status."""
    schema = SPEC["paths"][path][method]["responses"][str(reply.status)]["content"]["application/json"]["schema"]
    jsonschema.Draft202012Validator({**schema, "components": SPEC["components"]}).validate(reply.data)
    return True


# ----- the teams: create, list, rename, delete -----
def test_create_list_rename_and_delete_a_team(server, home):
    made = ok(server.request("POST", "/api/teams", {"name": "Tapa crew", "bots": ["scout", "ledger"]}))
    assert made["name"] == "Tapa crew" and made["bots"] == ["scout", "ledger"] and made["key"].startswith("team-")
    assert os.stat(team_path(home, made["key"])).st_mode & 0o777 == 0o600
    assert [t["key"] for t in ok(server.get("/api/teams"))["teams"]] == [made["key"]]

    renamed = ok(server.request("POST", f"/api/teams/{made['key']}/rename", {"name": "Grade crew"}))
    assert (renamed["key"], renamed["name"]) == (made["key"], "Grade crew")
    assert server.get(CREW).status == 404  # the old name is gone; the key still finds it
    assert ok(server.get(f"/api/teams/{made['key']}"))["team"]["name"] == "Grade crew"

    retired = ok(server.request("DELETE", "/api/teams/grade%20crew"))
    assert retired["retired"] and ok(server.get("/api/teams"))["teams"] == []
    gone = server.get(f"/api/teams/{made['key']}")
    assert gone.status == 404 and "was deleted" in gone.error
    assert team_path(home, made["key"]).is_file()  # kept for recovery: not a secure erase


def test_a_renamed_team_keeps_its_notes_and_a_new_team_of_a_deleted_name_sees_none(server, crew):
    team_api.propose(server.home, crew.key, "tapa/fps", "Frame rate", "24 frames a second.")
    ok(server.request("POST", f"{CREW}/rename", {"name": "Grade crew"}))
    shown = ok(server.get("/api/teams/Grade%20crew"))
    assert [n["key"] for n in shown["notes"]] == [KEY] and [c["key"] for c in shown["pending"]] == ["tapa/fps"]
    ok(server.request("DELETE", "/api/teams/Grade%20crew"))
    again = ok(server.request("POST", "/api/teams", {"name": "Grade crew", "bots": ["scout"]}))
    assert again["key"] != crew.key
    shown = ok(server.get("/api/teams/Grade%20crew"))
    assert (shown["notes"], shown["pending"]) == ([], [])


@pytest.mark.parametrize(
    "body, says",
    [
        ({"bots": ["scout"]}, "'name'"),
        ({"name": 7}, "'name'"),
        ({"name": "Crew", "bots": "scout"}, '"bots"'),
        ({"name": "Crew", "bots": ["nobody"]}, "no bot 'nobody'"),
        ({"name": "Crew", "bots": ["../x"]}, "not a valid bot id"),
        ({"name": "   "}, "needs a name"),
        ({"name": "x" * 61}, "not a team name"),
    ],
)
def test_create_refuses_a_bad_body_with_400(server, home, body, says):
    reply = server.request("POST", "/api/teams", body)
    assert reply.status == 400 and says in reply.error
    assert not (home.root / "teams").exists() or not list((home.root / "teams").glob("*.json"))


def test_create_and_rename_refuse_a_name_in_use(server, crew):
    other = ok(server.request("POST", "/api/teams", {"name": "Grade crew"}))
    taken = server.request("POST", "/api/teams", {"name": "TAPA CREW"})
    assert taken.status == 400 and "already a team named" in taken.error
    renamed = server.request("POST", f"/api/teams/{other['key']}/rename", {"name": "tapa crew"})
    assert renamed.status == 400 and "already a team named" in renamed.error


def test_a_team_that_does_not_exist_is_404_on_every_team_route(server, crew):
    for method, path, body in [
        ("GET", "/api/teams/nope", None),
        ("DELETE", "/api/teams/nope", None),
        ("POST", "/api/teams/nope/rename", {"name": "x"}),
        ("POST", "/api/teams/nope/propose", {"key": "a", "title": "A", "text": "a"}),
        ("GET", "/api/teams/nope/gauge", None),
        ("GET", "/api/teams/nope/prompt", None),
        ("GET", f"/api/teams/nope/notes/{KEY}/history", None),
        ("POST", f"/api/teams/nope/notes/{KEY}/accept", {"revision": 1}),
    ]:
        reply = server.request(method, path, body)
        assert reply.status == 404 and "no team 'nope'" in reply.error, (method, path)


# ----- show, propose, accept -----
def test_propose_then_accept_and_every_members_prompt_carries_it(server, home, crew):
    card = ok(
        server.request(
            "POST", f"{CREW}/propose", {"key": "tapa/fps", "title": "Frame rate", "text": "24 frames a second."}
        )
    )
    assert (card["status"], card["basedOn"], card["by"]) == ("proposed", None, "person")
    shown = ok(server.get(CREW))
    assert [(c["key"], c["title"], c["text"], c["pinned"], c["status"], c["revision"]) for c in shown["pending"]] == [
        ("tapa/fps", "Frame rate", "24 frames a second.", False, "proposed", card["revision"])
    ]
    assert matches(server.get(CREW), "get", "/api/teams/{team}")

    note = ok(server.request("POST", f"{CREW}/notes/tapa/fps/accept", {"revision": card["revision"]}))
    assert note["status"] == "accepted" and note["revision"] > card["revision"]
    shown = ok(server.get(CREW))
    assert [(n["key"], n["loads"]) for n in shown["notes"]] == [(KEY, True), ("tapa/fps", True)]
    assert shown["pending"] == []
    for bot in ("scout", "ledger"):
        assert "24 frames a second." in Bot(home, bot).prompt()


def test_a_key_with_slashes_can_be_sent_encoded(server, crew):
    encoded = urllib.parse.quote(KEY, safe="")
    assert "%2F" in encoded
    assert ok(server.get(f"{CREW}/notes/{encoded}/history"))["note"]["key"] == KEY


@pytest.mark.parametrize(
    "body, says",
    [
        ({"title": "T", "text": "t"}, "'key'"),
        ({"key": "Bad Key", "title": "T", "text": "t"}, "not a note key"),
        ({"key": "a", "title": "", "text": "t"}, "needs a title"),
        ({"key": "a", "title": "T", "text": "x" * 2001}, "longer than 2,000"),
        ({"key": KEY, "title": "Sequence 02 colour", "text": "Warm amber, never teal."}, "already says exactly this"),
    ],
)
def test_propose_refuses_a_bad_card_with_400(server, crew, body, says):
    reply = server.request("POST", f"{CREW}/propose", body)
    assert reply.status == 400 and says in reply.error
    assert ok(server.get(CREW))["pending"] == []


def test_a_proposal_is_redacted_in_the_answer_and_on_disk(server, home, crew):
    card = ok(
        server.request(
            "POST", f"{CREW}/propose", {"key": "deploy", "title": "Deploy", "text": f"The deploy key is {FAKE_KEY}."}
        )
    )
    assert FAKE_KEY not in card["text"] and "redacted" in card["text"]
    assert FAKE_KEY.encode() not in team_path(home, crew.key).read_bytes()


# ----- a revision: missing 428, stale 409 -----
CHANGES = [  # (action, what the revision is of, the body's other fields)
    ("accept", "card", {}),
    ("reject", "card", {}),
    ("edit", "note", {"text": "Warm amber, softer."}),
    ("delete", "note", {}),
    ("pin", "note", {}),
    ("unpin", "note", {}),
    ("restore", "note", {"version": 2}),
]


@pytest.fixture
def crew_with_history_and_card(home, crew):
    """KEY: note at revision 3 (version 2 in its history), its pending card at revision 4."""
    team_api.edit(home, crew.key, KEY, 2, "Warm amber.")
    team_api.propose(home, crew.key, KEY, "Sequence 02 colour", "Deep amber.")
    return crew


@pytest.mark.parametrize("action, what, extra", CHANGES)
def test_every_change_without_a_revision_is_428_naming_it(
    server, home, crew_with_history_and_card, action, what, extra
):
    before = team_path(home, crew_with_history_and_card.key).read_bytes()
    reply = server.request("POST", f"{NOTE}/{action}", extra or None)
    assert reply.status == 428 and '"revision"' in reply.error and f"of the {what}" in reply.error
    assert team_path(home, crew_with_history_and_card.key).read_bytes() == before


@pytest.mark.parametrize("action, what, extra", CHANGES)
def test_a_change_without_a_revision_is_428_even_where_there_is_nothing_to_change(
    server, home, crew, action, what, extra
):
    reply = server.request("POST", f"{CREW}/notes/nothing-here/{action}", extra or None)
    assert reply.status == 428 and f"of the {what}" in reply.error


@pytest.mark.parametrize("action, what, extra", CHANGES)
def test_every_change_with_a_stale_revision_is_409_with_the_current_one_and_the_note(
    server, home, crew_with_history_and_card, action, what, extra
):
    before = team_path(home, crew_with_history_and_card.key).read_bytes()
    reply = server.request("POST", f"{NOTE}/{action}", {"revision": 1, **extra})
    assert reply.status == 409 and "not 1" in reply.error
    assert reply.data["currentRevision"] == (4 if what == "card" else 3)
    assert (reply.data["note"]["revision"], reply.data["note"]["text"]) == (3, "Warm amber.")
    assert (reply.data["card"]["revision"], reply.data["card"]["text"]) == (4, "Deep amber.")
    assert matches(reply, "post", f"/api/teams/{{team}}/notes/{{key}}/{action}")
    assert team_path(home, crew_with_history_and_card.key).read_bytes() == before


@pytest.mark.parametrize("action, what, extra", CHANGES)
def test_every_change_with_its_revision_is_done(server, crew_with_history_and_card, action, what, extra):
    revision = 4 if what == "card" else 3
    reply = server.request("POST", f"{NOTE}/{action}", {"revision": revision, **extra})
    assert matches(reply, "post", f"/api/teams/{{team}}/notes/{{key}}/{action}")
    done = ok(reply)
    shown = ok(server.get(CREW))
    notes = {n["key"]: n for n in shown["notes"] + shown["deleted"]}
    if action == "accept":
        assert notes[KEY]["text"] == "Deep amber." and shown["pending"] == []
    elif action == "reject":
        assert done["revision"] == 4 and shown["pending"] == [] and notes[KEY]["text"] == "Warm amber."
    elif action == "edit":
        assert notes[KEY]["text"] == "Warm amber, softer."
    elif action == "delete":
        assert notes[KEY]["status"] == "deleted" and [n["key"] for n in shown["notes"]] == []
    elif action == "restore":
        assert notes[KEY]["text"] == "Warm amber, never teal."
    else:
        assert notes[KEY]["pinned"] is (action == "pin")


def test_a_card_is_stale_when_the_note_changed_since_it_was_proposed(server, home, crew):
    card = team_api.propose(home, crew.key, KEY, "Sequence 02 colour", "Deep amber.")
    ok(server.request("POST", f"{NOTE}/pin", {"revision": 2}))
    reply = server.request("POST", f"{NOTE}/accept", {"revision": card.revision})
    assert reply.status == 409 and "changed since this card was proposed" in reply.error
    assert reply.data["note"]["pinned"] is True and reply.data["card"]["text"] == "Deep amber."
    assert ok(server.get(CREW))["notes"][0]["text"] == "Warm amber, never teal."


@pytest.mark.parametrize(
    "body, says",
    [
        ({"revision": "2"}, "revision must be a whole number"),
        ({"revision": True}, "revision must be a whole number"),
        ({"revision": 2.5}, "revision must be a whole number"),
    ],
)
def test_a_revision_that_is_not_a_whole_number_is_400(server, crew, body, says):
    reply = server.request("POST", f"{NOTE}/pin", body)
    assert reply.status == 400 and says in reply.error


def test_edit_needs_text_and_restore_a_version(server, crew_with_history_and_card):
    no_text = server.request("POST", f"{NOTE}/edit", {"revision": 3})
    assert no_text.status == 400 and "'text'" in no_text.error
    no_version = server.request("POST", f"{NOTE}/restore", {"revision": 3})
    assert no_version.status == 400 and '"version"' in no_version.error
    unknown = server.request("POST", f"{NOTE}/restore", {"revision": 3, "version": 99})
    assert unknown.status == 404 and "no earlier version 99" in unknown.error


def test_a_note_or_card_that_does_not_exist_is_404(server, crew):
    for action in ("accept", "reject"):  # KEY has a note but no pending card
        reply = server.request("POST", f"{NOTE}/{action}", {"revision": 2})
        assert reply.status == 404 and "no pending card" in reply.error
    for path in (f"{CREW}/notes/tapa/nothing/pin", f"{CREW}/notes/tapa/nothing/edit"):
        reply = server.request("POST", path, {"revision": 1, "text": "x"})
        assert reply.status == 404 and "no note 'tapa/nothing'" in reply.error
    assert server.get(f"{CREW}/notes/tapa/nothing/history").status == 404
    bad = server.get(f"{CREW}/notes/Not%20A%20Key/history")
    assert bad.status == 400 and "not a note key" in bad.error


def test_editing_a_deleted_note_is_400_until_it_is_restored(server, crew):
    deleted = ok(server.request("POST", f"{NOTE}/delete", {"revision": 2}))
    reply = server.request("POST", f"{NOTE}/edit", {"revision": deleted["revision"], "text": "x"})
    assert reply.status == 400 and "restore it first" in reply.error
    restored = ok(server.request("POST", f"{NOTE}/restore", {"revision": deleted["revision"], "version": 2}))
    assert restored["status"] == "accepted"


def test_two_accepts_of_one_card_at_once_exactly_one_wins(server, home, crew):
    card = team_api.propose(home, crew.key, KEY, "Sequence 02 colour", "Deep amber.")
    with ThreadPoolExecutor(2) as pool:
        replies = list(
            pool.map(lambda _: server.request("POST", f"{NOTE}/accept", {"revision": card.revision}), range(2))
        )
    assert sorted(reply.status for reply in replies) == [200, 409]
    loser = next(reply for reply in replies if reply.status == 409)
    assert loser.data["card"] is None and loser.data["note"]["text"] == "Deep amber."
    note, versions = team_api.history(home, crew.key, KEY)
    assert note.text == "Deep amber." and [v.text for v in versions] == ["Warm amber, never teal."]


# ----- history, gauge, prompt -----
def test_history_lists_the_earlier_versions_newest_first(server, crew_with_history_and_card):
    history = ok(server.get(f"{NOTE}/history"))
    assert (history["note"]["revision"], history["note"]["text"]) == (3, "Warm amber.")
    assert [(v["revision"], v["status"], v["text"]) for v in history["versions"]] == [
        (2, "superseded", "Warm amber, never teal.")
    ]


def test_gauge_and_prompt_give_what_every_member_loads(server, crew):
    gauge = ok(server.get(f"{CREW}/gauge"))
    prompt = ok(server.get(f"{CREW}/prompt"))
    assert (gauge["maxBytes"], gauge["loaded"], gauge["notLoaded"]) == (6000, 1, 0)
    assert prompt["block"].startswith("## Team memory: Tapa crew") and KEY in prompt["block"]
    assert gauge["bytes"] == len(prompt["block"].encode("utf-8"))


def test_a_damaged_team_file_is_500_naming_it(server, home, crew):
    path = team_path(home, crew.key)
    data = json.loads(path.read_text())
    data["notes"][0]["revision"] = "two"
    path.write_text(json.dumps(data))
    reply = server.get(f"/api/teams/{crew.key}")
    assert reply.status == 500 and crew.key in reply.error and "revision" in reply.error


# ----- the owner, and room for the bots -----
@pytest.mark.parametrize(
    "method, path",
    [("GET", "/api/teams"), ("POST", "/api/teams"), ("GET", CREW), ("POST", f"{NOTE}/accept"), ("DELETE", CREW)],
)
def test_every_team_route_needs_the_owners_token(server, home, crew, method, path):
    before = team_path(home, crew.key).read_bytes()
    assert server.request(method, path, {"name": "x", "revision": 1}, token=None).status == 401
    wrong = server.request(method, path, {"name": "x", "revision": 1}, token="not-the-token")
    assert wrong.status == 403 and "not the owner's" in wrong.error
    assert team_path(home, crew.key).read_bytes() == before


def test_team_requests_waiting_for_the_teams_lock_leave_room_for_the_bots(server, home, crew):
    waiting_count = WORKER_THREADS + 8
    with ThreadPoolExecutor(waiting_count) as pool:
        with teams_locked(home):  # as the app or the command line holds it while it changes a team
            waiting = [pool.submit(server.get, CREW) for _ in range(waiting_count)]
            other = server.get("/api/bots/ledger/memory")
            assert other.status == 200 and other.data["name"] == "Ledger"
            assert not any(request.done() for request in waiting)
        assert all(request.result(timeout=60).status == 200 for request in waiting)
