"""Where memory lives: the home, a bot's workspace, its journal; name rules; no escape from the workspace.

Spec: memory.md, "Where it lives" and "Editing" (topic names). Layout under the home:

    workspaces/<botId>/MEMORY.md, memory/<topic>.md, memory/archive.md, memory/log/YYYY-MM-DD.md
    memory-journal/<botId>.ndjson          (outside the workspace, so the bot cannot edit its own record)
    bots/<botId>.json                       (a bot's settings)
    config.json, about-me.md, profile-learned.json

Links: nothing is ever written through a symbolic link, nor into a file that has other names (a hard
link). The home itself may be a link (`ln -s /data/omb ~/.openmausbot`): it is resolved once, when it is
opened, so only what lies under it is checked.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from datetime import date
from enum import Enum
from pathlib import Path, PurePosixPath

from ..base.text import cut_to

MEMORY_FILE = "MEMORY.md"
MEMORY_DIR = "memory"
ARCHIVE_NAME = "archive.md"
LOG_DIR = "log"

# Bot ids become folder and file names: keep them to one safe name.
_BOT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MEMBER_MARK = "--member-"  # `<bot>--member-<person>`: a person's layer of a bot (core/people/people.py)
# A person's name (core/people/people.py): lowercase ASCII letters, digits and single dashes, from a letter, ≤ 32.
_PERSON = re.compile(r"[a-z](?:[a-z0-9]|-(?!-)){0,31}")
# Spec: letters, numbers, spaces, dots and dashes, ending in .md; nothing nested, nothing starting with a dot.
_TOPIC = re.compile(r"^[^\W_](?:[^\W_]|[ .-])*\.md$")
_LOG_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
MAX_TOPIC_NAME_BYTES = 200  # a file name may have 255 bytes; the store adds a dot and a temp suffix (14 bytes)


class MemoryInputError(ValueError):
    """A bad input a person can fix; its message is one plain sentence."""


class InvalidName(MemoryInputError):
    pass


class CredentialName(InvalidName):
    """A name shaped like a credential: refused so it never reaches a file name, the journal or a state file."""


class OutsideWorkspace(MemoryInputError):
    pass


class NotFound(MemoryInputError):
    pass


class LinkRefused(MemoryInputError):
    """A write would pass through a symbolic link, or replace a file with other names; nothing was written."""


def quoted(name: object) -> str:
    """A name as it goes into a message: quoted, a newline or other control character escaped, so an
    odd name can never split the sentence or hide in it, and cut when long (text.cut_to)."""
    return repr(cut_to(str(name)))


class FileKind(str, Enum):
    MEMORY = "memory"
    TOPIC = "topic"
    ARCHIVE = "archive"
    LOG = "log"
    ABOUT_ME = "about-me"  # the home's About me, which every bot reads

    @property
    def read_only(self) -> bool:
        """Daily logs are the bot's own record: read and deleted, never edited (spec "Editing")."""
        return self is FileKind.LOG


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """--home wins, then OMB_HOME, then ~/.openmausbot."""
    if home:
        return Path(home).expanduser().absolute()
    env = os.environ.get("OMB_HOME")
    if env:
        return Path(env).expanduser().absolute()
    return default_home_root()


def default_home_root() -> Path:
    """The home when neither --home nor OMB_HOME names one: ~/.openmausbot."""
    return Path.home() / ".openmausbot"


def validate_bot_id(bot_id: str) -> str:
    if not isinstance(bot_id, str) or not _BOT_ID.fullmatch(bot_id):
        raise InvalidName(
            f"{quoted(bot_id)} is not a valid bot id: use letters, numbers, dashes and underscores (at most 64)."
        )
    if MEMBER_MARK in bot_id.lower():  # a bot and a person's layer of another bot would share one folder name
        raise InvalidName(f"{quoted(bot_id)} is not a valid bot id: {MEMBER_MARK!r} names a person's layer of a bot.")
    return bot_id


def validate_person_name(name: object) -> str:
    if not isinstance(name, str) or not _PERSON.fullmatch(name) or name.endswith("-"):
        raise InvalidName(
            f"{quoted(str(name))} is not a valid person name: use lowercase letters, numbers and single dashes, "
            "starting with a letter (at most 32)."
        )
    return name


