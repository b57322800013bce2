"""The routes of the spec's table under /api, JSON in and out, each a thin call into the core.

Spec: memory.md, "Routes". Every route needs the owner's bearer token (`owner_only`); every error is
`{"error": "<one sentence>"}` with its status (`json_errors`); every core call runs on a worker thread, so one bot
waiting for its lock, or a tidy-up waiting for its model, never holds up a request for another bot. Every write goes
through the store, which redacts, writes atomically and journals it, here as the person, "from the API".
"""

from __future__ import annotations

import ipaddress
import logging
import shutil
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from aiohttp import web

from ..core.base.errors import outcome_of
from ..core.files.paths import MEMORY_FILE, Home, MemoryInputError, NotFound
from ..core.journal.changes import LaterChanges
from ..core.people.owner_token import BODY_TOO_BIG, MAX_BODY_BYTES, token_matches
from ..core.people.people import person_for_token
from ..core.turn.bot import Bot
from .connections import ConnectionGuard, ServeLimits
from .files import API_ACTOR, delete_from, files_overview, query_path, read_from, save_request, save_to, written
from .hosts import AllowedHosts
from .http import (
    BOT_TURNS,
    EXECUTOR,
    GUARD,
    HOME,
    OPENER,
    TOKEN,
    ApiError,
    Handler,
    Turns,
    camel_keys,
    error_response,
    in_thread,
    json_body,
    json_response,
    text_field,
    without_home,
)
from .mine import MINE_NOT_OWNERS, MINE_ROUTES, MINE_TOKEN_HINT, PERSON, PERSON_HANDLERS, PERSON_ONLY_MINE
from .teams import add_team_routes

log = logging.getLogger("omb_tui.server")

JOURNAL_DEFAULT_LIMIT = 50
JOURNAL_MAX_LIMIT = 1000
WORKER_THREADS = 32  # core calls at once; more wait their turn, none runs on the event loop
DEPRECATED_SINCE = 1796083200  # 2026-12-01 00:00 UTC: the whole-file PUT without a hash check (RFC 9745's date)
OPENAPI_PATH = Path(__file__).with_name("openapi.json")
TOKEN_HINT = "omb-tui serve --show-token prints it"

Opener = Callable[[str], None]
HOSTS = web.AppKey("hosts", AllowedHosts)


# ----- middlewares -----
HTTP_SENTENCES = {
    404: "There is no such route; GET /api/openapi.json lists every route.",
    405: "That route does not take this method; GET /api/openapi.json lists what it takes.",
    413: BODY_TOO_BIG,
}


@web.middleware
async def in_progress(request: web.Request, handler) -> web.StreamResponse:
    """While a route answers, its connection is busy: neither the idle deadline nor the cap closes it."""
    with request.app[GUARD].request(request.transport):
        return await handler(request)


@web.middleware
async def json_errors(request: web.Request, handler) -> web.StreamResponse:
    """Every refusal as {"error": one sentence} with its status; never a traceback, never HTML. To a person's token
    the sentence never names the server's home folder (a path under it is said relative to it); the log does."""

    def said(message: str) -> str:
        return without_home(message, request.app[HOME]) if request.get(PERSON) else message

    try:
        return await handler(request)
    except ApiError as exc:
        response = error_response(exc.status, said(exc.message), exc.extra, exc.headers)
        if exc.status == 408:  # the rest of a body that came too slowly is not waited for
            response.force_close()
        return response
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        headers = {k: v for k, v in exc.headers.items() if k in ("Allow",)}
        return error_response(exc.status, HTTP_SENTENCES.get(exc.status, f"{exc.reason}."), headers=headers)
    except MemoryInputError as exc:
        return error_response(outcome_of(exc).http_status, said(str(exc)))
    except OSError as exc:
        log.error("%s %s: %s", request.method, request.path, exc)
        name = f": {exc.filename}" if exc.filename else ""
        return error_response(500, said(f"{exc.strerror or 'The file could not be used'}{name}."))
    except Exception:  # a bug: the log has the traceback, the client one sentence
        log.exception("%s %s failed", request.method, request.path)
        return error_response(500, "The server failed on this request; its log says why.")


@web.middleware
async def own_host_only(request: web.Request, handler) -> web.StreamResponse:
    """A Host that is not the server's address is 421 before anything else (hosts.py: DNS rebinding)."""
    host = request.headers.get("Host")
    if not request.app[HOSTS].allows(host):
        raise ApiError(421, request.app[HOSTS].refusal(host))
    return await handler(request)


