"""A person's own layer over HTTP on a Team Cloud home: every route tried with every principal (the owner,
Dana, Sam, no token, a removed person's token, a token rotated away), each answered as docs/team-cloud.md says and
no byte of another person's layer in any answer, error or log line."""

from __future__ import annotations

import json
import logging
import urllib.parse

import pytest
from support.home import make_bot
from support.serve_helpers import OWNER, LiveServer
from test_serve_openapi import BODIES, a_team_with_a_note_and_a_card

from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import layer_store
from omb_tui.core.people.people import add_person, remove_person, rotate_token
from omb_tui.core.upkeep.about_me import add_learned
from omb_tui.server.app import ROUTES
from omb_tui.server.mine import MINE_ROUTES
from omb_tui.server.teams import TEAM_ROUTES

DANA_SECRET = "Dana keeps her plum jam recipe secret"
SAM_SECRET = "Sam is training for the Kiwi marathon"
PERSON_EDIT = Actor(WHO_PERSON, HOW_SETTINGS)


@pytest.fixture(scope="module")
def team_home(tmp_path_factory):
    """scout with a journal row, a learned line and a team; Dana and Sam each with a layer of scout; Lee removed;
    Kim's first token rotated away."""
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path_factory.mktemp("people") / "home")
    make_bot(home)
    row = MemoryStore(home, "scout").write("MEMORY.md", "- 2026-01-05 · likes tea\n", Actor(WHO_BOT, HOW_TASK))
    learned = add_learned(home, "scout", "The person is vegetarian", PERSON_EDIT, owners_words=True)
    a_team_with_a_note_and_a_card(home)
    tokens = {}
    for name, secret in (("dana", DANA_SECRET), ("sam", SAM_SECRET)):
        _, tokens[name] = add_person(home, name)
        layer = layer_store(home, "scout", name)
        layer.write("MEMORY.md", f"# Memory\n\n- {secret}\n", PERSON_EDIT)
        layer.write("memory/travel.md", f"# Travel\n\n{secret} on the way\n", PERSON_EDIT)
    _, tokens["removed"] = add_person(home, "lee")
    remove_person(home, "lee")
    _, tokens["rotated away"] = add_person(home, "kim")
    rotate_token(home, "kim")
    with LiveServer(home) as server:
        yield home, server, tokens, {"entryId": row.row_id, "learned": learned.id}


def url_of(path: str, method: str, known: dict) -> str:
    url = path.replace("/api/profile/learned/{id}", f"/api/profile/learned/{known['learned']}")
    url = url.replace("{id}", "scout").replace("{entryId}", known["entryId"])
    url = url.replace("{team}", "Crew").replace("{key}", "crew/colour")
    if method in ("GET", "DELETE") and url.endswith("/file"):
        url += "?path=memory/travel.md"
    return url


READS = [(m, p) for m, p, _ in ROUTES + TEAM_ROUTES + MINE_ROUTES if m == "GET"]
CHANGES = [(m, p) for m, p, _ in ROUTES + TEAM_ROUTES + MINE_ROUTES if m != "GET"]


def ask(server, method: str, path: str, known: dict, token: object):
    body = BODIES.get((method, path.replace("/mine/", "/")))
    return server.request(method, url_of(path, method, known), body, token=token)


def leaks(reply, *secrets: str) -> list[str]:
    text = json.dumps(reply.data, ensure_ascii=False) + json.dumps(reply.headers)
    return [secret for secret in secrets if secret in text]


@pytest.mark.parametrize("method, path", sorted(READS + CHANGES))
def test_every_route_with_every_principal(team_home, method, path, caplog):
    home, server, tokens, known = team_home
    mine = "/memory/mine" in path
    caplog.set_level(logging.DEBUG)
    for who in ("none", "removed", "rotated away", "owner", "dana", "sam"):
        token = {"none": None, "owner": OWNER}.get(who, tokens.get(who))
        if who in ("dana", "sam") and mine and method != "GET":
            continue  # a person changing their own layer: the test below, not on this shared home
        reply = ask(server, method, path, known, token)
        if who == "none":
            assert reply.status == 401, (who, reply.error)
        elif who in ("removed", "rotated away"):
            assert reply.status == 403 and "not the owner's" in reply.error, (who, reply.status)
        elif who == "owner":
            assert (reply.status == 403) is mine, (who, reply.status, reply.error)
        else:
            assert (reply.status == 200) if mine else (reply.status == 403), (who, reply.status, reply.error)
        own = {"dana": DANA_SECRET, "sam": SAM_SECRET}.get(who)
        assert leaks(reply, *({DANA_SECRET, SAM_SECRET} - {own})) == [], (who, path)
        if own and mine:
            assert own in json.dumps(reply.data) or path.endswith("/mine"), (who, path)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert not leaks_in(logged, DANA_SECRET, SAM_SECRET, *tokens.values())


