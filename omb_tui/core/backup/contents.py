"""Which files of a home a backup holds, read so that none is half a write and no credential or key leaves.

Spec: memory.md, "Memory upkeep" ("Upkeep pauses while a backup runs": the backup holds `backup.lock`, which the
scheduler checks) and "Where it lives" (credentials never reach disk: nor a backup). docs/backup.md lists the files.

A bot's files: its settings, its memory files and `INSTRUCTIONS.md`, its journal and the records beside it (review
marks, upkeep's last runs, capture and organize state), compaction's folder (pending proposals, backups, logs), its
1:1 chats and the rooms it is a member of; and every person's layer of it (docs/team-cloud.md): the layer's memory
files, its journal and the records beside it, as the bot's own, each layer read under its own store lock. With the
home's files, each person's own files (`people/<name>/`, About me per person). Left out, because each is rebuilt or
is not the bot's: the recall index, the seen-state (a cache of what the store last saw), lock files, recovery
drafts, usage rows, the owner's token, and `people.json` (the people's token hashes: a person is added again, with a
new token, where the backup is restored).
Each bot is read holding its store lock, so no write of the store is half in a backup; an append-only file (the
journal, a conversation) is cut after its last whole line.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..compact.records import COMPACT_DIR
from ..compact.session import INSTRUCTIONS_FILE
from ..files.disk import TEMP_FILE, decode, encode
from ..files.locks import home_lock
from ..files.paths import Home, MemoryInputError, NotFound, layer_id, validate_person_name
from ..journal.journal import utf8_json
from ..memory.conversations import chat_paths, read_conversation, room_paths
from ..memory.store import MemoryStore
from ..people.layers import bot_layers
from ..team.storage import teams_dir, teams_read

FORMAT_VERSION = 2  # the newest this reads and writes: 2 holds people's layers and files (`person` on an entry)
PLAIN_VERSION = 1  # a backup without any person's file is written as version 1, which an older omb-tui reads
PEOPLE_DIR = "people"  # `people/<name>/`: a person's own files of the home (About me per person)
PEOPLE_FILE = "people.json"  # the people's token hashes: never in a backup
# A file of a person's folder a backup takes and a restore puts back: a plain name ending in .md or .json.
_PERSON_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*\.(?:md|json)")
APPEND_ONLY = (".ndjson",)  # written by appends: what follows the last newline is a line still being written
LEFT_OUT_SUFFIXES = (".lock", ".seen.json")  # beside a bot's journal: locks, and the seen-state (a cache)
# A key of config.json that holds a secret (and not the name of the variable that does): never exported. An auth
# field or header (Authorization, proxy_auth), a cookie, and a webhook (whose address's path is its secret: Discord's,
# Slack's) are secrets whatever else their name says.
_SECRET_KEY = re.compile(
    r"(?i)(api[_-]?key|apikey|^key$|token|secret|password|passwd|passphrase|credential|auth(?!ors?\b)|bearer|cookie"
    r"|webhook|private[_-]?key|signature)"
)
_NAMES_A_VARIABLE = re.compile(r"(?i)(_env|env)$")


class BackupRefused(MemoryInputError):
    """A backup that cannot be taken as asked (another backup running, a bot the home does not have)."""


@dataclass(frozen=True)
class BackupFile:
    """One file of a backup: where it lives under the home (POSIX), its bytes, the bot it belongs to (None: a
    file of the home, such as About me or a team), and the person whose it is (a file of their layer of that bot,
    or of their own folder `people/<name>/`; None for every other file)."""

    path: str
    data: bytes
    bot: str | None = None
    person: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def manifest_entry(self) -> dict:
        entry = {"path": self.path, "sha256": self.sha256, "bytes": len(self.data), "bot": self.bot}
        return entry if self.person is None else {**entry, "person": self.person}


@dataclass
class Collected:
    """What a backup read: its files, the environment variables config.json's instances read their keys from
    (the keys themselves are never read), and what was left out, each with why."""

    files: list[BackupFile] = field(default_factory=list)
    environment: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)  # files that held a credential, kept with it redacted
    left_out_fields: list[str] = field(
        default_factory=list
    )  # config.json's fields left out, dotted (compact.report.webhook)


def home_path(home: Home, path: Path) -> str:
    """A file's path under the home, as the backup names it (POSIX, relative)."""
    return PurePosixPath(path.relative_to(home.root)).as_posix()


# ----- which files -----
def bot_file_paths(home: Home, bot_id: str) -> list[Path]:
    """Every file of the bot a backup holds (see the module's docstring), those that exist."""
    paths = [home.settings_path(bot_id)]
    paths += [mp.path for mp in home.memory_files(bot_id)]
    paths.append(home.workspace(bot_id) / INSTRUCTIONS_FILE)
    if home.journal_dir.is_dir():
        paths += sorted(
            p for p in home.journal_dir.glob(f"{bot_id}.*") if not p.name.endswith(LEFT_OUT_SUFFIXES)
        )  # bot ids hold no dot, so `scout.*` is scout's alone
    paths += _files_under(home.root / COMPACT_DIR / bot_id)
    paths += chat_paths(home, bot_id)
    return [p for p in paths if _regular_file(p)]


