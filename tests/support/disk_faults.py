"""A disk that fills up, or a home that cannot be written, at the system calls of this process.

`DiskFaults` watches the calls that change files under one folder (os.write, os.fsync, os.replace, os.unlink and
the opening of a file to write it) and makes one of them fail as the kernel would: a write that meets a full disk
writes what fits and then raises ENOSPC; a read-only home refuses every open for writing, rename and delete with
EROFS (or EACCES), and so is a new folder. A clean run first counts the calls a command makes (`moments`), so a test can fail it at every
one of them in turn. Used by tests/stress/test_reliability_disk.py; the real small tmpfs is tested there too.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


@dataclass(frozen=True)
class Moment:
    """One call that changes a file under the folder: its index among them, what it is and, for a write, its size."""

    index: int
    call: str
    size: int = 0
    partial: bool = False  # for a write: half of it lands, then the disk is full

    def __str__(self) -> str:
        half = " (half written)" if self.partial else ""
        return (
            f"call {self.index}: {self.call} of {self.size} bytes{half}"
            if self.call == "write"
            else (f"call {self.index}: {self.call}")
        )


class DiskFaults:
    """Count, and fail, the calls of this process that change files under `root`."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = str(root.resolve())
        self.calls: list[Moment] = []
        self.fail: Moment | None = None
        self.error = errno.ENOSPC
        self.read_only: int | None = None  # an errno: every change under root is refused with it
        self.failed = False
        real_write, real_fsync, real_replace, real_unlink, real_open, real_mkdir = (
            os.write,
            os.fsync,
            os.replace,
            os.unlink,
            os.open,
            os.mkdir,
        )

        def write(fd: int, data: bytes) -> int:
            if not self._watched_fd(fd):
                return real_write(fd, data)
            moment = self._count("write", len(data))
            if moment is not None:
                if moment.partial and len(data) > 1:
                    real_write(fd, bytes(data[: len(data) // 2]))
                raise OSError(self.error, os.strerror(self.error))
            return real_write(fd, data)

        def fsync(fd: int) -> None:
            if self._watched_fd(fd) and self._count("fsync") is not None:
                raise OSError(self.error, os.strerror(self.error))
            real_fsync(fd)

        def replace(src: object, dst: object, **kwargs: object) -> None:
            if self._watched(dst):
                if self.read_only is not None:
                    raise OSError(self.read_only, os.strerror(self.read_only), str(dst))
                if self._count("replace") is not None:
                    raise OSError(self.error, os.strerror(self.error), str(dst))
            real_replace(src, dst, **kwargs)  # type: ignore[arg-type]

        def unlink(path: object, **kwargs: object) -> None:
            if self._watched(path) and self.read_only is not None:
                raise OSError(self.read_only, os.strerror(self.read_only), str(path))
            real_unlink(path, **kwargs)  # type: ignore[arg-type]

        def open_(path: object, flags: int, mode: int = 0o777, **kwargs: object) -> int:
            if self.read_only is not None and flags & WRITE_FLAGS and self._watched(path, kwargs.get("dir_fd")):
                raise OSError(self.read_only, os.strerror(self.read_only), str(path))
            return real_open(path, flags, mode, **kwargs)  # type: ignore[arg-type]

        def mkdir(path: object, mode: int = 0o777, **kwargs: object) -> None:
            if self.read_only is not None and self._watched(path, kwargs.get("dir_fd")):
                raise OSError(self.read_only, os.strerror(self.read_only), str(path))
            real_mkdir(path, mode, **kwargs)  # type: ignore[arg-type]

        for name, fake in (
            ("write", write),
            ("fsync", fsync),
            ("replace", replace),
            ("unlink", unlink),
            ("open", open_),
            ("mkdir", mkdir),
        ):
            monkeypatch.setattr(os, name, fake)

    def _watched(self, path: object, dir_fd: object = None) -> bool:
        if dir_fd is not None:
            return True
        try:
            return os.path.abspath(os.fspath(path)).startswith(self.root)  # type: ignore[arg-type]
        except TypeError:
            return False

    def _watched_fd(self, fd: int) -> bool:
        try:
            return os.readlink(f"/proc/self/fd/{fd}").startswith(self.root)
        except OSError:
            return False

    def _count(self, call: str, size: int = 0) -> Moment | None:
        """Count one call; the Moment when this is the one to fail."""
        index = len(self.calls)
        self.calls.append(Moment(index, call, size))
        if self.fail is not None and not self.failed and self.fail.index == index:
            self.failed = True
            return self.fail
        return None

    def moments(self) -> list[Moment]:
        """Every way the counted run can be cut: each call fails, and each write of two bytes or more half lands."""
        out = []
        for moment in self.calls:
            out.append(moment)
            if moment.call == "write" and moment.size > 1:
                out.append(Moment(moment.index, "write", moment.size, partial=True))
        return out

    def arm(self, moment: Moment | None, error: int = errno.ENOSPC) -> None:
        """Fail `moment` on the next run (None: fail nothing), counting from nothing again."""
        self.calls, self.fail, self.error, self.failed = [], moment, error, False
