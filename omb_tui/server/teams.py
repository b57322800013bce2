"""The team routes under /api/teams: every `omb-tui team …` command over HTTP, one route each (docs/serve.md,
docs/team.md).

TEAM in a path is the team's key or its name (any case, URL-encoded); KEY is a note's key, its parts joined by
`/` sent as they are or as `%2F`. Every change goes through `core/team/api.py` (read, checked and written under
the teams lock in one step: atomic, 0600, redacted). A change that needs a revision answers 428 without one and
409 when it is stale, with the key's note and pending card as they are now.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from aiohttp import web

from ..core.files.paths import Home, NotFound
from ..core.team import api
from ..core.team.model import DamagedTeamFile
from ..core.team.notes import RevisionMissing, StaleRevision
from ..core.team.storage import create_team, delete_team, get_team, list_teams, rename_team
from .http import HOME, ApiError, Handler, camel_keys, in_thread, json_body, json_response, text_field

TEAM_TURN = web.AppKey("team_turn", asyncio.Lock)


# ----- what each route asks the core (run on a worker thread) -----
def shown(record) -> dict:
    """A note, a card or a version as `team show --json` gives it, with the API's camelCase keys."""
    return camel_keys(record.shown())


def damaged_is_the_servers(func: Callable) -> Callable:
    """A damaged team file is the server's trouble, not the request's: 500 with the core's sentence naming it."""

    @functools.wraps(func)
    def call(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except DamagedTeamFile as exc:
            raise ApiError(500, str(exc)) from None

    return call


@damaged_is_the_servers
def list_all(home: Home) -> dict:
    return {"teams": [camel_keys(team.summary()) for team in list_teams(home)]}


@damaged_is_the_servers
def create(home: Home, name: str, bots: list[str]) -> dict:
    try:
        return camel_keys(create_team(home, name, bots).summary())
    except NotFound as exc:  # a bot the body names: the route itself exists, so the body is what is wrong
        raise ApiError(400, str(exc)) from None


@damaged_is_the_servers
def rename(home: Home, ref: str, name: str) -> dict:
    return camel_keys(rename_team(home, ref, name).summary())


@damaged_is_the_servers
def retire(home: Home, ref: str) -> dict:
    return camel_keys(delete_team(home, ref).summary())


@damaged_is_the_servers
def show(home: Home, ref: str) -> dict:
    return camel_keys(api.show(home, ref).to_dict())


@damaged_is_the_servers
def propose(home: Home, ref: str, key: str, title: str, text: str) -> dict:
    return shown(api.propose(home, ref, key, title, text))


@damaged_is_the_servers
def history(home: Home, ref: str, key: str) -> dict:
    note, versions = api.history(home, ref, key)
    return {"note": shown(note), "versions": [camel_keys(version.to_dict()) for version in versions]}


@damaged_is_the_servers
def gauge(home: Home, ref: str) -> dict:
    return camel_keys(api.gauge(home, ref).gauge())


@damaged_is_the_servers
def prompt(home: Home, ref: str) -> dict:
    load = api.gauge(home, ref)
    return {"team": load.team.key, "block": load.block}


def key_now(home: Home, ref: str, key: str) -> dict:
    """The key's note and pending card as they are now (each null when there is none), for a 409."""
    team = get_team(home, ref)
    note, card = team.notes.get(key), team.cards.get(key)
    return {"note": shown(note) if note else None, "card": shown(card) if card else None}


@damaged_is_the_servers
def change_note(home: Home, ref: str, key: str, what: str, change: Callable, revision: int | None) -> dict:
    """One change that carries the revision it was based on: `change(home, ref, key, revision=…)`."""
    try:
        return shown(change(home, ref, key, revision=revision))
    except RevisionMissing:
        raise revision_missing(what) from None
    except StaleRevision as exc:
        raise ApiError(409, str(exc), {"currentRevision": exc.current, **key_now(home, ref, key)}) from None


def revision_missing(what: str) -> ApiError:
    return ApiError(
        428,
        f'Send "revision", the revision of the {what} you read (GET /api/teams/<team> lists it), '
        "so a change made meanwhile is never overwritten; nothing was changed.",
    )


# ----- reading the request -----
def team_of(request: web.Request) -> str:
    return request.match_info["team"]


def key_of(request: web.Request) -> str:
    return request.match_info["key"]


def whole_number(body: dict, name: str) -> int | None:
    """The field as a whole number; None when it is absent or null (the core then says what is missing). 3.0 is
    the whole number 3, as JSON Schema's "integer" reads it."""
    value = body.get(name)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ApiError(400, f"{name} must be a whole number.")
    return value


def bots_field(body: dict) -> list[str]:
    bots = body.get("bots", [])
    if not isinstance(bots, list) or not all(isinstance(bot, str) for bot in bots):
        raise ApiError(400, 'The body needs "bots" as a list of bot ids.')
    return bots


async def team_call(request: web.Request, func: Callable, *args) -> web.Response:
    """`func(home, *args)` on a worker thread, one team call at a time.

    Every team read and change holds the one teams lock (`<home>/teams/.teams.lock`). Waiting here, on the event
    loop, means calls queued behind a holder elsewhere (the app, the command line) hold at most one thread, and
    the bots' routes keep the others."""
    async with request.app[TEAM_TURN]:
        return json_response(await in_thread(request, func, request.app[HOME], *args))


# ----- the handlers -----
async def get_teams(request: web.Request) -> web.Response:
    return await team_call(request, list_all)


async def post_team(request: web.Request) -> web.Response:
    body = await json_body(request)
    return await team_call(request, create, text_field(body, "name"), bots_field(body))


async def get_team_route(request: web.Request) -> web.Response:
    return await team_call(request, show, team_of(request))


async def post_rename(request: web.Request) -> web.Response:
    name = text_field(await json_body(request), "name")
    return await team_call(request, rename, team_of(request), name)


async def delete_team_route(request: web.Request) -> web.Response:
    return await team_call(request, retire, team_of(request))


async def post_propose(request: web.Request) -> web.Response:
    body = await json_body(request)
    key, title, text = text_field(body, "key"), text_field(body, "title"), text_field(body, "text")
    return await team_call(request, propose, team_of(request), key, title, text)


async def get_history(request: web.Request) -> web.Response:
    return await team_call(request, history, team_of(request), key_of(request))


async def get_gauge(request: web.Request) -> web.Response:
    return await team_call(request, gauge, team_of(request))


async def get_prompt(request: web.Request) -> web.Response:
    return await team_call(request, prompt, team_of(request))


def note_change_route(what: str, change: Callable, *, needs: Callable[[dict], dict] | None = None) -> Handler:
    """A handler for a change that carries `{"revision": N}` (N: the card's for accept and reject, else the
    note's); `needs` reads the change's other fields from the body (400 when they are wrong)."""

    async def handler(request: web.Request) -> web.Response:
        body = await json_body(request, optional=True)  # no body: no revision, so 428
        revision = whole_number(body, "revision")
        if revision is None:  # the precondition comes first: 428 whether or not there is a card or note
            raise revision_missing(what)
        call = functools.partial(change, **needs(body)) if needs else change
        return await team_call(request, change_note, team_of(request), key_of(request), what, call, revision)

    return handler


def edited_text(body: dict) -> dict:
    return {"text": text_field(body, "text")}


def restored_version(body: dict) -> dict:
    version = whole_number(body, "version")
    if version is None:
        raise ApiError(400, 'The body needs "version", the earlier version\'s revision (its history lists them).')
    return {"version": version}


# The paths as openapi.json writes them; a note's {key} may hold '/', so it is registered as {key:.+} (the
# action is always the last part, so a key ending in one, such as "x/pin", still resolves).
TEAM_ROUTES: list[tuple[str, str, Handler]] = [
    ("GET", "/api/teams", get_teams),
    ("POST", "/api/teams", post_team),
    ("GET", "/api/teams/{team}", get_team_route),
    ("DELETE", "/api/teams/{team}", delete_team_route),
    ("POST", "/api/teams/{team}/rename", post_rename),
    ("POST", "/api/teams/{team}/propose", post_propose),
    ("GET", "/api/teams/{team}/gauge", get_gauge),
    ("GET", "/api/teams/{team}/prompt", get_prompt),
    ("GET", "/api/teams/{team}/notes/{key}/history", get_history),
    ("POST", "/api/teams/{team}/notes/{key}/accept", note_change_route("card", api.accept)),
    ("POST", "/api/teams/{team}/notes/{key}/reject", note_change_route("card", api.reject)),
    ("POST", "/api/teams/{team}/notes/{key}/edit", note_change_route("note", api.edit, needs=edited_text)),
    ("POST", "/api/teams/{team}/notes/{key}/delete", note_change_route("note", api.delete_note)),
    (
        "POST",
        "/api/teams/{team}/notes/{key}/pin",
        note_change_route("note", functools.partial(api.set_pinned, pinned=True)),
    ),
    (
        "POST",
        "/api/teams/{team}/notes/{key}/unpin",
        note_change_route("note", functools.partial(api.set_pinned, pinned=False)),
    ),
    ("POST", "/api/teams/{team}/notes/{key}/restore", note_change_route("note", api.restore, needs=restored_version)),
]


def add_team_routes(app: web.Application) -> None:
    app[TEAM_TURN] = asyncio.Lock()
    for method, path, handler in TEAM_ROUTES:
        app.router.add_route(method, path.replace("{key}", "{key:.+}"), handler)
