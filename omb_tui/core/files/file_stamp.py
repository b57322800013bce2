"""A file's stamp, and whether it can be trusted to say the file is unchanged (the recall index's kept texts,
config.json's embeddings route)."""

from __future__ import annotations

import os
from typing import NamedTuple


class FileStamp(NamedTuple):
    """What a file's stat says of its contents: any write changes its ctime (which no program can set) once the last
    one is older than the file system's timestamps' grain, so a text read under a *settled* stamp is still the file's
    while the stamp is the same ("racy" stamps, of a change too recent, are never trusted; git does the same)."""

    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileStamp:
        return cls(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def settled(self, now_ns: int) -> bool:
        """Whether the file's last change is old enough (at `now_ns`) that another would give another ctime: by
        SETTLED_NS on a file system with fine timestamps (the kernel's clock ticks are a few ms), by two seconds
        where they are whole seconds (FAT keeps 2)."""
        whole = self.ctime_ns % 1_000_000_000 == 0 and self.mtime_ns % 1_000_000_000 == 0
        return self.ctime_ns < now_ns - (2_000_000_000 if whole else SETTLED_NS)


SETTLED_NS = 100_000_000  # 0.1 s
