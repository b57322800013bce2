"""Teams on disk: one file per team under `<home>/teams/`, outside every workspace, named by the team's key.

Spec: memory.md, "Shared team memory integrity". A team's key is made once and never changes: renaming changes
only its name (notes and pending cards stay), deleting marks it retired (the file stays, for recovery; it is not
a secure erase), and a new team with an old name gets a new key, so it never sees the retired notes. Every write
holds `<home>/teams/.teams.lock`, is atomic, 0600, and has every text redacted first. A version-1 file is
migrated on first read, under the lock: its bytes are copied to `<key>.json.v1`, then the version-2 text is
renamed over `<key>.json`; a kill in between leaves one of the two files whole. A home without teams stays without
`<home>/teams/` until a team is made: reads (and a write to a team that does not exist) create nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from ..files.disk import atomic_write_bytes, decode, write_private_json
from ..files.locks import held_for_writing
from ..files.paths import Home, MemoryInputError, NotFound, quoted, refuse_links, validate_bot_id
from .model import (
    TEAM_KEY,
    DamagedTeamFile,
    Team,
    clean_team_name,
    is_version_1,
    now_iso,
    team_from_json,
    team_from_version_1,
)

log = logging.getLogger("omb_tui.team")

TEAMS_DIR = "teams"
LOCK_NAME = ".teams.lock"
VERSION_1_COPY_SUFFIX = ".v1"  # `<key>.json.v1`: the version-1 bytes, kept after the migration

T = TypeVar("T")


def teams_dir(home: Home) -> Path:
    return home.root / TEAMS_DIR


def team_path(home: Home, key: str) -> Path:
    return teams_dir(home) / f"{key}.json"


@contextlib.contextmanager
def teams_locked(home: Home) -> Iterator[None]:
    """One writer of team files at a time, across processes."""
    with held_for_writing(teams_dir(home) / LOCK_NAME):
        yield


@contextlib.contextmanager
def teams_read(home: Home) -> Iterator[None]:
    """A read's hold: the lock when there are teams (a version-1 file is migrated on its first read, a write);
    nothing when there are none, so a read never creates `<home>/teams/` or its lock file."""
    if not teams_dir(home).is_dir():
        yield
        return
    with teams_locked(home):
        yield


def new_team_key() -> str:
    return f"team-{secrets.token_hex(4)}"


# ----- reading -----
def _load(home: Home, path: Path) -> Team:
    """The team in `path`; a version-1 file is migrated first (the caller holds the lock)."""
    try:
        data = json.loads(decode(path.read_bytes()))
    except ValueError:
        raise DamagedTeamFile(f"The team file {quoted(path)} is damaged: it is not JSON.") from None
    if is_version_1(data):
        return _migrate(home, path, data)
    if not isinstance(data, dict) or data.get("version") != 2:
        raise DamagedTeamFile(f"The team file {quoted(path)} is of a version omb-tui does not know.")
    team = team_from_json(data, str(path))
    if team.key != path.stem:
        raise DamagedTeamFile(f"The team file {quoted(path)} is damaged: its 'key' is not its file's name.")
    return team


def _migrate(home: Home, path: Path, data: object) -> Team:
    """Version 1 → 2: copy the old bytes beside it, then replace it whole; either file stays whole on a kill."""
    team = team_from_version_1(data, path.stem, str(path))
    copy = path.with_name(path.name + VERSION_1_COPY_SUFFIX)
    if not copy.exists():
        atomic_write_bytes(copy, path.read_bytes())
    save(home, team)
    log.warning(
        "migrated the team file %s to version 2 (the old one is kept as %s)", quoted(path.name), quoted(copy.name)
    )
    return team


def _team_files(home: Home) -> list[Path]:
    folder = teams_dir(home)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.json") if TEAM_KEY.fullmatch(p.stem) and p.is_file())


def _all_teams(home: Home, damaged: list[Exception] | None = None) -> list[Team]:
    """Every team file, retired ones included; a damaged one is named once and passed over (and added to
    `damaged` when given)."""
    teams = []
    for path in _team_files(home):
        try:
            teams.append(_load(home, path))
        except (DamagedTeamFile, OSError) as exc:
            log.warning("%s", exc)
            if damaged is not None:
                damaged.append(exc)
    return teams


def list_teams(home: Home, *, retired: bool = False) -> list[Team]:
    """The teams, by name; with retired=True the retired ones too."""
    with teams_read(home):
        teams = _all_teams(home)
    return sorted((t for t in teams if retired or t.active), key=lambda t: (t.name.casefold(), t.key))


def teams_of_bot(home: Home, bot_id: str) -> list[Team]:
    """The active teams that list the bot as a member, by name."""
    if not teams_dir(home).is_dir():
        return []
    return [team for team in list_teams(home) if bot_id in team.bots]


def _resolve(home: Home, ref: str) -> Team:
    """A team by its key (a retired one is refused), else by its name among active teams."""
    if not isinstance(ref, str) or not ref.strip():
        raise MemoryInputError("Name the team: its name or its key.")
    if TEAM_KEY.fullmatch(ref) and team_path(home, ref).is_file():
        team = _load(home, team_path(home, ref))
        if team.retired is not None:
            raise NotFound(
                f"The team {quoted(ref)} was deleted on {team.retired[:10]}; its notes stay on disk "
                "but no bot loads them."
            )
        return team
    wanted = " ".join(ref.split()).casefold()
    damaged: list[Exception] = []
    for team in _all_teams(home, damaged):
        if team.active and team.name.casefold() == wanted:
            return team
    if damaged:  # the team asked for may be the damaged one: say so rather than "no such team"
        raise damaged[0]
    raise NotFound(f"There is no team {quoted(ref)}; `omb-tui team list` shows them.")


def get_team(home: Home, ref: str) -> Team:
    with teams_read(home):
        return _resolve(home, ref)


def change_team(home: Home, ref: str, change: Callable[[Team], T]) -> T:
    """Read the team, apply `change` (which raises to refuse, writing nothing), write it: under one hold."""
    if not teams_dir(home).is_dir():
        _resolve(home, ref)  # no teams at all: says there is no such team, creating nothing
    with teams_locked(home):
        team = _resolve(home, ref)
        result = change(team)
        save(home, team)
        return result


# ----- writing -----
def save(home: Home, team: Team) -> None:
    """Write the team's file atomically, 0600, redacted (the caller holds the lock)."""
    write_private_json(team_path(home, team.key), team.to_dict())


