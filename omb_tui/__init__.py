"""omb-tui: keep and review an AI bot's long-term memory.

The front door for library users is `from omb_tui import Memory` (omb_tui/library.py, docs/library.md). It loads
on first use (PEP 562's module `__getattr__`): the command line and the app import this package at every start,
and must not pay for the engine then.
"""

__version__ = "0.1.0"

# omb_tui.library.__all__, named here so that listing them does not import the engine (a test keeps them equal).
FRONT_DOOR = (
    "Memory",
    "BotMemory",
    "Turn",
    "Actor",
    "AddResult",
    "ForgetResult",
    "PreferResult",
    "Gauge",
    "RecallResult",
    "SearchResult",
    "Brief",
    "JournalRow",
    "MemoryInputError",
    "InvalidName",
    "NotFound",
    "OutsideWorkspace",
    "LinkRefused",
    "BrokenFile",
    "StaleHash",
)
__all__ = ["__version__", *FRONT_DOOR]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; type checkers read the name as True
if TYPE_CHECKING:
    from .library import (
        Actor,
        AddResult,
        BotMemory,
        Brief,
        BrokenFile,
        ForgetResult,
        Gauge,
        InvalidName,
        JournalRow,
        LinkRefused,
        Memory,
        MemoryInputError,
        NotFound,
        OutsideWorkspace,
        PreferResult,
        RecallResult,
        SearchResult,
        StaleHash,
        Turn,
    )


def __getattr__(name: str) -> object:
    if name not in FRONT_DOOR:
        raise AttributeError(f"module 'omb_tui' has no attribute {name!r}")
    from . import library

    value = getattr(library, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *FRONT_DOOR})
