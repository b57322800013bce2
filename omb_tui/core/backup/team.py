"""A team's backup (its notes, their history and cards, and its bots whole) and a team's shared package (the
accepted notes and the bots' instructions, nothing personal), and importing either.

Spec: memory.md, "Keeping one bot off the helper" (`helperModel` "travels in a full workspace backup and in a team
backup, the two exports that hold a bot's notes and chats"; "a shared team package carries no personal settings and
does not carry this one") and "Shared team memory integrity". docs/backup.md says what each holds.

A package holds, for each member bot, a settings file with its name alone (no engine, instance, switches or
`helperModel`) and its `INSTRUCTIONS.md`; and the team with its accepted notes only (no history, no pending cards, no
deleted notes). No memory file, no About me, no conversation, no person's layer nor token. Importing a package makes
its bots new and the team new: a home that already has one of those bots, or a team by that key or name, is
refused, and nothing is written. A team backup holds its bots whole, as `backup --bot` does: people's layers too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..base.text import printable
from ..compact.session import INSTRUCTIONS_FILE
from ..files.disk import atomic_write_bytes, decode, encode, write_private_json
from ..files.paths import Home, MemoryInputError, quoted, refuse_links
from ..journal.journal import utf8_json
from ..memory.settings import load_bot_settings
from ..memory.store import MemoryStore
from ..team.model import ACCEPTED, DamagedTeamFile, clean_team_name, team_from_json
from ..team.storage import get_team, list_teams, team_path, teams_locked
from .archive import BackupReport, BadBackup, Opened, backup_lock_held, parse_recipients, write_collected
from .contents import BackupFile, Collected, collect, home_path, scrub
from .restore import RestoreRefused, RestoreReport, restore
from .stage import bots_locked, commit, finish_unfinished, new_stage


def team_backup(
    home: Home, ref: str, to: Path, *, recipients: Sequence[str] = (), passphrase: str | None = None
) -> BackupReport:
    """The team's file (notes, their history, pending cards) and each of its bots as a backup holds one."""
    parse_recipients(recipients)  # a mistyped key is said before anything is read
    team = get_team(home, ref)
    with backup_lock_held(home):
        collected = collect(home, list(team.bots), with_home=False)
        with teams_locked(home):
            path = team_path(home, team.key)
            collected.files.append(BackupFile(home_path(home, path), scrub(path.name, path.read_bytes())))
    return write_collected(to, "team", team.bots, collected, recipients, passphrase, team=team.key)


def team_package(
    home: Home, ref: str, to: Path, *, recipients: Sequence[str] = (), passphrase: str | None = None
) -> BackupReport:
    """The shared package: the accepted notes, and each bot's name and instructions (see the module's docstring)."""
    parse_recipients(recipients)
    team = get_team(home, ref)
    collected = Collected()
    with backup_lock_held(home):
        for bot_id in team.bots:
            name = load_bot_settings(home, bot_id).name
            settings = encode(utf8_json({"name": name}, indent=2) + "\n")
            collected.files.append(BackupFile(f"bots/{bot_id}.json", settings, bot_id))
            instructions = home.workspace(bot_id) / INSTRUCTIONS_FILE
            with MemoryStore(home, bot_id).locked():
                if instructions.is_file() and not instructions.is_symlink():
                    data = scrub(instructions.name, instructions.read_bytes())
                    collected.files.append(BackupFile(home_path(home, instructions), data, bot_id))
        shared = replace(
            team,
            notes={key: replace(note, history=[]) for key, note in team.notes.items() if note.status == ACCEPTED},
            cards={},
            last_revisions={},
        )
        text = utf8_json(shared.to_dict(), indent=2) + "\n"
        collected.files.append(BackupFile(f"teams/{team.key}.json", scrub("team.json", encode(text))))
    return write_collected(to, "team-package", team.bots, collected, recipients, passphrase, team=team.key)


