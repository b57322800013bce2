"""Where the home's service listens and which code it runs: what every process that reaches it needs, and no more.

The standard library's lightest modules alone (no pathlib, no typing, no subprocess): the MCP front (front.py)
and the hooks' front (cli/hook_front.py) both start from here, and the hooks' front runs before every prompt a
person types (docs/agents.md, "The MCP service"). front.py says the decisions: one service per home, clock and
time zone, on a Unix socket in a folder only this user can open.
"""

from __future__ import annotations

import _socket  # the socket module's C part: the module itself imports enum and selectors, 3 ms of every hook
import os
import stat
import sys

PROTOCOL = 2  # the hello's shape (2: the client's environment; a last line); a service of another is stale
ENV_SWITCH = "OMB_TUI_MCP_SERVICE"  # "0": the server runs in the client's process, as before the service
CARRIED = ("TZ", "OMB_TUI_CLOCK_SHIFT")  # a service keeps the clock it started with: one per clock
PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # omb_tui/, whose code a service runs


def _sha256_type():
    """SHA-256 from the interpreter's own module (the digests hashlib's give): hashlib loads OpenSSL first, 3 ms of
    every hook."""
    for name in ("_sha2", "_sha256") if sys.version_info >= (3, 12) else ("_sha256",):  # (a miss searches sys.path)
        try:
            return __import__(name).sha256
        except (ImportError, AttributeError):
            continue
    import hashlib

    return hashlib.sha256


_sha256 = _sha256_type()


class Unreachable(Exception):
    """The service could not take this session: the sentence says why; the server then runs in this process."""


def runtime_folder() -> str:
    """This user's folder for the service's socket, lock and log (made 0700; checked, never trusted)."""
    base = os.environ.get("XDG_RUNTIME_DIR") or temporary_folder()
    folder = os.path.join(base, f"omb-tui-{os.getuid()}")
    try:  # (not contextlib.suppress: contextlib costs a hook 4 ms)
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    found = os.lstat(folder)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid() or found.st_mode & 0o077:
        raise Unreachable(f"{folder} is not a folder only you can open, so no service is used.")
    return folder


def temporary_folder() -> str:
    """The temporary folder as tempfile.gettempdir() picks it ($TMPDIR, $TEMP, $TMP, /tmp, /var/tmp, /usr/tmp, else
    here: the first folder this user may write in), without importing tempfile, which costs a hook ~5 ms."""
    named = [os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")]
    for folder in [*filter(None, named), "/tmp", "/var/tmp", "/usr/tmp"]:
        if os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return os.path.abspath(folder)
    return os.getcwd()


def service_key(root: str | os.PathLike[str]) -> str:
    """Which service serves a home: its folder, with the clock and time zone the service keeps."""
    given = [os.path.realpath(root), *(f"{name}={os.environ.get(name, '')}" for name in CARRIED)]
    return _sha256("\0".join(given).encode("utf-8", "surrogateescape")).hexdigest()[:20]


def socket_path(root: str | os.PathLike[str]) -> str:
    """The socket of the service serving the home at `root` (Unreachable: no folder only this user can open)."""
    return os.path.join(runtime_folder(), f"mcp-{service_key(root)}.sock")


def code_stamp() -> str:
    """The code a service runs: every module's size and time; an install or an edit changes it."""
    found: list[str] = []
    folders = [PACKAGE]
    while folders:  # (os.walk would list the bytecode folders too: a hook asks at every prompt)
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py") and entry.is_file():
                    known = entry.stat()
                    found.append(f"{entry.path}:{known.st_size}:{known.st_mtime_ns};")
                elif entry.name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
    digest = _sha256(str(PROTOCOL).encode())
    digest.update("".join(sorted(found)).encode("utf-8", "replace"))
    return digest.hexdigest()[:20]


def switched_on() -> bool:
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "no", "off", "false")


def open_socket(path: str | os.PathLike[str]) -> _socket.socket | None:
    """A connection to the socket at `path`; None when no one listens there."""
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.connect(os.fspath(path))
    except OSError:
        connection.close()
        return None
    return connection