def layer_file_paths(home: Home, workspace_id: str) -> list[Path]:
    """Every file of a person's layer a backup holds: its memory files, its journal and the records beside it."""
    paths = [mp.path for mp in home.memory_files(workspace_id)]
    if home.journal_dir.is_dir():  # `scout--member-dana.*`: a dot ends the name, so no other person's layer
        paths += sorted(p for p in home.journal_dir.glob(f"{workspace_id}.*") if not p.name.endswith(LEFT_OUT_SUFFIXES))
    return [p for p in paths if _regular_file(p)]


def is_person_file_name(name: str) -> bool:
    """A file of `people/<name>/` a backup takes and a restore puts back (a plain .md or .json name)."""
    return _PERSON_FILE.fullmatch(name) is not None


def person_file_paths(home: Home, collected: Collected) -> list[tuple[str, Path]]:
    """(person, file) for each person's own files under `people/<name>/`; anything else there (a link, a folder, a
    name no person or file of theirs can have) is never read, and said as left out."""
    folder = home.root / PEOPLE_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    found = []
    for person_dir in sorted(folder.iterdir()):
        if not _person_folder(person_dir):
            collected.left_out.append(f"{home_path(home, person_dir)}: not a person's folder")
            continue
        for path in sorted(person_dir.iterdir()):
            if _regular_file(path) and is_person_file_name(path.name):
                found.append((person_dir.name, path))
            elif not TEMP_FILE.match(path.name):
                collected.left_out.append(f"{home_path(home, path)}: not a file omb-tui keeps for a person")
    return found


def _person_folder(path: Path) -> bool:
    try:
        validate_person_name(path.name)
    except MemoryInputError:
        return False
    return path.is_dir() and not path.is_symlink()


def room_file_paths(home: Home, bot_ids: list[str]) -> list[Path]:
    """The rooms any of the bots is a member of: files of the home, held once however many of them are members."""
    return [p for p in room_paths(home) if _regular_file(p) and any(_is_member(p, bot) for bot in bot_ids)]


def _is_member(room: Path, bot_id: str) -> bool:
    conversation = read_conversation(room, messages=False)
    return conversation is not None and conversation.has_bot(bot_id)


def _files_under(folder: Path) -> list[Path]:
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(p for p in folder.rglob("*") if not TEMP_FILE.match(p.name))


def _regular_file(path: Path) -> bool:
    """A regular file, not a link (a backup never follows one out of the home), nor a temp file of a write."""
    return path.is_file() and not path.is_symlink() and not TEMP_FILE.match(path.name)


def team_file_paths(home: Home) -> list[Path]:
    """Every team's file (`teams/<key>.json`); a version-1 copy kept after a migration is not one."""
    folder = teams_dir(home)
    return [p for p in sorted(folder.glob("*.json")) if _regular_file(p)] if folder.is_dir() else []


# ----- reading -----
def collect(home: Home, bot_ids: list[str], *, with_home: bool) -> Collected:
    """Read every bot's files (each bot under its store lock, then each person's layer of it under the layer's) and,
    `with_home`, the home's and each person's own; every text scrubbed of credentials, config.json of keys, and
    never people.json. The caller holds backup.lock (`archive.backup_lock_held`)."""
    for bot_id in bot_ids:
        if not home.has_bot(bot_id):
            raise NotFound(f"There is no bot '{bot_id}' in {home.root}.")
    collected = Collected()
    for bot_id in bot_ids:
        store = MemoryStore(home, bot_id)
        with store.locked():  # no write of the store is half in the backup
            # A look first, as every command makes: a change made outside the app since the last one is journaled
            # with its earlier text (kept only in the seen-state, which a backup leaves out), so undo still has it.
            store.sync_outside_changes()
            for path in bot_file_paths(home, bot_id):
                _add(collected, home, path, bot_id)
        for person in bot_layers(home, bot_id):
            _add_layer(collected, home, bot_id, person)
    for path in room_file_paths(home, bot_ids):
        _add(collected, home, path, None)
    if with_home:
        with home_lock(home):
            for path in (home.about_me_path, home.profile_learned_path):
                if _regular_file(path):
                    _add(collected, home, path, None)
            for person, path in person_file_paths(home, collected):
                _add(collected, home, path, None, person)
            if (home.root / PEOPLE_FILE).exists():
                collected.left_out.append(
                    f"{PEOPLE_FILE}: it holds the people's token hashes; where the backup is restored, add each "
                    "person again (`omb-tui people add NAME`, a new token) and their layers are theirs again"
                )
        with teams_read(home):  # no teams: no lock taken, and no teams/ folder made by a backup
            for path in team_file_paths(home):
                _add(collected, home, path, None)
        if _regular_file(home.config_path):
            _add_config(collected, home)
    return collected


