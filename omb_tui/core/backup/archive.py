"""The backup file: a tar holding `manifest.json` (the format, its version, what it holds, every file's sha256) and
the files under their paths in the home; sealed with age (pyrage) for a recipient or a passphrase, else plain.

Spec: memory.md, "Memory upkeep" (a backup holds `backup.lock` while it reads, and upkeep pauses on it). The format
is documented for people in docs/backup.md. Opening one checks everything before anything is written: that it
decrypts, that the tar reads to its end, that every member is a regular file with a plain relative path (no `..`,
no absolute path, no link), and that the members are exactly the manifest's files, each with its sha256.
A refusal is one sentence (`BadBackup`), and nothing is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tarfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..base import clock
from ..files.disk import atomic_write_bytes
from ..files.locks import held_exclusively
from ..files.paths import Home, MemoryInputError, quoted, validate_bot_id
from ..schedule import BACKUP_LOCK, backup_lock_path
from .contents import FORMAT_VERSION, PLAIN_VERSION, BackupFile, BackupRefused, Collected, collect

FORMAT = "omb-tui backup"
MANIFEST = "manifest.json"
AGE_MAGIC = (b"age-encryption.org/v1\n", b"-----BEGIN AGE ENCRYPTED FILE-----")
KINDS = ("home", "bots", "team", "team-package")
MAX_MEMBERS = 200_000  # a tar with more members than this is not one of ours
# The bounds a restore reads within, whatever a file's headers claim (docs/backup.md, "Bounds"); a backup that
# would pass them is refused when it is taken, so every backup made here can be restored.
MAX_ARCHIVE_BYTES = 512 * 2**20  # the plain tar: every member with its headers
MAX_MEMBER_BYTES = 128 * 2**20  # one file of it
AGE_SLACK = 16 * (MAX_ARCHIVE_BYTES // 2**16 + 1) + 64 * 2**10  # age adds 16 bytes a 64 KiB chunk, and a header
END_OF_TAR = b"\0" * (2 * tarfile.BLOCKSIZE)


class BadBackup(MemoryInputError):
    """A backup file that cannot be restored as it is (damaged, truncated, the wrong key, a path that leads out of
    the home, a link): nothing was written."""


@dataclass
class Manifest:
    kind: str  # "home" (--all), "bots", "team" (a team backup) or "team-package" (a shared team package)
    created: str
    bots: list[str]
    files: list[dict]  # {path, sha256, bytes, bot}, and `person` on a person's file (their layer, their folder)
    environment: list[str] = field(default_factory=list)  # the variables config.json's instances read keys from
    team: str | None = None  # a team backup's or package's team key
    version: int = FORMAT_VERSION
    left_out_fields: list[str] = field(default_factory=list)  # config.json's secret fields, left out (dotted)

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": self.version,
            "kind": self.kind,
            "created": self.created,
            "bots": self.bots,
            "team": self.team,
            "environment": self.environment,
            "left_out_fields": self.left_out_fields,
            "files": self.files,
        }


def new_manifest(kind: str, bots: Sequence[str], files: Sequence[BackupFile], **extra: object) -> Manifest:
    """The manifest of these files; version 1 when none is a person's, so an omb-tui that knows no layers still
    restores it, and says to update rather than refuse a layer's path as no file of a home."""
    created = clock.now_utc().isoformat(timespec="seconds")
    version = FORMAT_VERSION if any(f.person is not None for f in files) else PLAIN_VERSION
    entries = [f.manifest_entry() for f in files]
    return Manifest(kind, created, list(bots), entries, version=version, **extra)  # type: ignore[arg-type]


@contextlib.contextmanager
def backup_lock_held(home: Home) -> Iterator[None]:
    """Hold `backup.lock` for the block (upkeep runs nothing meanwhile); BackupRefused when another backup has it."""
    with held_exclusively(backup_lock_path(home)) as held:
        if not held:
            raise BackupRefused(
                f"Another backup holds {BACKUP_LOCK} in {home.root}; run this one when it has finished."
            )
        yield


