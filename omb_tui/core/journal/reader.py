"""Reading a journal file's lines by byte offset: newest first from any point backwards, or a new tail forwards.

Spec: memory.md, "The journal". A journal can hold 100,000 rows, each carrying a full earlier text, so
nothing here holds the file or one object per line: lines are found by scanning blocks from the end, and
each is named by the byte offset where it starts, so a reader can come back to it later. `Journal` reads
its rows with this, and the app's journal list keeps only the offsets (in a `RowOrder`).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from operator import neg
from typing import BinaryIO

CHUNK = 1 << 20  # bytes read per step when scanning
FIRST_CHUNK = 1 << 16  # the first step is small so the newest rows come at once


def complete_end(handle: BinaryIO, size: int) -> int:
    """The byte position just after the last newline: a line still being written is left for later."""
    position = size
    while position > 0:
        step = min(FIRST_CHUNK, position)
        handle.seek(position - step)
        block = handle.read(step)
        newline = block.rfind(b"\n")
        if newline != -1:
            return position - step + newline + 1
        position -= step
    return 0


def lines_backward(
    handle: BinaryIO, end: int, *, first_chunk: int = FIRST_CHUNK, chunk: int = CHUNK
) -> Iterator[tuple[int, bytes, int, int]]:
    """(offset, block, start, stop) for each non-blank line that starts before `end`, newest first.

    The line is block[start:stop], without its newline; blocks are shared between lines so nothing is
    copied per line. When `end` is not just after a newline, the bytes before it (a torn or unfinished
    last line) are the newest line.
    """
    position = end
    carry = b""  # the start of a line whose beginning lies in earlier bytes, without its newline
    step = first_chunk
    newest = True
    while position > 0:
        step = min(step, position)
        position -= step
        handle.seek(position)
        block = handle.read(step) + carry
        stop = len(block)  # where the line being looked at ends
        if newest and block.endswith(b"\n"):
            stop -= 1
        newest = False
        while True:
            newline = block.rfind(b"\n", 0, stop)
            if newline == -1:
                break
            if stop - newline > 1:
                yield position + newline + 1, block, newline + 1, stop
            stop = newline
        carry = block[:stop]
        step = chunk
    if carry:
        yield 0, carry, 0, len(carry)


def lines_forward(handle: BinaryIO, start: int) -> tuple[list[tuple[int, bytes]], int]:
    """Complete lines from `start` to the end of the file, and the position after the last newline."""
    handle.seek(start)
    found: list[tuple[int, bytes]] = []
    position = start
    for line in iter(handle.readline, b""):
        if not line.endswith(b"\n"):
            break  # still being written
        if line.strip():
            found.append((position, line[:-1]))
        position += len(line)
    return found, position


class RowOrder:
    """Line offsets newest first: rows appended while open (`newer`, file order), then `older`."""

    __slots__ = ("newer", "older")

    def __init__(self) -> None:
        self.newer = array("q")  # ascending: appended as the file grows
        self.older = array("q")  # descending: extended as the backward scan goes on

    def __len__(self) -> int:
        return len(self.newer) + len(self.older)

    def at(self, index: int) -> int:
        count = len(self.newer)
        return self.newer[count - 1 - index] if index < count else self.older[index - count]

    def index_of(self, offset: int) -> int:
        """Where a row is shown, or where it would be (rows are ordered by offset, newest first)."""
        count = len(self.newer)
        if count and offset >= self.newer[0]:
            return count - 1 - min(bisect_left(self.newer, offset), count - 1)
        return count + bisect_left(self.older, -offset, key=neg)
