"""The people of a Team Cloud home (docs/team-cloud.md): each with a token of their own that reaches
their own layer of a bot's memory and nothing else. A home with no people is a home of one owner, as before.

Kept in `<home>/people.json` (0600, written atomically under the home's lock): each person's name, when they were
added, and a SHA-256 of their token, never the token itself, which `add` and `rotate` return once. A token given
on a request is matched by its hash against each person's in constant time. The owner's token stays the
`serve-token` (owner_token.py).

A person's name is the handle their layer's folder carries (`workspaces/<bot>--member-<name>`): lowercase ASCII
letters, digits and single dashes, starting with a letter, at most 32; so `Dana`, `dana ` and a Unicode look-alike
are refused, not folded into one another, and no name can make a folder name that means something else (a bot
id cannot hold `--member-`: paths.validate_bot_id).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from ..base import clock
from ..files.disk import read_text, write_private_json
from ..files.locks import home_lock
from ..files.paths import MEMBER_MARK, Home, MemoryInputError, NotFound, quoted, validate_person_name
from ..memory.settings import BrokenFile

PEOPLE_FILE = "people.json"
TOKEN_PREFIX = "ombp_"  # a person's token, told apart from the owner's and found by redaction
TOKEN_BYTES = 32


@dataclass(frozen=True)
class Person:
    name: str
    added: str
    rotated: str | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "added": self.added, "rotated": self.rotated}


def people_path(home: Home):
    return home.root / PEOPLE_FILE


def _load(home: Home) -> list[dict]:
    path = people_path(home)
    try:
        data = json.loads(read_text(path))
    except FileNotFoundError:
        return []
    except ValueError:
        raise BrokenFile(f"{path} is not valid JSON; fix it, or remove it to have no people.") from None
    people = data.get("people") if isinstance(data, dict) else None
    if not isinstance(people, list) or not all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in people):
        raise BrokenFile(f"{path} does not list people as omb-tui writes them; fix it, or remove it.")
    return people


def _save(home: Home, people: list[dict]) -> None:
    write_private_json(people_path(home), {"people": people}, redacted=False)  # hashes and names only


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def _new_token() -> str:
    import secrets  # here, as hmac below: a hook asks who is who at every prompt, and never makes a token

    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def list_people(home: Home) -> list[Person]:
    return [Person(p["name"], str(p.get("added") or ""), p.get("rotated")) for p in _load(Home.of(home))]


def is_team_cloud(home: Home) -> bool:
    """A home with people: a Team Cloud home."""
    return bool(_load(Home.of(home)))  # no file: no people


def add_person(home: Home, name: str) -> tuple[Person, str]:
    """Add a person; (the person, their token: shown this once, kept only as a hash)."""
    home = Home.of(home)
    validate_person_name(name)
    with home_lock(home):
        people = _load(home)
        if any(p["name"] == name for p in people):
            raise MemoryInputError(
                f"{quoted(name)} is a person of this home already; `people token` gives a new token."
            )
        token = _new_token()
        added = clock.now_utc().isoformat(timespec="seconds")
        people.append({"name": name, "token_sha256": _hash(token), "added": added})
        _save(home, people)
    return Person(name, added), token


def rotate_token(home: Home, name: str) -> str:
    """A new token for the person (the old one stops working at once); shown this once."""
    home = Home.of(home)
    validate_person_name(name)
    with home_lock(home):
        people = _load(home)
        found = next((p for p in people if p["name"] == name), None)
        if found is None:
            raise NotFound(f"There is no person {quoted(name)} in {home.root}.")
        token = _new_token()
        found["token_sha256"] = _hash(token)
        found["rotated"] = clock.now_utc().isoformat(timespec="seconds")
        _save(home, people)
    return token


def remove_person(home: Home, name: str, *, purge: bool = False) -> list[str]:
    """Remove a person: their token stops working at once. Their layers and About me stay on disk unless `purge`;
    the layer folders removed (with purge) or kept (without), by bot."""
    home = Home.of(home)
    validate_person_name(name)
    with home_lock(home):
        people = _load(home)
        if not any(p["name"] == name for p in people):
            raise NotFound(f"There is no person {quoted(name)} in {home.root}.")
        _save(home, [p for p in people if p["name"] != name])
    layers = person_layers(home, name)
    if purge:
        import shutil  # here: the hooks ask who is who at every prompt and never purge

        for layer in layers:  # the layer's folder and every record of its journal
            shutil.rmtree(home.workspace(layer), ignore_errors=True)
            for record in home.journal_dir.glob(f"{layer}.*"):  # files, and folders (the seen-state's kept texts)
                if record.is_dir() and not record.is_symlink():
                    shutil.rmtree(record, ignore_errors=True)
                else:
                    record.unlink(missing_ok=True)
        shutil.rmtree(home.person_dir(name), ignore_errors=True)  # their own About me and learned list
    return layers


def person_layers(home: Home, name: str) -> list[str]:
    """The layer folders of this person on disk, `<bot>--member-<name>`, by bot."""
    suffix = MEMBER_MARK + name
    folder = Home.of(home).workspaces_dir
    if not folder.is_dir():
        return []
    return sorted(entry.name for entry in folder.iterdir() if entry.is_dir() and entry.name.endswith(suffix))


def person_for_token(home: Home, given: str) -> str | None:
    """The person this token is, or None (matched by hash, in constant time against every person)."""
    import hmac

    digest = _hash(given)
    found = None
    for person in _load(Home.of(home)):
        if hmac.compare_digest(digest, str(person.get("token_sha256") or "")):
            found = person["name"]
    return found
