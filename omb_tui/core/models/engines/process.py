"""One engine call's process: started in an empty temporary folder, in a process group of its own, read with
bounds (its whole time by the wall clock, its output's size), and ended whole: no process outlives its call.

docs/models.md, "Engines". The folder is removed after the call, whatever happened; the group is ended after
the call too, so a child the agent left running (a server, a shell) goes with it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path

from ...memory import environment
from . import EngineCall, EngineFailed

MAX_OUTPUT_BYTES = 32 * 1024 * 1024  # all an agent may print for one call; past it the call is ended
MAX_LINE_BYTES = 16 * 1024 * 1024  # one line (one JSON event) at most
STDERR_KEPT_BYTES = 4096  # the end of stderr, for the sentence when the CLI fails
END_GRACE_S = 2.0  # after SIGTERM, how long the group has before SIGKILL
INSTALL_HINTS = {"claude-code": "install Claude Code", "codex": "install Codex", "acp": "install the agent"}

_EOF = object()
_ALARM = object()
ALARM_WINDOW_BYTES = 1024  # how much of stderr's previous chunk an alarm may straddle


@contextlib.contextmanager
def empty_folder() -> Iterator[Path]:
    """A new empty folder only this user can read, removed afterwards with whatever the agent left in it."""
    folder = Path(tempfile.mkdtemp(prefix="omb-engine-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def resolve_program(call: EngineCall, environ: Mapping[str, str] | None = None) -> str:
    """The engine's program as a path; EngineFailed naming it when it is not on PATH."""
    environ = environment.current() if environ is None else environ
    name = call.command[0] if call.command else ""
    found = shutil.which(name, path=environ.get("PATH")) if name else None
    if found is None:
        hint = INSTALL_HINTS.get(call.instance.engine or "", "install it")
        raise EngineFailed(f"`{name}` is not on PATH: {hint} or set `command` in instance {call.instance.id!r}")
    return found


