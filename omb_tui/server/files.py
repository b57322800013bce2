"""One workspace's files over HTTP, whoever's store it is: a bot's (app.py, the owner's routes) or a person's layer
of a bot (mine.py, that person's routes). The same shapes, hashes, 409 and 428 for both (spec: memory.md, "HTTP
routes")."""

from __future__ import annotations

from aiohttp import web

from ..core.files.paths import ARCHIVE_NAME, MEMORY_DIR, Home, NotFound
from ..core.journal.changes import Actor, StaleHash, WriteResult
from ..core.journal.journal import HOW_API, WHO_PERSON
from ..core.memory.budget import TopicInfo
from ..core.memory.store import MemoryStore
from .http import ApiError, camel_keys, text_field

API_ACTOR = Actor(WHO_PERSON, HOW_API)


def person_actor(person: str) -> Actor:
    """A Team Cloud person's own write over their token: journaled as theirs, never as the owner's."""
    return Actor(WHO_PERSON, HOW_API, person=person)


def query_path(request: web.Request) -> str:
    rel = request.query.get("path")
    if not rel:
        raise ApiError(400, "Name the file with ?path= (MEMORY.md, memory/<topic>.md or memory/log/<day>.md).")
    return rel


def files_overview(home: Home, workspace_id: str, topics: list[TopicInfo]) -> dict:
    """The overview's topics, daily logs (newest first) and archive of a bot or a layer."""
    return {
        "topics": [
            {
                "path": f"{MEMORY_DIR}/{t.name}",
                "name": t.name,
                "title": t.title,
                "description": t.description,
                "aliases": list(t.aliases),
                "bytes": t.size_bytes,
                "headerOk": t.frontmatter_ok,
            }
            for t in topics
        ],
        "logs": [
            {"path": f"{MEMORY_DIR}/log/{p.name}", "day": p.stem, "bytes": p.stat().st_size}
            for p in reversed(home.log_paths(workspace_id))
        ],
        "archive": {
            "path": f"{MEMORY_DIR}/{ARCHIVE_NAME}",
            "exists": home.memory_path(workspace_id, f"{MEMORY_DIR}/{ARCHIVE_NAME}").path.is_file(),
        },
    }


def read_from(store: MemoryStore, rel: str, whose: str) -> dict:
    """One file's text and hash; 404 naming `whose` (the bot's id, or "your layer of <bot>") when it is absent."""
    snapshot = store.read(rel)
    if not snapshot.exists:
        raise NotFound(f"{snapshot.rel} does not exist for {whose}.")
    return {
        "path": snapshot.rel,
        "kind": snapshot.kind.value,
        "readOnly": snapshot.kind.read_only,
        "hash": snapshot.hash,
        "text": snapshot.text,
    }


def written(result: WriteResult) -> dict:
    return {**camel_keys(result.to_dict()), "journaled": result.journaled}


def save_request(body: dict) -> tuple[str, str, str | None]:
    """A save's path, text and expectedHash from its body: 428 without expectedHash, 400 when it is no text."""
    rel, text = text_field(body, "path"), text_field(body, "text")
    if "expectedHash" not in body:
        raise ApiError(
            428,
            "Send expectedHash, the hash of the text you opened (null to create a new file), so "
            "a change made meanwhile is never overwritten.",
        )
    expected = body["expectedHash"]
    if expected is not None and not isinstance(expected, str):
        raise ApiError(400, "expectedHash must be a string, or null to create a new file.")
    return rel, text, expected


def save_to(store: MemoryStore, rel: str, text: str, expected_hash: str | None, actor: Actor) -> dict:
    """expected_hash None: create only (the hash of a file that does not exist); 409 with the text as it is now."""
    try:
        return written(store.write(rel, text, actor, expected_hash=expected_hash))
    except StaleHash as exc:
        why = "already exists" if expected_hash is None else "changed since it was read"
        raise ApiError(
            409,
            f"{exc.rel} {why}; nothing was written.",
            {"path": exc.rel, "currentHash": exc.current_hash, "currentText": exc.current_text},
        ) from None


def delete_from(store: MemoryStore, rel: str, actor: Actor) -> dict:
    result = store.delete(rel, actor)
    return {"path": result.rel, "deleted": True, "rowId": result.row_id, "journaled": result.journaled}