@web.middleware
async def owner_only(request: web.Request, handler) -> web.StreamResponse:
    """Who asks: no bearer token 401, a token neither the owner's nor a person's 403 (compared in constant time).
    The owner's token opens every route but a person's own layer (mine.py); a person's token opens only that."""
    mine = getattr(request.match_info.route, "handler", None) in PERSON_HANDLERS
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise ApiError(
            401,
            MINE_TOKEN_HINT
            if mine
            else f"This needs the owner's token as 'Authorization: Bearer <token>' ({TOKEN_HINT}).",
            headers={"WWW-Authenticate": 'Bearer realm="omb-tui"'},
        )
    person = None
    if not token_matches(given.strip(), request.app[TOKEN]):
        person = person_for_token(request.app[HOME], given.strip())
        if person is None:
            raise ApiError(403, "That token is not the owner's; nothing was read or changed.")
    if mine and person is None:
        raise ApiError(403, MINE_NOT_OWNERS)
    if person is not None and not mine:
        raise ApiError(403, PERSON_ONLY_MINE)
    request[PERSON] = person
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise ApiError(413, HTTP_SENTENCES[413])  # refused before a byte of it is read
    return await handler(request)


async def in_thread_for_bot(request: web.Request, func: Callable, *args):
    """in_thread, one call at a time for the bot the route names.

    The store lets one writer at a time into a bot anyway. Waiting here, on the event loop, rather than on the
    store's lock, means a bot whose lock is held elsewhere (the app saving, upkeep) holds at most one thread however
    many requests wait for it, and the other threads stay free for the other bots."""
    async with request.app[BOT_TURNS].turn(bot_id_of(request)):
        return await in_thread(request, func, *args)


# ----- what each route asks the core (run on a worker thread) -----
def open_bot(home: Home, bot_id: str, *, look: bool = True) -> Bot:
    """The bot (404 when there is none), after journaling what changed outside the app since the last look."""
    bot = Bot(home, bot_id)
    if look:
        bot.look()
    return bot


def read_overview(home: Home, bot_id: str) -> dict:
    bot = open_bot(home, bot_id)
    summary = bot.summary()
    return {
        "bot": bot_id,
        "name": summary.name,
        "memory": summary.memory,
        "upkeep": summary.upkeep,
        "folder": str(bot.store.workspace),
        "gauge": camel_keys(bot.gauge().to_dict()),
        **files_overview(home, bot_id, bot.topics()),
        "lastChange": summary.last_change,
        "problem": summary.error,
    }


def read_file(home: Home, bot_id: str, rel: str) -> dict:
    return read_from(open_bot(home, bot_id).store, rel, bot_id)


def save_file(home: Home, bot_id: str, rel: str, text: str, expected_hash: str | None) -> dict:
    """expected_hash None: create only (the hash of a file that does not exist)."""
    # the store journals outside changes under its lock
    return save_to(open_bot(home, bot_id, look=False).store, rel, text, expected_hash, API_ACTOR)


def save_memory_unchecked(home: Home, bot_id: str, text: str) -> dict:
    bot = open_bot(home, bot_id, look=False)
    return written(bot.store.write(MEMORY_FILE, text, API_ACTOR))


def delete_file(home: Home, bot_id: str, rel: str) -> dict:
    return delete_from(open_bot(home, bot_id, look=False).store, rel, API_ACTOR)


def read_journal(home: Home, bot_id: str, limit: int) -> dict:
    bot = open_bot(home, bot_id)
    return {"rows": [camel_keys(row.summary()) for row in bot.store.journal.rows(limit=limit)]}


def revert_row(home: Home, bot_id: str, entry_id: str, force: bool) -> dict:
    """The rules of `omb-tui undo`: later rows to the same file refuse it (named in the 409) unless forced."""
    bot = open_bot(home, bot_id, look=False)
    try:
        result = bot.store.undo(entry_id, API_ACTOR, force=force)
    except LaterChanges as exc:
        raise ApiError(
            409,
            f'{exc} Send {{"force": true}} to revert anyway.',
            {"later": [camel_keys(row.summary()) for row in exc.later]},
        ) from None
    return {"reverted": entry_id, **written(result.write), "later": [row.id for row in result.later]}


def upkeep_state(home: Home, bot_id: str) -> dict:
    from ..core.memory.settings import load_config
    from ..core.upkeep.capture import last_capture
    from ..core.upkeep.tidy import last_tidy

    settings = open_bot(home, bot_id, look=False).settings
    return {
        "bot": bot_id,
        "memory": settings.memory,
        "upkeep": settings.upkeep,
        "learnFromGroupChats": load_config(home).room_memory_capture,
        "modelSteps": model_steps(home, bot_id),
        "lastTidy": camel_keys(last_tidy(home, bot_id)),
        "lastCapture": camel_keys(last_capture(home, bot_id)),
    }