def layer_id(bot_id: str, person: str) -> str:
    """The folder (and journal) name of a person's layer of a bot: `<bot>--member-<person>`."""
    return f"{validate_bot_id(bot_id)}{MEMBER_MARK}{validate_person_name(person)}"


def split_layer(workspace_id: str) -> tuple[str, str | None]:
    """(bot id, person) of a workspace id: a bot's own (person None) or a person's layer of it; refused when it is
    neither, in one sentence."""
    if isinstance(workspace_id, str) and MEMBER_MARK in workspace_id:
        bot_id, _, person = workspace_id.partition(MEMBER_MARK)
        return validate_bot_id(bot_id), validate_person_name(person)
    return validate_bot_id(workspace_id), None


def validate_workspace_id(workspace_id: str) -> str:
    """A bot's id, or a person's layer of a bot (`<bot>--member-<person>`): what a store, a journal and a workspace
    folder may be named. Entry points that take a bot (routes, commands) check `validate_bot_id`, which refuses a
    layer: a layer is reached only through its person (core/people/layers.py)."""
    split_layer(workspace_id)
    return workspace_id


def validate_topic_name(name: str) -> str:
    """A topic is one file name under memory/: letters, numbers, spaces, dots, dashes, ending in .md; never a name
    shaped like a credential (spec "Where it lives": credentials never reach disk, and a name is on disk)."""
    if isinstance(name, str) and _looks_like_a_credential(name):
        # Checked first and never quoted back: the name would carry the secret into every message and file.
        raise CredentialName("That topic name looks like it holds a credential; choose a name without one.")
    if (
        not isinstance(name, str)
        or "\x00" in name
        or "/" in name
        or "\\" in name
        or name.startswith(".")
        or not _TOPIC.fullmatch(name)
        or name.strip() != name
    ):
        raise InvalidName(
            f"{quoted(name)} is not a valid topic name: use letters, numbers, spaces, dots and dashes, "
            "ending in .md, not nested and not starting with a dot."
        )
    if name == ARCHIVE_NAME:
        raise InvalidName("'archive.md' is the archive, not a topic: choose another name.")
    if len(name.encode("utf-8")) > MAX_TOPIC_NAME_BYTES:
        raise InvalidName(
            f"{quoted(name[:40] + '…')} is too long for a topic name: at most {MAX_TOPIC_NAME_BYTES} "
            "bytes, ending in .md (a letter outside ASCII takes two to four)."
        )
    return name


@functools.lru_cache(maxsize=1024)  # a turn checks each topic's name three times; redaction is a pure function
def _looks_like_a_credential(name: str) -> bool:
    """A topic name (``AKIA….md``, ``password is Tulip77.md``) that redaction would change, with or without .md."""
    from ..redaction.redact import contains_credential  # here: path checks are imported where redaction is not needed

    return contains_credential(name) or contains_credential(name[: -len(".md")])


@dataclass(frozen=True)
class MemoryPath:
    """A file inside a bot's workspace that the memory system may read or write."""

    rel: str  # as the person types it: MEMORY.md, memory/travel.md, memory/log/2026-09-10.md
    path: Path
    kind: FileKind


def classify(rel: str) -> tuple[str, FileKind]:
    """Normalise a workspace-relative path and say which memory file it is; refuse anything else."""
    if not isinstance(rel, str) or not rel or "\x00" in rel:
        raise OutsideWorkspace("That path is empty or holds a NUL byte.")
    if rel.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", rel):
        raise OutsideWorkspace(f"{quoted(rel)} is an absolute path; give a path inside the bot's workspace.")
    parts = PurePosixPath(rel.replace("\\", "/")).parts
    if ".." in parts:
        raise OutsideWorkspace(f"{quoted(rel)} leads out of the bot's workspace.")
    parts = tuple(p for p in parts if p != ".")
    if parts == (MEMORY_FILE,):
        return MEMORY_FILE, FileKind.MEMORY
    if len(parts) == 2 and parts[0] == MEMORY_DIR:
        if parts[1] == ARCHIVE_NAME:
            return f"{MEMORY_DIR}/{ARCHIVE_NAME}", FileKind.ARCHIVE
        validate_topic_name(parts[1])
        return f"{MEMORY_DIR}/{parts[1]}", FileKind.TOPIC
    if len(parts) == 3 and parts[:2] == (MEMORY_DIR, LOG_DIR) and _valid_log_name(parts[2]):
        return f"{MEMORY_DIR}/{LOG_DIR}/{parts[2]}", FileKind.LOG
    raise InvalidName(
        f"{quoted(rel)} is not a memory file: use MEMORY.md, memory/<topic>.md, memory/archive.md "
        "or memory/log/YYYY-MM-DD.md."
    )


