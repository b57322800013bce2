"""The OpenAPI description (omb_tui/server/openapi.json, served at /api/openapi.json) lists exactly the routes the
server has, every one of them answers, each describes every refusal it can answer, and its limits are the
server's: at each edge, the server refuses a value exactly when the description does."""

from __future__ import annotations

import json

import jsonschema
import pytest
from support.serve_helpers import OWNER, server  # noqa: F401 (server: a fixture)

from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import layer_store
from omb_tui.core.people.people import add_person
from omb_tui.core.team import api as team_api
from omb_tui.core.team.storage import create_team
from omb_tui.core.upkeep.about_me import add_learned
from omb_tui.server.app import OPENAPI_PATH, ROUTES
from omb_tui.server.mine import MINE_ROUTES
from omb_tui.server.teams import TEAM_ROUTES

METHODS = ("get", "put", "post", "delete", "patch")
NO_ROUTE = "There is no such route"


SPEC = json.loads(OPENAPI_PATH.read_text())


def described() -> set[tuple[str, str]]:
    spec = SPEC
    return {(method.upper(), path) for path, item in spec["paths"].items() for method in item if method in METHODS}


def test_the_description_lists_exactly_the_routes_the_server_has():
    assert described() == {(method, path) for method, path, _ in ROUTES + MINE_ROUTES + TEAM_ROUTES}


def test_the_description_covers_the_spec_table():
    table = {
        ("GET", "/api/bots/{id}/memory"),
        ("GET", "/api/bots/{id}/memory/file"),
        ("PUT", "/api/bots/{id}/memory/file"),
        ("DELETE", "/api/bots/{id}/memory/file"),
        ("GET", "/api/bots/{id}/memory/journal"),
        ("POST", "/api/bots/{id}/memory/journal/{entryId}/revert"),
        ("POST", "/api/bots/{id}/memory/open"),
        ("GET", "/api/bots/{id}/memory/upkeep"),
        ("POST", "/api/bots/{id}/memory/tidy"),
        ("GET", "/api/profile/learned"),
        ("POST", "/api/profile/learned/{id}/remove"),
    }
    assert table <= described()


BODIES = {
    ("PATCH", "/api/bots/{id}"): {"helperModel": False},
    ("PUT", "/api/bots/{id}/memory"): {"text": "- saved whole\n"},
    ("PUT", "/api/bots/{id}/memory/file"): {"path": "memory/new.md", "text": "# New\n", "expectedHash": None},
    ("POST", "/api/bots/{id}/memory/open"): {"target": "folder"},
    ("POST", "/api/teams"): {"name": "Second crew", "bots": ["scout"]},
    ("POST", "/api/teams/{team}/rename"): {"name": "Renamed crew"},
    ("POST", "/api/teams/{team}/propose"): {"key": "crew/other", "title": "Other", "text": "Another note."},
    ("POST", "/api/teams/{team}/notes/{key}/accept"): {"revision": 4},
    ("POST", "/api/teams/{team}/notes/{key}/reject"): {"revision": 4},
    ("POST", "/api/teams/{team}/notes/{key}/edit"): {"revision": 3, "text": "Edited."},
    ("POST", "/api/teams/{team}/notes/{key}/delete"): {"revision": 3},
    ("POST", "/api/teams/{team}/notes/{key}/pin"): {"revision": 3},
    ("POST", "/api/teams/{team}/notes/{key}/unpin"): {"revision": 3},
    ("POST", "/api/teams/{team}/notes/{key}/restore"): {"revision": 3, "version": 2},
}


def a_team_with_a_note_and_a_card(home):
    """The team "Crew": note crew/colour at revision 3 (version 2 in its history), its pending card at 4."""
    create_team(home, "Crew", ["scout"])
    team_api.propose(home, "Crew", "crew/colour", "Colour", "Amber.")
    team_api.accept(home, "Crew", "crew/colour", 1)
    team_api.edit(home, "Crew", "crew/colour", 2, "Warm amber.")
    team_api.propose(home, "Crew", "crew/colour", "Colour", "Deep amber.")