def _add_layer(collected: Collected, home: Home, bot_id: str, person: str) -> None:
    """The person's layer of the bot, read as a bot is: under its own store lock, after a look."""
    store = MemoryStore(home, layer_id(bot_id, person))
    with store.locked():
        store.sync_outside_changes()
        for path in layer_file_paths(home, store.bot_id):
            _add(collected, home, path, bot_id, person)


def _add(collected: Collected, home: Home, path: Path, bot_id: str | None, person: str | None = None) -> None:
    try:
        data = _read_whole(path)
    except FileNotFoundError:  # gone between the listing and the read (a topic renamed): not in this backup
        return
    scrubbed = scrub(path.name, data)
    rel = home_path(home, path)
    if scrubbed != data:
        collected.redacted.append(rel)
    collected.files.append(BackupFile(rel, scrubbed, bot_id, person))


def _read_whole(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        if path.name.endswith(APPEND_ONLY):
            _hold_shared(fd)  # a conversation's appends hold its flock: none is read half written
        data = handle.read()
    if path.name.endswith(APPEND_ONLY) and data and not data.endswith(b"\n"):
        data = data[: data.rfind(b"\n") + 1]  # the last line is still being written: it is not in this backup
    return data


def _hold_shared(fd: int) -> None:
    """Wait for the file's writer (an append holds an exclusive flock) and keep it out until the file is closed."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the cut after the last whole line is all there is
        return
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_SH)


def _add_config(collected: Collected, home: Home) -> None:
    """config.json without any key: a key's field is dropped, and the manifest names the environment variables
    the instances read theirs from. A config.json that is not JSON is left out (its keys could not be found)."""
    try:
        data = json.loads(_read_whole(home.config_path))
    except ValueError:
        collected.left_out.append("config.json: it is not valid JSON, so its keys could not be left out")
        return
    kept = without_keys(data, collected.left_out_fields)
    collected.left_out_fields.sort()
    collected.environment = key_variables(kept)
    if collected.left_out_fields:
        collected.left_out.append(
            f"config.json's {', '.join(collected.left_out_fields)}: each holds a secret; set it again where the "
            "backup is restored"
        )
    text = utf8_json(kept, indent=2) + "\n"
    collected.files.append(BackupFile(home_path(home, home.config_path), scrub("config.json", encode(text)), None))


def key_variables(config: object) -> list[str]:
    """The environment variables config.json's instances read their keys from (`api_key_env`), by name."""
    instances = config.get("instances") if isinstance(config, dict) else None
    names = {
        spec.get("api_key_env")
        for spec in (instances.values() if isinstance(instances, dict) else [])
        if isinstance(spec, dict)
    }
    return sorted(name for name in names if isinstance(name, str) and name)


def without_keys(value: object, dropped: list[str] | None = None, where: str = "") -> object:
    """A copy of config.json's data without any field whose name says it holds a secret (`api_key`, `token`,
    `password`, `webhook`, `Authorization`…); a field naming an environment variable (`api_key_env`) stays. Each
    field left out is added to `dropped` by its dotted path (`compact.report.webhook`)."""
    if isinstance(value, dict):
        kept = {}
        for k, v in value.items():
            path = f"{where}.{k}" if where else str(k)
            if isinstance(k, str) and _SECRET_KEY.search(k) and not _NAMES_A_VARIABLE.search(k):
                if dropped is not None:
                    dropped.append(path)
                continue
            kept[k] = without_keys(v, dropped, path)
        return kept
    if isinstance(value, list):
        return [without_keys(item, dropped, f"{where}[{number}]") for number, item in enumerate(value)]
    return value


def scrub(name: str, data: bytes) -> bytes:
    """The file's bytes with every credential redacted, as the store would have written them; the same bytes when
    it holds none (nearly always: the store redacts what it writes). JSON stays JSON: a file or line that held one
    is decoded, redacted value by value and written again."""
    from ..redaction.data import redact_answer
    from ..redaction.redact import redact

    text = decode(data)
    if name.endswith(".md") or not name.endswith((".json", ".ndjson")):
        redacted = redact(text).text
        return data if redacted == text else encode(redacted)
    if redact_answer(text) == text:
        return data
    if name.endswith(".json"):
        return encode(_redacted_json(text, indent=2) + "\n")
    return encode("".join(_redacted_line(line) for line in text.splitlines(keepends=True)))


def _redacted_line(line: str) -> str:
    from ..redaction.data import redact_answer

    if redact_answer(line) == line:
        return line
    ending = "\n" if line.endswith("\n") else ""
    return _redacted_json(line.rstrip("\n"), separators=(",", ":")) + ending


def _redacted_json(text: str, **dumps_options: object) -> str:
    from ..redaction.data import redact_data
    from ..redaction.redact import redact

    try:
        value = json.loads(text)
    except ValueError:  # not JSON after all: redacted as text
        return redact(text).text
    return utf8_json(redact_data(value), **dumps_options)


def iter_bot_ids(files: list[BackupFile]) -> Iterator[str]:
    seen: set[str] = set()
    for item in files:
        if item.bot is not None and item.bot not in seen:
            seen.add(item.bot)
            yield item.bot