# ----- writing -----
def build_tar(manifest: Manifest, files: Sequence[BackupFile]) -> bytes:
    """The plain tar: manifest.json first, then each file (mode 0600, owned by nobody in particular)."""
    buffer = io.BytesIO()
    moment = int(datetime.fromisoformat(manifest.created).timestamp())
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        manifest_bytes = (json.dumps(manifest.to_dict(), ensure_ascii=False, indent=1) + "\n").encode("utf-8")
        for name, data in [(MANIFEST, manifest_bytes), *((f.path, f.data) for f in files)]:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o600, moment
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def seal(data: bytes, *, recipients: Sequence[str] = (), passphrase: str | None = None) -> bytes:
    """`data` encrypted with age for every recipient (age1… or an SSH public key), or with a passphrase; as it is
    when neither is given."""
    if not recipients and passphrase is None:
        return data
    import pyrage  # here: only a backup or a restore loads the age binding

    if passphrase is not None:
        return pyrage.passphrase.encrypt(data, passphrase)
    return pyrage.encrypt(data, parse_recipients(recipients))


def parse_recipients(recipients: Sequence[str]) -> list:
    """Each recipient as age reads it; BackupRefused names one that is not a key (checked before a backup reads)."""
    if not recipients:
        return []
    import pyrage

    parsed = []
    for text in recipients:
        try:
            if text.startswith(("ssh-", "ecdsa-")):
                parsed.append(pyrage.ssh.Recipient.from_str(text))
            else:
                parsed.append(pyrage.x25519.Recipient.from_str(text))
        except pyrage.RecipientError:
            raise BackupRefused(
                f"{quoted(text[:80])} is not an age recipient: give a public key starting age1 (age-keygen -y) "
                "or an SSH public key."
            ) from None
    return parsed


def write_backup(path: Path, data: bytes) -> None:
    """The backup file, written whole (a temp file renamed over it) and 0600. Its folder may be reached through a
    link (`/tmp` is one on macOS): it is resolved first; the file itself must not be a link."""
    path = Path(path).expanduser()
    atomic_write_bytes(path.absolute().parent.resolve() / path.name, data)


@dataclass
class BackupReport:
    """What `take_backup` wrote."""

    path: str
    kind: str
    bots: list[str]
    files: int
    bytes: int
    encrypted: bool
    environment: list[str]  # set these where the backup is restored: the keys were not in it
    redacted: list[str]  # files that held a credential, in the backup with it redacted
    left_out: list[str]
    layers: list[dict] = field(default_factory=list)  # {bot, person}: each person's layer of a bot in it

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def take_backup(
    home: Home,
    to: Path,
    *,
    bots: Sequence[str] = (),
    everything: bool = False,
    recipients: Sequence[str] = (),
    passphrase: str | None = None,
) -> BackupReport:
    """Back up `bots` (every bot when empty) and, with `everything`, the home's own files, to the file `to`: read
    holding backup.lock, each bot under its store lock; sealed for the recipients or the passphrase; 0600."""
    parse_recipients(recipients)  # a mistyped key is said before anything is read
    ids = list(dict.fromkeys(bots)) or home.bot_ids()
    with backup_lock_held(home):
        collected = collect(home, ids, with_home=everything)
    return write_collected(to, "home" if everything else "bots", ids, collected, recipients, passphrase)


