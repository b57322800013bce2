"""`omb-tui hook session-start|prompt|stop` as an agent starts it, before every prompt a person types: the home's
service (mcp/service.py, with the library loaded already) does the hook's work and this process writes its answer,
in a fraction of the time a process importing the library takes (docs/agents.md, "The hooks and the service").

The standard library's lighter modules alone (json, socket and SHA-256 through their C parts: the modules import
re, enum, selectors and OpenSSL), and this package's `__init__` and mcp/address.py, which import no more (a test
checks what a hook answered so loads). The decisions:

- Only the hook commands install writes are answered so (`[--home DIR] hook NAME --bot ID [--person NAME]
  [--agent AGENT] [--home DIR]`, each option at most once); anything else (--help, a mistake, an option spelt
  another way) goes to the command line, which says it as before.
- The service is used when it runs, never started here: the agent's MCP server starts it with the session (and
  holds it while the session lasts), and a start costs a second the person would wait for.
- A restore waiting to be finished, or a clock shift that is no number, sends the hook to the command line first,
  which says it (`hook_here`).
- Whatever keeps the service from answering (none runs, it runs other code, it is busy past ANSWER_SECONDS, it
  ended in the middle, OMB_TUI_MCP_SERVICE=0) ends in the old way: the hook runs in this process, on the same
  payload, read as install writes it without building the command line's parser. A hook's work may be done twice
  so (a service killed while it wrote): every step of it is idempotent (a turn's messages are appended unless
  their ids are there).
- The answer is written as the command line writes it (`write_answer`, which cli/hook.py calls too): the same
  bytes on stdout and stderr, exit 0.
"""

from __future__ import annotations

import _socket
import io
import math
import os
import sys

from ..mcp import address

try:  # the json package's own C parts, without the package, which imports re: 4 ms of every hook
    from _json import encode_basestring_ascii as _quoted
    from _json import make_scanner as _make_scanner
except ImportError:  # an interpreter without them: the package's
    from json.encoder import encode_basestring_ascii as _quoted  # type: ignore[attr-defined]
    from json.scanner import make_scanner as _make_scanner

HOOK_NAMES = ("session-start", "prompt", "stop")  # hooks/run.py's HOOKS, named here so that no core loads
AGENT_NAMES = ("claude-code", "codex")  # cli/hook.py's choices
OPTIONS = ("--bot", "--person", "--agent", "--home")
MAX_PAYLOAD_BYTES = 16 * 1024 * 1024  # hooks/payload.py's: what the hook reads of stdin at most (a test keeps both)
ANSWER_SECONDS = 10.0  # a service that has not answered by then is busy or stuck: this process does the work
MAX_ANSWER_BYTES = 64 * 1024 * 1024
RESTORE_STAGE = ".restore-stage"  # core/files/paths.Home.restore_stage: the command line finishes a restore first
CLOCK_SHIFT = "OMB_TUI_CLOCK_SHIFT"  # core/base/clock.SHIFT_ENV


class HookCall:
    """A hook command the service may answer: the hook, its bot, person and agent, and --home's folder."""

    __slots__ = ("name", "bot", "person", "agent", "home", "root")

    def __init__(self, name: str, bot: str, person: str | None, agent: str, home: str | None) -> None:
        self.name, self.bot, self.person, self.agent, self.home = name, bot, person, agent, home
        self.root = ""  # the home's folder, resolved (hook_here)


def hook_call(argv: list[str]) -> HookCall | None:
    """The hook `argv` runs, in the words install writes them; None for anything else."""
    rest = list(argv)
    home = None
    if rest[:1] == ["--home"] and len(rest) > 1:
        home, rest = rest[1], rest[2:]
    elif rest[:1] and rest[0].startswith("--home="):
        home, rest = rest[0][len("--home=") :], rest[1:]
    if len(rest) < 2 or rest[0] != "hook" or rest[1] not in HOOK_NAMES:
        return None
    name, rest = rest[1], rest[2:]
    given: dict[str, str] = {}
    while rest:
        option, equals, value = rest.pop(0).partition("=")
        if option not in OPTIONS or option in given:
            return None
        if not equals:
            if not rest:
                return None
            value = rest.pop(0)
        if value.startswith("-"):  # the parser's to read (it may be an option, or a mistake it says)
            return None
        given[option] = value
    home = given.get("--home", home)
    bot, agent = given.get("--bot", ""), given.get("--agent", AGENT_NAMES[0])
    if not bot.strip() or (home is not None and not home.strip()) or agent not in AGENT_NAMES:
        return None
    return HookCall(name, bot, given.get("--person"), agent, home)


