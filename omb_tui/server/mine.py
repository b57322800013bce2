"""A person's own layer of a bot's memory over HTTP, with that person's token (docs/team-cloud.md).

Spec: memory.md, "HTTP routes", last paragraph: `GET /api/bots/:id/memory/mine` is the overview of the layer, and
`GET`, `PUT` and `DELETE /api/bots/:id/memory/mine/file` read, save and remove one of its files as the bot's own file
routes do (the same shapes, hashes, 409 and 428). Nobody reaches another person's layer: the layer is the one of
the person whose token came (app.py's `owner_only` tells who asks); no path, id or name in the request can name
another (`paths.validate_bot_id` refuses `--member-` in an id, and a file path never leaves the workspace). The
owner's token has no layer (403 here); a person's token opens nothing else (403 there).
"""

from __future__ import annotations

from aiohttp import web

from ..core.files.paths import MEMORY_FILE, Home, layer_id
from ..core.memory.budget import gauge, read_topics
from ..core.people.layers import layer_store
from ..core.turn.bot import Bot
from .files import delete_from, files_overview, person_actor, query_path, read_from, save_request, save_to
from .http import BOT_TURNS, HOME, camel_keys, in_thread, json_body, json_response, without_home

PERSON = web.RequestKey("omb_person", str)  # the person whose token came (None: the owner)
MINE_TOKEN_HINT = (
    "This needs your own token as 'Authorization: Bearer <token>' (the owner gives it with `omb-tui people add`, "
    "or a new one with `people token --rotate`)."
)
MINE_NOT_OWNERS = (
    "These routes are a person's own layer of a bot: send that person's token (the owner's token has no layer)."
)
PERSON_ONLY_MINE = (
    "A person's token reaches only their own layer of a bot (/api/bots/:id/memory/mine); nothing was read or changed."
)


def _whose(bot_id: str) -> str:
    return f"your layer of {bot_id}"


def read_mine(home: Home, bot_id: str, person: str) -> dict:
    store = layer_store(home, bot_id, person)
    store.sync_outside_changes()  # as the bot's overview: a change made on disk meanwhile is journaled first
    summary = Bot(home, bot_id).summary()
    workspace_id = layer_id(bot_id, person)
    newest = store.journal.rows(limit=1)
    return {
        "bot": bot_id,
        "person": person,
        "name": summary.name,
        "memory": summary.memory,
        "upkeep": summary.upkeep,
        "folder": str(store.workspace.relative_to(home.root)),  # a person is never told the server's home folder
        "gauge": camel_keys(gauge(store.read(MEMORY_FILE).text).to_dict()),
        **files_overview(home, workspace_id, read_topics(home, workspace_id)),
        "lastChange": newest[0].at if newest else None,
        "problem": without_home(summary.error, home) if summary.error else None,
    }


def read_mine_file(home: Home, bot_id: str, person: str, rel: str) -> dict:
    store = layer_store(home, bot_id, person)
    store.sync_outside_changes()
    return read_from(store, rel, _whose(bot_id))


def save_mine_file(home: Home, bot_id: str, person: str, rel: str, text: str, expected: str | None) -> dict:
    return save_to(layer_store(home, bot_id, person), rel, text, expected, person_actor(person))


def delete_mine_file(home: Home, bot_id: str, person: str, rel: str) -> dict:
    return delete_from(layer_store(home, bot_id, person), rel, person_actor(person))


async def _for_layer(request: web.Request, func, *args):
    """func(home, bot, person, *args) on a worker thread, one call at a time for the layer."""
    bot_id, person = request.match_info["id"], request[PERSON]
    async with request.app[BOT_TURNS].turn(f"{bot_id}\n{person}"):  # never a bot's name: ids hold no newline
        return await in_thread(request, func, request.app[HOME], bot_id, person, *args)


async def get_mine(request: web.Request) -> web.Response:
    return json_response(await _for_layer(request, read_mine))


async def get_mine_file(request: web.Request) -> web.Response:
    return json_response(await _for_layer(request, read_mine_file, query_path(request)))


async def put_mine_file(request: web.Request) -> web.Response:
    rel, text, expected = save_request(await json_body(request))
    return json_response(await _for_layer(request, save_mine_file, rel, text, expected))


async def delete_mine_file_route(request: web.Request) -> web.Response:
    return json_response(await _for_layer(request, delete_mine_file, query_path(request)))


MINE_ROUTES = [
    ("GET", "/api/bots/{id}/memory/mine", get_mine),
    ("GET", "/api/bots/{id}/memory/mine/file", get_mine_file),
    ("PUT", "/api/bots/{id}/memory/mine/file", put_mine_file),
    ("DELETE", "/api/bots/{id}/memory/mine/file", delete_mine_file_route),
]
PERSON_HANDLERS = frozenset(handler for _, _, handler in MINE_ROUTES)