@pytest.mark.parametrize("method, path", sorted(described()))
def test_every_described_route_answers(server, home, method, path):
    row = MemoryStore(home, "scout").write("MEMORY.md", "- 2026-01-05 · likes tea\n", Actor(WHO_BOT, HOW_TASK))
    learned = add_learned(home, "scout", "The person is vegetarian", Actor(WHO_PERSON, HOW_SETTINGS), owners_words=True)
    assert learned.added
    url = path.replace("/api/profile/learned/{id}", f"/api/profile/learned/{learned.id}")
    url = url.replace("{id}", "scout").replace("{entryId}", row.row_id)
    a_team_with_a_note_and_a_card(home)
    url = url.replace("{team}", "Crew").replace("{key}", "crew/colour")
    token: object = OWNER
    if "/memory/mine" in path:  # a person's own layer: their token, and a topic of theirs to read or remove
        _, token = add_person(home, "dana")
        layer_store(home, "scout", "dana").write("memory/travel.md", "# Travel\n", Actor(WHO_PERSON, HOW_SETTINGS))
    if method in ("GET", "DELETE") and url.endswith("/file"):
        url += "?path=memory/travel.md"
    reply = server.request(method, url, BODIES.get((method, path.replace("/mine/", "/"))), token=token)
    assert reply.status != 405 and NO_ROUTE not in reply.error
    assert reply.status < 400, (path, reply.status, reply.error)
    described_answer = SPEC["paths"][path][method.lower()]["responses"][str(reply.status)]
    if "content" in described_answer:  # the answer has the shape the description gives
        schema = described_answer["content"]["application/json"]["schema"]
        jsonschema.Draft202012Validator({**schema, "components": SPEC["components"]}).validate(reply.data)
    assert server.get(url.split("?")[0], token=None).status == 401  # and needs the owner


def test_the_description_is_served_to_the_owner(server):
    reply = server.get("/api/openapi.json")
    assert reply.status == 200 and reply.data["openapi"].startswith("3.1")


# ----- the description and the server agree: every refusal described, every constraint the server's -----
def resolved(node: dict) -> dict:
    """A node with its $ref followed (within openapi.json)."""
    while "$ref" in node:
        node_at = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            node_at = node_at[part]
        node = node_at
    return node