def _valid_log_name(name: str) -> bool:
    match = _LOG_NAME.fullmatch(name)
    if not match:
        return False
    try:
        date(*(int(g) for g in match.groups()))
    except ValueError:
        return False
    return True


def ensure_inside(workspace: Path, path: Path) -> None:
    """Refuse a path whose real location (after symlinks) is outside the workspace."""
    root = workspace.resolve()
    real = path.resolve()
    if real != root and root not in real.parents:
        raise OutsideWorkspace(f"{quoted(path.name)} is a link that leads out of the bot's workspace.")


def refuse_links(path: Path) -> None:
    """Refuse a path that passes through a symbolic link: the path itself or a folder above it.

    Every path the project writes is built on Home.root, which is resolved when the home is opened, so a
    link found here lies under the home. One realpath when nothing is linked; the link is named otherwise.
    """
    path = Path(os.path.abspath(path))
    if os.path.realpath(path) == str(path):
        return
    for candidate in (*reversed(path.parents), path):  # from the top down: name the outermost link
        if candidate.is_symlink():
            raise LinkRefused(
                f"{quoted(candidate)} is a symbolic link, and omb-tui does not follow links under its home: "
                "put the real file or folder there instead."
            )


def refuse_hard_link(path: Path) -> None:
    """Refuse to replace a file that has other names: those would silently keep the old text, and a hard
    link planted in a workspace can be any file of the person's."""
    try:
        names = os.lstat(path).st_nlink
    except FileNotFoundError:
        return
    if names > 1:
        raise LinkRefused(
            f"{quoted(path)} is a hard link (the file has {names} names), and omb-tui never writes to one: "
            "copy it to a file of its own first."
        )