def _check_bots(home: Home, bots: list[str]) -> list[str]:
    unique = []
    for bot in bots:
        validate_bot_id(bot)
        if not home.has_bot(bot):
            raise NotFound(f"There is no bot {quoted(bot)} in {home.root}.")
        if bot not in unique:
            unique.append(bot)
    return unique


def _check_name_free(teams: list[Team], name: str, *, keep: str | None = None) -> None:
    for team in teams:
        if team.key == keep:
            continue
        if team.active and team.name.casefold() == name.casefold():
            raise MemoryInputError(f"There is already a team named {quoted(team.name)}.")
        if team.key == name:
            raise MemoryInputError(f"{quoted(name)} is another team's key; choose another name.")


def create_team(home: Home, name: str, bots: list[str]) -> Team:
    name = clean_team_name(name)
    bots = _check_bots(home, bots)
    folder = teams_dir(home)
    refuse_links(folder)
    with teams_locked(home):
        _check_name_free(_all_teams(home), name)
        key = new_team_key()
        while team_path(home, key).exists():  # a retired team's key is never given again
            key = new_team_key()
        team = Team(key=key, name=name, bots=bots, created=now_iso())
        save(home, team)
    return team


def rename_team(home: Home, ref: str, new_name: str) -> Team:
    new_name = clean_team_name(new_name)

    def rename(team: Team) -> Team:
        _check_name_free(_all_teams(home), new_name, keep=team.key)
        team.name = new_name
        return team

    return change_team(home, ref, rename)


def change_members(home: Home, ref: str, *, add: Sequence[str] = (), remove: Sequence[str] = ()) -> Team:
    """Add and remove member bots in one change. An added bot must be a bot of the home and not a member yet; a
    removed one must be a member. Notes and pending cards stay (a removed bot's cards are still reviewed)."""
    add, remove = _check_bots(home, list(add)), [validate_bot_id(bot) for bot in remove]
    if not add and not remove:
        raise MemoryInputError("Name a bot to add (--add) or to remove (--remove).")
    both = sorted(set(add) & set(remove))
    if both:
        raise MemoryInputError(f"{quoted(both[0])} is both added and removed; name it once.")

    def change(team: Team) -> Team:
        for bot in add:
            if bot in team.bots:
                raise MemoryInputError(f"{quoted(bot)} is already a member of the team {quoted(team.name)}.")
        for bot in remove:
            if bot not in team.bots:
                raise MemoryInputError(f"{quoted(bot)} is not a member of the team {quoted(team.name)}.")
        team.bots = [bot for bot in team.bots if bot not in remove] + add
        return team

    return change_team(home, ref, change)


def delete_team(home: Home, ref: str) -> Team:
    """Retire the team: no bot loads or finds its notes again, and its name is free; the file stays."""

    def retire(team: Team) -> Team:
        team.retired = now_iso()
        return team

    return change_team(home, ref, retire)
