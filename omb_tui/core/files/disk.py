"""The bytes of a file of the project on disk: read and written whole, atomically, 0600, never through a link.

Spec: memory.md, "Where it lives" (0600, atomic). Texts are UTF-8 with surrogateescape, so bytes that are not
UTF-8 survive a read and a write unchanged; a text's hash is the SHA-256 of those bytes. The store
(`store.py`) writes memory files through here; the journal's side files, settings and caches do too.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from .paths import refuse_hard_link, refuse_links

# The temp files atomic_write_bytes makes: ".<name>.<mkstemp's random part>.tmp".
TEMP_FILE = re.compile(r"^\..+\.[A-Za-z0-9_]+\.tmp$")


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def utf8_json(value: object, **dumps_options: object) -> str:
    """JSON that encodes to valid UTF-8, readable as it is (no ASCII escaping of ordinary letters).

    Text read with surrogateescape holds a byte that was not UTF-8 as a lone surrogate; it is written as
    its escape (\\udcff), which json.loads turns back into the same character, so the bytes round-trip.
    """
    # json.dumps's own options, passed on as given: only json.dumps knows which each may be
    text = json.dumps(value, ensure_ascii=False, **dumps_options)  # type: ignore[arg-type]
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def encode(text: str) -> bytes:
    # surrogateescape: bytes that are not UTF-8 survive a read and a write unchanged.
    return text.encode("utf-8", "surrogateescape")


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def text_hash(text: str) -> str:
    return hashlib.sha256(encode(text)).hexdigest()


def read_text(path: Path) -> str:
    with open(path, "rb") as handle:
        return decode(handle.read())


def read_json_object(path: Path) -> dict:
    """A JSON object kept in a file (a record beside the journal); {} when the file is missing, unreadable, not
    JSON or not an object: such a record is made again, it never stops what reads it."""
    try:
        data = json.loads(read_text(path))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def make_private_dirs(folder: Path) -> None:
    """Create folder and any missing parents with 0700; refuse a folder on the way that is a link."""
    refuse_links(folder)
    missing = []
    current = folder
    while not current.exists():
        missing.append(current)
        current = current.parent
    for item in reversed(missing):
        with contextlib.suppress(FileExistsError):
            item.mkdir(mode=0o700)


def atomic_write_bytes(
    path: Path,
    data: bytes,
    *,
    durable: bool = True,
    before_replace: Callable[[], None] | None = None,
    only_new: bool = False,
) -> None:
    """Temp file in the same folder, fsync, rename over, fsync the folder: old or new, never torn.

    durable=False skips the fsyncs (still atomic): for caches that can be rebuilt, never for memory.
    Refused (LinkRefused, nothing written) when the path or a folder above it is a symbolic link, or, for
    a durable write, when the file has other names: a rename would leave them with the old text. A cache is
    the project's own, so replacing it is always right.
    before_replace runs after the temp file is on disk, right before the rename; raising there writes nothing
    (the store re-checks the file there, so a change made meanwhile by a lock-free editor is not overwritten).
    only_new makes a new file or nothing: linked into place, FileExistsError when the name is taken (a disk that
    fills halfway leaves no file, where O_EXCL would leave a cut one).
    """
    refuse_links(path)
    if durable:
        refuse_hard_link(path)
    folder = path.parent
    make_private_dirs(folder)
    try:
        fd, tmp = private_temp(folder, f".{path.name}.")
    except OSError as exc:  # named by the file being saved, never by a temp name nobody will find
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    try:
        try:
            write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if before_replace is not None:
            before_replace()
        if only_new:
            os.link(tmp, path)  # FileExistsError when the name is taken, as O_EXCL would say
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(folder)


def private_temp(folder: Path, prefix: str) -> tuple[int, str]:
    """A new empty file of mode 0600 in `folder`, named `prefix`, random letters and `.tmp`, opened to write (fd,
    path): tempfile.mkstemp's way, without importing tempfile, which a hook would pay for at every prompt."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):  # a name taken is tried again with other letters, as mkstemp does
        path = os.path.join(folder, f"{prefix}{os.urandom(6).hex()}.tmp")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No temporary file name was free", str(folder))


def open_regular(path: Path) -> BinaryIO:
    """`path` opened to read when it is a regular file (a link is followed): never waits on a FIFO, a socket or a
    device, as a path someone else names (a hook's transcript, Claude Code's settings) may be. OSError, with its
    reason, otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def write_all(fd: int, data: bytes) -> None:
    """All of data at the descriptor's offset: a short write (a disk filling up) goes on with the rest, so the
    error comes from the write that cannot go on (ENOSPC), never a silently cut file."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def write_private_json(path: Path, data: object, *, durable: bool = True, redacted: bool = True) -> None:
    """A JSON file of the project's, atomic and 0600, every text in it redacted once decoded (redact_data).

    redacted=False only for the person's own settings files, written back with what they hold."""
    from ..redaction.data import redact_data

    data = redact_data(data) if redacted else data
    atomic_write_bytes(path, (utf8_json(data, indent=2) + "\n").encode("utf-8"), durable=durable)