def refuse_unrestorable(files: Sequence[BackupFile]) -> None:
    """BackupRefused when a restore would refuse the backup (a file, or the whole, over the bounds): said before
    anything is written, so no backup made here is one that cannot be put back."""
    for item in files:
        if len(item.data) > MAX_MEMBER_BYTES:
            raise BackupRefused(
                f"{item.path} is {_mib(len(item.data))}, more than a backup's file may hold "
                f"({_mib(MAX_MEMBER_BYTES)}): a restore would refuse it, so nothing was written."
            )
    headers = 2 * tarfile.BLOCKSIZE  # a member's header, and its PAX header when its name is long
    total = sum(len(item.data) + headers + tarfile.BLOCKSIZE for item in files)
    if total > MAX_ARCHIVE_BYTES - 2**20:  # a mebibyte left for the manifest
        raise BackupRefused(
            f"These files make {_mib(total)}, more than a backup may hold ({_mib(MAX_ARCHIVE_BYTES)}): a restore "
            "would refuse it, so nothing was written; back the bots up one at a time with --bot."
        )


def write_collected(
    to: Path,
    kind: str,
    bots: Sequence[str],
    collected: Collected,
    recipients: Sequence[str],
    passphrase: str | None,
    team: str | None = None,
) -> BackupReport:
    refuse_unrestorable(collected.files)
    manifest = new_manifest(
        kind,
        bots,
        collected.files,
        environment=collected.environment,
        team=team,
        left_out_fields=collected.left_out_fields,
    )
    data = seal(build_tar(manifest, collected.files), recipients=recipients, passphrase=passphrase)
    write_backup(to, data)
    encrypted = bool(recipients) or passphrase is not None
    return BackupReport(
        str(to),
        kind,
        list(bots),
        len(collected.files),
        len(data),
        encrypted,
        collected.environment,
        collected.redacted,
        collected.left_out,
        layers_in(collected.files),
    )


def layers_in(files: Sequence[BackupFile]) -> list[dict]:
    """Each person's layer of a bot these files hold, {bot, person}, by bot then person."""
    held = sorted({(f.bot, f.person) for f in files if f.bot is not None and f.person is not None})
    return [{"bot": bot, "person": person} for bot, person in held]


# ----- reading -----
def is_encrypted(data: bytes) -> bool:
    return data.startswith(AGE_MAGIC)


def unseal(data: bytes, name: str, *, passphrase: str | None = None, identities: Sequence[str] = ()) -> bytes:
    """The plain tar of a backup file: decrypted with the passphrase or one of the identities when it is
    encrypted. BadBackup, in one sentence, when it cannot be."""
    if not is_encrypted(data):
        return data
    if passphrase is None and not identities:
        raise BadBackup(
            f"{name} is encrypted: give --passphrase (the passphrase on stdin or in OMB_BACKUP_PASSPHRASE) or "
            "--identity FILE (the age identity it was made for); nothing was restored."
        )
    import pyrage  # here: only a backup or a restore loads the age binding

    try:
        if passphrase is not None:
            return pyrage.passphrase.decrypt(data, passphrase)
        keys = [_identity(text) for text in identities]
        return pyrage.decrypt(data, keys)
    except pyrage.DecryptError:
        raise BadBackup(
            f"{name} could not be decrypted: the passphrase or identity is not the one it was made with, or the "
            "file is damaged or cut short; nothing was restored."
        ) from None


def _identity(text: str):
    import pyrage

    try:
        if text.strip().startswith("AGE-SECRET-KEY-"):
            return pyrage.x25519.Identity.from_str(text.strip())
        return pyrage.ssh.Identity.from_buffer(text.encode("utf-8"))
    except (pyrage.IdentityError, ValueError, TypeError):
        raise BadBackup("The --identity file holds no age identity (AGE-SECRET-KEY-1…) or SSH private key.") from None


def identities_in(text: str) -> list[str]:
    """The identities of an age identity file (age-keygen's output: comments, then AGE-SECRET-KEY-1… lines), or
    the file whole when it is an SSH private key."""
    if "PRIVATE KEY-----" in text:
        return [text]
    return [line.strip() for line in text.splitlines() if line.strip().startswith("AGE-SECRET-KEY-")]