def model_steps(home: Home, bot_id: str) -> dict:
    """Whether a model can run the bot's model steps (its own instance or engine, else the helper), through what,
    and the sentence the app and `omb-tui models` show; else why not."""
    from ..core.models import what_runs

    steps = what_runs.model_steps(home, bot_id)
    said = {"through": steps.through, "engine": steps.engine, "sentence": steps.sentence}
    if not steps.runs:
        return {"canRun": False, "why": steps.why, **said}
    via_helper = steps.through == what_runs.THROUGH_HELPER
    return {"canRun": True, "instance": steps.instance, "model": steps.model, "viaHelper": via_helper, **said}


def run_tidy(home: Home, bot_id: str) -> dict:
    """As `omb-tui tidy`: never while the bot is in a turn; 409 when its memory or upkeep is off."""
    from ..core.files.locks import no_turn_running
    from ..core.upkeep.tidy import tidy

    open_bot(home, bot_id, look=False)
    with no_turn_running(home, bot_id) as free:
        if not free:
            raise ApiError(409, f"{bot_id} is in a turn now; tidy up once it has finished.")
        report = tidy(home, bot_id)
    return {**camel_keys(report.to_dict()), "message": report.message()}


def change_switches(home: Home, bot_id: str, body: dict) -> dict:
    """PATCH /api/bots/:id: the switches the body names, checked one by one, saved under the settings lock."""
    from ..core.memory.settings import set_bot_switches

    return {"id": bot_id, **set_bot_switches(home, bot_id, body).to_dict()}


def learned_lines(home: Home) -> dict:
    from ..core.upkeep.about_me import list_learned

    return {"learned": [camel_keys(line.to_dict()) for line in list_learned(home)]}


def remove_learned_line(home: Home, learned_id: str) -> dict:
    from ..core.upkeep.about_me import remove_learned

    removed = remove_learned(home, learned_id, API_ACTOR)
    return {**camel_keys(removed.to_dict()), "journaled": removed.journaled}


OPEN_TARGETS = ("obsidian", "folder")


def open_target(home: Home, bot_id: str, target: str, opener: Opener) -> dict:
    folder = open_bot(home, bot_id, look=False).store.workspace
    if not folder.is_dir():
        raise NotFound(f"{bot_id} has no memory folder yet.")
    what = f"obsidian://open?path={urllib.parse.quote(str(folder))}" if target == "obsidian" else str(folder)
    opener(what)
    return {"opened": target, "folder": str(folder)}