def leaks_in(text: str, *secrets: str) -> list[str]:
    return [secret for secret in secrets if secret in text]


def test_each_person_reads_saves_and_removes_in_their_own_layer_only(tmp_path):
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "home")
    make_bot(home)
    _, dana = add_person(home, "dana")
    _, sam = add_person(home, "sam")
    layer_store(home, "scout", "sam").write("MEMORY.md", f"- {SAM_SECRET}\n", PERSON_EDIT)
    with LiveServer(home) as server:
        empty = server.get("/api/bots/scout/memory/mine", token=dana)
        assert empty.status == 200 and empty.data["person"] == "dana" and empty.data["gauge"]["lines"] == 0
        saved = server.request(
            "PUT",
            "/api/bots/scout/memory/mine/file",
            {"path": "MEMORY.md", "text": "- Dana likes window seats\n", "expectedHash": None},
            token=dana,
        )
        assert saved.status == 200 and saved.data["journaled"]
        again = server.request(
            "PUT",
            "/api/bots/scout/memory/mine/file",
            {"path": "MEMORY.md", "text": "- something else\n", "expectedHash": None},
            token=dana,
        )
        assert again.status == 409 and again.data["currentText"] == "- Dana likes window seats\n"
        missing = server.request(
            "PUT", "/api/bots/scout/memory/mine/file", {"path": "MEMORY.md", "text": "x"}, token=dana
        )
        assert missing.status == 428
        read = server.get("/api/bots/scout/memory/mine/file?path=MEMORY.md", token=dana)
        assert read.data["text"] == "- Dana likes window seats\n" and read.data["hash"] == saved.data["hash"]
        sams = server.get("/api/bots/scout/memory/mine/file?path=MEMORY.md", token=sam)
        assert sams.data["text"] == f"- {SAM_SECRET}\n"
        server.request(
            "PUT",
            "/api/bots/scout/memory/mine/file",
            {"path": "memory/plans.md", "text": "# Plans\n", "expectedHash": None},
            token=dana,
        )
        gone = server.request("DELETE", "/api/bots/scout/memory/mine/file?path=memory/plans.md", token=dana)
        assert gone.status == 200 and gone.data["deleted"]
        assert (
            server.request("DELETE", "/api/bots/scout/memory/mine/file?path=memory/plans.md", token=sam).status == 404
        )
    dana_layer = layer_store(home, "scout", "dana")
    assert [row.file for row in dana_layer.journal.rows()] == ["memory/plans.md", "memory/plans.md", "MEMORY.md"]
    assert layer_store(home, "scout", "sam").read("MEMORY.md").text == f"- {SAM_SECRET}\n"  # untouched
    assert "window seats" not in (home.workspace("scout") / "MEMORY.md").read_text()


@pytest.mark.parametrize(
    "url",
    [
        "/api/bots/scout--member-sam/memory/mine",
        "/api/bots/scout--MEMBER-sam/memory/mine",
        "/api/bots/scout/memory/mine/file?path=../../scout--member-sam/MEMORY.md",
        "/api/bots/scout/memory/mine/file?path=" + urllib.parse.quote("../scout--member-sam/MEMORY.md"),
        "/api/bots/scout/memory/mine/file?path=/etc/passwd",
        "/api/bots/..%2Fscout--member-sam/memory/mine",
        "/api/bots/scout%2F..%2Fscout--member-sam/memory/mine",
    ],
)
def test_no_path_trick_reaches_another_persons_layer(tmp_path, url):
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "home")
    make_bot(home)
    make_bot(home, "scout-", "Scout dash")  # scout---member-sam is this bot's layer of sam, never scout's
    _, dana = add_person(home, "dana")
    add_person(home, "sam")
    layer_store(home, "scout", "sam").write("MEMORY.md", f"- {SAM_SECRET}\n", PERSON_EDIT)
    with LiveServer(home) as server:
        reply = server.get(url, token=dana)
        dash = server.get("/api/bots/scout-/memory/mine/file?path=MEMORY.md", token=dana)
    assert reply.status in (400, 404) and SAM_SECRET not in json.dumps(reply.data), (reply.status, reply.data)
    assert dash.status == 404 and SAM_SECRET not in json.dumps(dash.data)