@dataclass
class Opened:
    """A backup checked whole: its manifest, and every file's bytes by its path in the home."""

    manifest: Manifest
    files: dict[str, bytes]

    def bot_of(self, path: str) -> str | None:
        return self._bots.get(path)

    def person_of(self, path: str) -> str | None:
        """The person whose file it is (of their layer, or their folder); None for every other file."""
        return self._people.get(path)

    def __post_init__(self) -> None:
        self._bots = {entry["path"]: entry.get("bot") for entry in self.manifest.files}
        self._people = {entry["path"]: entry.get("person") for entry in self.manifest.files}


def open_tar(tar_file: BinaryIO, size: int, name: str) -> Opened:
    """Read and check the plain tar of `size` bytes, member by member from `tar_file` (see the module's docstring);
    each member's header is checked against the bounds before its bytes are read. BadBackup names the first
    problem."""
    damaged = f"{name} is damaged or cut short"
    refuse_over_bound(size, name)
    tar_file.seek(max(size - len(END_OF_TAR), 0))
    if size % tarfile.BLOCKSIZE or tar_file.read() != END_OF_TAR:  # a tar ends in two zero blocks
        raise BadBackup(f"{damaged} (it does not end as a tar ends); nothing was restored.")
    tar_file.seek(0)
    members: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=tar_file, mode="r:") as tar:
            for count, member in enumerate(tar, 1):
                if count > MAX_MEMBERS:
                    raise BadBackup(f"{name} holds more than {MAX_MEMBERS:,} files; it is not an omb-tui backup.")
                check_member_name(member.name, name)
                check_member_kind(member, name)
                if member.name in members:
                    raise BadBackup(f"{name} holds {quoted(member.name)} twice; nothing was restored.")
                total += member.size
                refuse_over_bound(total, name)
                handle = tar.extractfile(member)
                content = handle.read(member.size) if handle is not None else b""
                if len(content) != member.size:
                    raise BadBackup(f"{damaged}; nothing was restored.")
                members[member.name] = content
                tar.members.clear()  # type: ignore[attr-defined]  # tarfile keeps every header it has read: this reader needs none of them
    except (tarfile.TarError, EOFError, OSError):
        raise BadBackup(f"{damaged} (it does not read as a tar to its end); nothing was restored.") from None
    manifest = _manifest(members.pop(MANIFEST, None), name)
    listed = {entry["path"]: entry for entry in manifest.files}
    for path, entry in listed.items():
        check_member_name(path, name)
        if path not in members:
            raise BadBackup(f"{damaged}: {quoted(path)} is in its manifest but not in it; nothing was restored.")
        if hashlib.sha256(members[path]).hexdigest() != entry["sha256"]:
            raise BadBackup(f"{damaged}: {quoted(path)} does not match its sha256; nothing was restored.")
    extra = sorted(set(members) - set(listed))
    if extra:
        raise BadBackup(f"{name} holds {quoted(extra[0])}, which its manifest does not list; nothing was restored.")
    return Opened(manifest, members)


def check_member_kind(member: tarfile.TarInfo, name: str) -> None:
    """A member must be a regular file, not sparse, of at most MAX_MEMBER_BYTES: said from its header alone."""
    if not member.isreg():
        raise BadBackup(
            f"{name} holds {quoted(member.name)}, which is a link or a special file, not a regular file; nothing "
            "was restored."
        )
    if member.issparse():  # its holes are filled in as it is read: a few bytes on disk can claim gigabytes
        raise BadBackup(
            f"{name} holds {quoted(member.name)}, a sparse file, which no omb-tui backup holds; nothing was restored."
        )
    if member.size > MAX_MEMBER_BYTES:
        raise BadBackup(
            f"{name} holds {quoted(member.name)}, which says it is {_mib(member.size)}: more than a backup's file "
            f"may hold ({_mib(MAX_MEMBER_BYTES)}); nothing was restored."
        )