def system_opener(what: str) -> None:
    """The desktop's own opener (xdg-open; `open` on macOS), started and left to run."""
    program = shutil.which("open") if sys.platform == "darwin" else shutil.which("xdg-open")
    if program is None:
        raise ApiError(501, "Nothing on this computer opens folders (no xdg-open); open the folder yourself.")
    subprocess.Popen(
        [program, what],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def is_loopback_peer(remote: str | None) -> bool:
    try:
        address = ipaddress.ip_address(remote or "")
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


# ----- the handlers -----
def bot_id_of(request: web.Request) -> str:
    return request.match_info["id"]


async def patch_bot(request: web.Request) -> web.Response:
    body = await json_body(request)
    return json_response(await in_thread_for_bot(request, change_switches, request.app[HOME], bot_id_of(request), body))


async def get_overview(request: web.Request) -> web.Response:
    return json_response(await in_thread_for_bot(request, read_overview, request.app[HOME], bot_id_of(request)))


async def put_memory_unchecked(request: web.Request) -> web.Response:
    """The old whole-file save of MEMORY.md: no hash check, so it can overwrite what the bot just wrote."""
    text = text_field(await json_body(request), "text")
    result = await in_thread_for_bot(request, save_memory_unchecked, request.app[HOME], bot_id_of(request), text)
    successor = f"/api/bots/{bot_id_of(request)}/memory/file"
    return json_response(
        result, headers={"Deprecation": f"@{DEPRECATED_SINCE}", "Link": f'<{successor}>; rel="successor-version"'}
    )


async def get_file(request: web.Request) -> web.Response:
    rel = query_path(request)
    return json_response(await in_thread_for_bot(request, read_file, request.app[HOME], bot_id_of(request), rel))


async def put_file(request: web.Request) -> web.Response:
    rel, text, expected = save_request(await json_body(request))
    return json_response(
        await in_thread_for_bot(request, save_file, request.app[HOME], bot_id_of(request), rel, text, expected)
    )


async def delete_file_route(request: web.Request) -> web.Response:
    rel = query_path(request)
    return json_response(await in_thread_for_bot(request, delete_file, request.app[HOME], bot_id_of(request), rel))


async def get_journal(request: web.Request) -> web.Response:
    raw = request.query.get("limit", str(JOURNAL_DEFAULT_LIMIT))
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= JOURNAL_MAX_LIMIT:  # "²" is a digit to Python
        raise ApiError(400, f"limit must be a whole number from 1 to {JOURNAL_MAX_LIMIT}.")
    limit = int(raw)
    return json_response(await in_thread_for_bot(request, read_journal, request.app[HOME], bot_id_of(request), limit))


async def post_revert(request: web.Request) -> web.Response:
    force = (await json_body(request, optional=True)).get("force", False)
    if not isinstance(force, bool):
        raise ApiError(400, "force must be true or false.")
    return json_response(
        await in_thread_for_bot(
            request, revert_row, request.app[HOME], bot_id_of(request), request.match_info["entryId"], force
        )
    )


async def post_open(request: web.Request) -> web.Response:
    if not is_loopback_peer(request.remote):
        raise ApiError(403, "Opening the folder works only from this computer (a loopback address).")
    target = (await json_body(request, optional=True)).get("target", "folder")
    if target not in OPEN_TARGETS:
        raise ApiError(400, 'target must be "obsidian" or "folder".')
    return json_response(
        await in_thread(request, open_target, request.app[HOME], bot_id_of(request), target, request.app[OPENER])
    )


async def get_upkeep(request: web.Request) -> web.Response:
    return json_response(await in_thread(request, upkeep_state, request.app[HOME], bot_id_of(request)))


async def post_tidy(request: web.Request) -> web.Response:
    return json_response(await in_thread(request, run_tidy, request.app[HOME], bot_id_of(request)))


async def get_learned(request: web.Request) -> web.Response:
    return json_response(await in_thread(request, learned_lines, request.app[HOME]))


async def post_remove_learned(request: web.Request) -> web.Response:
    return json_response(await in_thread(request, remove_learned_line, request.app[HOME], request.match_info["id"]))


async def get_openapi(request: web.Request) -> web.Response:
    return web.Response(body=OPENAPI_PATH.read_bytes(), content_type="application/json", charset="utf-8")


ROUTES: list[tuple[str, str, Handler]] = [
    ("PATCH", "/api/bots/{id}", patch_bot),
    ("GET", "/api/bots/{id}/memory", get_overview),
    ("PUT", "/api/bots/{id}/memory", put_memory_unchecked),
    ("GET", "/api/bots/{id}/memory/file", get_file),
    ("PUT", "/api/bots/{id}/memory/file", put_file),
    ("DELETE", "/api/bots/{id}/memory/file", delete_file_route),
    ("GET", "/api/bots/{id}/memory/journal", get_journal),
    ("POST", "/api/bots/{id}/memory/journal/{entryId}/revert", post_revert),
    ("POST", "/api/bots/{id}/memory/open", post_open),
    ("GET", "/api/bots/{id}/memory/upkeep", get_upkeep),
    ("POST", "/api/bots/{id}/memory/tidy", post_tidy),
    ("GET", "/api/profile/learned", get_learned),
    ("POST", "/api/profile/learned/{id}/remove", post_remove_learned),
    ("GET", "/api/openapi.json", get_openapi),
]


def build_app(
    home: Home,
    token: str,
    *,
    opener: Opener | None = None,
    limits: ServeLimits | None = None,
    allow_hosts: Iterable[str] = (),
) -> web.Application:
    """The server's application on one home. `opener` opens a folder or an obsidian:// address (tests pass their
    own, so nothing opens); by default the desktop's. `limits`: the deadlines and the connection cap (tests pass
    small ones); `run.start` puts every connection behind them. `allow_hosts`: Host names answered besides the
    server's own address (--allow-host)."""
    app = web.Application(
        client_max_size=MAX_BODY_BYTES, middlewares=[in_progress, json_errors, own_host_only, owner_only]
    )
    app[HOME], app[TOKEN], app[OPENER] = home, token, opener or system_opener
    app[GUARD] = ConnectionGuard(limits or ServeLimits())
    app[HOSTS] = AllowedHosts(allow_hosts)
    executor = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="omb-serve")
    app[EXECUTOR] = executor
    app[BOT_TURNS] = Turns()

    async def stop_threads(_app: web.Application) -> None:
        executor.shutdown(wait=False, cancel_futures=True)

    app.on_cleanup.append(stop_threads)
    for method, path, handler in ROUTES + MINE_ROUTES:
        app.router.add_route(method, path, handler)
    add_team_routes(app)
    return app
