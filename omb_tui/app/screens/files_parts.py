"""What the Files screen's parts (saving, whole-file operations) use of the screen, as a Protocol: the parts are
modules of their own that never import the screen, and the screen is what satisfies it.

Spec: memory.md, "Editing".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ...core.files.paths import FileKind
from ...core.journal.changes import FileSnapshot
from ...core.memory.drafts import Draft
from ...core.memory.store import MemoryStore
from .files_drafts import DraftsScreen

if TYPE_CHECKING:
    from ...core.turn.bot import Bot  # (the engine loads in a worker, not when the screen's module does)

T = TypeVar("T")


class FilesScreenParts(DraftsScreen, Protocol):
    files: list[tuple[str, FileKind]]
    set_aside_draft_rel: str | None
    layer_person: str | None  # whose layer of the bot the open file is of (None: the bot's own)

    async def in_thread(self, call: Callable[[Bot], T]) -> T: ...
    async def in_open_store(self, call: Callable[[MemoryStore], T], *, writing: bool = False) -> T: ...
    def load_files(self, select: str | None) -> Any: ...
    def show_file(self, rel: str) -> None: ...
    def show_snapshot(
        self, snapshot: FileSnapshot, memory_text: str | None = None, draft: Draft | None = None
    ) -> None: ...
    def show_saved(self, saved: FileSnapshot, typed: str) -> None: ...
    def highlighted_in_list(self) -> str | None: ...
    def target_kind(self) -> FileKind | None: ...
    def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...
    def refresh_bindings(self) -> None: ...