@dataclass
class TeamImport:
    kind: str  # "team" (a team backup, restored) or "team-package"
    team: str
    bots: list[str]
    restored: RestoreReport | None = None
    notes: int = 0
    instructions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "team": self.team,
            "bots": self.bots,
            "notes": self.notes,
            "instructions": self.instructions,
            "restored": self.restored.to_dict() if self.restored is not None else None,
        }


def import_team(home: Home, opened: Opened, *, replace_existing: bool = False) -> TeamImport:
    """A team backup is restored (its bots as `restore` does, with `replace_existing` over bots the home has);
    a package makes its bots and its team new. Everything is checked before anything is written."""
    manifest = opened.manifest
    if manifest.kind not in ("team", "team-package") or manifest.team is None:
        raise BadBackup("That file is not a team backup or a team package: restore it with `omb-tui restore`.")
    if manifest.kind == "team":
        report = restore(home, opened, replace=replace_existing)
        team = get_team(home, manifest.team)
        return TeamImport("team", team.name, list(team.bots), restored=report, notes=len(team.accepted()))
    return _import_package(home, opened)


def _import_package(home: Home, opened: Opened) -> TeamImport:
    key = opened.manifest.team or ""
    team_file = f"teams/{key}.json"
    bots = list(opened.manifest.bots)
    wanted = {team_file} | {f"bots/{b}.json" for b in bots} | {f"workspaces/{b}/{INSTRUCTIONS_FILE}" for b in bots}
    odd = sorted(set(opened.files) - wanted)
    if odd or team_file not in opened.files:
        what = quoted(odd[0]) if odd else f"no {team_file}"
        raise BadBackup(f"The team package holds {what}, which a team package never holds; nothing was imported.")
    try:
        team = team_from_json(json.loads(decode(opened.files[team_file])), team_file)
        clean_team_name(team.name)
    except (ValueError, DamagedTeamFile, MemoryInputError):
        raise BadBackup(f"The team package's {team_file} is not a team file; nothing was imported.") from None
    if team.key != key or sorted(team.bots) != sorted(bots):
        raise BadBackup("The team package's manifest and its team file disagree; nothing was imported.")
    for bot_id in bots:
        if home.has_bot(bot_id):
            raise RestoreRefused(
                f"{home.root} already has a bot {quoted(bot_id)}: a team package makes its bots new, so import it "
                "into a home without them (or rename that bot's copy first)."
            )
    if any(t.name.casefold() == team.name.casefold() for t in list_teams(home)):
        raise RestoreRefused(f"There is already a team named {quoted(team.name)}; rename it first.")
    with backup_lock_held(home), bots_locked(home, bots):  # the teams' lock is taken as the stage moves in
        finish_unfinished(home)
        if team_path(home, key).exists():
            raise RestoreRefused(f"{home.root} already has the team {quoted(team.name)} (its key {key}).")
        for path in wanted:
            refuse_links(home.root / path)
        staged = new_stage(home)  # built whole, then moved into place: a kill leaves the package's bots absent
        instructions = []
        for bot_id in bots:
            settings = json.loads(decode(opened.files[f"bots/{bot_id}.json"]))
            name = settings.get("name") if isinstance(settings, dict) else None
            name = printable(name) if isinstance(name, str) and name.strip() else bot_id  # someone else's file
            write_private_json(staged.settings_path(bot_id), {"name": name})
            rel = f"workspaces/{bot_id}/{INSTRUCTIONS_FILE}"
            if rel in opened.files:
                atomic_write_bytes(staged.root / rel, scrub(rel, opened.files[rel]))
                instructions.append(bot_id)
            else:
                staged.workspace(bot_id).mkdir(parents=True, exist_ok=True, mode=0o700)
        accepted = {k: n for k, n in team.notes.items() if n.status == ACCEPTED}
        imported = replace(team, retired=None, notes=accepted, cards={})
        write_private_json(team_path(staged, key), imported.to_dict())
        commit(home, bots, [])
    return TeamImport("team-package", team.name, bots, notes=len(accepted), instructions=instructions)
