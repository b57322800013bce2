"""A restore is built whole in a stage, then moved into place: a bot comes back whole or not at all.

Spec: memory.md, "Where it lives" (a crash mid-write leaves the old file, never a torn one), applied to a restore as
a whole. docs/backup.md ("Whole or not at all") is the person's account.

The stage is `<home>/.restore-stage/` (`Home.restore_stage`), laid out as a home: the restore writes every file there, through a store
of its own (so the import rows are made there, in the bot's journal). When the stage is whole, `moves.json` is
written in it (atomic): that is the moment the restore happens. Then each entry of the stage is renamed into the
home (a folder the home lacks in one rename: a new bot's workspace appears whole), the bots' settings and
workspaces last, the memory files a `--replace` removed are deleted, and the stage goes.

A restore killed before `moves.json` left nothing in the home: the stage is removed. Killed after it, the stage
holds the rest of what it was putting in place: the move is finished. Either happens the next time the home is
used: at every start of the command line (`finish_at_start`, which says it on stderr) and before every restore.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..base.text import plural
from ..files.disk import TEMP_FILE, atomic_write_bytes, fsync_dir, make_private_dirs
from ..files.locks import held_exclusively, home_lock
from ..files.paths import Home, MemoryInputError, quoted, split_layer, validate_bot_id
from ..journal.journal import utf8_json
from ..memory.store import MemoryStore
from ..schedule import backup_lock_path
from ..team.storage import teams_locked

MOVES_FILE = "moves.json"  # written when the stage is whole; from then on the restore is finished by moving
LAST = ("bots", "workspaces")  # what makes a bot exist (Home.has_bot) goes in after everything else of it


def stage_of(home: Home) -> Home:
    return Home(home.restore_stage)


def new_stage(home: Home) -> Home:
    """An empty stage (the caller holds backup.lock and has finished or removed any earlier one)."""
    stage = stage_of(home)
    make_private_dirs(stage.root)
    return stage


def commit(home: Home, bots: Sequence[str], deleted: Sequence[str], layers: Sequence[str] = ()) -> None:
    """The stage is whole: record what moving it means (atomic), then move it. Call with the bots' locks held, and
    those of the people's layers it restores (`<bot>--member-<person>`)."""
    record = {"bots": list(bots), "layers": list(layers), "delete": list(deleted)}
    atomic_write_bytes(stage_of(home).root / MOVES_FILE, (utf8_json(record) + "\n").encode("utf-8"))
    move_into_place(home, record)


def move_into_place(home: Home, record: dict) -> None:
    """Rename everything of the stage into the home, the settings and workspaces last; delete what `record` says;
    then remove the stage. Idempotent: a move killed halfway is finished by running it again."""
    stage = stage_of(home).root
    touched: set[Path] = set()
    entries = sorted((p for p in stage.iterdir() if p.name != MOVES_FILE), key=lambda p: (p.name in LAST, p.name))
    with contextlib.ExitStack() as held:  # About me, config.json and the teams have writers of their own
        held.enter_context(home_lock(home))
        if (stage / "teams").is_dir():  # the teams' lock makes teams/: only when a team is restored
            held.enter_context(teams_locked(home))
        for entry in entries:
            _move(entry, home.root / entry.name, touched)
        for rel in record.get("delete", []):
            path = home.root / rel
            path.unlink(missing_ok=True)
            touched.add(path.parent)
    for folder in touched:
        fsync_dir(folder)
    # What is left (empty folders, the stage's locks) goes first and moves.json last: a stage without moves.json
    # always means that nothing of it was put in place.
    for leftover in stage.iterdir():
        if leftover.name == MOVES_FILE:
            continue
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover)
        else:
            leftover.unlink()
    (stage / MOVES_FILE).unlink(missing_ok=True)
    stage.rmdir()
    fsync_dir(home.root)


def _move(source: Path, target: Path, touched: set[Path]) -> None:
    if source.name.endswith(".lock") or TEMP_FILE.match(source.name):
        return  # the stage's own locks and a write's temp file are not part of what is restored
    if source.is_dir() and not source.is_symlink() and target.is_dir():
        for child in sorted(source.iterdir(), key=lambda p: (p.name in LAST, p.name)):
            _move(child, target / child.name, touched)
        return
    make_private_dirs(target.parent)
    os.replace(source, target)  # a folder the home lacks goes in whole, in one rename
    touched.add(target.parent)


def finish_unfinished(home: Home) -> str | None:
    """A restore a kill stopped: finished when its stage was whole, else removed (nothing of it is in the home);
    the sentence saying which, or None when there was none. The caller holds backup.lock."""
    stage = stage_of(home).root
    if not stage.is_dir():
        return None
    record = _record(stage / MOVES_FILE)
    if record is None:
        staged_anything = any(stage.iterdir())  # empty: just made, or emptied after its last move
        shutil.rmtree(stage)
        if not staged_anything:
            return None
        return "A restore stopped before it put anything in place; what it had staged was removed."
    bots = [b for b in record.get("bots", []) if isinstance(b, str)]
    layers = [lid for lid in record.get("layers", []) if _is_layer(lid)]
    with bots_locked(home, bots, layers):
        move_into_place(home, record)
    named = ", ".join(quoted(b) for b in bots) or "the home's files"
    return f"A restore of {named} was stopped while it put {plural(len(bots), 'bot')} in place; it is finished now."


def _record(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_bytes())
    except (FileNotFoundError, ValueError):  # never written whole: the stage was not yet complete
        return None
    return data if isinstance(data, dict) else None


def _is_layer(workspace_id: object) -> bool:
    try:
        return isinstance(workspace_id, str) and split_layer(workspace_id)[1] is not None
    except MemoryInputError:
        return False


@contextlib.contextmanager
def bots_locked(home: Home, bots: Sequence[str], layers: Sequence[str] = ()) -> Iterator[None]:
    """Every bot's store lock, then every person's layer's (`<bot>--member-<person>`), each in one order (by id),
    held for the block: nothing writes them meanwhile. A bot's lock is taken before any layer's."""
    with contextlib.ExitStack() as stack:
        for bot in sorted(set(bots)):
            validate_bot_id(bot)
            stack.enter_context(MemoryStore(home, bot).locked())
        for layer in sorted(set(layers)):
            if not _is_layer(layer):
                raise ValueError(f"{layer!r} is not a person's layer of a bot")
            stack.enter_context(MemoryStore(home, layer).locked())
        yield


def finish_at_start(home: Home) -> str | None:
    """At a start of the command line: an unfinished restore finished or removed (the sentence saying so), unless
    a restore is running now (it holds backup.lock). Cheap when there is none: one stat."""
    if not home.restore_stage.is_dir():
        return None
    with held_exclusively(backup_lock_path(home)) as held:
        return finish_unfinished(home) if held else None
