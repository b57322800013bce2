"""Moved to `omb_tui.core.redaction.redact`: this path was documented (docs/library.md), so it keeps working for one release
and warns when imported (docs/architecture.md, "Moved modules")."""

import warnings

from ..redaction.redact import *  # noqa: F403 - the moved module's public names, as they were here

warnings.warn(
    "omb_tui.core.memory.redact moved to omb_tui.core.redaction.redact; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
