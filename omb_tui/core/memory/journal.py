"""Moved to `omb_tui.core.journal.journal`: this path was documented (docs/library.md), so it keeps working for one release
and warns when imported (docs/architecture.md, "Moved modules")."""

import warnings

from ..journal.journal import *  # noqa: F403 - the moved module's public names, as they were here

warnings.warn(
    "omb_tui.core.memory.journal moved to omb_tui.core.journal.journal; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