def refuse_over_bound(size: int, name: str) -> None:
    if size > MAX_ARCHIVE_BYTES:
        raise BadBackup(
            f"{name} holds {_mib(size)} or more: more than a backup may hold ({_mib(MAX_ARCHIVE_BYTES)}); "
            "nothing was restored."
        )


def _mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB" if size >= 2**20 else f"{size:,} bytes"


def check_member_name(member: str, name: str) -> None:
    """A member's name must be a plain relative POSIX path: no absolute path, no `..`, no empty or `.` part."""
    parts = member.split("/")
    if (
        not member
        or member.startswith("/")
        or "\\" in member
        or "\x00" in member
        or any(part in ("", ".", "..") for part in parts)
        or PurePosixPath(member).as_posix() != member
    ):
        raise BadBackup(
            f"{name} holds {quoted(member)}, a path that is absolute or leads out of the home; nothing was restored."
        )


def _manifest(raw: bytes | None, name: str) -> Manifest:
    if raw is None:
        raise BadBackup(f"{name} has no {MANIFEST}; it is not an omb-tui backup, or it is damaged.")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadBackup(f"{name}'s {MANIFEST} is not valid JSON; the file is damaged.") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadBackup(f"{name} is not an omb-tui backup (its {MANIFEST} does not say so).")
    version = data.get("version")
    if type(version) is not int or version < 1:
        raise BadBackup(f"{name}'s {MANIFEST} gives no format version; the file is damaged.")
    if version > FORMAT_VERSION:
        raise BadBackup(
            f"{name} is format version {version}, made by a newer omb-tui (this one reads version {FORMAT_VERSION}); "
            "update omb-tui to restore it."
        )
    files = data.get("files")
    bots = data.get("bots")
    if (
        data.get("kind") not in KINDS
        or not isinstance(files, list)
        or not isinstance(bots, list)
        or not all(isinstance(b, str) for b in bots)
        or not all(_good_entry(entry) for entry in files)
    ):
        raise BadBackup(f"{name}'s {MANIFEST} is not as omb-tui writes it; the file is damaged.")
    for bot in bots:
        try:
            validate_bot_id(bot)
        except MemoryInputError:
            raise BadBackup(f"{name}'s {MANIFEST} names a bot {quoted(bot[:80])} that no home can have.") from None
    environment = _strings(data.get("environment"))
    team = data.get("team") if isinstance(data.get("team"), str) else None
    left_out = _strings(data.get("left_out_fields"))
    return Manifest(data["kind"], str(data.get("created", "")), bots, files, environment, team, version, left_out)


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _good_entry(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("path"), str)
        and isinstance(entry.get("sha256"), str)
        and (entry.get("bot") is None or isinstance(entry.get("bot"), str))
        and (entry.get("person") is None or isinstance(entry.get("person"), str))
    )


def read_backup(path: Path, *, passphrase: str | None = None, identities: Sequence[str] = ()) -> Opened:
    """A backup file opened and checked whole; BadBackup (one sentence) when it cannot be restored as it is. Its
    size is checked before anything is read; a plain one is read member by member from the file, an encrypted one
    (at most the bound and age's few bytes more) is decrypted in memory, and the plain tar is never larger."""
    name = quoted(str(path))
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            encrypted = is_encrypted(handle.read(max(len(magic) for magic in AGE_MAGIC)))
            refuse_over_bound(size - AGE_SLACK if encrypted else size, name)
            if not encrypted:
                return open_tar(handle, size, name)
            handle.seek(0)
            data = handle.read()
    except FileNotFoundError:
        raise BadBackup(f"There is no backup file {name}.") from None
    except IsADirectoryError:
        raise BadBackup(f"{name} is a folder, not a backup file.") from None
    plain = unseal(data, name, passphrase=passphrase, identities=identities)
    del data  # the ciphertext is not needed while the tar is read
    return open_tar(io.BytesIO(plain), len(plain), name)