def test_a_home_without_people_answers_as_before(server_home_without_people):
    server = server_home_without_people
    assert server.get("/api/bots/scout/memory").status == 200
    refused = server.get("/api/bots/scout/memory", token="ombp_" + "x" * 43)
    assert refused.status == 403 and refused.error == "That token is not the owner's; nothing was read or changed."
    mine = server.get("/api/bots/scout/memory/mine")
    assert mine.status == 403 and "the owner's token has no layer" in mine.error


@pytest.fixture
def server_home_without_people(home):
    with LiveServer(home) as server:
        yield server


def damage(home, how: str) -> None:
    """A layer or a record in a state that makes the routes fail with a path in their sentence."""
    import shutil

    layer = home.workspace("scout--member-dana")
    if how == "layer is a file":
        shutil.rmtree(layer, ignore_errors=True)
        layer.write_text("not a folder\n")
    elif how == "journal is a folder":
        (home.journal_dir / "scout--member-dana.ndjson").unlink(missing_ok=True)
        (home.journal_dir / "scout--member-dana.ndjson").mkdir(parents=True)
    elif how == "settings are a folder":
        home.settings_path("scout").unlink()
        home.settings_path("scout").mkdir()
    elif how == "settings are broken":
        home.settings_path("scout").write_text("{broken")


@pytest.mark.parametrize(
    "how", ["as it is", "layer is a file", "journal is a folder", "settings are a folder", "settings are broken"]
)
def test_no_answer_to_a_persons_token_names_the_servers_home_folder(tmp_path, how):
    """A 404 said "There is no bot 'x' in /home/…", a 500 named the file by its absolute path, and the overview
    gave the layer's absolute folder: a person learned where the owner keeps the home. Said relative to it now."""
    from omb_tui.core.files.paths import Home

    home = Home(tmp_path / "owner's home")
    make_bot(home)
    _, dana = add_person(home, "dana")
    layer_store(home, "scout", "dana").write("MEMORY.md", "- Dana likes window seats\n", PERSON_EDIT)
    damage(home, how)
    asked = [
        ("GET", "/api/bots/scout/memory/mine", None),
        ("GET", "/api/bots/nobody/memory/mine", None),
        ("GET", "/api/bots/scout/memory/mine/file?path=MEMORY.md", None),
        ("GET", "/api/bots/scout/memory/mine/file?path=memory/absent.md", None),
        ("GET", "/api/bots/scout/memory/mine/file?path=../../x.md", None),
        ("PUT", "/api/bots/scout/memory/mine/file", {"path": "MEMORY.md", "text": "- x\n", "expectedHash": None}),
        ("PUT", "/api/bots/scout/memory/mine/file", {"path": "memory/new.md", "text": "# New\n", "expectedHash": None}),
        ("DELETE", "/api/bots/scout/memory/mine/file?path=memory/absent.md", None),
    ]
    errors = []
    with LiveServer(home) as server:
        for method, url, body in asked:
            reply = server.request(method, url, body, token=dana)
            said = json.dumps(reply.data, ensure_ascii=False)
            assert str(home.root) not in said and "owner's home" not in said, (how, method, url, said)
            errors.append(reply.error)
        owners = server.get("/api/bots/nobody/memory")
    assert any(errors)
    assert "There is no bot 'nobody' in the home." in errors
    if how == "layer is a file":  # still says which file: relative to the home
        assert "Not a directory: workspaces/scout--member-dana/MEMORY.md." in errors
    assert str(home.root) in owners.error  # the owner's own server may name its home
