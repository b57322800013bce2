"""Generated requests (schemathesis) against every route of openapi.json, on a live server.

Asserted for each: never a 5xx; the status, content type and body shape are the ones the description gives; a
request the description allows is not refused with 400, and one it does not allow is refused. Some refusals depend
on what is stored, not on the request's shape (a team name in use, a bot that does not exist, a note that already
says that, a deleted note): the description says them in words and a generated request may meet them, so a 400
with one of those sentences is not counted against the description. A team name must also be printable (no format,
private-use or unassigned characters), which JSON Schema cannot say; generated names that are not are skipped.

A bounded tier (`-m schemathesis` runs it alone): EXAMPLES requests per route and mode, derandomized, so each run
sends the same requests; half of them name the home's real bot, team, note and journal row instead of generated
ones, so the routes are reached past their 404s.
"""

from __future__ import annotations

import json

import pytest
import schemathesis
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig
from support.home import make_bot
from support.serve_helpers import LiveServer
from test_serve_openapi import a_team_with_a_note_and_a_card, described

from omb_tui.core.files.paths import Home
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import layer_store
from omb_tui.core.people.people import add_person
from omb_tui.core.upkeep.about_me import add_learned
from omb_tui.server.app import OPENAPI_PATH

pytestmark = pytest.mark.schemathesis

EXAMPLES = 15
REFUSED_FOR_WHAT_IS_STORED = (
    "There is already a team named",
    "is another team's key",
    "already says exactly this",
    "restore it first",
    "There is no bot",
)
SCHEMA = schemathesis.openapi.from_dict(json.loads(OPENAPI_PATH.read_text()), config=SchemathesisConfig())


def accepted_unless_what_is_stored_refuses(ctx, response, case):
    """schemathesis's positive_data_acceptance, but for a 400 that names a rule about what is stored."""
    if response.status_code == 400:
        error = json.loads(response.content or b"{}").get("error", "")
        if any(rule in error for rule in REFUSED_FOR_WHAT_IS_STORED):
            return True
    return positive_data_acceptance(ctx, response, case)


CHECKS = {
    GenerationMode.POSITIVE: [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
        accepted_unless_what_is_stored_refuses,
    ],
    GenerationMode.NEGATIVE: [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
        negative_data_rejection,
    ],
}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A server on a home with scout, a journal row, a learned line and the team "Crew" with a note and a card."""
    home = Home(tmp_path_factory.mktemp("schemathesis") / "home")
    make_bot(home)
    row = MemoryStore(home, "scout").write("MEMORY.md", "- 2026-01-05 · likes tea\n", Actor(WHO_BOT, HOW_TASK))
    learned = add_learned(home, "scout", "The person is vegetarian", Actor(WHO_PERSON, HOW_SETTINGS), owners_words=True)
    a_team_with_a_note_and_a_card(home)
    _, dana = add_person(home, "dana")  # the /memory/mine routes are hers: her token, her layer of scout
    layer_store(home, "scout", "dana").write("MEMORY.md", "- prefers tea\n", Actor(WHO_PERSON, HOW_SETTINGS))
    known = {"id": "scout", "team": "Crew", "key": "crew/colour", "entryId": row.row_id, "learned": learned.id}
    with LiveServer(home) as server:
        yield server, known, dana


def printable_names(case) -> bool:
    body = case.body if isinstance(case.body, dict) else {}
    name = body.get("name")
    return not isinstance(name, str) or " ".join(name.split()).isprintable()


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
@pytest.mark.parametrize("method, path", sorted(described()))
def test_generated_requests_get_the_answers_the_description_gives(live, method, path, mode):
    server, known, dana = live
    operation = SCHEMA[path][method]
    auth = {"Authorization": f"Bearer {dana if '/memory/mine' in path else server.token}"}

    @settings(
        max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(case=operation.as_strategy(generation_mode=mode), use_known=st.booleans())
    def request(case, use_known):
        if mode is GenerationMode.POSITIVE:
            assume(printable_names(case))
            if use_known:  # the home's own names, which the description allows too
                for name in case.path_parameters or {}:
                    case.path_parameters[name] = known["learned" if path.startswith("/api/profile") else name]
        case.call_and_validate(base_url=server.base, headers=auth, checks=CHECKS[mode])

    request()
