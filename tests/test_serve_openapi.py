"""The OpenAPI description (omb_tui/server/openapi.json, served at /api/openapi.json) lists exactly the routes the
server has, and every one of them answers."""

from __future__ import annotations

import json

import jsonschema
import pytest
from serve_helpers import server  # noqa: F401 (server: a fixture)

from omb_tui.core.memory.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import Actor, MemoryStore
from omb_tui.core.team import api as team_api
from omb_tui.core.team.storage import create_team
from omb_tui.core.upkeep.about_me import add_learned
from omb_tui.server.app import OPENAPI_PATH, ROUTES
from omb_tui.server.teams import TEAM_ROUTES

METHODS = ("get", "put", "post", "delete", "patch")
NO_ROUTE = "There is no such route"


SPEC = json.loads(OPENAPI_PATH.read_text())


def described() -> set[tuple[str, str]]:
    spec = SPEC
    return {(method.upper(), path) for path, item in spec["paths"].items() for method in item if method in METHODS}


def test_the_description_lists_exactly_the_routes_the_server_has():
    assert described() == {(method, path) for method, path, _ in ROUTES + TEAM_ROUTES}


def test_the_description_covers_the_spec_table():
    table = {("GET", "/api/bots/{id}/memory"), ("GET", "/api/bots/{id}/memory/file"),
             ("PUT", "/api/bots/{id}/memory/file"), ("DELETE", "/api/bots/{id}/memory/file"),
             ("GET", "/api/bots/{id}/memory/journal"), ("POST", "/api/bots/{id}/memory/journal/{entryId}/revert"),
             ("POST", "/api/bots/{id}/memory/open"), ("GET", "/api/bots/{id}/memory/upkeep"),
             ("POST", "/api/bots/{id}/memory/tidy"), ("GET", "/api/profile/learned"),
             ("POST", "/api/profile/learned/{id}/remove")}
    assert table <= described()


BODIES = {
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
    learned = add_learned(home, "scout", "The person is vegetarian", Actor(WHO_PERSON, HOW_SETTINGS),
                          owners_words=True)
    assert learned.added
    url = path.replace("/api/profile/learned/{id}", f"/api/profile/learned/{learned.id}")
    url = url.replace("{id}", "scout").replace("{entryId}", row.row_id)
    a_team_with_a_note_and_a_card(home)
    url = url.replace("{team}", "Crew").replace("{key}", "crew/colour")
    if method in ("GET", "DELETE") and url.endswith("/memory/file"):
        url += "?path=memory/travel.md"
    reply = server.request(method, url, BODIES.get((method, path)))
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
