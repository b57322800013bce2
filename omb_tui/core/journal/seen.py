"""What the project saw last of one bot's memory files, so a change made outside the app can be journaled.

Spec: memory.md, "The journal" (a file changed between looks is journaled as changed outside the app, with undo).
`memory-journal/<bot>.seen.json` holds each file's hash, size, time and whether it had a credential; the texts
seen are kept beside it by hash (`memory-journal/<bot>.seen/`), redacted, so undo has the earlier text. The store
(`store.py`) looks, and remembers after each of its own writes, under the bot's lock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from pathlib import Path

from ..files.disk import atomic_write_bytes, encode, read_text, text_hash, write_private_json
from ..files.paths import MemoryInputError, MemoryPath, classify, quoted, refuse_links
from .journal import JOURNAL_MAX_EARLIER_BYTES

log = logging.getLogger("omb_tui.store")  # the store's record: its warnings keep the store's name

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def validate_seen(data: object, path: Path | None = None) -> dict | None:
    """The seen-state (`memory-journal/<bot>.seen.json`) when every field is as written, else None.

    Shape: {"files": {rel: {"hash", "size", "mtime_ns", "credential"}}}. A hash names a kept text's file,
    so it must be a hash and nothing that could lead elsewhere. Any damage drops the whole state: the next
    look records a baseline again, rather than journaling files as new.
    """
    problem = _seen_problem(data)
    if problem is None:
        assert isinstance(data, dict)  # _seen_problem finds none only in an object
        return data
    log.warning("the seen-state %s is damaged (%s); starting afresh", quoted(path or "file"), problem)
    return None


def _seen_problem(data: object) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return "'files' is not an object"
    for rel, info in data["files"].items():
        try:
            if classify(rel)[0] != rel:
                return f"{quoted(rel)} is not a memory file's path as written"
        except MemoryInputError:
            return f"{quoted(rel)} is not a memory file"
        if not isinstance(info, dict):
            return f"{quoted(rel)} is not an object"
        if not isinstance(info.get("hash"), str) or not _SHA256_HEX.fullmatch(info["hash"]):
            return f"the hash of {quoted(rel)} is not a SHA-256 hash"
        for key in ("size", "mtime_ns"):
            if type(info.get(key)) is not int:  # bool is an int: not here
                return f"the {key} of {quoted(rel)} is not a whole number"
        if type(info.get("credential", False)) is not bool:
            return f"the credential mark of {quoted(rel)} is not true or false"
    return None


class SeenRecord:
    """One bot's seen-state and the texts kept by hash beside it. A cache: losing it only means the next look
    records a baseline again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.blobs = path.with_suffix("")  # memory-journal/<bot>.seen/

    def load(self) -> dict | None:
        try:
            return validate_seen(json.loads(read_text(self.path)), self.path)
        except FileNotFoundError:
            return None
        except (ValueError, OSError) as exc:
            log.warning("seen-state %s unreadable (%s); starting afresh", self.path, exc)
            return None

    def save(self, seen: dict) -> None:
        try:
            # A cache: losing it only means the next look records a baseline again.
            write_private_json(self.path, seen, durable=False)
        except OSError as exc:  # quietly: the next look knows the store's own writes by their journal rows
            log.info("could not save %s: %s", self.path, exc)

    def blob_text(self, digest: str | None) -> str | None:
        if digest is None:
            return None
        try:
            return read_text(self.blobs / digest)
        except OSError:
            return None

    def keep_text(self, text: str) -> None:
        """Keep a text (already redacted) a file is about to hold, so an edit made to it later outside the app can
        be undone; raises OSError when the disk refuses (the store then writes nothing)."""
        self.store_blob(text, text_hash(text))

    def store_blob(self, text: str, digest: str) -> None:
        data = encode(text)
        if len(data) > JOURNAL_MAX_EARLIER_BYTES:
            return
        path = self.blobs / digest
        if not path.exists():
            atomic_write_bytes(path, data, durable=False)

    def prune_blobs(self, seen: dict) -> None:
        if not self.blobs.is_dir():
            return
        refuse_links(self.blobs)  # a linked folder would have files outside the home deleted
        wanted = {info["hash"] for info in seen["files"].values()}
        for blob in self.blobs.iterdir():
            if blob.name not in wanted and not blob.name.startswith("."):
                with contextlib.suppress(OSError):
                    blob.unlink()

    def remember(self, mp: MemoryPath, text: str | None, seen: dict | None = None, *, redacted: bool = False) -> None:
        """Note what mp holds now; `redacted` says the text already went through redaction (our own writes)."""
        save = seen is None
        seen = seen if seen is not None else (self.load() or {"files": {}})
        files = seen["files"]
        if text is None:
            files.pop(mp.rel, None)
        else:
            digest = text_hash(text)
            stat = mp.path.stat()
            if redacted:
                kept, credential = text, False
            else:
                from ..redaction.redact import redact

                redaction = redact(text)
                kept, credential = redaction.text, redaction.changed
            self.store_blob(kept, digest)
            files[mp.rel] = {
                "hash": digest,
                "size": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
                "credential": credential,
            }
        if save:
            self.save(seen)
            self.prune_blobs(seen)
