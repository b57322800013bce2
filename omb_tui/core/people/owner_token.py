"""The owner's bearer token: made on the first start, kept in the home (0600), compared in constant time.

Every HTTP surface of a home asks for it (`omb-tui serve`'s routes, `omb-tui mcp --http`), so it is a file of the
home on the bottom floor, beside the settings, and neither surface imports the other for it."""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from pathlib import Path

from ..files.disk import atomic_write_bytes
from ..files.paths import Home, MemoryInputError, quoted, refuse_links

TOKEN_FILE = "serve-token"
TOKEN_PREFIX = "ombo_"  # the owner's token, told apart from a person's (ombp_) and redacted wherever it is written
TOKEN_BYTES = 32  # secrets.token_urlsafe(32): 43 characters, 256 bits
MIN_TOKEN_CHARS = 32  # a hand-written token shorter than this is refused
# One request's body, the most either of the owner's servers (`serve`, `mcp --http`) reads: a memory file's earlier
# text is kept up to 1 MB, so a whole file fits twice over.
MAX_BODY_BYTES = 2 * 1024 * 1024
BODY_TOO_BIG = (
    f"The body is larger than {MAX_BODY_BYTES // (1024 * 1024)} MiB ({MAX_BODY_BYTES:,} bytes), the limit for one "
    "request; nothing was read or changed."
)


def token_path(home: Home) -> Path:
    return home.root / TOKEN_FILE


def load_or_create_token(home: Home) -> str:
    """The token in `<home>/serve-token`, made (0600, atomically) when there is none yet.

    A file others could read, a link, or a token too short to be secret is refused with one sentence: the token
    opens every bot's memory, so a weak one is never served. A token made before tokens had their prefix is kept
    and still opens the home."""
    path = token_path(home)
    refuse_links(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
        atomic_write_bytes(path, (token + "\n").encode("ascii"))  # mkstemp: 0600; refuses links on the way
        return token
    if not stat.S_ISREG(info.st_mode):
        raise MemoryInputError(f"{quoted(path)} is not a plain file; remove it and start again to make a new token.")
    if info.st_mode & 0o077:
        raise MemoryInputError(
            f"{quoted(path)} can be read by others (mode {stat.S_IMODE(info.st_mode):o}); "
            "run chmod 600 on it, or remove it to make a new token."
        )
    with open(path, "rb") as handle:
        token = handle.read().decode("ascii", "replace").strip()
    if len(token) < MIN_TOKEN_CHARS or not token.isprintable() or " " in token:
        raise MemoryInputError(
            f"The token in {quoted(path)} is not one of at least {MIN_TOKEN_CHARS} characters; "
            "remove the file to make a new one."
        )
    return token


def token_matches(given: str, token: str) -> bool:
    """Constant time, so how long a wrong guess takes says nothing about how much of it was right."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode("utf-8"))
