"""Where the repository and its tests are, whichever folder a test module sits in, and scripts/dev.py loaded as a
module (its functions are tested without running the set-up)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent


def load_dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("omb_dev", ROOT / "scripts" / "dev.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