class AgentProcess:
    """A started agent CLI: its stdout read line by line within the call's time, its stdin open for a protocol
    (ACP) or closed after the prompt, its stderr's end kept, and watched for `stderr_alarm` where a CLI reports
    on stderr only what must end the call (Codex's refused tool call). Use as a context manager: leaving it ends
    the group."""

    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        seconds: float,
        stdin_text: str | None = None,
        keep_stdin: bool = False,
        stderr_alarm: re.Pattern[bytes] | None = None,
    ) -> None:
        self.argv, self.ends_at = argv, time.monotonic() + seconds
        self.stderr_alarm = stderr_alarm
        self.alarm: re.Match[bytes] | None = None  # the alarm's match, once stderr showed it
        self.seconds = seconds
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self.flooded = False
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own group: ending the call ends every process it started
            )
        except OSError as exc:
            raise EngineFailed(f"`{argv[0]}` could not be started: {exc.strerror or exc}") from None
        self._readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        self._stderr_reader = self._readers[1]
        for reader in self._readers:
            reader.start()
        assert self.process.stdin is not None
        if stdin_text is not None:
            self.write(stdin_text.encode())
        if not keep_stdin:
            with contextlib.suppress(OSError):
                self.process.stdin.close()

    def __enter__(self) -> AgentProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()

    # ----- reading -----
    def _read_stdout(self) -> None:
        stream, total = self.process.stdout, 0
        assert stream is not None
        try:
            while True:
                line = stream.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                total += len(line)
                if total > MAX_OUTPUT_BYTES or (len(line) > MAX_LINE_BYTES and not line.endswith(b"\n")):
                    self.flooded = True
                    break
                self._lines.put(line)
        except (OSError, ValueError):  # the stream was closed under the reader: the call is over
            pass
        finally:
            self._lines.put(_EOF)
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        window = b""
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
                if self.stderr_alarm is not None and self.alarm is None:
                    self.alarm = self.stderr_alarm.search(window + chunk)
                    if self.alarm is not None:
                        self._lines.put(_ALARM)  # wakes lines(), which ends the group before anything else
                    window = (window + chunk)[-ALARM_WINDOW_BYTES:]
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size - len(self._stderr[0]) >= STDERR_KEPT_BYTES and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())
        with contextlib.suppress(OSError, ValueError):
            stream.close()

    def lines(self) -> Iterator[bytes]:
        """Each line the agent prints, until it closes stdout or stderr shows the alarm (then the group is ended
        first and `alarm` holds the match). EngineFailed when the call's time runs out or the agent prints more
        than MAX_OUTPUT_BYTES (the group is ended first)."""
        while True:
            left = self.ends_at - time.monotonic()
            if left <= 0:
                raise self._timed_out()
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is _ALARM:
                self.end()
                return
            if line is _EOF:
                if self.flooded:
                    self.end()
                    raise EngineFailed(
                        f"`{self.name}` printed more than {MAX_OUTPUT_BYTES // (1024 * 1024)} MB; the call was ended"
                    )
                return
            assert isinstance(line, bytes)
            yield line

    def write(self, data: bytes) -> None:
        """Send `data` on stdin (a prompt, a protocol message) within the call's time: an agent that stops reading
        cannot hold the call past it. A closed stdin means the agent is gone, which the reader sees."""
        stdin = self.process.stdin
        assert stdin is not None
        sent = threading.Event()
        try:
            descriptor = os.dup(stdin.fileno())  # its own: ending the call never waits on a writer, nor reuses it
        except (OSError, ValueError):
            return

        def send() -> None:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(descriptor, view) :]
            except OSError:
                pass
            finally:
                os.close(descriptor)
                sent.set()

        threading.Thread(target=send, daemon=True).start()
        if not sent.wait(max(0.0, self.ends_at - time.monotonic())):
            raise self._timed_out()

    def wait(self) -> int:
        """The exit status, within what is left of the call's time (the group is ended when it runs out)."""
        try:
            status = self.process.wait(timeout=max(0.0, self.ends_at - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise self._timed_out() from None
        self._stderr_reader.join(timeout=END_GRACE_S)  # its last words read, so an alarm in them is seen
        return status

    def _timed_out(self) -> EngineFailed:
        self.end()
        return EngineFailed(f"`{self.name}` did not finish within {self.seconds:g} s; the call was ended")

    @property
    def name(self) -> str:
        return Path(self.argv[0]).name

    def stderr_tail(self) -> str:
        """The end of what the agent wrote on stderr, as one line of text."""
        text = b"".join(self._stderr)[-STDERR_KEPT_BYTES:].decode("utf-8", "replace")
        return " ".join(text.split())

    # ----- ending -----
    def end(self) -> None:
        """End the whole group: SIGTERM, then SIGKILL after END_GRACE_S; safe to call more than once."""
        group = self.process.pid
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(group, sig)
            except (ProcessLookupError, PermissionError):
                break  # no process of the group is left
            if self._group_ended(END_GRACE_S):
                break
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=END_GRACE_S)
        with contextlib.suppress(OSError, ValueError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        # A pipe is closed only once its reader is done: closing it under a blocked read waits for that read, and a
        # process that left the group (setsid) may hold the pipe open for ever; its daemon reader then ends with it.
        for reader, stream in zip(self._readers, (self.process.stdout, self.process.stderr), strict=True):
            reader.join(timeout=END_GRACE_S)
            if not reader.is_alive() and stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()

    def _group_ended(self, seconds: float) -> bool:
        """Whether every process of the group ended within `seconds` (the leader is reaped as it ends)."""
        ends = time.monotonic() + seconds
        while True:
            self.process.poll()
            if not _group_alive(self.process.pid):
                return True
            if time.monotonic() >= ends:
                return False
            time.sleep(0.01)


def _group_alive(group: int) -> bool:
    """Whether a process of `group` still runs. Where /proc lists them, one that ended and waits for its parent
    to collect it (a zombie, which no signal reaches) does not count: an orphan's may never be collected."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == group and fields[0] not in ("Z", "X"):
                    return True
    return False
