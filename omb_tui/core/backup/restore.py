"""Putting a backup back: every file placed by a rule of the home's layout, everything checked before anything is
written, the memory files written through the store as an import, the whole built in a stage and moved in.

Spec: memory.md, "The journal" (an import is a row: who "import", undoable), "Where it lives" (atomic, 0600,
redacted) and "The helper model" (a restored bot keeps `helperModel`: its settings file comes back as it was).
docs/backup.md.

Everything is written into the stage (`stage.py`), holding `backup.lock` and each bot's store lock: for each bot,
the journal and the files beside it, settings, compaction's folder and conversations whole (atomic, 0600, each
text redacted as a backup redacts it: a hand-made backup may hold a credential); then each memory file through the
stage's store, so each is one *import* row whose undo takes it back. With --replace the bot's settings, memory
files, journal and seen-state are copied into the stage first: its journal before the restore is kept as
`<bot>.replaced-<time>.ndjson`, a replaced file's earlier text is in its import row, and a memory file the backup
does not hold is deleted (MEMORY.md emptied) through the store. About me goes through the store as well, an import
row of the first bot restored. Then the stage moves into the home, whole.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..compact.records import (
    ATTEMPTS_LOG,
    BACKUP_DIR,
    CLEAN_LOG,
    COMPACT_DIR,
    PENDING_FILE,
    is_memory_backup_name,
)
from ..compact.session import INSTRUCTIONS_FILE
from ..memory import clock
from ..memory.changes import Actor
from ..memory.conversations import header_from_json, validate_conversation_id
from ..memory.disk import atomic_write_bytes, decode, make_private_dirs
from ..memory.journal import WHO_IMPORT, DamagedLine, decode_line
from ..memory.locks import home_lock
from ..memory.paths import FileKind, Home, MemoryInputError, classify, quoted, refuse_links, validate_bot_id
from ..memory.store import ABOUT_ME_REL, MemoryStore
from .archive import BadBackup, Opened, backup_lock_held
from .contents import scrub
from .stage import bots_locked, commit, finish_unfinished, new_stage, stage_of

HOW_RESTORE = "restored from a backup"
HOME_FILES = ("about-me.md", "profile-learned.json", "config.json")
_TEAM_FILE = re.compile(r"^teams/[A-Za-z0-9][A-Za-z0-9_-]{0,79}\.json$")
_JOURNAL_SIDE = re.compile(r"^(?P<bot>[A-Za-z0-9][A-Za-z0-9_-]{0,63})(?P<rest>\.[A-Za-z][A-Za-z0-9.-]*)$")
# What the project writes beside a bot's journal (the seen-state and the locks are never in a backup).
JOURNAL_RECORDS = frozenset(
    f".{name}"
    for name in (
        "ndjson",
        "reviewed.json",
        "organized.json",
        "capture.json",
        "upkeep.json",
        "guard.json",
        "probes.json",
        "still-true.json",
        "moving.json",
    )
)
_REPLACED_JOURNAL = re.compile(r"\.replaced-\d{8}T\d{6}Z\.ndjson")
COMPACT_FILES = frozenset({CLEAN_LOG, f"{CLEAN_LOG}.1", ATTEMPTS_LOG, f"{ATTEMPTS_LOG}.1", PENDING_FILE})


class RestoreRefused(MemoryInputError):
    """A restore that would overwrite what the home has, or that names what the backup does not hold: nothing
    was written."""


@dataclass(frozen=True)
class Placed:
    """Where one file of the backup goes: its path in the home, the bot it belongs to (None: the home's), and for a
    memory file its path in the workspace (written through the store)."""

    target: str
    data: bytes
    bot: str | None
    memory_rel: str | None = None


@dataclass
class RestoreReport:
    bots: list[dict] = field(default_factory=list)  # {bot, from, files, import_rows, replaced}
    home_files: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # files the home already had, left as they were (rooms)
    environment: list[str] = field(default_factory=list)
    left_out_fields: list[str] = field(default_factory=list)  # config.json's secret fields the backup left out
    finished: str | None = None  # an earlier restore a kill stopped, finished or removed first: the sentence

    def to_dict(self) -> dict:
        return {
            "bots": self.bots,
            "home_files": self.home_files,
            "kept": self.kept,
            "environment": self.environment,
            "left_out_fields": self.left_out_fields,
            "finished": self.finished,
        }


def place(path: str, bot: str | None, target_bot: str | None) -> Placed | None:
    """Where a file of the backup goes in the home, with its bot's id changed to `target_bot`; None when the path
    is not a file of an omb-tui home (the caller refuses the backup)."""
    parts = path.split("/")
    if bot is None:
        if path in HOME_FILES or _TEAM_FILE.fullmatch(path):
            return Placed(path, b"", None)
        if len(parts) == 3 and parts[:2] == ["conversations", "rooms"] and _conversation_file(parts[2]):
            return Placed(path, b"", None)
        return None
    new = target_bot or bot
    if path == f"bots/{bot}.json":
        return Placed(f"bots/{new}.json", b"", new)
    if parts[:2] == ["workspaces", bot] and len(parts) > 2:
        rel = "/".join(parts[2:])
        if rel == INSTRUCTIONS_FILE:
            return Placed(f"workspaces/{new}/{rel}", b"", new)
        try:
            norm, _kind = classify(rel)
        except MemoryInputError:
            return None
        return Placed(f"workspaces/{new}/{norm}", b"", new, memory_rel=norm) if norm == rel else None
    if len(parts) == 2 and parts[0] == "memory-journal":
        side = _JOURNAL_SIDE.fullmatch(parts[1])
        if side is None or side["bot"] != bot or not _journal_record(side["rest"]):
            return None
        return Placed(f"memory-journal/{new}{side['rest']}", b"", new)
    if parts[:2] == [COMPACT_DIR, bot] and _compaction_file(parts[2:]):
        return Placed("/".join([COMPACT_DIR, new, *parts[2:]]), b"", new)
    if len(parts) == 4 and parts[:3] == ["conversations", "chats", bot] and _conversation_file(parts[3]):
        return Placed(f"conversations/chats/{new}/{parts[3]}", b"", new)
    return None


def _journal_record(rest: str) -> bool:
    """A file the project keeps beside a bot's journal (`.ndjson`, `.reviewed.json`…, `.replaced-<time>.ndjson`)."""
    return rest in JOURNAL_RECORDS or _REPLACED_JOURNAL.fullmatch(rest) is not None


def _compaction_file(parts: list[str]) -> bool:
    """A file compaction writes in its folder: its logs (and their one rotated copy), pending.json, the backups."""
    if len(parts) == 1:
        return parts[0] in COMPACT_FILES
    return len(parts) == 2 and parts[0] == BACKUP_DIR and is_memory_backup_name(parts[1])


def _conversation_file(name: str) -> bool:
    if name == ".changes":
        return True
    try:
        return name.endswith(".ndjson") and bool(validate_conversation_id(name[: -len(".ndjson")]))
    except MemoryInputError:
        return False


def plan(home: Home, opened: Opened, bots: Sequence[str], as_id: str | None, replace: bool) -> list[Placed]:
    """Every file the restore writes, each placed and checked; RestoreRefused or BadBackup, before anything is
    written, for a bot the backup does not hold, a bot the home has (without --replace or --as), a path that is not
    a file of an omb-tui home, or a place under a link."""
    if opened.manifest.kind == "team-package":
        raise RestoreRefused("That file is a shared team package: import it with `omb-tui team import FILE`.")
    held = opened.manifest.bots
    chosen = list(dict.fromkeys(bots)) or list(held)
    missing = [b for b in chosen if b not in held]
    if missing:
        holds = ", ".join(held) if held else "no bot"
        raise RestoreRefused(f"The backup holds no bot {quoted(missing[0])}; it holds {holds}.")
    if as_id is not None:
        validate_bot_id(as_id)
        if len(chosen) != 1:
            raise RestoreRefused("--as gives one bot a new id: choose that bot with --bot.")
    whole = not bots and as_id is None  # the home's own files come back only with everything
    targets = {b: as_id or b for b in chosen}
    if not replace:
        for target in targets.values():
            if home.has_bot(target):
                raise RestoreRefused(
                    f"{home.root} already has a bot {quoted(target)}: restore with --replace to replace it (what "
                    "it had is journaled and can be undone), or with --as NEW_ID to restore it beside it."
                )
    placed: list[Placed] = []
    for path, data in sorted(opened.files.items()):
        bot = opened.bot_of(path)
        if bot is not None and bot not in held:
            raise BadBackup(f"The backup's manifest gives {quoted(path)} to a bot it does not hold; it is damaged.")
        if bot is not None and bot not in targets or bot is None and not _wanted(path, data, whole, as_id, chosen):
            continue
        spot = place(path, bot, targets.get(bot) if bot else None)
        if spot is None:
            raise BadBackup(
                f"The backup holds {quoted(path)}, which is not a file of an omb-tui home; nothing was restored."
            )
        if spot.bot is None and not replace and not _is_room(path) and _differs(home, spot.target, data):
            raise RestoreRefused(
                f"{home.root} already has its own {path}: restore with --replace to replace it, or restore the bots "
                "alone with --bot."
            )
        refuse_links(home.root / spot.target)
        placed.append(Placed(spot.target, data, spot.bot, spot.memory_rel))
    return placed


def _is_room(path: str) -> bool:
    return path.startswith("conversations/rooms/")


def _wanted(path: str, data: bytes, whole: bool, as_id: str | None, chosen: Sequence[str]) -> bool:
    """Whether a file of the home comes back: with everything, all of them; with --bot, the rooms those bots are
    members of (a bot restored under a new id with --as is a member of none)."""
    if whole:
        return True
    if not _is_room(path) or as_id is not None:
        return False
    try:
        header = header_from_json(json.loads(data.split(b"\n", 1)[0]))
    except ValueError:
        return False
    return header is not None and any(header.has_bot(bot) for bot in chosen)


def _differs(home: Home, target: str, data: bytes) -> bool:
    try:
        return (home.root / target).read_bytes() != data
    except FileNotFoundError:
        return False


def restore(
    home: Home, opened: Opened, *, bots: Sequence[str] = (), as_id: str | None = None, replace: bool = False
) -> RestoreReport:
    """Restore the backup `opened` (checked whole by `archive.read_backup`) into `home`: `bots` only (all it holds
    when empty), the one chosen as `as_id`, over bots the home has only with `replace`. Built whole in a stage,
    then moved into place (`stage.py`): a kill leaves the bots whole or absent, never half."""
    finished = finish_earlier_restore(home)
    placed = plan(home, opened, bots, as_id, replace)
    report = RestoreReport(environment=list(opened.manifest.environment), finished=finished)
    renamed = {b: as_id or b for b in (bots or opened.manifest.bots)}
    with backup_lock_held(home), bots_locked(home, list(renamed.values())):  # upkeep and writers wait
        staged = new_stage(home)
        deleted: list[str] = []
        for source, target in renamed.items():
            own = [p for p in placed if p.bot == target]
            replaced = home.has_bot(target)
            if replaced:
                copy_bot(home, staged, target)
            report.bots.append(_restore_bot(staged, source, target, own, replaced))
            if replaced:
                deleted += [mp_rel for mp_rel in _memory_rels(home, target) if not (staged.root / mp_rel).exists()]
        for spot in placed:
            if spot.bot is None:
                _write_home_file(home, staged, spot, replace, report)
        commit(home, list(renamed.values()), deleted)
    if "config.json" in report.home_files:
        report.left_out_fields = list(opened.manifest.left_out_fields)
    return report


def finish_earlier_restore(home: Home) -> str | None:
    """A restore a kill stopped in this home, finished or removed first (the sentence saying which)."""
    if not stage_of(home).root.is_dir():
        return None  # nothing to finish: and nothing is written, not even backup.lock, for a refused restore
    with backup_lock_held(home):
        return finish_unfinished(home)


def _memory_rels(home: Home, bot_id: str) -> list[str]:
    """The bot's memory files, by their path in the home."""
    return [f"workspaces/{bot_id}/{mp.rel}" for mp in home.memory_files(bot_id)]


def copy_bot(home: Home, staged: Home, bot_id: str) -> None:
    """What a `--replace` restore reads of the bot it replaces, copied into the stage: its settings, memory files,
    journal and seen-state, so the stage's store journals each replaced file with its earlier text."""
    sources = [home.settings_path(bot_id), home.journal_path(bot_id), home.journal_state_path(bot_id)]
    sources += [mp.path for mp in home.memory_files(bot_id)]
    for source in sources:
        if source.is_file() and not source.is_symlink():
            target = staged.root / source.relative_to(home.root)
            make_private_dirs(target.parent)
            shutil.copy2(source, target)
    blobs = home.journal_state_path(bot_id).with_suffix("")  # the seen-state's kept texts
    if blobs.is_dir() and not blobs.is_symlink():
        shutil.copytree(blobs, staged.root / blobs.relative_to(home.root), symlinks=True)


def _restore_bot(staged: Home, source: str, target: str, placed: list[Placed], replaced: bool) -> dict:
    """The bot written into the stage: its files whole and redacted, each memory file through the stage's store as
    an import row (its journal is the bot's, moved into place with it)."""
    store = MemoryStore(staged, target)
    actor = Actor(WHO_IMPORT, HOW_RESTORE)
    import_rows = 0
    with store.locked():
        journal = staged.journal_path(target)
        if replaced and journal.exists():
            stamp = clock.now_utc().strftime("%Y%m%dT%H%M%SZ")
            os.replace(journal, journal.with_name(f"{target}.replaced-{stamp}.ndjson"))
        for spot in placed:
            if spot.memory_rel is None:
                data = (
                    _journal_for(spot.data, target) if spot.target == f"memory-journal/{target}.ndjson" else spot.data
                )
                atomic_write_bytes(staged.root / spot.target, scrub(spot.target, data))
        written = set()
        for spot in placed:
            if spot.memory_rel is not None:
                result = store.write(spot.memory_rel, decode(spot.data), actor, allow_log=True)
                written.add(spot.memory_rel)
                import_rows += bool(result.changed)
        if replaced:
            for mp in staged.memory_files(target):
                if mp.rel not in written:
                    if mp.kind in (FileKind.MEMORY, FileKind.ARCHIVE):  # never deleted: emptied
                        store.write(mp.rel, "", actor)
                    else:
                        store.delete(mp.rel, actor)
                    import_rows += 1
    return {"bot": target, "from": source, "files": len(placed), "import_rows": import_rows, "replaced": replaced}


def _journal_for(data: bytes, bot_id: str) -> bytes:
    """The journal's rows as they were, each naming `bot_id` (restored under another id with --as); a damaged
    line is kept as it is."""
    lines = []
    for raw in data.splitlines(keepends=True):
        row = decode_line(raw.strip()) if raw.strip() else None
        if row is None or isinstance(row, DamagedLine) or row.bot == bot_id:
            lines.append(raw)
        else:
            row.bot = bot_id
            lines.append((row.to_line() + "\n").encode("utf-8"))
    return b"".join(lines)


def _write_home_file(home: Home, staged: Home, spot: Placed, replace: bool, report: RestoreReport) -> None:
    """A file of the home written into the stage, redacted (a room the home has is kept unless `replace`)."""
    path = home.root / spot.target
    data = scrub(spot.target, spot.data)
    if _is_room(spot.target):
        if path.exists() and not replace:  # a room other bots of this home may be talking in: never overwritten
            if path.read_bytes() != data:
                report.kept.append(spot.target)
            return
        atomic_write_bytes(staged.root / spot.target, data)
        return
    report.home_files.append(spot.target)
    if spot.target == ABOUT_ME_REL and report.bots:
        # About me through the store, as an import row of the first bot restored: a replaced About me is undoable.
        if home.about_me_path.is_file() and not staged.about_me_path.exists():
            make_private_dirs(staged.root)
            shutil.copy2(home.about_me_path, staged.about_me_path)  # its earlier text, for that row
        store = MemoryStore(staged, report.bots[0]["bot"])
        with store.locked(), home_lock(staged):  # the order every About me writer takes them in
            store.write(ABOUT_ME_REL, decode(spot.data), Actor(WHO_IMPORT, HOW_RESTORE))
        return
    atomic_write_bytes(staged.root / spot.target, data)
