"""The server's log never holds up a request: lines go into a bounded queue, a thread writes them out.

Spec: memory.md, "Routes" (docs/serve.md, "Slow, idle and bad clients"). A stderr that nobody reads (a pipe whose
reader stopped) blocks whoever writes to it once the pipe's buffer is full; written from the event loop, that
stopped every request. Here only the writer thread waits; when the queue is full, lines are dropped and counted,
and the count is written as soon as the writer can write again.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import queue
import threading

QUEUED_LINES = 1000
STOP = object()


class DroppingQueueHandler(logging.handlers.QueueHandler):
    """A QueueHandler that never waits: a full queue drops the record and counts it."""

    def __init__(self, lines: queue.Queue) -> None:
        super().__init__(lines)
        self._count_lock = threading.Lock()
        self._dropped = 0

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            with self._count_lock:
                self._dropped += 1

    def take_dropped(self) -> int:
        with self._count_lock:
            dropped, self._dropped = self._dropped, 0
        return dropped


def write_lines(lines: queue.Queue, handler: DroppingQueueHandler, targets: list[logging.Handler]) -> None:
    """The writer thread: each record to the handlers the root logger had, after a line for any dropped."""
    while True:
        record = lines.get()
        dropped = handler.take_dropped()
        if dropped:
            note = logging.makeLogRecord(
                {
                    "name": "omb_tui.server",
                    "levelno": logging.WARNING,
                    "levelname": "WARNING",
                    "msg": f"{dropped:,} log lines were dropped: stderr was not being read fast enough.",
                }
            )
            for target in targets:
                write_record(target, note)
        if record is STOP:
            return
        for target in targets:
            if record.levelno >= target.level:
                write_record(target, record)


def write_record(target: logging.Handler, record: logging.LogRecord) -> None:
    """With os.write on the stream's descriptor, holding no lock of the handler or of the stream: a write stuck on
    a full pipe then stops only this thread, and the process can still flush its handlers and exit."""
    try:
        descriptor = target.stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        target.handle(record)
        return
    data = (target.format(record) + "\n").encode("utf-8", "backslashreplace")
    try:
        while data:
            data = data[os.write(descriptor, data) :]
    except OSError:  # the reader is gone (EPIPE): nothing more can be told there
        pass


@contextlib.contextmanager
def log_off_the_event_loop():
    """While it lasts, the root logger's handlers (the command line's stderr) are fed by a thread."""
    root = logging.getLogger()
    targets = list(root.handlers) or [logging.StreamHandler()]
    lines: queue.Queue = queue.Queue(QUEUED_LINES)
    handler = DroppingQueueHandler(lines)
    writer = threading.Thread(target=write_lines, args=(lines, handler, targets), name="omb-serve-log", daemon=True)
    root.handlers = [handler]
    writer.start()
    try:
        yield handler
    finally:
        root.handlers = targets
        with contextlib.suppress(queue.Full):
            lines.put(STOP, timeout=2)
        writer.join(timeout=2)  # a stderr nobody reads keeps it waiting: it is a daemon, the process ends anyway
