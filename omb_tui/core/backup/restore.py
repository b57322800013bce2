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

A person's layer of a bot (`workspaces/<bot>--member-<person>/`, docs/team-cloud.md) comes back with its bot and
only with it, the same way: its journal and records whole, each memory file an import row in the layer's own
journal, under the layer's store lock; restored `--as NEW_ID`, it becomes `NEW_ID--member-<person>`. A layer the
home already has is replaced only with --replace, kept as a bot is. A person's own files (`people/<name>/`) are
files of the home: they come back with everything.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..base import clock
from ..compact.records import (
    ATTEMPTS_LOG,
    BACKUP_DIR,
    CLEAN_LOG,
    COMPACT_DIR,
    PENDING_FILE,
    is_memory_backup_name,
)
from ..compact.session import INSTRUCTIONS_FILE
from ..files.disk import atomic_write_bytes, decode, make_private_dirs
from ..files.locks import home_lock
from ..files.paths import (
    FileKind,
    Home,
    MemoryInputError,
    classify,
    layer_id,
    quoted,
    refuse_links,
    split_layer,
    validate_bot_id,
    validate_person_name,
)
from ..journal.changes import Actor
from ..journal.journal import WHO_IMPORT, DamagedLine, decode_line
from ..memory.conversations import header_from_json, validate_conversation_id
from ..memory.store import ABOUT_ME_REL, MemoryStore
from ..people.people import list_people
from .archive import BadBackup, Opened, backup_lock_held
from .contents import PEOPLE_DIR, is_person_file_name, scrub
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
    """Where one file of the backup goes: its path in the home, the bot it belongs to (None: the home's), for a
    memory file its path in the workspace (written through the store), and the person whose file it is (of their
    layer of the bot, or of their folder)."""

    target: str
    data: bytes
    bot: str | None
    memory_rel: str | None = None
    person: str | None = None

    @property
    def workspace_id(self) -> str | None:
        """The store this file is written through: the bot's own, or the person's layer of it."""
        if self.bot is None:
            return None
        return self.bot if self.person is None else layer_id(self.bot, self.person)


@dataclass
class RestoreReport:
    bots: list[dict] = field(default_factory=list)  # {bot, from, files, import_rows, replaced}
    layers: list[dict] = field(default_factory=list)  # {bot, person, from, files, import_rows, replaced}
    people_to_add: list[str] = field(default_factory=list)  # a layer came back for them; no person of this home
    home_files: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # files the home already had, left as they were (rooms)
    environment: list[str] = field(default_factory=list)
    left_out_fields: list[str] = field(default_factory=list)  # config.json's secret fields the backup left out
    finished: str | None = None  # an earlier restore a kill stopped, finished or removed first: the sentence

    def to_dict(self) -> dict:
        return {
            "bots": self.bots,
            "layers": self.layers,
            "people_to_add": self.people_to_add,
            "home_files": self.home_files,
            "kept": self.kept,
            "environment": self.environment,
            "left_out_fields": self.left_out_fields,
            "finished": self.finished,
        }


def place(path: str, bot: str | None, target_bot: str | None, person: str | None = None) -> Placed | None:
    """Where a file of the backup goes in the home, with its bot's id changed to `target_bot`; None when the path
    is not a file of an omb-tui home (the caller refuses the backup). A person's file must lie where the manifest's
    person says: their layer of that bot (`workspaces/<bot>--member-<person>/`, its journal), or their folder."""
    parts = path.split("/")
    if bot is None:
        if person is not None:
            return _person_file(parts, person)
        if path in HOME_FILES or _TEAM_FILE.fullmatch(path):
            return Placed(path, b"", None)
        if len(parts) == 3 and parts[:2] == ["conversations", "rooms"] and _conversation_file(parts[2]):
            return Placed(path, b"", None)
        return None
    new = target_bot or bot
    if person is not None:
        return _layer_file(parts, bot, new, person)
    if path == f"bots/{bot}.json":
        return Placed(f"bots/{new}.json", b"", new)
    if parts[:2] == ["workspaces", bot] and parts[2:] == [INSTRUCTIONS_FILE]:
        return Placed(f"workspaces/{new}/{INSTRUCTIONS_FILE}", b"", new)
    spot = _workspace_file(parts, bot, new, new)
    if spot is not None:
        return spot
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


def _workspace_file(parts: list[str], old: str, new: str, bot: str, person: str | None = None) -> Placed | None:
    """A memory file of the workspace `old` (a bot's or a layer's), placed in the workspace `new`."""
    if parts[:2] != ["workspaces", old] or len(parts) < 3:
        return None
    rel = "/".join(parts[2:])
    try:
        norm, _kind = classify(rel)
    except MemoryInputError:
        return None
    return Placed(f"workspaces/{new}/{norm}", b"", bot, memory_rel=norm, person=person) if norm == rel else None


def _layer_file(parts: list[str], bot: str, new: str, person: str) -> Placed | None:
    """A file of the person's layer of `bot`, placed in their layer of `new`: a memory file, the layer's journal or
    a record beside it. Nothing else is ever a layer's."""
    try:
        old, renamed = layer_id(bot, person), layer_id(new, person)
    except MemoryInputError:  # a person no home can have
        return None
    spot = _workspace_file(parts, old, renamed, new, person)
    if spot is not None or len(parts) != 2 or parts[0] != "memory-journal" or not parts[1].startswith(old):
        return spot
    rest = parts[1][len(old) :]
    return Placed(f"memory-journal/{renamed}{rest}", b"", new, person=person) if _journal_record(rest) else None