class Home:
    """The folder everything lives under (--home, OMB_HOME or ~/.openmausbot)."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        # Resolved once: the home may itself be a link; nothing under it may be (see refuse_links).
        self.root = Path(os.path.realpath(resolve_home(root)))

    @classmethod
    def of(cls, home: Home | str | os.PathLike[str] | None) -> Home:
        """A home given as a Home or as its folder (None: $OMB_HOME, else ~/.openmausbot, as `Home()`): the
        library's calls take either."""
        return home if isinstance(home, Home) else cls(home)

    def __repr__(self) -> str:
        return f"Home({str(self.root)!r})"

    @property
    def workspaces_dir(self) -> Path:
        return self.root / "workspaces"

    @property
    def journal_dir(self) -> Path:
        return self.root / "memory-journal"

    @property
    def bots_dir(self) -> Path:
        return self.root / "bots"

    @property
    def restore_stage(self) -> Path:
        """Where a restore is built whole before it moves in (core/backup/stage.py); only while one runs."""
        return self.root / ".restore-stage"

    @property
    def config_path(self) -> Path:
        return self.root / "config.json"

    @property
    def about_me_path(self) -> Path:
        return self.root / "about-me.md"

    @property
    def profile_learned_path(self) -> Path:
        return self.root / "profile-learned.json"

    def person_dir(self, person: str) -> Path:
        """`<home>/people/<person>/`: a Team Cloud person's own About me and learned list, which every bot reads
        when a turn acts for them (core/people/layers.py)."""
        return self.root / "people" / validate_person_name(person)

    def about_me_of(self, person: str | None) -> Path:
        """The About me of the person (None: the owner's, the home's own)."""
        return self.person_dir(person) / "about-me.md" if person else self.about_me_path

    def profile_learned_of(self, person: str | None) -> Path:
        """The learned list beside that About me (None: the owner's)."""
        return self.person_dir(person) / "profile-learned.json" if person else self.profile_learned_path

    def workspace(self, bot_id: str) -> Path:
        return self.workspaces_dir / validate_workspace_id(bot_id)

    def journal_path(self, bot_id: str) -> Path:
        return self.journal_dir / f"{validate_workspace_id(bot_id)}.ndjson"

    def journal_state_path(self, bot_id: str) -> Path:
        """What every memory file held when the project last looked (to catch outside edits)."""
        return self.journal_dir / f"{validate_workspace_id(bot_id)}.seen.json"

    def settings_path(self, bot_id: str) -> Path:
        return self.bots_dir / f"{validate_bot_id(bot_id)}.json"

    def bot_ids(self) -> list[str]:
        """Every bot: a workspace folder, or a settings file, with a valid id."""
        ids: set[str] = set()
        if self.workspaces_dir.is_dir():
            ids.update(p.name for p in self.workspaces_dir.iterdir() if p.is_dir())
        if self.bots_dir.is_dir():
            ids.update(p.stem for p in self.bots_dir.glob("*.json"))
        return sorted(i for i in ids if _BOT_ID.fullmatch(i) and MEMBER_MARK not in i.lower())  # layers are no bots

    def has_bot(self, bot_id: str) -> bool:
        validate_bot_id(bot_id)
        return self.workspace(bot_id).is_dir() or self.settings_path(bot_id).is_file()

    def require_bot(self, bot_id: str) -> str:
        """`bot_id`, when the home has that bot; NotFound, naming the home, when it has not."""
        if not self.has_bot(bot_id):
            raise NotFound(f"There is no bot '{bot_id}' in {self.root}.")
        return bot_id

    def memory_path(self, bot_id: str, rel: str) -> MemoryPath:
        """Resolve a workspace-relative memory path, refusing anything that leads out of the workspace."""
        norm, kind = classify(rel)
        workspace = self.workspace(bot_id)
        refuse_links(workspace)  # a linked workspaces/ or workspaces/<bot> would take every write outside the home
        path = workspace.joinpath(*norm.split("/"))
        if workspace.exists():
            # Every existing component must stay inside: a symlinked memory/ folder or file is refused.
            ensure_inside(workspace, path)
        return MemoryPath(norm, path, kind)

    def _files_in(self, bot_id: str, folder: Path, accept) -> list[Path]:
        """Regular files in folder whose names pass accept(), sorted; links that lead out are skipped.

        One scandir and one realpath per symlink, so a bot with thousands of topics is listed quickly.
        """
        root = os.path.realpath(self.workspace(bot_id))
        real_folder = os.path.realpath(folder)
        if not _within(real_folder, root):
            return []
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            return []
        out = []
        for entry in entries:
            if not accept(entry.name):
                continue
            try:
                if entry.is_symlink():
                    real = os.path.realpath(entry.path)
                    if not _within(real, root) or not os.path.isfile(real):
                        continue
                elif not entry.is_file(follow_symlinks=False):
                    continue
            except OSError:
                continue
            out.append(Path(entry.path))
        return sorted(out, key=lambda p: p.name)

    def topic_paths(self, bot_id: str) -> list[Path]:
        """Every memory/<topic>.md except the archive, by name; files with invalid names are skipped."""
        return self._files_in(bot_id, self.workspace(bot_id) / MEMORY_DIR, _is_topic_name)

    def log_paths(self, bot_id: str) -> list[Path]:
        return self._files_in(bot_id, self.workspace(bot_id) / MEMORY_DIR / LOG_DIR, _valid_log_name)

    def memory_files(self, bot_id: str) -> list[MemoryPath]:
        """Every memory file of the bot that exists: MEMORY.md, topics, archive, logs."""
        workspace = self.workspace(bot_id)
        found = [
            MemoryPath(MEMORY_FILE, p, FileKind.MEMORY)
            for p in self._files_in(bot_id, workspace, lambda name: name == MEMORY_FILE)
        ]
        for p in self._files_in(bot_id, workspace / MEMORY_DIR, lambda n: n == ARCHIVE_NAME or _is_topic_name(n)):
            kind = FileKind.ARCHIVE if p.name == ARCHIVE_NAME else FileKind.TOPIC
            found.append(MemoryPath(f"{MEMORY_DIR}/{p.name}", p, kind))
        found += [MemoryPath(f"{MEMORY_DIR}/{LOG_DIR}/{p.name}", p, FileKind.LOG) for p in self.log_paths(bot_id)]
        return found


def _within(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _is_topic_name(name: str) -> bool:
    try:
        validate_topic_name(name)
    except MemoryInputError:
        return False
    return True