def operations():
    """(method, path, operation, {parameter name: parameter}) for every route described."""
    for path, item in SPEC["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                parameters = [resolved(p) for p in item.get("parameters", []) + operation.get("parameters", [])]
                yield method.upper(), path, operation, {p["name"]: p for p in parameters}


def body_schema(method: str, path: str) -> dict:
    return resolved(SPEC["paths"][path][method.lower()]["requestBody"]["content"]["application/json"]["schema"])


@pytest.mark.parametrize("method, path", sorted(described()))
def test_every_route_describes_each_refusal_it_can_answer(method, path):
    """Any request can meet 401, 403 and 421 (Host); a body, 400 (not JSON), 408 (too slow) and 413 (too big); a
    bot in the path, 400 (a bad id) and 404; a team in the path, 400 (empty), 404 and 500 (a damaged file)."""
    operation, parameters = next((o, p) for m, pa, o, p in operations() if (m, pa) == (method, path))
    statuses = set(operation["responses"])
    needed = {"401", "403", "421"}
    if "requestBody" in operation:
        needed |= {"400", "408", "413"}
    if path.startswith("/api/bots/{id}"):
        needed |= {"400", "404"}
    if "team" in parameters:
        needed |= {"400", "404", "500"}
    assert needed <= statuses, f"{method} {path} does not describe {sorted(needed - statuses)}"


def test_the_descriptions_limits_are_the_servers():
    from omb_tui.core.files import paths
    from omb_tui.core.team import model
    from omb_tui.server.app import JOURNAL_MAX_LIMIT

    parameters = {name: p for _m, _p, _o, params in operations() for name, p in params.items()}
    bot_id = SPEC["paths"]["/api/bots/{id}/memory"]["parameters"][0]["schema"]
    for candidate in ("scout", "Scout_2", "a" * 64, "a" * 65, "-x", "a--member-b", "A--MEMBER-b", "a--membe-b", "a b"):
        try:
            paths.validate_bot_id(candidate)
            valid = True
        except paths.InvalidName:
            valid = False
        assert schema_allows(bot_id, candidate) is valid, candidate
    assert parameters["key"]["schema"]["pattern"] == model.NOTE_KEY.pattern
    assert parameters["key"]["schema"]["maxLength"] == model.KEY_MAX_CHARS
    assert (parameters["limit"]["schema"]["minimum"], parameters["limit"]["schema"]["maximum"]) == (
        1,
        JOURNAL_MAX_LIMIT,
    )
    assert body_schema("POST", "/api/teams")["properties"]["name"]["maxLength"] == model.NAME_MAX_CHARS
    propose = body_schema("POST", "/api/teams/{team}/propose")["properties"]
    assert (propose["title"]["maxLength"], propose["text"]["maxLength"]) == (
        model.TITLE_MAX_CHARS,
        model.TEXT_MAX_CHARS,
    )
    for method, path, operation, _ in operations():
        if "requestBody" in operation and "revision" in body_schema(method, path).get("properties", {}):
            assert operation["requestBody"]["required"], f"{method} {path}: revision needs a body"


def schema_allows(schema: dict, value: object) -> bool:
    return jsonschema.Draft202012Validator({**schema, "components": SPEC["components"]}).is_valid(value)


def query_schema(method: str, path: str, name: str) -> dict:
    return next(p for m, pa, _o, p in operations() if (m, pa) == (method, path))[name]["schema"]


FILE_PATHS = [
    "MEMORY.md",
    "memory/travel.md",
    "memory/Über uns.md",
    "memory/archive.md",
    "memory/log/2026-01-05.md",
    "memory/log/2024-02-29.md",
    "",
    "memory/",
    "memory/.hidden.md",
    "memory/x",
    "../MEMORY.md",
    "/etc/passwd",
    "memory/log/2026-02-30.md",
    "memory/log/0000-01-01.md",
    "memory/sub/x.md",
    "memory/" + "a" * 197 + ".md",
    "memory/" + "a" * 198 + ".md",
    "memory/ leading.md",
]


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_a_file_path_is_refused_by_the_server_exactly_when_the_description_refuses_it(server, home, method):
    import urllib.parse

    schema = query_schema(method, "/api/bots/{id}/memory/file", "path")
    for rel in FILE_PATHS:
        reply = server.request(method, f"/api/bots/scout/memory/file?path={urllib.parse.quote(rel)}")
        assert (reply.status != 400) is schema_allows(schema, rel), (method, rel, reply.status, reply.error)


def test_a_saved_path_is_refused_by_the_server_exactly_when_the_description_refuses_it(server):
    schema = body_schema("PUT", "/api/bots/{id}/memory/file")
    for rel in FILE_PATHS:
        body = {"path": rel, "text": "# Saved\n", "expectedHash": None}
        reply = server.request("PUT", "/api/bots/scout/memory/file", body)
        assert (reply.status != 400) is schema_allows(schema, body), (rel, reply.status, reply.error)


def test_a_team_name_is_refused_by_the_server_exactly_when_the_description_refuses_it(server):
    schema = body_schema("POST", "/api/teams")
    for name in ["Crew 2", "", " ", "\t\n", "a" * 60, "a" * 61, "tab\tinside", "bell\x07", "c1\x85"]:
        body = {"name": name, "bots": ["scout"]}
        reply = server.request("POST", "/api/teams", body)
        assert (reply.status != 400) is schema_allows(schema, body), (name, reply.status, reply.error)
    body = {"name": "Crew 3", "bots": ["no such bot!"]}
    assert server.request("POST", "/api/teams", body).status == 400 and not schema_allows(schema, body)


def test_a_note_is_refused_by_the_server_exactly_when_the_description_refuses_it(server, home):
    create_team(home, "Crew", ["scout"])
    schema = body_schema("POST", "/api/teams/{team}/propose")
    bodies = [
        {"key": f"crew/k{n}", "title": title, "text": text}
        for n, (title, text) in enumerate(
            [
                ("Colour", "Amber."),
                ("", "Amber."),
                ("Colour", ""),
                ("  ", "Amber."),
                ("Colour", " \n "),
                ("t" * 120, "Amber."),
                ("t" * 121, "Amber."),
                ("Colour", "x" * 2000),
                ("Colour", "x" * 2001),
            ]
        )
    ]
    bodies += [
        {"key": "Crew/Upper", "title": "Colour", "text": "Amber."},
        {"key": "k" * 121, "title": "T", "text": "Amber."},
    ]
    for body in bodies:
        reply = server.request("POST", "/api/teams/Crew/propose", body)
        assert (reply.status != 400) is schema_allows(schema, body), (body, reply.status, reply.error)


@pytest.mark.parametrize("team", ["%20", "%20%20", "%09"])
def test_a_team_reference_of_spaces_is_400_and_the_description_says_so(server, team):
    import urllib.parse

    schema = resolved(SPEC["components"]["parameters"]["team"])["schema"]
    assert not schema_allows(schema, urllib.parse.unquote(team))
    for method, url in [
        ("GET", f"/api/teams/{team}"),
        ("DELETE", f"/api/teams/{team}"),
        ("GET", f"/api/teams/{team}/gauge"),
        ("GET", f"/api/teams/{team}/prompt"),
    ]:
        assert server.request(method, url).status == 400


def test_a_revision_written_as_a_whole_number_with_a_point_is_a_whole_number(server, home):
    a_team_with_a_note_and_a_card(home)
    assert schema_allows(body_schema("POST", "/api/teams/{team}/notes/{key}/pin"), {"revision": 3.0})
    reply = server.request("POST", "/api/teams/Crew/notes/crew/colour/pin", {"revision": 3.0})
    assert reply.status == 200 and reply.data["pinned"] is True
