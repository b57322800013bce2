"""A regular expression compiled the first time it is used (`lazy`): for the modules a hook imports at every
prompt, whose patterns most turns never need (redaction's 170, a memory file's parser)."""

from __future__ import annotations

import re
from typing import Any, cast


class _LazyPattern:
    """A regular expression compiled the first time it is used. Redaction has some 170 patterns, and compiling them
    all took 60 ms of every process that imports it (a hook, at every prompt); a rule runs only when its literal gate
    is in the text, so most texts never need most of them. The methods redaction calls are spelled out, so a call
    costs one attribute lookup more than the compiled pattern's own."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def _get(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return compiled

    def search(self, *args: Any) -> Any:
        return (self._compiled or self._get()).search(*args)

    def match(self, *args: Any) -> Any:
        return (self._compiled or self._get()).match(*args)

    def fullmatch(self, *args: Any) -> Any:
        return (self._compiled or self._get()).fullmatch(*args)

    def finditer(self, *args: Any) -> Any:
        return (self._compiled or self._get()).finditer(*args)

    def findall(self, *args: Any) -> Any:
        return (self._compiled or self._get()).findall(*args)

    def sub(self, *args: Any) -> Any:
        return (self._compiled or self._get()).sub(*args)

    def split(self, *args: Any) -> Any:
        return (self._compiled or self._get()).split(*args)

    @property
    def pattern(self) -> str:
        return self._args[0]

    def __getattr__(self, name: str) -> Any:  # anything else a compiled pattern has
        return getattr(self._get(), name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done when the pattern is first used."""
    return cast(re.Pattern[str], _LazyPattern(pattern, flags))