def _person_file(parts: list[str], person: str) -> Placed | None:
    """A file of the person's own folder (`people/<person>/about-me.md`): a plain .md or .json name, one level."""
    try:
        validate_person_name(person)
    except MemoryInputError:
        return None
    if len(parts) == 3 and parts[:2] == [PEOPLE_DIR, person] and is_person_file_name(parts[2]):
        return Placed("/".join(parts), b"", None, person=person)
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
        spot = place(path, bot, targets.get(bot) if bot else None, opened.person_of(path))
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
        placed.append(Placed(spot.target, data, spot.bot, spot.memory_rel, spot.person))
    for bot, person in layers_of(placed):
        if not replace and has_workspace(home, layer_id(bot, person)):  # left by a bot removed before, say
            raise RestoreRefused(
                f"{home.root} already has {person}'s layer of {quoted(bot)}: restore with --replace to replace it "
                "(what it had is journaled and can be undone), or with --as NEW_ID to restore the bot beside it."
            )
    return placed


def layers_of(placed: Sequence[Placed]) -> list[tuple[str, str]]:
    """(bot, person) of each person's layer the placed files make, by bot then person."""
    return sorted({(spot.bot, spot.person) for spot in placed if spot.bot is not None and spot.person is not None})


def has_workspace(home: Home, workspace_id: str) -> bool:
    """Whether the home has anything of this workspace: its folder or its journal."""
    return home.workspace(workspace_id).exists() or home.journal_path(workspace_id).exists()


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
    layers = layers_of(placed)
    layer_ids = [layer_id(bot, person) for bot, person in layers]
    with backup_lock_held(home), bots_locked(home, list(renamed.values()), layer_ids):  # upkeep and writers wait
        staged = new_stage(home)
        deleted: list[str] = []
        for source, target in renamed.items():
            own = [p for p in placed if p.bot == target and p.person is None]
            entry, gone = _restore_workspace(home, staged, target, own, replaced=home.has_bot(target))
            report.bots.append({"bot": target, "from": source, **entry})
            deleted += gone
            for person in (person for bot, person in layers if bot == target):
                lid = layer_id(target, person)
                mine = [p for p in placed if p.workspace_id == lid]
                entry, gone = _restore_workspace(home, staged, lid, mine, replaced=has_workspace(home, lid))
                report.layers.append({"bot": target, "person": person, "from": source, **entry})
                deleted += gone
        for spot in placed:
            if spot.bot is None:
                _write_home_file(home, staged, spot, replace, report)
        commit(home, list(renamed.values()), deleted, layer_ids)
    if "config.json" in report.home_files:
        report.left_out_fields = list(opened.manifest.left_out_fields)
    report.people_to_add = _people_to_add(home, sorted({person for _bot, person in layers}))
    return report


def _people_to_add(home: Home, people: list[str]) -> list[str]:
    """Those of `people` who are no person of this home (people.json is never in a backup): their layers wait."""
    try:
        known = {p.name for p in list_people(home)}
    except MemoryInputError:  # a damaged people.json: `omb-tui people` says so
        return people
    return [person for person in people if person not in known]


def finish_earlier_restore(home: Home) -> str | None:
    """A restore a kill stopped in this home, finished or removed first (the sentence saying which)."""
    if not stage_of(home).root.is_dir():
        return None  # nothing to finish: and nothing is written, not even backup.lock, for a refused restore
    with backup_lock_held(home):
        return finish_unfinished(home)


def _memory_rels(home: Home, workspace_id: str) -> list[str]:
    """The memory files of a bot (or a person's layer of one), by their path in the home."""
    return [f"workspaces/{workspace_id}/{mp.rel}" for mp in home.memory_files(workspace_id)]


def copy_workspace(home: Home, staged: Home, workspace_id: str) -> None:
    """What a `--replace` restore reads of the bot (or the person's layer of one) it replaces, copied into the
    stage: its settings, memory files, journal and seen-state, so the stage's store journals each replaced file
    with its earlier text."""
    sources = [home.journal_path(workspace_id), home.journal_state_path(workspace_id)]
    sources += [mp.path for mp in home.memory_files(workspace_id)]
    bot_id, person = split_layer(workspace_id)
    if person is None:  # a layer has no settings of its own
        sources.append(home.settings_path(bot_id))
    for source in sources:
        if source.is_file() and not source.is_symlink():
            target = staged.root / source.relative_to(home.root)
            make_private_dirs(target.parent)
            shutil.copy2(source, target)
    blobs = home.journal_state_path(workspace_id).with_suffix("")  # the seen-state's kept texts
    if blobs.is_dir() and not blobs.is_symlink():
        shutil.copytree(blobs, staged.root / blobs.relative_to(home.root), symlinks=True)


def _restore_workspace(
    home: Home, staged: Home, workspace_id: str, placed: list[Placed], *, replaced: bool
) -> tuple[dict, list[str]]:
    """A bot (or a person's layer of one) written into the stage, its earlier self copied there first when it is
    `replaced`: what the report says of it, and the memory files of the home the move deletes."""
    if replaced:
        copy_workspace(home, staged, workspace_id)
    entry = _write_into_stage(staged, workspace_id, placed, replaced)
    if not replaced:
        return entry, []
    gone = [rel for rel in _memory_rels(home, workspace_id) if not (staged.root / rel).exists()]
    return entry, gone


def _write_into_stage(staged: Home, target: str, placed: list[Placed], replaced: bool) -> dict:
    """The bot (or the person's layer of one) written into the stage: its files whole and redacted, each memory
    file through the stage's store as an import row (its journal is its own, moved into place with it)."""
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
    return {"files": len(placed), "import_rows": import_rows, "replaced": replaced}


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