def home_root(home: str | None) -> str:
    """The home's folder as the core's Home finds it: --home, else $OMB_HOME, else ~/.openmausbot; resolved."""
    named = home or os.environ.get("OMB_HOME")
    folder = os.path.expanduser(named) if named else os.path.join(os.path.expanduser("~"), ".openmausbot")
    return os.path.realpath(folder)


def hook_here(argv: list[str]) -> HookCall | None:
    """The hook `argv` names, when this process may answer it without the command line (through the service, else
    running it here without building the parser, which costs a hook's start-up): None when it is not one install
    writes, a restore waits to be finished, or the clock's shift is no number (the command line says those)."""
    call = hook_call(argv)
    if call is None or not _clock_readable():
        return None
    call.root = home_root(call.home)
    return None if os.path.isdir(os.path.join(call.root, RESTORE_STAGE)) else call


def answer_through_service(call: HookCall) -> int | None:
    """The hook answered by the home's service and written out: its exit code. None when the service cannot answer
    it: it then runs in this process (stdin as it was, or the bytes read)."""
    if not address.switched_on():
        return None
    try:
        connection = address.open_socket(address.socket_path(call.root))
    except (address.Unreachable, OSError):
        return None
    if connection is None:
        return None
    payload = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    answer = _ask(connection, call, payload)
    if answer is None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(payload), encoding="utf-8")  # read again in this process
        return None
    write_answer(*answer)
    return 0


def answer_here(name: str, home: str | None, bot: str, person: str | None, agent: str) -> int:
    """The hook run in this process (the service could not answer it) and its answer written: exit 0 always."""
    from ..hooks.answer import answer_hook

    answer = answer_hook(name, home, bot, sys.stdin.buffer, person=person, agent=agent)
    try:
        write_answer(answer.stdout, answer.stderr)  # as the service's answer is written: the same bytes
    except BrokenPipeError:  # the agent stopped reading: nobody to say it to
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _ask(connection: _socket.socket, call: HookCall, payload: bytes) -> tuple[str, str] | None:
    """The service's answer to the call (stdout, stderr), or None when it gave none."""
    hello = {
        "omb": address.PROTOCOL,
        "stamp": address.code_stamp(),
        "hook": call.name,
        "home": call.root,
        "bot": call.bot,
        "person": call.person,
        "agent": call.agent,
        "env": dict(os.environ),  # the hook's variables, as a session's are (core/memory/environment.py)
    }
    received = bytearray()
    try:
        connection.settimeout(ANSWER_SECONDS)
        connection.sendall(json_text(hello).encode() + b"\n" + payload)
        connection.shutdown(_socket.SHUT_WR)  # the payload's end, as stdin's
        while len(received) <= MAX_ANSWER_BYTES and (part := connection.recv(1 << 16)):
            received += part
    except OSError:  # TimeoutError too
        return None
    finally:
        connection.close()
    try:
        answer = json_value(received.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError too; nesting past the stack
        return None
    if not isinstance(answer, dict) or answer.get("ok") is not True:
        return None
    stdout, stderr = answer.get("stdout"), answer.get("stderr")
    return (stdout, stderr) if isinstance(stdout, str) and isinstance(stderr, str) else None


def json_text(value: object) -> str:
    """`value` (None, True, False, an int, a str, or a dict of them) as json.dumps writes it (ASCII, ", " and ": ")."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quoted(str(key))}: {json_text(item)}" for key, item in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not written in a hook's hello")


class _AsJsonLoads:
    """What the json package's scanner reads off its decoder, as json.loads sets it."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity and -Infinity, as json.loads reads them
    memo: dict = {}


def json_value(text: str) -> object:
    """The one JSON value `text` holds, with white space around it, as json.loads reads it; ValueError when it is
    not one."""
    start = len(text) - len(text.lstrip(" \t\n\r"))
    try:
        value, end = _make_scanner(_AsJsonLoads())(text, start)
    except StopIteration:
        raise ValueError("no JSON value") from None
    if text[end:].strip(" \t\n\r"):
        raise ValueError("more than one JSON value")
    return value


def _clock_readable() -> bool:
    """False when the clock's shift is set and no number: the command line says so on stderr, so it answers."""
    raw = os.environ.get(CLOCK_SHIFT)
    if not raw:
        return True
    try:
        return math.isfinite(float(raw))
    except ValueError:
        return False


def write_answer(stdout: str, stderr: str) -> None:
    """A hook's answer as its process writes it: stderr's line through the text stream (as print writes it),
    stdout byte for byte, UTF-8 whatever the terminal's encoding (as cli/output.write_text)."""
    if stderr:
        sys.stderr.write(stderr)
        sys.stderr.flush()
    if stdout:
        sys.stdout.flush()
        sys.stdout.buffer.write(stdout.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()
